//! `_io.TextIOWrapper`: text over bytes (`Modules/_io/textio.c`). The bytes are a host file
//! (`open()` in a text mode, read and written through `std::fs::File`), or any binary
//! stream object of the program's (`TextIOWrapper(buffer, …)` over a BytesIO, a binary
//! file, `sys.stdout.buffer`, a class of its own), used through its methods. Text is
//! decoded a chunk (8 KiB) at a time as it is read, and encoded as it is written, kept
//! until there is a chunk's worth, a `flush()`, a seek, a read or `close()`; lines end as
//! the `newline` argument says (universal newlines by default).

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::rc::Rc;

use super::bytes_type::bytes_of;
use super::codecs::{BOM_UTF8, StreamCoding, decode, encode, stream_coding};
use super::io::{
    BUFFER_SIZE, HintRule, closed_error, fileno, optional_size, read_lines, seek_args, size_arg,
    text_arg, text_line, unsupported,
};
use crate::common::chars::str_repr;
use crate::vm::args::Signature;
use crate::vm::object::{Getter, KwArgs, Object, ObjectKind, PyType};
use crate::vm::value::Value;
use crate::vm::{Exc, PyResult, Vm};

/// How lines end (`newline=`): None translates `\r\n` and `\r` to `\n` on reading;
/// `''` splits at all three and translates nothing; `'\n'`, `'\r'`, `'\r\n'` split at that
/// one only, and a written `\n` becomes it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Newline {
    Universal,
    Untranslated,
    Fixed(&'static str),
}

/// Where a text file's bytes come from and go.
enum Raw {
    /// A host file (`open()`).
    File(File),
    /// A binary stream object (`TextIOWrapper(buffer)`), used through its methods.
    Buffer(Value),
}

/// The settings `reconfigure()` changes.
pub(super) struct Config {
    /// As given (shown by `encoding` and the repr).
    encoding: String,
    errors: String,
    coding: StreamCoding,
    pub(super) newline: Newline,
    line_buffering: bool,
    write_through: bool,
}

impl Config {
    /// The encoding as given, the error handler and how the text is coded.
    pub(super) fn encoding_and_errors(self) -> (String, String, StreamCoding) {
        (self.encoding, self.errors, self.coding)
    }
}

/// What an open text file holds besides its name and mode.
struct FileState {
    /// None once a host file is closed, or a buffer detached.
    raw: Option<Raw>,
    readable: bool,
    writable: bool,
    seekable: bool,
    config: Config,
    /// Text decoded ahead, not translated, and how much of it was consumed; `start` is the
    /// stream offset `ahead` begins at.
    ahead: String,
    consumed: usize,
    start: u64,
    /// Bytes read that end inside a character, decoded with the next chunk.
    undecoded: Vec<u8>,
    /// A `utf-8-sig` stream written from its start: the byte order mark goes before the
    /// first text written.
    mark_due: bool,
    /// Bytes written and not yet handed to the stream below.
    pending: Vec<u8>,
    /// The kinds of line ending decoded so far, for `newlines`.
    seen: SeenNewlines,
}

/// The line endings a reading wrapper has decoded (`IncrementalNewlineDecoder`'s
/// `seennl`): a `\r` at the end of a chunk waits for the next to say whether a `\n`
/// follows it.
#[derive(Default)]
struct SeenNewlines {
    /// `\n` 1, `\r` 2, `\r\n` 4.
    kinds: u8,
    pending_cr: bool,
}

impl SeenNewlines {
    fn note(&mut self, text: &str, last: bool) {
        for c in text.chars() {
            if std::mem::take(&mut self.pending_cr) {
                if c == '\n' {
                    self.kinds |= 4;
                    continue;
                }
                self.kinds |= 2;
            }
            match c {
                '\r' => self.pending_cr = true,
                '\n' => self.kinds |= 1,
                _ => {}
            }
        }
        if last && std::mem::take(&mut self.pending_cr) {
            self.kinds |= 2;
        }
    }

    /// `newlines`: None, one ending, or a tuple of them in CPython's order.
    fn value(&self) -> Value {
        let names: Vec<Value> = [(2, "\r"), (1, "\n"), (4, "\r\n")]
            .into_iter()
            .filter(|(bit, _)| self.kinds & bit != 0)
            .map(|(_, name)| Value::str(name))
            .collect();
        match names.len() {
            0 => Value::None,
            1 => names[0].clone(),
            _ => Value::tuple(names),
        }
    }
}

/// An open text file (`_io.TextIOWrapper`).
pub struct TextFile {
    /// `open()`'s name and mode; a wrapper's name is its buffer's, and it has no mode.
    name: Option<Value>,
    mode: Option<String>,
    state: RefCell<FileState>,
}

