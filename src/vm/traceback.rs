//! Rendering an uncaught exception as CPython does on stderr (`Lib/traceback.py`,
//! `Python/pythonrun.c`): the chain of causes and contexts with their separator lines, each
//! `Traceback (most recent call last):` block with `File "…", line N, in name` and the
//! source line, then `TypeName: message` and any notes. Exception groups are drawn as
//! `traceback.TracebackException.format` draws them: each member in a numbered box,
//! indented by a `| ` margin per level of nesting.

use std::rc::Rc;

use super::dict::StrKeys;
use super::object::{Object, TracebackEntry};
use super::source_lines::source_lines;
use super::value::Value;
use super::{Exc, Vm};

const CAUSE_SEPARATOR: &str =
    "\nThe above exception was the direct cause of the following exception:\n\n";
/// Identical consecutive entries printed before "[Previous line repeated N more times]".
const TRACEBACK_RECURSIVE_CUTOFF: usize = 3;

fn push_repeats(out: &mut String, repeats: usize) {
    if repeats > TRACEBACK_RECURSIVE_CUTOFF {
        let more = repeats - TRACEBACK_RECURSIVE_CUTOFF;
        let s = if more == 1 { "" } else { "s" };
        out.push_str(&format!("  [Previous line repeated {more} more time{s}]\n"));
    }
}

const CONTEXT_SEPARATOR: &str =
    "\nDuring handling of the above exception, another exception occurred:\n\n";

/// How many members of a group are drawn before "and N more exceptions", and how deep
/// groups nest before "... (max_group_depth is 10)" (`TracebackException`'s defaults).
const MAX_GROUP_WIDTH: usize = 15;
const MAX_GROUP_DEPTH: usize = 10;

/// `traceback._ExceptionPrintContext`: where in a drawing of nested groups we are.
#[derive(Default)]
struct PrintContext {
    group_depth: usize,
    /// The last member's box still needs its closing line (an inner group may close it).
    need_close: bool,
    seen: Vec<*const Object>,
}

impl PrintContext {
    fn indent(&self) -> String {
        " ".repeat(2 * self.group_depth)
    }

    /// Appends `text`, every line of it behind the current margin (`margin` then a space,
    /// once inside a group).
    fn emit(&self, out: &mut String, text: &str, margin: char) {
        if self.group_depth == 0 {
            out.push_str(text);
            return;
        }
        let prefix = format!("{}{margin} ", self.indent());
        for line in text.split_inclusive('\n') {
            out.push_str(&prefix);
            out.push_str(line);
        }
    }
}

impl Vm {
    /// The full text CPython prints for an uncaught `exc`.
    pub fn format_exception(&mut self, exc: &Exc) -> String {
        let mut out = String::new();
        self.format_chain(exc, &mut out, &mut PrintContext::default());
        out
    }

    fn format_chain(&mut self, exc: &Exc, out: &mut String, ctx: &mut PrintContext) {
        ctx.seen.push(Rc::as_ptr(exc));
        if let Some(data) = exc.exc_data() {
            let (cause, context, suppress) = {
                let d = data.borrow();
                (d.cause.clone(), d.context.clone(), d.suppress_context)
            };
            match (&cause, &context) {
                (Value::Object(c), _)
                    if c.exc_data().is_some() && !ctx.seen.contains(&Rc::as_ptr(c)) =>
                {
                    self.format_chain(c, out, ctx);
                    ctx.emit(out, CAUSE_SEPARATOR, '|');
                }
                (_, Value::Object(c))
                    if !suppress
                        && c.exc_data().is_some()
                        && !ctx.seen.contains(&Rc::as_ptr(c)) =>
                {
                    self.format_chain(c, out, ctx);
                    ctx.emit(out, CONTEXT_SEPARATOR, '|');
                }
                _ => {}
            }
        }
        match crate::vm::exceptions::group_members(self, exc) {
            None => {
                let mut text = String::new();
                self.format_single(exc, &mut text);
                ctx.emit(out, &text, '|');
            }
            Some(_) if ctx.group_depth > MAX_GROUP_DEPTH => {
                let text = format!("... (max_group_depth is {MAX_GROUP_DEPTH})\n");
                ctx.emit(out, &text, '|');
            }
            Some(members) => self.format_group(exc, &members, out, ctx),
        }
    }

