//! `_signal`, the native core of `signal` (`Modules/signalmodule.c`; `stdlib/signal.apy`
//! makes the `Signals` and `Handlers` enums over it): the signal numbers, `SIG_DFL`,
//! `SIG_IGN`, `NSIG`, and natively `signal`, `getsignal`, `raise_signal`, `strsignal`,
//! `valid_signals`, `default_int_handler` and `alarm`. A Python handler is caught by
//! `vm::interrupt` and run by `vm::signals`. A page in a browser has no signals: there
//! the module has the numbers only.

use crate::vm::Vm;
use crate::vm::value::Value;

/// `NSIG`: one more than the highest signal number.
pub const NSIG: i32 = 65;

/// The signals by name, with Linux's numbers (those of `libc`, a test checks), aliases
/// included, as CPython's `_signal` has them.
const SIGNALS: &[(&str, i32)] = &[
    ("SIGHUP", 1),
    ("SIGINT", 2),
    ("SIGQUIT", 3),
    ("SIGILL", 4),
    ("SIGTRAP", 5),
    ("SIGABRT", 6),
    ("SIGIOT", 6),
    ("SIGBUS", 7),
    ("SIGFPE", 8),
    ("SIGKILL", 9),
    ("SIGUSR1", 10),
    ("SIGSEGV", 11),
    ("SIGUSR2", 12),
    ("SIGPIPE", 13),
    ("SIGALRM", 14),
    ("SIGTERM", 15),
    ("SIGSTKFLT", 16),
    ("SIGCHLD", 17),
    ("SIGCLD", 17),
    ("SIGCONT", 18),
    ("SIGSTOP", 19),
    ("SIGTSTP", 20),
    ("SIGTTIN", 21),
    ("SIGTTOU", 22),
    ("SIGURG", 23),
    ("SIGXCPU", 24),
    ("SIGXFSZ", 25),
    ("SIGVTALRM", 26),
    ("SIGPROF", 27),
    ("SIGWINCH", 28),
    ("SIGIO", 29),
    ("SIGPOLL", 29),
    ("SIGPWR", 30),
    ("SIGSYS", 31),
    ("SIGRTMIN", 34),
    ("SIGRTMAX", 64),
];

/// The `_signal` module.
pub fn module(vm: &mut Vm) -> Value {
    let mut attrs: Vec<(&str, Value)> = SIGNALS
        .iter()
        .map(|&(name, n)| (name, Value::Int(n.into())))
        .collect();
    attrs.extend([
        ("SIG_DFL", Value::Int(0)),
        ("SIG_IGN", Value::Int(1)),
        ("NSIG", Value::Int(NSIG.into())),
    ]);
    #[cfg(not(target_arch = "wasm32"))]
    native::add_functions(vm, &mut attrs);
    vm.new_module("_signal", attrs)
}