impl Drop for TextFile {
    /// A host file dropped unclosed writes out the text still pending, as CPython's
    /// finalizer closes it (a program that never calls close(), or the temporary of
    /// `json.dump(data, open(path, "w"))`, lost the last buffer's worth).
    fn drop(&mut self) {
        let state = self.state.get_mut();
        if let Some(Raw::File(file)) = state.raw.as_mut() {
            let _ = file.write_all(&state.pending);
        }
    }
}

/// The `encoding` and `errors` arguments of `open()` or `TextIOWrapper()`, as a config
/// with universal newlines and no line buffering.
pub(super) fn config(vm: &mut Vm, owner: &str, encoding: Value, errors: Value) -> PyResult<Config> {
    let encoding = match encoding {
        // "locale" (Python 3.10+) names the locale's encoding, which apy takes as UTF-8
        // as it does for None.
        Value::None => "UTF-8".to_string(),
        Value::Str(s) if s.as_str() == "locale" => "UTF-8".to_string(),
        Value::Str(s) => s.as_str().to_string(),
        other => {
            return Err(vm.type_error(format!(
                "{owner}() argument 'encoding' must be str or None, not {}",
                vm.type_name(&other)
            )));
        }
    };
    let errors = match errors {
        Value::None => "strict".to_string(),
        Value::Str(s) => s.as_str().to_string(),
        other => {
            return Err(vm.type_error(format!(
                "{owner}() argument 'errors' must be str or None, not {}",
                vm.type_name(&other)
            )));
        }
    };
    let Some(coding) = stream_coding(vm, &encoding)? else {
        return Err(vm.value_error(format!(
            "encoding {} is outside the subset apy runs: apy's text streams read and write \
             UTF-8, utf-8-sig, ASCII and Latin-1",
            str_repr(&encoding)
        )));
    };
    Ok(Config {
        encoding,
        errors,
        coding,
        newline: Newline::Universal,
        line_buffering: false,
        write_through: false,
    })
}

/// The keyword arguments of `reconfigure()`, in order: `encoding`, `errors`, `newline`,
/// `line_buffering`, `write_through` (None where not given).
pub(super) fn reconfigure_kwargs(vm: &Vm, kw: &KwArgs) -> PyResult<[Option<Value>; 5]> {
    const NAMES: [&str; 5] = [
        "encoding",
        "errors",
        "newline",
        "line_buffering",
        "write_through",
    ];
    let mut given: [Option<Value>; 5] = Default::default();
    for (key, value) in kw {
        let Some(i) = NAMES.iter().position(|n| *n == key.as_str()) else {
            return Err(vm.type_error(format!(
                "reconfigure() got an unexpected keyword argument '{}'",
                key.as_str()
            )));
        };
        given[i] = Some(value.clone());
    }
    Ok(given)
}

/// A `line_buffering` or `write_through` argument of `reconfigure()`: None (not given,
/// or None: unchanged), else an index that fits a C long, on when not 0.
pub(super) fn flag_arg(vm: &mut Vm, v: Option<Value>) -> PyResult<Option<bool>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(Value::BigInt(_)) => {
            Err(vm.overflow_error("Python int too large to convert to C long"))
        }
        Some(v) => Ok(Some(vm.expect_index(&v)? != 0)),
    }
}

/// A `newline` argument.
pub(super) fn newline_arg(vm: &Vm, owner: &str, v: Value) -> PyResult<Newline> {
    match v {
        Value::None => Ok(Newline::Universal),
        Value::Str(s) => match s.as_str() {
            "" => Ok(Newline::Untranslated),
            "\n" => Ok(Newline::Fixed("\n")),
            "\r" => Ok(Newline::Fixed("\r")),
            "\r\n" => Ok(Newline::Fixed("\r\n")),
            other => Err(vm.value_error(format!("illegal newline value: {other}"))),
        },
        other => Err(vm.type_error(format!(
            "{owner}() argument 'newline' must be str or None, not {}",
            vm.type_name(&other)
        ))),
    }
}

/// The text file `open()` makes of a host file opened for `access` (readable, writable),
/// at offset `start`.
pub(super) fn open_file(
    class: Rc<PyType>,
    (name, mode): (Value, String),
    config: Config,
    file: File,
    (readable, writable): (bool, bool),
    start: u64,
) -> Value {
    let mark_due = config.coding.signature && writable && start == 0;
    let state = FileState {
        raw: Some(Raw::File(file)),
        readable,
        writable,
        seekable: true,
        config,
        ahead: String::new(),
        consumed: 0,
        start,
        undecoded: Vec::new(),
        mark_due,
        pending: Vec::new(),
        seen: SeenNewlines::default(),
    };
    let text_file = TextFile {
        name: Some(name),
        mode: Some(mode),
        state: RefCell::new(state),
    };
    Value::object(Object::new(class, ObjectKind::Other(Box::new(text_file))))
}