    /// A group: its own traceback and line, then each member in a numbered box.
    fn format_group(
        &mut self,
        exc: &Exc,
        members: &[Exc],
        out: &mut String,
        ctx: &mut PrintContext,
    ) {
        let top_level = ctx.group_depth == 0;
        if top_level {
            ctx.group_depth += 1;
        }
        let frames = self.format_frames(exc, true);
        if !frames.is_empty() {
            let heading = "Exception Group Traceback (most recent call last):\n";
            ctx.emit(out, heading, if top_level { '+' } else { '|' });
            ctx.emit(out, &frames, '|');
        }
        let mut text = String::new();
        self.format_exception_only(exc, true, &mut text);
        ctx.emit(out, &text, '|');
        let shown = members.len().min(MAX_GROUP_WIDTH + 1);
        ctx.need_close = false;
        for (i, member) in members.iter().take(shown).enumerate() {
            let last = i + 1 == shown;
            if last {
                ctx.need_close = true;
            }
            let truncated = i >= MAX_GROUP_WIDTH;
            let title = if truncated {
                "...".to_string()
            } else {
                (i + 1).to_string()
            };
            let corner = if i == 0 { "+-" } else { "  " };
            out.push_str(&format!(
                "{}{corner}+---------------- {title} ----------------\n",
                ctx.indent()
            ));
            ctx.group_depth += 1;
            if truncated {
                let remaining = members.len() - MAX_GROUP_WIDTH;
                let s = if remaining > 1 { "s" } else { "" };
                ctx.emit(out, &format!("and {remaining} more exception{s}\n"), '|');
            } else {
                self.format_chain(member, out, ctx);
            }
            if last && ctx.need_close {
                out.push_str(&format!(
                    "{}+------------------------------------\n",
                    ctx.indent()
                ));
                ctx.need_close = false;
            }
            ctx.group_depth -= 1;
        }
        if top_level {
            ctx.group_depth = 0;
        }
    }

    /// One exception's traceback and last line, without its chain.
    pub fn format_single(&mut self, exc: &Exc, out: &mut String) {
        self.format_traceback(exc, true, out);
        self.format_exception_only(exc, true, out);
    }

    /// "Traceback (most recent call last):" and the entries of `exc`'s traceback, drawn
    /// with or without `carets`; nothing when it has none.
    fn format_traceback(&mut self, exc: &Exc, carets: bool, out: &mut String) {
        let frames = self.format_frames(exc, carets);
        if !frames.is_empty() {
            out.push_str("Traceback (most recent call last):\n");
            out.push_str(&frames);
        }
    }

    /// An exception reported "Exception ignored in …" (`PyErr_WriteUnraisable`'s default
    /// hook, `write_unraisable_exc_file`): its traceback without carets, then
    /// `Type: str(exc)`, the colon there even when the message is empty, with no chain,
    /// notes or suggestion.
    pub fn format_unraisable(&mut self, exc: &Exc, out: &mut String) {
        self.format_traceback(exc, false, out);
        let name = self.exception_type_name(exc);
        let message = match self.exc_str(exc) {
            Ok(msg) => msg,
            Err(_) => "<exception str() failed>".to_string(),
        };
        out.push_str(&format!("{name}: {message}\n"));
    }

    /// The `File "…", line N, in name` entries of `exc`'s traceback, oldest first, with
    /// their source lines; runs of the same frame and line collapse after three, as
    /// `traceback.py` does.
    fn format_frames(&mut self, exc: &Exc, carets: bool) -> String {
        let entries = exc
            .exc_data()
            .map(|d| d.borrow().traceback.clone())
            .unwrap_or_default();
        self.format_entries_drawn(&entries, carets)
    }

    /// [`Vm::format_frames`] of traceback entries, innermost first (`traceback.format_tb`).
    pub fn format_entries(&self, entries: &[TracebackEntry]) -> String {
        self.format_entries_drawn(entries, true)
    }

