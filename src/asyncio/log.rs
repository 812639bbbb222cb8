//! `asyncio.log` (`Lib/asyncio/log.py`): the `asyncio` logger. Once a program imported
//! `logging`, what the loop logs (its selector at DEBUG, slow callbacks, the default
//! exception handler's reports) goes through `logging.getLogger('asyncio')`, so through
//! the program's handlers and format; otherwise the callers write to stderr themselves,
//! as logging's lastResort would.

use crate::vm::dict::StrKeys;
use crate::vm::object::KwArgs;
use crate::vm::value::Value;
use crate::vm::{PyResult, Vm};

/// CPython's `asyncio.log.logger.<level>(*args, **kw)`: once a program imported `logging`,
/// what the loop logs goes through the `asyncio` logger (and so the program's handlers and
/// format); Ok(false) when it did not import it, and the caller writes to stderr itself,
/// as logging's lastResort would.
pub fn log_to_asyncio_logger(
    vm: &mut Vm,
    level: &str,
    args: &[Value],
    kw: &KwArgs,
) -> PyResult<bool> {
    let key = vm.intern("logging");
    let Some(logging) = vm.modules.table.borrow().get_str(&key).cloned() else {
        return Ok(false);
    };
    let (get_logger, level) = (vm.intern("getLogger"), vm.intern(level));
    let get_logger = vm.get_attr(&logging, &get_logger)?;
    let logger = vm.call(&get_logger, &[Value::str("asyncio")], &[])?;
    let log = vm.get_attr(&logger, &level)?;
    vm.call(&log, args, kw)?;
    Ok(true)
}