/// `TextIOWrapper(buffer, encoding=None, errors=None, newline=None, line_buffering=False,
/// write_through=False)`: asks the buffer once whether it reads, writes and seeks.
pub(super) fn wrapper_new(vm: &mut Vm, args: &[Value], kw: &KwArgs) -> PyResult<Value> {
    const NEW: Signature = Signature::keywords(
        "TextIOWrapper",
        "TextIOWrapper",
        &[
            "buffer",
            "encoding",
            "errors",
            "newline",
            "line_buffering",
            "write_through",
        ],
        1,
        0,
    );
    let Some(Value::Type(class)) = args.first() else {
        return Err(vm.type_error("TextIOWrapper.__new__(X): X is not a type object"));
    };
    let slots = NEW.bind(vm, &args[1..], kw)?;
    let arg = |i: usize| slots[i].clone().unwrap_or(Value::None);
    let buffer = arg(0);
    let mut config = config(vm, "TextIOWrapper", arg(1), arg(2))?;
    config.newline = newline_arg(vm, "TextIOWrapper", arg(3))?;
    config.line_buffering = vm.truthy(&arg(4))?;
    config.write_through = vm.truthy(&arg(5))?;
    let ask = |vm: &mut Vm, name: &str| {
        let answer = vm.call_method(&buffer, name, &[])?;
        vm.truthy(&answer)
    };
    let (readable, writable) = (ask(vm, "readable")?, ask(vm, "writable")?);
    let seekable = ask(vm, "seekable")?;
    let start = match seekable {
        true => {
            let at = vm.call_method(&buffer, "tell", &[])?;
            u64::try_from(vm.expect_index(&at)?).unwrap_or(0)
        }
        false => 0,
    };
    let state = FileState {
        mark_due: config.coding.signature && writable && start == 0,
        raw: Some(Raw::Buffer(buffer)),
        readable,
        writable,
        seekable,
        config,
        ahead: String::new(),
        consumed: 0,
        start,
        undecoded: Vec::new(),
        pending: Vec::new(),
        seen: SeenNewlines::default(),
    };
    let text_file = TextFile {
        name: None,
        mode: None,
        state: RefCell::new(state),
    };
    Ok(Value::object(Object::new(
        class.clone(),
        ObjectKind::Other(Box::new(text_file)),
    )))
}

fn this_file<'a>(vm: &Vm, v: &'a Value) -> PyResult<&'a TextFile> {
    v.native::<TextFile>()
        .ok_or_else(|| vm.type_error("descriptor requires a '_io.TextIOWrapper' object"))
}

fn detached_error(vm: &Vm) -> Exc {
    vm.value_error("underlying buffer has been detached")
}

/// The getters of the class: `name`, `mode`, `encoding`, `errors`, `buffer`, `closed`,
/// `line_buffering`, `write_through`.
pub(super) const GETTERS: &[(&str, Getter)] = &[
    ("closed", |vm, v| {
        let f = this_file(vm, v)?;
        Ok(Value::Bool(f.is_closed(vm)?))
    }),
    ("name", |vm, v| {
        let f = this_file(vm, v)?;
        match &f.name {
            Some(name) => Ok(name.clone()),
            None => {
                let buffer = f.buffer(vm)?;
                let key = vm.intern("name");
                vm.get_attr(&buffer, &key)
            }
        }
    }),
    ("mode", |vm, v| match &this_file(vm, v)?.mode {
        Some(mode) => Ok(Value::str(mode.as_str())),
        None => Err(vm.attribute_error("'_io.TextIOWrapper' object has no attribute 'mode'")),
    }),
    ("encoding", |vm, v| {
        let f = this_file(vm, v)?;
        Ok(Value::str(f.state.borrow().config.encoding.as_str()))
    }),
    ("errors", |vm, v| {
        let f = this_file(vm, v)?;
        Ok(Value::str(f.state.borrow().config.errors.as_str()))
    }),
    ("line_buffering", |vm, v| {
        let f = this_file(vm, v)?;
        Ok(Value::Bool(f.state.borrow().config.line_buffering))
    }),
    // The line endings read so far (None for a wrapper that does not read, or whose
    // `newline` is one ending).
    ("newlines", |vm, v| {
        let f = this_file(vm, v)?;
        Ok(f.state.borrow().seen.value())
    }),
    ("write_through", |vm, v| {
        let f = this_file(vm, v)?;
        Ok(Value::Bool(f.state.borrow().config.write_through))
    }),
    // None once detached.
    ("buffer", |vm, v| {
        let f = this_file(vm, v)?;
        match f.state.borrow().raw {
            None if f.name.is_none() => return Ok(Value::None),
            _ => {}
        }
        f.buffer(vm)
    }),
];