    /// [`Vm::format_entries`], with the caret lines under each source line (`traceback.py`)
    /// or, as the C printer of an unraisable report draws them (`_PyTraceBack_Print`), with
    /// only the first line of each instruction's source (none for code not from a file)
    /// and no carets.
    fn format_entries_drawn(&self, entries: &[TracebackEntry], carets: bool) -> String {
        let mut out = String::new();
        let mut previous: Option<(&str, u32, &str)> = None;
        let mut repeats = 0;
        for entry in entries.iter().rev() {
            let key = (&*entry.code.filename, entry.line, &*entry.code.name);
            if previous == Some(key) {
                repeats += 1;
            } else {
                push_repeats(&mut out, repeats);
                previous = Some(key);
                repeats = 1;
            }
            if repeats > TRACEBACK_RECURSIVE_CUTOFF {
                continue;
            }
            out.push_str(&format!(
                "  File \"{}\", line {}, in {}\n",
                entry.code.filename, entry.line, entry.code.name
            ));
            // The C printer reads the line from the file: a `<string>` or `<stdin>` has none.
            let text = self
                .sources
                .get(&*entry.code.filename)
                .filter(|_| carets || !entry.code.filename.starts_with('<'))
                .map(|t| &**t);
            let span = entry.span.filter(|_| carets);
            let anchors = span.and_then(|span| entry.code.anchors_at(span));
            let lines = text.map(|text| source_lines(text, entry.line, span, anchors));
            for line in lines.unwrap_or_default() {
                out.push_str(&format!("    {line}\n"));
            }
        }
        push_repeats(&mut out, repeats);
        out
    }

    /// `TypeName: message` and the exception's notes, a line each. `with_traceback`: as
    /// part of the exception's traceback (`traceback.format_exception_only` has none).
    pub fn format_exception_only(&mut self, exc: &Exc, with_traceback: bool, out: &mut String) {
        match self.syntax_error_attr(exc, "msg") {
            Some(msg) => self.format_syntax_error(exc, &msg, out),
            None => out.push_str(&self.exception_last_line(exc, with_traceback)),
        }
        out.push('\n');
        let notes_key = self.names.notes.clone();
        let notes = exc
            .attrs()
            .and_then(|t| t.borrow().get_str(&notes_key).cloned());
        if let Some(Value::List(notes)) = notes {
            for note in notes.items.borrow().clone() {
                match self.str_of(&note) {
                    Ok(s) => out.push_str(s.as_str()),
                    Err(_) => out.push_str("<note str() failed>"),
                }
                out.push('\n');
            }
        }
    }

    /// An exception's type as the last line names it: qualified by its module unless that is
    /// `__main__` or `builtins`.
    fn exception_type_name(&mut self, exc: &Exc) -> String {
        let class = exc.class.clone();
        match self.type_module(&class) {
            Some(m) if &*m != "__main__" && &*m != "builtins" => {
                format!("{m}.{}", class.qualname())
            }
            _ => class.qualname().to_string(),
        }
    }

