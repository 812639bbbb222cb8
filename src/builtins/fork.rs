//! `os.fork()` and `os.register_at_fork()` (`Modules/posixmodule.c`: `os_fork_impl`,
//! `PyOS_BeforeFork`, `PyOS_AfterFork_Parent`, `PyOS_AfterFork_Child`), what
//! `concurrent.futures.ProcessPoolExecutor` starts its workers with.
//!
//! The registered functions run before the fork (last registered first) and after it, in
//! the parent or in the child (first registered first); an error in one is reported as
//! unraisable and the rest still run. The child is a copy of the whole program in which
//! only the thread that forked goes on: apy's other threads are left behind
//! ([`crate::vm::thread_list::Threads::keep_only_running`]), and since the process has no
//! other native thread left to wait for the interpreter's, the child's run ends the
//! process itself (`interp::run_with`). apy forks from the main thread only: its threads
//! share one native thread, and a child forked from another one would have none to go on
//! with once that thread ended.

use crate::common::process as sys;
use crate::vm::args::{Signature, check_arity};
use crate::vm::object::KwArgs;
use crate::vm::sandbox::Capability;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

const REGISTER_AT_FORK: Signature = Signature::keywords(
    "",
    "register_at_fork",
    &["before", "after_in_child", "after_in_parent"],
    0,
    0,
)
.keyword_only(3);

/// `os.register_at_fork(*, before=None, after_in_child=None, after_in_parent=None)`.
pub fn register_at_fork(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    if !args.is_empty() {
        return Err(vm.type_error("register_at_fork() takes no positional arguments"));
    }
    let slots = REGISTER_AT_FORK.bind(vm, args, kw)?;
    if slots.iter().all(Option::is_none) {
        return Err(vm.type_error("At least one argument is required."));
    }
    for (name, slot) in REGISTER_AT_FORK.params.iter().zip(&slots) {
        if let Some(f) = slot
            && !vm.is_callable(f)
        {
            let type_name = vm.type_name(f);
            return Err(vm.type_error(format!("'{name}' must be callable, not {type_name}")));
        }
    }
    let mut slots = slots.into_iter();
    let hooks = &mut vm.fork_hooks;
    hooks.before.extend(slots.next().flatten());
    hooks.after_in_child.extend(slots.next().flatten());
    hooks.after_in_parent.extend(slots.next().flatten());
    Ok(Value::None)
}

/// `os.fork()`: the child's pid in the parent, 0 in the child.
pub fn fork(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
    check_arity(vm, "posix.fork", args, 0, 0)?;
    vm.require(Capability::Processes, "os.fork()")?;
    if !vm.threads.on_main() {
        return Err(vm.runtime_error(
            "apy forks from the main thread only: os.fork() in another thread is not supported by apy",
        ));
    }
    let before = vm.fork_hooks.before.clone();
    run_hooks(vm, before.iter().rev());
    let threads = vm.threads.active();
    let pid = sys::fork().map_err(|e| vm.os_error(&e, None))?;
    if pid == 0 {
        vm.threads.keep_only_running();
        let child = vm.fork_hooks.after_in_child.clone();
        run_hooks(vm, child.iter());
        return Ok(Value::Int(0));
    }
    if threads {
        let me = crate::vm::sandbox::process_id();
        vm.deprecation_in_main(&format!(
            "This process (pid={me}) is multi-threaded, use of fork() may lead to deadlocks in the child."
        ));
    }
    let parent = vm.fork_hooks.after_in_parent.clone();
    run_hooks(vm, parent.iter());
    Ok(Value::Int(pid.into()))
}

/// Calls each hook with no arguments; an error is reported as unraisable
/// ("Exception ignored in: <function …>") and the next one runs. The site of the
/// `os.fork()` call is kept for its warning.
fn run_hooks<'a>(vm: &mut Vm, hooks: impl Iterator<Item = &'a Value>) {
    let site = vm.caller.take();
    for hook in hooks {
        if let Err(exc) = vm.call(hook, &[], &[]) {
            vm.write_unraisable(hook, exc, None);
        }
    }
    vm.caller = site;
}