impl TextFile {
    /// The binary stream under a wrapper; for a file `open()` made, the AttributeError
    /// saying apy keeps no such layer.
    fn buffer(&self, vm: &Vm) -> PyResult<Value> {
        match &self.state.borrow().raw {
            Some(Raw::Buffer(buffer)) => Ok(buffer.clone()),
            None if self.name.is_none() => Err(detached_error(vm)),
            _ => Err(vm.attribute_error(
                "apy's text files from open() read and write the file directly: they have no \
                 binary 'buffer' under them",
            )),
        }
    }

    /// Whether the stream is closed: a host file once `close()`d, a wrapper when its
    /// buffer says so.
    fn is_closed(&self, vm: &mut Vm) -> PyResult<bool> {
        let buffer = match &self.state.borrow().raw {
            Some(Raw::File(_)) => return Ok(false),
            Some(Raw::Buffer(buffer)) => buffer.clone(),
            None if self.name.is_some() => return Ok(true),
            None => return Err(detached_error(vm)),
        };
        let key = vm.intern("closed");
        let closed = vm.get_attr(&buffer, &key)?;
        vm.truthy(&closed)
    }

    /// (readable, writable) of an open file; ValueError once closed or detached.
    fn open_state(&self, vm: &mut Vm) -> PyResult<(bool, bool)> {
        if self.is_closed(vm)? {
            return Err(closed_error(vm));
        }
        let state = self.state.borrow();
        Ok((state.readable, state.writable))
    }

    /// Reads up to `size` bytes from the stream below (a wrapper's buffer's `read1`, or
    /// `read` when it has none), or all the rest (`usize::MAX`, a buffer's `read()`).
    fn raw_read(&self, vm: &mut Vm, size: usize) -> PyResult<Vec<u8>> {
        let buffer = {
            let mut state = self.state.borrow_mut();
            match state.raw.as_mut() {
                Some(Raw::File(file)) => {
                    let mut chunk = Vec::new();
                    let read = match size {
                        usize::MAX => file.read_to_end(&mut chunk),
                        size => {
                            chunk.resize(size, 0);
                            file.read(&mut chunk)
                        }
                    };
                    drop(state);
                    chunk.truncate(read.map_err(|e| vm.os_error(&e, None))?);
                    return Ok(chunk);
                }
                Some(Raw::Buffer(buffer)) => buffer.clone(),
                None => return Err(closed_error(vm)),
            }
        };
        let read1 = vm.intern("read1");
        let read1 = match size {
            usize::MAX => None,
            _ => vm.get_attr_opt(&buffer, &read1)?,
        };
        let (name, read) = match read1 {
            Some(read1) => ("read1", read1),
            None => {
                let read = vm.intern("read");
                ("read", vm.get_attr(&buffer, &read)?)
            }
        };
        let size = match size {
            usize::MAX => Value::Int(-1),
            size => Value::Int(size as i64),
        };
        let chunk = vm.call(&read, &[size], &[])?;
        match chunk {
            Value::None => Ok(Vec::new()),
            chunk => bytes_of(&chunk).ok_or_else(|| {
                vm.type_error(format!(
                    "underlying {name}() should have returned a bytes-like object, not '{}'",
                    vm.type_name(&chunk)
                ))
            }),
        }
    }