    /// A SyntaxError as `traceback.py`'s `_format_syntax_error` shows it: where it is
    /// (`File "…", line N`), the line with a caret under the error, then `TypeName: msg`
    /// rather than `str(exc)`.
    pub fn format_syntax_error(&mut self, exc: &Exc, msg: &Value, out: &mut String) {
        let int = |v: Option<Value>| match v {
            Some(Value::Int(n)) => Some(n),
            _ => None,
        };
        let filename = match self.syntax_error_attr(exc, "filename") {
            Some(Value::Str(f)) => Some(f.as_str().to_string()),
            _ => None,
        };
        let lineno = int(self.syntax_error_attr(exc, "lineno"));
        let mut suffix = String::new();
        match (lineno, &filename) {
            (Some(line), _) => {
                let file = filename.as_deref().unwrap_or("<string>");
                out.push_str(&format!("  File \"{file}\", line {line}\n"));
            }
            (None, Some(file)) => suffix = format!(" ({file})"),
            (None, None) => {}
        }
        if let Some(Value::Str(text)) = self.syntax_error_attr(exc, "text") {
            let rtext = text.as_str().trim_end_matches('\n');
            let ltext = rtext.trim_start_matches([' ', '\n', '\x0c']);
            let spaces = (rtext.chars().count() - ltext.chars().count()) as i64;
            out.push_str(&format!("    {ltext}\n"));
            if let Some(offset) = int(self.syntax_error_attr(exc, "offset")) {
                let len = rtext.chars().count() as i64;
                let text_len = text.as_str().chars().count() as i64;
                let end_lineno = int(self.syntax_error_attr(exc, "end_lineno"));
                let mut end = match int(self.syntax_error_attr(exc, "end_offset")) {
                    Some(end) if end_lineno == lineno && end != 0 => end,
                    _ if end_lineno == lineno => offset,
                    _ => len + 1,
                };
                let mut offset = offset;
                if offset > text_len {
                    offset = len + 1;
                }
                if end > text_len {
                    end = len + 1;
                }
                if offset >= end || end < 0 {
                    end = offset + 1;
                }
                let (column, end_column) = (offset - 1 - spaces, end - 1 - spaces);
                if column >= 0 {
                    let space: String = ltext
                        .chars()
                        .take(column as usize)
                        .map(|c| if c.is_whitespace() { c } else { ' ' })
                        .collect();
                    let carets = "^".repeat((end_column - column).max(0) as usize);
                    out.push_str(&format!("    {space}{carets}\n"));
                }
            }
        }
        let name = self.exception_type_name(exc);
        let msg = match self.str_of(msg) {
            Ok(m) if !m.as_str().is_empty() => m.as_str().to_string(),
            _ => "<no detail available>".to_string(),
        };
        out.push_str(&format!("{name}: {msg}{suffix}"));
    }

    /// `TypeName: message`, or just `TypeName` for an empty message, with the hints of
    /// [`Vm::missing_name_hints`].
    pub fn exception_last_line(&mut self, exc: &Exc, with_traceback: bool) -> String {
        let name = self.exception_type_name(exc);
        match self.exc_str(exc) {
            Ok(msg) => {
                let msg = msg + &self.missing_name_hints(exc, with_traceback);
                match msg.is_empty() {
                    true => name,
                    false => format!("{name}: {msg}"),
                }
            }
            Err(_) => format!("{name}: <exception str() failed>"),
        }
    }

    /// What CPython's traceback adds to the message of an error about a name
    /// (`TracebackException.__init__`): "Did you mean: 'x'?" when a close name exists
    /// (found as it was raised, or for an AttributeError raised with `name` and `obj`,
    /// among `obj`'s), and for a NameError of a standard module's name, "Did you forget to
    /// import 'x'?". A NameError's near miss is among the names of the frame it was raised
    /// in, so it is only given with the traceback that leads there.
    pub fn missing_name_hints(&mut self, exc: &Exc, with_traceback: bool) -> String {
        let Some(data) = exc.exc_data() else {
            return String::new();
        };
        let name_error = exc.class.is_subtype(&self.types.name_error);
        let (stored, missing) = {
            let data = data.borrow();
            let frames_known = with_traceback && !data.traceback.is_empty();
            let stored = data
                .suggestion
                .clone()
                .filter(|_| frames_known || !name_error);
            (stored, data.missing.clone())
        };
        let wrong = missing
            .as_ref()
            .and_then(|m| m.name.as_str().map(str::to_owned));
        let suggestion = stored.or_else(|| {
            let (wrong, missing) = (wrong.as_deref()?, missing.as_ref()?);
            let attribute_error = exc.class.is_subtype(&self.types.attribute_error);
            if !attribute_error || missing.suggested {
                return None;
            }
            let candidates = self.attribute_candidates(&missing.obj);
            let names = candidates.iter().filter_map(Value::as_str);
            crate::common::suggestions::suggest(wrong, names).map(str::to_owned)
        });
        let mut hints = match &suggestion {
            Some(s) => format!(". Did you mean: '{s}'?"),
            None => String::new(),
        };
        if let Some(wrong) = wrong
            && name_error
            && super::cpython_names::is_stdlib_module(&wrong)
        {
            hints += &match suggestion {
                Some(_) => format!(" Or did you forget to import '{wrong}'?"),
                None => format!(". Did you forget to import '{wrong}'?"),
            };
        }
        hints
    }
}