#[cfg(not(target_arch = "wasm32"))]
pub use native::{is_valid, set_default, set_handler};

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::ffi::CStr;

    use crate::vm::args::{check_arity, check_kwargs};
    use crate::vm::interrupt::{self, Disposition};
    use crate::vm::object::{KwArgs, NativeFn};
    use crate::vm::sandbox::Capability;
    use crate::vm::value::Value;
    use crate::vm::{PyResult, Vm};

    use super::NSIG;

    /// The functions of `_signal`, added to `attrs`.
    pub(super) fn add_functions(vm: &mut Vm, attrs: &mut Vec<(&str, Value)>) {
        ensure_table(vm);
        let functions: [(&'static str, NativeFn); 6] = [
            ("signal", signal),
            ("getsignal", getsignal),
            ("raise_signal", raise_signal),
            ("strsignal", strsignal),
            ("valid_signals", valid_signals),
            ("alarm", alarm),
        ];
        for (name, f) in functions {
            attrs.push((name, vm.native(name, f)));
        }
        attrs.push((
            "default_int_handler",
            vm.signals.default_int_handler.clone(),
        ));
    }

    /// Fills in the VM's handler table, once: each signal's handler as the process has it
    /// at start (`SIG_IGN`, `default_int_handler` for SIGINT routed to the Ctrl-C flag,
    /// else `SIG_DFL`; None for a number the system refuses).
    fn ensure_table(vm: &mut Vm) {
        if !vm.signals.handlers.is_empty() {
            return;
        }
        let default_int = vm.native("default_int_handler", default_int_handler);
        vm.signals.handlers = (0..NSIG)
            .map(|n| match interrupt::disposition(n).filter(|_| n > 0) {
                None => Value::None,
                Some(Disposition::Ignore) => Value::Int(1),
                Some(Disposition::Interrupt) => default_int.clone(),
                Some(Disposition::Default | Disposition::Catch) => Value::Int(0),
            })
            .collect();
        vm.signals.default_int_handler = default_int;
    }

    /// A signal number argument, checked to be one (`signal number out of range`).
    fn signal_number(vm: &mut Vm, v: &Value) -> PyResult<i32> {
        let n = vm.expect_c_int(v)?;
        if !(1..NSIG).contains(&n) {
            return Err(vm.value_error("signal number out of range"));
        }
        Ok(n)
    }

    /// `signal.signal(signalnum, handler)`: sets what the signal does (`SIG_DFL`, `SIG_IGN`
    /// or a callable) and returns the previous handler. The pending handlers run first.
    /// Under `--sandbox` only SIGINT's may change: the other dispositions are the host's
    /// (a fuzzer's timer is SIGALRM, its crash reports SIGSEGV's and SIGABRT's).
    pub fn set_handler(vm: &mut Vm, signum: i32, handler: Value) -> PyResult<Value> {
        ensure_table(vm);
        if !vm.threads.on_main() {
            return Err(vm.value_error("signal only works in main thread of the main interpreter"));
        }
        if !(1..NSIG).contains(&signum) {
            return Err(vm.value_error("signal number out of range"));
        }
        let disposition = match &handler {
            // SIGINT's default_int_handler is the Ctrl-C flag, as before any handler.
            h if signum == libc::SIGINT && h.is(&vm.signals.default_int_handler) => {
                Disposition::Interrupt
            }
            h if vm.is_callable(h) => Disposition::Catch,
            Value::Int(1) => Disposition::Ignore,
            Value::Int(0) => Disposition::Default,
            _ => {
                return Err(vm.type_error(
                    "signal handler must be signal.SIG_IGN, signal.SIG_DFL, or a callable object",
                ));
            }
        };
        if signum != libc::SIGINT {
            vm.require(Capability::Processes, &format!("signal.signal({signum})"))?;
        }
        vm.check_signals()?;
        interrupt::set_disposition(signum, disposition).map_err(|e| vm.os_error(&e, None))?;
        Ok(std::mem::replace(
            &mut vm.signals.handlers[signum as usize],
            handler,
        ))
    }

    /// Gives `signum` its handler at start back: `SIG_DFL`, or `default_int_handler` for
    /// SIGINT (asyncio's `remove_signal_handler`); the previous handler.
    pub fn set_default(vm: &mut Vm, signum: i32) -> PyResult<Value> {
        ensure_table(vm);
        let handler = match signum {
            libc::SIGINT => vm.signals.default_int_handler.clone(),
            _ => Value::Int(0),
        };
        set_handler(vm, signum, handler)
    }

    fn signal(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
        check_kwargs(vm, "signal", kw, &[])?;
        if args.len() != 2 {
            return Err(vm.type_error(format!("signal expected 2 arguments, got {}", args.len())));
        }
        let signum = vm.expect_c_int(&args[0])?;
        set_handler(vm, signum, args[1].clone())
    }

    fn getsignal(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
        check_kwargs(vm, "getsignal", kw, &[])?;
        check_arity(vm, "getsignal", args, 1, 1)?;
        let signum = signal_number(vm, &args[0])?;
        Ok(vm.signals.handlers[signum as usize].clone())
    }

    /// `signal.raise_signal(signalnum)`: sends the signal to the interpreter's thread, then
    /// runs its handler (a program's signals go through the sandbox's gate, as `os.kill`).
    fn raise_signal(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
        check_kwargs(vm, "raise_signal", kw, &[])?;
        check_arity(vm, "raise_signal", args, 1, 1)?;
        let signum = vm.expect_c_int(&args[0])?;
        vm.require(
            Capability::Processes,
            &format!("signal.raise_signal({signum})"),
        )?;
        vm.flush_stdout();
        // SAFETY: raise(3) with any number either sends it or fails with EINVAL.
        if unsafe { libc::raise(signum) } != 0 {
            let error = std::io::Error::last_os_error();
            return Err(vm.os_error(&error, None));
        }
        vm.check_signals()?;
        Ok(Value::None)
    }

    /// `signal.strsignal(signalnum)`: the system's description, None for a number it does
    /// not know.
    fn strsignal(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
        check_kwargs(vm, "strsignal", kw, &[])?;
        check_arity(vm, "strsignal", args, 1, 1)?;
        let signum = signal_number(vm, &args[0])?;
        // SAFETY: strsignal returns a string valid until the next call on this thread,
        // copied at once.
        let text = unsafe {
            let text = libc::strsignal(signum);
            if text.is_null() {
                return Ok(Value::None);
            }
            CStr::from_ptr(text).to_string_lossy().into_owned()
        };
        Ok(match text.starts_with("Unknown signal") {
            true => Value::None,
            false => Value::str(text),
        })
    }

    /// Whether `signum` is a signal of the system (`valid_signals()`: not one of those
    /// the C library keeps for itself).
    pub fn is_valid(signum: i32) -> bool {
        // SAFETY: fills a local signal set and asks it about a number.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut set);
            (1..NSIG).contains(&signum) && libc::sigismember(&set, signum) == 1
        }
    }

    fn valid_signals(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
        check_arity(vm, "valid_signals", args, 0, 0)?;
        let numbers = (1..NSIG)
            .filter(|&n| is_valid(n))
            .map(|n| Value::Int(n.into()))
            .collect();
        vm.new_set(numbers, false)
    }

    /// `signal.default_int_handler(signalnum, frame)`: raises KeyboardInterrupt.
    fn default_int_handler(vm: &mut Vm, args: &[Value], _: &KwArgs) -> PyResult<Value> {
        if args.len() != 2 {
            return Err(vm.type_error(format!(
                "default_int_handler expected 2 arguments, got {}",
                args.len()
            )));
        }
        Err(vm.new_exc_args(&vm.types.keyboard_interrupt.clone(), vec![]))
    }

    /// `signal.alarm(seconds)`: SIGALRM in `seconds` (0: none); the seconds the previous
    /// alarm had left.
    fn alarm(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
        check_kwargs(vm, "alarm", kw, &[])?;
        check_arity(vm, "alarm", args, 1, 1)?;
        let seconds = vm.expect_c_int(&args[0])?;
        // The process's one real-time timer (a fuzzer's too): the host's under --sandbox.
        vm.require(Capability::Processes, &format!("signal.alarm({seconds})"))?;
        // SAFETY: alarm(2) only sets the process's timer (C's conversion to unsigned, as
        // CPython's).
        let left = unsafe { libc::alarm(seconds as libc::c_uint) };
        Ok(Value::Int(left.into()))
    }

    #[cfg(test)]
    mod tests {
        /// The numbers of `_signal` are the system's.
        #[test]
        fn the_signal_numbers_are_libcs() {
            let libc_numbers = [
                ("SIGHUP", libc::SIGHUP),
                ("SIGINT", libc::SIGINT),
                ("SIGQUIT", libc::SIGQUIT),
                ("SIGILL", libc::SIGILL),
                ("SIGTRAP", libc::SIGTRAP),
                ("SIGABRT", libc::SIGABRT),
                ("SIGIOT", libc::SIGIOT),
                ("SIGBUS", libc::SIGBUS),
                ("SIGFPE", libc::SIGFPE),
                ("SIGKILL", libc::SIGKILL),
                ("SIGUSR1", libc::SIGUSR1),
                ("SIGSEGV", libc::SIGSEGV),
                ("SIGUSR2", libc::SIGUSR2),
                ("SIGPIPE", libc::SIGPIPE),
                ("SIGALRM", libc::SIGALRM),
                ("SIGTERM", libc::SIGTERM),
                ("SIGSTKFLT", libc::SIGSTKFLT),
                ("SIGCHLD", libc::SIGCHLD),
                ("SIGCLD", libc::SIGCHLD),
                ("SIGCONT", libc::SIGCONT),
                ("SIGSTOP", libc::SIGSTOP),
                ("SIGTSTP", libc::SIGTSTP),
                ("SIGTTIN", libc::SIGTTIN),
                ("SIGTTOU", libc::SIGTTOU),
                ("SIGURG", libc::SIGURG),
                ("SIGXCPU", libc::SIGXCPU),
                ("SIGXFSZ", libc::SIGXFSZ),
                ("SIGVTALRM", libc::SIGVTALRM),
                ("SIGPROF", libc::SIGPROF),
                ("SIGWINCH", libc::SIGWINCH),
                ("SIGIO", libc::SIGIO),
                ("SIGPOLL", libc::SIGPOLL),
                ("SIGPWR", libc::SIGPWR),
                ("SIGSYS", libc::SIGSYS),
                ("SIGRTMIN", libc::SIGRTMIN()),
                ("SIGRTMAX", libc::SIGRTMAX()),
            ];
            assert_eq!(super::super::SIGNALS, libc_numbers.as_slice());
            assert_eq!(super::NSIG, libc::SIGRTMAX() + 1);
        }
    }
}