    /// Hands the bytes written so far to the stream below.
    fn write_pending(&self, vm: &mut Vm) -> PyResult<()> {
        let mut state = self.state.borrow_mut();
        if state.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut state.pending);
        state.start += pending.len() as u64;
        let buffer = match state.raw.as_mut() {
            Some(Raw::File(file)) => {
                let written = file.write_all(&pending);
                drop(state);
                return written.map_err(|e| vm.os_error(&e, None));
            }
            Some(Raw::Buffer(buffer)) => buffer.clone(),
            None => return Ok(()),
        };
        drop(state);
        let data = vm.new_bytes(pending);
        vm.call_method(&buffer, "write", &[data])?;
        Ok(())
    }

    /// `flush()`: the bytes written so far handed down, and a wrapper's buffer flushed.
    fn flush(&self, vm: &mut Vm) -> PyResult<()> {
        self.write_pending(vm)?;
        if let Some(Raw::Buffer(buffer)) = &self.state.borrow().raw {
            let buffer = buffer.clone();
            vm.call_method(&buffer, "flush", &[])?;
        }
        Ok(())
    }

    /// Moves the stream below to `target`: the offset it is at.
    fn raw_seek(&self, vm: &mut Vm, target: SeekFrom) -> PyResult<u64> {
        let buffer = {
            let mut state = self.state.borrow_mut();
            match state.raw.as_mut() {
                Some(Raw::File(file)) => {
                    let moved = file.seek(target);
                    drop(state);
                    let name = self
                        .name
                        .as_ref()
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    return moved.map_err(|e| vm.os_error(&e, Some(name)));
                }
                Some(Raw::Buffer(buffer)) => buffer.clone(),
                None => return Err(closed_error(vm)),
            }
        };
        let (offset, whence) = match target {
            SeekFrom::Start(at) => (at as i64, 0),
            SeekFrom::Current(by) => (by, 1),
            SeekFrom::End(by) => (by, 2),
        };
        let at = vm.call_method(&buffer, "seek", &[Value::Int(offset), Value::Int(whence)])?;
        Ok(u64::try_from(vm.expect_index(&at)?).unwrap_or(0))
    }

    /// Decodes `chunk` after the bytes left undecoded (all of them when it is the last).
    fn decode_chunk(&self, vm: &mut Vm, chunk: &[u8], last: bool) -> PyResult<()> {
        let (coding, errors) = {
            let config = &self.state.borrow().config;
            (config.coding, config.errors.clone())
        };
        let bytes = {
            let mut state = self.state.borrow_mut();
            let mut bytes = std::mem::take(&mut state.undecoded);
            bytes.extend_from_slice(chunk);
            let at_start = state.start == 0 && state.ahead.is_empty();
            if coding.signature && at_start && bytes.starts_with(BOM_UTF8) {
                bytes.drain(..BOM_UTF8.len());
                state.start = BOM_UTF8.len() as u64;
            }
            let complete = if last {
                bytes.len()
            } else {
                coding.complete_len(&bytes)
            };
            state.undecoded = bytes.split_off(complete);
            bytes
        };
        let text = decode(vm, &bytes, coding.chunk_codec, &errors)?;
        let mut state = self.state.borrow_mut();
        if matches!(
            state.config.newline,
            Newline::Universal | Newline::Untranslated
        ) {
            state.seen.note(&text, last);
        }
        state.ahead.push_str(&text);
        Ok(())
    }

    /// Makes sure the text read ahead holds a whole line (or `want` characters), or all the
    /// rest of the stream; gives whether the stream has ended.
    fn fill(&self, vm: &mut Vm, want: Option<usize>, line: bool) -> PyResult<bool> {
        let (readable, _) = self.open_state(vm)?;
        if !readable {
            return Err(unsupported(vm, "not readable"));
        }
        self.write_pending(vm)?;
        loop {
            {
                let state = self.state.borrow();
                let rest = &state.ahead[state.consumed..];
                let newline = state.config.newline;
                let enough = match want {
                    Some(n) if !line => rest.chars().count() > n,
                    _ if line => line_end(rest, newline, false).is_some(),
                    _ => false,
                };
                if enough {
                    return Ok(false);
                }
            }
            let chunk = self.raw_read(vm, BUFFER_SIZE)?;
            self.decode_chunk(vm, &chunk, chunk.is_empty())?;
            if chunk.is_empty() {
                return Ok(true);
            }
        }
    }

    /// Decodes all the rest of the stream as one piece (as CPython's `read()` does, so a
    /// decoding error's position counts from where the read began).
    fn read_rest(&self, vm: &mut Vm) -> PyResult<()> {
        let (readable, _) = self.open_state(vm)?;
        if !readable {
            return Err(unsupported(vm, "not readable"));
        }
        self.write_pending(vm)?;
        let rest = self.raw_read(vm, usize::MAX)?;
        self.decode_chunk(vm, &rest, true)
    }

    /// Takes `len` bytes of the text read ahead.
    fn take(&self, len: usize) -> String {
        let mut state = self.state.borrow_mut();
        let start = state.consumed;
        state.consumed += len;
        let text = state.ahead[start..start + len].to_string();
        if state.consumed == state.ahead.len() {
            state.start += state.config.coding.raw_len(&state.ahead);
            state.ahead.clear();
            state.consumed = 0;
        }
        text
    }

    fn read(&self, vm: &mut Vm, size: Option<usize>) -> PyResult<String> {
        match size {
            Some(n) => self.fill(vm, Some(n), false).map(drop)?,
            None => self.read_rest(vm)?,
        }
        let (len, newline) = {
            let state = self.state.borrow();
            let rest = &state.ahead[state.consumed..];
            let newline = state.config.newline;
            let len = match size {
                None => rest.len(),
                Some(n) => char_prefix(rest, n, newline),
            };
            (len, newline)
        };
        Ok(translate_read(&self.take(len), newline))
    }

    fn readline(&self, vm: &mut Vm, size: Option<usize>) -> PyResult<String> {
        let at_eof = self.fill(vm, None, true)?;
        let (len, newline) = {
            let state = self.state.borrow();
            let rest = &state.ahead[state.consumed..];
            let newline = state.config.newline;
            let end = line_end(rest, newline, at_eof).unwrap_or(rest.len());
            let len = match size {
                Some(n) => end.min(char_prefix(rest, n, newline)),
                None => end,
            };
            (len, newline)
        };
        Ok(translate_read(&self.take(len), newline))
    }

    fn write(&self, vm: &mut Vm, text: &str) -> PyResult<()> {
        let (_, writable) = self.open_state(vm)?;
        if !writable {
            return Err(unsupported(vm, "not writable"));
        }
        let (text, encoded, config_flags) = {
            let config = &self.state.borrow().config;
            let text = match config.newline {
                Newline::Fixed(end) if end != "\n" => text.replace('\n', end),
                _ => text.to_string(),
            };
            let codec = config.coding.chunk_codec;
            let encoded = encode(vm, &text, codec, &config.errors)?;
            (text, encoded, (config.line_buffering, config.write_through))
        };
        let (line_buffering, write_through) = config_flags;
        let full = {
            // Text read ahead is dropped: as in CPython, the write goes where reading from
            // the stream below stopped, past what was read ahead (a chunk of 8 KiB).
            let mut state = self.state.borrow_mut();
            if !state.ahead.is_empty() || !state.undecoded.is_empty() {
                let read = state.config.coding.raw_len(&state.ahead);
                state.start += read + state.undecoded.len() as u64;
                state.ahead.clear();
                state.undecoded.clear();
                state.consumed = 0;
            }
            if std::mem::take(&mut state.mark_due) {
                state.pending.extend_from_slice(BOM_UTF8);
            }
            state.pending.extend_from_slice(&encoded);
            state.pending.len() >= BUFFER_SIZE
        };
        let line = line_buffering && text.contains(['\n', '\r']);
        if line {
            return self.flush(vm);
        }
        if full || write_through {
            self.write_pending(vm)?;
        }
        Ok(())
    }

    /// Where reading or writing goes on (`tell()`).
    fn tell(&self, vm: &mut Vm) -> PyResult<u64> {
        self.open_state(vm)?;
        if !self.state.borrow().seekable {
            return Err(unsupported(vm, "underlying stream is not seekable"));
        }
        self.write_pending(vm)?;
        let state = self.state.borrow();
        let read = state.config.coding.raw_len(&state.ahead[..state.consumed]);
        Ok(state.start + read)
    }

    fn seek(&self, vm: &mut Vm, offset: i64, whence: i64) -> PyResult<u64> {
        self.open_state(vm)?;
        if !self.state.borrow().seekable {
            return Err(unsupported(vm, "underlying stream is not seekable"));
        }
        let target = match whence {
            0 if offset < 0 => {
                return Err(vm.value_error(format!("negative seek position {offset}")));
            }
            0 => SeekFrom::Start(offset as u64),
            1 | 2 if offset != 0 => {
                let message = match whence {
                    1 => "can't do nonzero cur-relative seeks",
                    _ => "can't do nonzero end-relative seeks",
                };
                return Err(unsupported(vm, message));
            }
            1 => SeekFrom::Start(self.tell(vm)?),
            2 => SeekFrom::End(0),
            _ => {
                return Err(
                    vm.value_error(format!("invalid whence ({whence}, should be 0, 1 or 2)"))
                );
            }
        };
        self.write_pending(vm)?;
        let at = self.raw_seek(vm, target)?;
        let mut state = self.state.borrow_mut();
        state.ahead.clear();
        state.undecoded.clear();
        state.consumed = 0;
        state.start = at;
        // Back at the start, the decoder starts afresh (`decoder.reset()`).
        if at == 0 {
            state.seen = SeenNewlines::default();
        }
        state.mark_due = state.config.coding.signature && state.writable && at == 0;
        Ok(at)
    }

    /// `close()`: flushed, then the host file closed, or the wrapper's buffer.
    fn close(&self, vm: &mut Vm) -> PyResult<()> {
        if self.is_closed(vm)? {
            return Ok(());
        }
        let flushed = self.flush(vm);
        let raw = self.state.borrow_mut().raw.take();
        match raw {
            Some(Raw::Buffer(buffer)) => {
                // The wrapper stays attached to its (now closed) buffer.
                self.state.borrow_mut().raw = Some(Raw::Buffer(buffer.clone()));
                vm.call_method(&buffer, "close", &[])?;
            }
            Some(Raw::File(_)) | None => {}
        }
        flushed
    }

    /// `detach()`: the buffer, flushed, which the wrapper no longer uses.
    fn detach(&self, vm: &mut Vm) -> PyResult<Value> {
        let buffer = self.buffer(vm)?;
        self.flush(vm)?;
        self.state.borrow_mut().raw = None;
        Ok(buffer)
    }

    /// `reconfigure(*, encoding=None, errors=None, newline=…, line_buffering=None,
    /// write_through=None)`: flushed first; the encoding and newlines only before any read.
    fn reconfigure(&self, vm: &mut Vm, kw: &KwArgs) -> PyResult<()> {
        let [encoding, errors, newline, line_buffering, write_through] =
            reconfigure_kwargs(vm, kw)?;
        let recoding = encoding.is_some() || errors.is_some() || newline.is_some();
        let read_from = {
            let state = self.state.borrow();
            !state.ahead.is_empty() || !state.undecoded.is_empty()
        };
        if recoding && read_from {
            let message = "It is not possible to set the encoding or newline of stream after \
                           the first read";
            return Err(unsupported(vm, message));
        }
        self.flush(vm)?;
        if encoding.is_some() || errors.is_some() {
            let encoding = match encoding {
                Some(encoding) => encoding,
                None => Value::str(self.state.borrow().config.encoding.as_str()),
            };
            let errors = errors.unwrap_or(Value::None);
            let fresh = config(vm, "reconfigure", encoding, errors)?;
            let mut state = self.state.borrow_mut();
            state.config.encoding = fresh.encoding;
            state.config.errors = fresh.errors;
            state.config.coding = fresh.coding;
        }
        if let Some(newline) = newline {
            let newline = newline_arg(vm, "reconfigure", newline)?;
            self.state.borrow_mut().config.newline = newline;
        }
        if let Some(on) = flag_arg(vm, line_buffering)? {
            self.state.borrow_mut().config.line_buffering = on;
        }
        if let Some(on) = flag_arg(vm, write_through)? {
            self.state.borrow_mut().config.write_through = on;
        }
        Ok(())
    }

    /// `<_io.TextIOWrapper name=… mode=… encoding=…>`, the name and mode when it has them.
    fn repr(&self, vm: &mut Vm) -> PyResult<String> {
        let name = match (&self.name, &self.state.borrow().raw) {
            (Some(name), _) => Some(name.clone()),
            (None, Some(Raw::Buffer(buffer))) => Some(buffer.clone()),
            (None, _) => None,
        };
        let mut text = "<_io.TextIOWrapper".to_string();
        let name = match name {
            Some(buffer) if self.name.is_none() => {
                let key = vm.intern("name");
                match vm.get_attr(&buffer, &key) {
                    Ok(name) => Some(name),
                    Err(e)
                        if vm.exc_matches(&e, &vm.types.attribute_error)
                            || vm.exc_matches(&e, &vm.types.value_error) =>
                    {
                        None
                    }
                    Err(e) => return Err(e),
                }
            }
            other => other,
        };
        if let Some(name) = name {
            text.push_str(&format!(" name={}", vm.repr(&name)?));
        }
        if let Some(mode) = &self.mode {
            text.push_str(&format!(" mode={}", str_repr(mode)));
        }
        let encoding = str_repr(&self.state.borrow().config.encoding);
        Ok(format!("{text} encoding={encoding}>"))
    }
}

