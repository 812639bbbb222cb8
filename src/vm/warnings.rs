//! The VM's own warnings written to stderr as CPython's default `warnings.showwarning`
//! does: `file:line: Category: message`, then the source line, once per place and message
//! (the default filter's "default" action). They are fixed (RuntimeWarning for a coroutine
//! never awaited, DeprecationWarning for the three-argument `throw()`/`athrow()` and for
//! `asyncio.get_event_loop()` without a loop); once a program imported `warnings`
//! (`stdlib/warnings.apy`), its filters are asked first (`_vm_warning`), the only Python
//! code run here. Also where a native call came from (`caller_site`), for the library's
//! `logging` and `warnings`.

use std::rc::Rc;

use super::Vm;
use super::dict::StrKeys;
use super::frame::Frame;
use super::value::Value;
use crate::vm::frame::CallSite;

impl CallSite {
    pub fn new(frame: &Frame, depth: usize) -> CallSite {
        CallSite {
            code: frame.code.clone(),
            ip: frame.ip as usize,
            depth,
        }
    }
}

impl Vm {
    /// Writes `category: message` blamed on the Python line making the native call now
    /// running (CPython's `stacklevel=1`); nothing when no Python frame made it.
    pub fn warn_caller(&mut self, category: &str, message: &str) {
        if let Some((filename, line)) = self.caller_line() {
            self.warn_at(category, message, filename, line, "");
        }
    }

    /// A DeprecationWarning blamed on the caller, shown only when the caller is the
    /// `__main__` module's code: CPython's default filters ignore the category elsewhere
    /// (`default::DeprecationWarning:__main__`).
    pub fn deprecation_in_main(&mut self, message: &str) {
        if let Some((filename, line)) = self.caller_line()
            && self.main_file.as_ref() == Some(&filename)
        {
            self.warn_at("DeprecationWarning", message, filename, line, "");
        }
    }

    /// `file:line` of the Python line making the native call now running, if one is.
    pub fn caller_location(&self) -> Option<String> {
        let (filename, line) = self.caller_line()?;
        Some(format!("{filename}:{line}"))
    }

    /// The file, line and function name of the Python line making the native call now
    /// running, if one is (the site `logging` and `warnings` name).
    pub fn caller_site(&self) -> Option<(Rc<str>, u32, Rc<str>)> {
        let site = self.caller.as_ref().filter(|s| s.depth == self.depth)?;
        let code = &site.code;
        Some((
            code.head.filename.clone(),
            code.line_before(site.ip),
            code.head.name.clone(),
        ))
    }

    fn caller_line(&self) -> Option<(Rc<str>, u32)> {
        let site = self.caller.as_ref().filter(|s| s.depth == self.depth)?;
        let code = &site.code;
        Some((code.head.filename.clone(), code.line_before(site.ip)))
    }

    /// The SyntaxWarnings compiling `code` found (`Code::warnings`), as CPython's compiler
    /// shows them (`warnings.warn_explicit`): the line is shown from a file, not from a
    /// `<string>` (exec, eval, compile) or `<stdin>`, which linecache cannot read.
    pub fn show_syntax_warnings(&mut self, code: &crate::compile::Code) {
        let filename = code.filename.clone();
        let show_line = !filename.starts_with('<');
        for (line, message) in &code.warnings {
            self.warn_in(
                "SyntaxWarning",
                message,
                filename.clone(),
                *line,
                "",
                show_line,
            );
        }
    }

    /// Writes `category: message` blamed on `line` of `filename`, then `extra`, unless that
    /// place already gave this message.
    pub fn warn_at(
        &mut self,
        category: &str,
        message: &str,
        filename: Rc<str>,
        line: u32,
        extra: &str,
    ) {
        self.warn_in(category, message, filename, line, extra, true);
    }

    /// [`Vm::warn_at`], with the source line under the message or not.
    fn warn_in(
        &mut self,
        category: &str,
        message: &str,
        filename: Rc<str>,
        line: u32,
        extra: &str,
        show_line: bool,
    ) {
        let action = self.warnings_filter(category, message, &filename, line);
        if action == "ignore" {
            return;
        }
        let key = (filename, line, message.to_string());
        if action != "always" && self.warning_registry.contains(&key) {
            return;
        }
        let source = self.sources.get(&key.0).filter(|_| show_line);
        let mut text = warning_text(&key.0, line, category, message, source.map(|s| &**s));
        text.push_str(extra);
        self.warning_registry.insert(key);
        self.write_stderr(&text);
    }

    /// The action the `warnings` module's filters give this warning ("ignore", "always",
    /// "show"), once a program imported it: `warnings._vm_warning`. "show" when it did not,
    /// or when asking failed.
    fn warnings_filter(&mut self, category: &str, message: &str, file: &str, line: u32) -> String {
        let key = self.intern("warnings");
        let Some(warnings) = self.modules.table.borrow().get_str(&key).cloned() else {
            return "show".into();
        };
        let name = self.intern("_vm_warning");
        let args = [
            Value::str(category),
            Value::str(message),
            Value::str(file),
            Value::Int(line.into()),
        ];
        match self
            .get_attr(&warnings, &name)
            .and_then(|f| self.call(&f, &args, &[]))
        {
            Ok(Value::Str(action)) => action.as_str().to_string(),
            _ => "show".into(),
        }
    }

    /// Writes `text` to stderr after what print() has buffered.
    pub fn write_stderr(&mut self, text: &str) {
        self.flush_stdout();
        crate::common::console::eprint(text);
    }
}

/// A warning as CPython's default `showwarning` writes it: `file:line: Category: message`,
/// then the line of `source` it names, stripped, when there is one.
pub fn warning_text(
    filename: &str,
    line: u32,
    category: &str,
    message: &str,
    source: Option<&str>,
) -> String {
    let mut text = format!("{filename}:{line}: {category}: {message}\n");
    let source_line = source
        .and_then(|s| s.lines().nth(line.saturating_sub(1) as usize))
        .map(str::trim);
    if let Some(source_line) = source_line.filter(|l| !l.is_empty()) {
        text.push_str(&format!("  {source_line}\n"));
    }
    text
}
