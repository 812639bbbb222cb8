//! The error a pure runtime helper returns: a Python exception class and its message.
//!
//! In: nothing. Out: [`OpError`], which the VM turns into a real exception object at the
//! edge (`ValueError: ...`). Mirrors the `PyErr_SetString(PyExc_..., msg)` calls of CPython's
//! `Objects/*.c`. Must not depend on the VM's value model: the helpers in `builtins/` that
//! return it are plain functions over Rust numbers and strings.

use std::fmt;

/// The built-in exception classes the pure helpers can raise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    ValueError,
    TypeError,
    OverflowError,
    ZeroDivisionError,
    IndexError,
    KeyError,
    /// A result too large to build (CPython would exhaust memory).
    MemoryError,
}

impl ErrorKind {
    /// The exception class name as Python prints it.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::ValueError => "ValueError",
            ErrorKind::TypeError => "TypeError",
            ErrorKind::OverflowError => "OverflowError",
            ErrorKind::ZeroDivisionError => "ZeroDivisionError",
            ErrorKind::IndexError => "IndexError",
            ErrorKind::KeyError => "KeyError",
            ErrorKind::MemoryError => "MemoryError",
        }
    }
}

/// A Python exception raised by a pure helper: its class and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpError {
    pub kind: ErrorKind,
    pub message: String,
}

impl OpError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        OpError {
            kind,
            message: message.into(),
        }
    }
    pub fn value(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::ValueError, message)
    }
    pub fn type_error(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::TypeError, message)
    }
    pub fn overflow(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::OverflowError, message)
    }
    pub fn zero_division(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::ZeroDivisionError, message)
    }
}

impl fmt::Display for OpError {
    /// The last line of a traceback: `ValueError: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)
    }
}

impl std::error::Error for OpError {}

/// Shorthand for the helpers' results.
pub type OpResult<T> = Result<T, OpError>;

/// An error in a helper that also runs the caller's code (`%` and `str.format` call
/// `__str__`, `__getitem__`, …): one of the helper's own, or one the caller's code raised,
/// passed through untouched.
pub enum Failure<E> {
    Op(OpError),
    Raised(E),
}

impl<E> From<OpError> for Failure<E> {
    fn from(error: OpError) -> Self {
        Failure::Op(error)
    }
}