type Method = fn(&mut Vm, &[Value], &KwArgs) -> PyResult<Value>;

pub(super) const METHODS: &[(&str, Method)] = &[
    ("read", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let size = size_arg(vm, args.get(1))?;
        f.read(vm, size).map(Value::str)
    }),
    ("readline", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let size = size_arg(vm, args.get(1))?;
        f.readline(vm, size).map(Value::str)
    }),
    ("readlines", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let hint = optional_size(vm, args.get(1))?;
        read_lines(vm, hint, HintRule::Exceeded, |vm| {
            Ok(text_line(f.readline(vm, None)?))
        })
    }),
    ("write", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let text = text_arg(vm, args.get(1))?;
        f.write(vm, &text)?;
        Ok(Value::Int(text.chars().count() as i64))
    }),
    ("writelines", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let lines = vm.collect_iterable(args.get(1).unwrap_or(&Value::None))?;
        for line in &lines {
            let text = text_arg(vm, Some(line))?;
            f.write(vm, &text)?;
        }
        Ok(Value::None)
    }),
    ("flush", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        f.open_state(vm)?;
        f.flush(vm)?;
        Ok(Value::None)
    }),
    ("close", |vm, args, _| {
        this_file(vm, &args[0])?.close(vm)?;
        Ok(Value::None)
    }),
    ("detach", |vm, args, _| this_file(vm, &args[0])?.detach(vm)),
    ("reconfigure", |vm, args, kw| {
        let f = this_file(vm, &args[0])?;
        if args.len() > 1 {
            return Err(vm.type_error("reconfigure() takes no positional arguments"));
        }
        f.reconfigure(vm, kw)?;
        Ok(Value::None)
    }),
    ("tell", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        Ok(Value::Int(f.tell(vm)? as i64))
    }),
    ("seek", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let (offset, whence) = seek_args(vm, args)?;
        f.seek(vm, offset, whence).map(|at| Value::Int(at as i64))
    }),
    ("fileno", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        let buffer = match &f.state.borrow().raw {
            Some(Raw::File(file)) => {
                return fileno(vm, Some(file), "I/O operation on closed file.");
            }
            Some(Raw::Buffer(buffer)) => buffer.clone(),
            None if f.name.is_some() => return fileno(vm, None, "I/O operation on closed file."),
            None => return Err(detached_error(vm)),
        };
        vm.call_method(&buffer, "fileno", &[])
    }),
    ("readable", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        Ok(Value::Bool(f.open_state(vm)?.0))
    }),
    ("writable", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        Ok(Value::Bool(f.open_state(vm)?.1))
    }),
    ("seekable", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        f.open_state(vm)?;
        Ok(Value::Bool(f.state.borrow().seekable))
    }),
    ("__iter__", |vm, args, _| {
        this_file(vm, &args[0])?.open_state(vm)?;
        Ok(args[0].clone())
    }),
    ("__next__", |vm, args, _| {
        let line = this_file(vm, &args[0])?.readline(vm, None)?;
        if line.is_empty() {
            return Err(vm.stop_iteration(Value::None));
        }
        Ok(Value::str(line))
    }),
    ("__enter__", |vm, args, _| {
        this_file(vm, &args[0])?.open_state(vm)?;
        Ok(args[0].clone())
    }),
    ("__exit__", |vm, args, _| {
        this_file(vm, &args[0])?.close(vm)?;
        Ok(Value::None)
    }),
    ("__repr__", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        f.repr(vm).map(Value::str)
    }),
    // A stream dropped unclosed is closed (`iobase_finalize`): its text written out, and a
    // wrapper's buffer closed with it, as in CPython (which reports an error in `close`
    // as "Exception ignored in: <_io.TextIOWrapper …>").
    ("__del__", |vm, args, _| {
        let f = this_file(vm, &args[0])?;
        if matches!(f.is_closed(vm), Ok(false)) {
            f.close(vm)?;
        }
        Ok(Value::None)
    }),
];

