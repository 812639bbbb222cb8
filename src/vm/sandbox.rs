//! `--sandbox`: the one gate every capability the host lends a program passes through
//! (DESIGN.md decision 10). A native function that touches files, sockets or processes asks
//! [`Vm::require`] first; under `vm::Config::sandbox` the answer is a PermissionError
//! ("[Errno 1] Operation not permitted: … (apy --sandbox)", EPERM as an OS would refuse),
//! raised before anything reaches the host, and nothing else about the program changes.
//! Also makes the OSError for a failed host call (`OSError_from_errno` with a filename).

use super::{Exc, PyResult, Vm};
use crate::vm::value::Value;

/// The process's id (`os.getpid()`); a page in a browser (`src/web.rs`) has no process,
/// and says 1.
pub fn process_id() -> u32 {
    if cfg!(target_arch = "wasm32") {
        1
    } else {
        std::process::id()
    }
}

/// What a program can ask of the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// Reading, writing and listing files and folders.
    Files,
    /// Network connections.
    Sockets,
    /// Starting and signalling processes.
    Processes,
}

impl Vm {
    /// Ok when the program may use `capability` on `target` (a path, an address, a
    /// command); a PermissionError under `--sandbox`.
    pub fn require(&mut self, capability: Capability, target: &str) -> PyResult<()> {
        if !self.config.sandbox {
            return Ok(());
        }
        let what = match capability {
            Capability::Files => "",
            Capability::Sockets => "network ",
            Capability::Processes => "process ",
        };
        let strerror = format!(
            "Operation not permitted: {what}{} (apy --sandbox)",
            crate::common::chars::str_repr(target)
        );
        let class = Value::Type(self.types.os_error.clone());
        let exc = self.call(&class, &[Value::Int(1), Value::str(strerror)], &[])?;
        match exc {
            Value::Object(exc) => Err(exc),
            _ => Err(self.runtime_error("OSError() did not make an exception")),
        }
    }

    /// The OSError subclass for a failed host call on `filename` (None: no file named):
    /// `[Errno 2] No such file or directory: 'x'`.
    pub fn os_error(&mut self, error: &std::io::Error, filename: Option<&str>) -> Exc {
        self.os_error_named(error, filename.map(Value::str))
    }

    /// [`Vm::os_error`] naming any value as the file (`os.stat(fd)` names the descriptor).
    pub fn os_error_named(&mut self, error: &std::io::Error, filename: Option<Value>) -> Exc {
        let Some(errno) = error.raw_os_error() else {
            return self.new_exc(&self.types.os_error.clone(), error.to_string());
        };
        let text = std::io::Error::from_raw_os_error(errno).to_string();
        let strerror = text
            .strip_suffix(&format!(" (os error {errno})"))
            .unwrap_or(&text)
            .to_string();
        let mut args = vec![Value::Int(errno.into()), Value::str(strerror)];
        args.extend(filename);
        let class = Value::Type(self.types.os_error.clone());
        match self.call(&class, &args, &[]) {
            Ok(Value::Object(exc)) | Err(exc) => exc,
            Ok(_) => self.runtime_error("OSError() did not make an exception"),
        }
    }
}
