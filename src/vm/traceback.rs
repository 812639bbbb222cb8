//! Rendering an uncaught exception as CPython does on stderr (`Lib/traceback.py`,
//! `Python/pythonrun.c`): the chain of causes and contexts with their separator lines, each
//! `Traceback (most recent call last):` block with `File "…", line N, in name` and the
//! source line, then `TypeName: message` and any notes.

use std::rc::Rc;

use super::dict::StrKeys;
use super::object::Object;
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

impl Vm {
    /// The full text CPython prints for an uncaught `exc`.
    pub fn format_exception(&mut self, exc: &Exc) -> String {
        let mut out = String::new();
        let mut seen: Vec<*const Object> = Vec::new();
        self.format_chain(exc, &mut out, &mut seen);
        out
    }

    fn format_chain(&mut self, exc: &Exc, out: &mut String, seen: &mut Vec<*const Object>) {
        seen.push(Rc::as_ptr(exc));
        if let Some(data) = exc.exc_data() {
            let (cause, context, suppress) = {
                let d = data.borrow();
                (d.cause.clone(), d.context.clone(), d.suppress_context)
            };
            match (&cause, &context) {
                (Value::Object(c), _)
                    if c.exc_data().is_some() && !seen.contains(&Rc::as_ptr(c)) =>
                {
                    self.format_chain(c, out, seen);
                    out.push_str(CAUSE_SEPARATOR);
                }
                (_, Value::Object(c))
                    if !suppress && c.exc_data().is_some() && !seen.contains(&Rc::as_ptr(c)) =>
                {
                    self.format_chain(c, out, seen);
                    out.push_str(CONTEXT_SEPARATOR);
                }
                _ => {}
            }
        }
        self.format_single(exc, out);
    }

    /// One exception's traceback and last line, without its chain (as
    /// `PyErr_WriteUnraisable` prints it).
    pub fn format_single(&mut self, exc: &Exc, out: &mut String) {
        let entries = exc
            .exc_data()
            .map(|d| d.borrow().traceback.clone())
            .unwrap_or_default();
        if !entries.is_empty() {
            out.push_str("Traceback (most recent call last):\n");
            // Runs of the same frame and line collapse after three, as `traceback.py` does.
            let mut previous: Option<(&str, u32, &str)> = None;
            let mut repeats = 0;
            for entry in entries.iter().rev() {
                let key = (&*entry.code.filename, entry.line, &*entry.code.name);
                if previous == Some(key) {
                    repeats += 1;
                } else {
                    push_repeats(out, repeats);
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
                if let Some(line) = self.source_line(&entry.code.filename, entry.line) {
                    out.push_str(&format!("    {line}\n"));
                }
            }
            push_repeats(out, repeats);
        }
        out.push_str(&self.exception_last_line(exc));
        out.push('\n');
        let notes_key = self.names.notes.clone();
        let notes = exc
            .dict
            .as_ref()
            .and_then(|d| d.table.borrow().get_str(&notes_key).cloned());
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

    /// `TypeName: message`, or just `TypeName` for an empty message.
    pub fn exception_last_line(&mut self, exc: &Exc) -> String {
        let class = exc.class.clone();
        let name = match self.type_module(&class) {
            Some(m) if &*m != "__main__" && &*m != "builtins" => format!("{m}.{}", class.qualname),
            _ => class.qualname.to_string(),
        };
        let suggestion = exc.exc_data().and_then(|d| d.borrow().suggestion.clone());
        match self.exc_str(exc) {
            Ok(msg) if msg.is_empty() => name,
            Ok(msg) => match suggestion {
                Some(s) => format!("{name}: {msg}. Did you mean: '{s}'?"),
                None => format!("{name}: {msg}"),
            },
            Err(_) => format!("{name}: <exception str() failed>"),
        }
    }

    fn source_line(&self, filename: &str, line: u32) -> Option<String> {
        let text = self.sources.get(filename)?;
        let line = text.lines().nth(line.checked_sub(1)? as usize)?;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            None
        } else {
            Some(trimmed.to_string())
        }
    }
}