/// The bytes of the first `n` characters of `text` as read under `newline` (a `\r\n`
/// read as one `\n` counts once).
pub(super) fn char_prefix(text: &str, n: usize, newline: Newline) -> usize {
    let mut count = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if count == n {
            return i;
        }
        count += 1;
        if c == '\r'
            && newline == Newline::Universal
            && chars.peek().is_some_and(|(_, next)| *next == '\n')
        {
            chars.next();
        }
    }
    text.len()
}

/// Where a line ends in `text` under `newline`: the index just past its end, if it ends.
pub(super) fn line_end(text: &str, newline: Newline, at_eof: bool) -> Option<usize> {
    match newline {
        Newline::Fixed(end) => text.find(end).map(|i| i + end.len()),
        Newline::Universal | Newline::Untranslated => {
            let i = text.find(['\n', '\r'])?;
            if &text[i..i + 1] == "\n" {
                return Some(i + 1);
            }
            match text.as_bytes().get(i + 1) {
                Some(b'\n') => Some(i + 2),
                Some(_) => Some(i + 1),
                // A `\r` last: the next read may bring its `\n`.
                None if at_eof => Some(i + 1),
                None => None,
            }
        }
    }
}

/// Text as read under `newline`: universal newlines become `\n`.
fn translate_read(text: &str, newline: Newline) -> String {
    match newline {
        Newline::Universal => text.replace("\r\n", "\n").replace('\r', "\n"),
        _ => text.to_string(),
    }
}
