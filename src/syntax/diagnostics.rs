//! Errors found before a program runs, shown to a learner: a [`Diagnostic`] in, text out.
//!
//! Syntax errors (and, later, compile errors such as "'return' outside function") become a
//! [`Diagnostic`] and are drawn with codespan-reporting: file, line:column, the labelled source,
//! a help line. The last line is always CPython's (`SyntaxError: invalid syntax`), so the output
//! ends exactly as `python3.13`'s does. This is the only module that uses codespan-reporting;
//! it knows nothing of the parser's internals, the compiler or the VM.

use std::io::{IsTerminal, Write};

use codespan_reporting::diagnostic::{Diagnostic as CodespanDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::termcolor::{Buffer, BufferWriter, ColorChoice};
use codespan_reporting::term::{self, Config};

use super::ast::Span;
use super::error::SyntaxError;

/// An error that stops a program before it starts, as CPython would raise it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The Python exception class: `SyntaxError`, `IndentationError` or `TabError`.
    pub class_name: &'static str,
    /// CPython's wording ("expected ':'", "'return' outside function", …).
    pub message: String,
    /// Where in the source; None when there is nothing to point at.
    pub span: Option<Span>,
    /// A line of advice for a learner.
    pub help: Option<String>,
    /// The source ended where more lines could complete it (an open bracket, a block
    /// still expected): `compile()`'s `PyCF_ALLOW_INCOMPLETE_INPUT` tells it apart.
    pub incomplete: bool,
}

impl Diagnostic {
    /// A `SyntaxError` at `span`: the constructor for compile-time errors.
    pub fn syntax_error(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            class_name: "SyntaxError",
            message: message.into(),
            span: Some(span),
            help: None,
            incomplete: false,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// The line CPython prints last: `SyntaxError: invalid syntax`.
    pub fn last_line(&self) -> String {
        format!("{}: {}", self.class_name, self.message)
    }
}

impl From<&SyntaxError> for Diagnostic {
    fn from(error: &SyntaxError) -> Diagnostic {
        Diagnostic {
            class_name: error.class_name(),
            message: error.message.clone(),
            span: Some(error.span),
            help: error.help.clone(),
            incomplete: error.is_incomplete(),
        }
    }
}

impl From<SyntaxError> for Diagnostic {
    fn from(error: SyntaxError) -> Diagnostic {
        Diagnostic::from(&error)
    }
}

/// Renders `diagnostic` against the source it points into, without colour (for tests and
/// for anything that is not a terminal). `file_name` is shown in the location line.
pub fn render_to_string(diagnostic: &Diagnostic, file_name: &str, source: &str) -> String {
    let mut buffer = Buffer::no_color();
    write_diagnostic(&mut buffer, diagnostic, file_name, source);
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}

/// Writes `diagnostic` to stderr, in colour when stderr is a terminal.
pub fn emit_to_stderr(diagnostic: &Diagnostic, file_name: &str, source: &str) {
    let choice = if std::io::stderr().is_terminal() {
        ColorChoice::Auto // still honours NO_COLOR and TERM=dumb
    } else {
        ColorChoice::Never
    };
    let writer = BufferWriter::stderr(choice);
    let mut buffer = writer.buffer();
    write_diagnostic(&mut buffer, diagnostic, file_name, source);
    // Nothing sensible is left to do when stderr itself fails.
    let _ = writer.print(&buffer);
}

/// The codespan rendering (when there is a span or a help line to show), then CPython's
/// last line.
fn write_diagnostic(out: &mut Buffer, diagnostic: &Diagnostic, file_name: &str, source: &str) {
    if diagnostic.span.is_some() || diagnostic.help.is_some() {
        let file = SimpleFile::new(file_name, source);
        let mut rendered = CodespanDiagnostic::error()
            .with_code(diagnostic.class_name)
            .with_message(&diagnostic.message);
        if let Some(span) = diagnostic.span {
            rendered = rendered.with_label(Label::primary((), label_range(span, source)));
        }
        if let Some(help) = &diagnostic.help {
            rendered = rendered.with_note(format!("help: {help}"));
        }
        // Writing into memory cannot fail, and the span is clamped to the source.
        let _ = term::emit_to_write_style(out, &Config::default(), &file, &rendered);
    }
    let _ = writeln!(out, "{}", diagnostic.last_line());
}

/// The part of `span` to underline: inside the source, on character boundaries (a parser
/// bug must not turn into a panic while reporting an error), and on its first line only, as
/// CPython shows it (an "expected ':'" span that covers the line break points at the line's end).
fn label_range(span: Span, source: &str) -> std::ops::Range<usize> {
    let mut start = (span.start as usize).min(source.len());
    let mut end = (span.end as usize).clamp(start, source.len());
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    while !source.is_char_boundary(end) {
        end += 1;
    }
    match source[start..end].find('\n') {
        Some(newline) => start..start + newline,
        None => start..end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::error::SyntaxErrorKind;

    #[test]
    fn renders_location_label_help_and_cpythons_last_line() {
        let source = "x = 1\nif x > 1\n    pass\n";
        let error = SyntaxError::invalid("expected ':'", Span::new(14, 14))
            .with_help("a block starts with ':'");
        let text = render_to_string(&Diagnostic::from(error), "lesson.apy", source);
        let expected = "\
error[SyntaxError]: expected ':'
  ┌─ lesson.apy:2:9
  │
2 │ if x > 1
  │         ^
  │
  = help: a block starts with ':'

SyntaxError: expected ':'
";
        assert_eq!(text, expected);
    }

    #[test]
    fn class_name_follows_the_error_kind() {
        let span = Span::new(0, 1);
        let indentation = SyntaxError::new(SyntaxErrorKind::Indentation, "unexpected indent", span);
        let tab = SyntaxError::new(SyntaxErrorKind::Tab, "inconsistent use of tabs", span);
        assert_eq!(
            Diagnostic::from(indentation).last_line(),
            "IndentationError: unexpected indent"
        );
        assert_eq!(
            Diagnostic::from(tab).last_line(),
            "TabError: inconsistent use of tabs"
        );
    }

    #[test]
    fn without_span_or_help_only_the_last_line_is_printed() {
        let diagnostic = Diagnostic {
            span: None,
            ..Diagnostic::syntax_error("invalid syntax", Span::default())
        };
        assert_eq!(
            render_to_string(&diagnostic, "f.apy", "x"),
            "SyntaxError: invalid syntax\n"
        );
    }

    #[test]
    fn spans_outside_the_source_or_inside_a_character_are_clamped() {
        let source = "é = 1\n";
        // Starts inside 'é' (2 bytes) and ends past the end.
        let diagnostic = Diagnostic::syntax_error("invalid character", Span::new(1, 99));
        let text = render_to_string(&diagnostic, "f.apy", source);
        assert!(text.contains("f.apy:1:1"), "{text}");
        assert!(text.ends_with("SyntaxError: invalid character\n"));
        assert_eq!(label_range(Span::new(1, 99), source), 0..source.len() - 1);
    }

    #[test]
    fn a_span_across_a_line_break_is_shown_on_its_first_line() {
        let source = "if x > 1\n    pass\n";
        let diagnostic = Diagnostic::syntax_error("expected ':'", Span::new(8, 13));
        let text = render_to_string(&diagnostic, "f.apy", source);
        assert!(text.contains("1 │ if x > 1\n  │         ^\n"), "{text}");
        assert!(!text.contains("pass"), "{text}");
    }
}
