//! The algorithms behind `str` methods and `repr(str)`, on `&str` (the `%` operator is
//! `percent.rs`).
//!
//! In: `&str` plus Python-style arguments (character indices, `maxsplit`, `count`). Out: new
//! strings, slices or indices in code points, or an [`OpError`]. Mirrors
//! `Objects/unicodeobject.c` and `Objects/stringlib/` (split, find, count, replace, pad,
//! `unicode_repr`). Python indexes strings by code point; the helpers here convert to byte
//! offsets, with a fast path for ASCII.

use super::chars::{is_lowercase, is_python_whitespace, is_titlecase, is_uppercase};
use super::op_error::{OpError, OpResult};
use super::sizes::text_with_capacity;

// ---- code point indices -----------------------------------------------------------------

/// `len(s)`: the number of code points.
pub fn char_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// The byte offset of code point `index` (`s.len()` when `index` is past the end).
pub fn byte_offset(s: &str, index: usize) -> usize {
    if s.is_ascii() {
        return index.min(s.len());
    }
    s.char_indices()
        .nth(index)
        .map_or(s.len(), |(offset, _)| offset)
}

/// The code point index of byte offset `offset` (which must be a char boundary).
pub fn char_index(s: &str, offset: usize) -> usize {
    char_len(&s[..offset])
}

/// CPython's `ADJUST_INDICES`: `start`/`end` as in a slice, `end` clamped to `len`, but a
/// `start` past the end left as is (callers treat it as "nothing found").
pub fn adjust_indices(start: Option<i64>, end: Option<i64>, len: usize) -> (usize, usize) {
    let len = len as i64;
    let clamp = |index: i64| {
        if index < 0 {
            (index + len).max(0)
        } else {
            index
        }
    };
    let end = end.map_or(len, |e| clamp(e).min(len));
    let start = start.map_or(0, clamp);
    (start as usize, end as usize)
}

/// A str and whether it is all ASCII, where a code point index is a byte offset. A Python
/// `str` remembers that (`PyStr::text`), so `s[i]`, `s[i:j]` and `s.find(x, i)` on a long
/// ASCII text do not scan the whole text again each time (a parser walking a text by index
/// would be quadratic).
#[derive(Clone, Copy)]
pub struct Text<'a> {
    pub text: &'a str,
    pub ascii: bool,
}

impl<'a> From<&'a str> for Text<'a> {
    fn from(text: &'a str) -> Text<'a> {
        Text {
            text,
            ascii: text.is_ascii(),
        }
    }
}

impl Text<'_> {
    /// `len(s)`.
    pub fn char_len(&self) -> usize {
        match self.ascii {
            true => self.text.len(),
            false => self.text.chars().count(),
        }
    }

    /// The byte range of the code point range `start..end` (`start <= end <= char_len`).
    pub fn byte_range(&self, start: usize, end: usize) -> (usize, usize) {
        if self.ascii {
            return (start.min(self.text.len()), end.min(self.text.len()));
        }
        let begin = byte_offset(self.text, start);
        (begin, begin + byte_offset(&self.text[begin..], end - start))
    }

    /// The code point index of byte offset `offset` (a char boundary).
    fn char_index(&self, offset: usize) -> usize {
        match self.ascii {
            true => offset,
            false => char_index(self.text, offset),
        }
    }
}

// ---- searching ------------------------------------------------------------------------

/// `s.find(sub, start, end)` (`reverse` for `rfind`): a code point index or -1.
pub fn find(s: Text, sub: &str, start: Option<i64>, end: Option<i64>, reverse: bool) -> i64 {
    let (start, end) = adjust_indices(start, end, s.char_len());
    if start > end {
        return -1;
    }
    let (begin, finish) = s.byte_range(start, end);
    let window = Text {
        text: &s.text[begin..finish],
        ascii: s.ascii,
    };
    let found = if reverse {
        window.text.rfind(sub)
    } else {
        window.text.find(sub)
    };
    found.map_or(-1, |offset| (start + window.char_index(offset)) as i64)
}

/// `s.index(sub, ...)`: like [`find`] but "substring not found" instead of -1.
pub fn index(
    s: Text,
    sub: &str,
    start: Option<i64>,
    end: Option<i64>,
    reverse: bool,
) -> OpResult<i64> {
    match find(s, sub, start, end, reverse) {
        -1 => Err(OpError::value("substring not found")),
        found => Ok(found),
    }
}

/// `s.count(sub, start, end)`: non-overlapping occurrences; `len + 1` for an empty `sub`.
pub fn count(s: Text, sub: &str, start: Option<i64>, end: Option<i64>) -> usize {
    let length = s.char_len();
    let (start, end) = adjust_indices(start, end, length);
    if start > length || start > end {
        return 0;
    }
    if sub.is_empty() {
        return end - start + 1;
    }
    let (begin, finish) = s.byte_range(start, end);
    s.text[begin..finish].matches(sub).count()
}

/// `s.startswith(prefix, start, end)` (`at_end` for `endswith`) for one candidate; the
/// caller loops over a tuple.
pub fn starts_or_ends_with(
    s: Text,
    affix: &str,
    start: Option<i64>,
    end: Option<i64>,
    at_end: bool,
) -> bool {
    let (start, end) = adjust_indices(start, end, s.char_len());
    let affix_len = char_len(affix);
    if end < start + affix_len {
        return false;
    }
    let (begin, finish) = s.byte_range(start, end);
    let window = &s.text[begin..finish];
    if at_end {
        window.ends_with(affix)
    } else {
        window.starts_with(affix)
    }
}

/// `s.replace(old, new, count)`; a negative `count` replaces all. An empty `old` inserts
/// `new` before every code point and at the end.
pub fn replace(s: &str, old: &str, new: &str, count: i64) -> OpResult<String> {
    let limit = usize::try_from(count).unwrap_or(usize::MAX);
    // A result that could grow past a mebibyte is measured before it is built, and built
    // in room taken up front: MemoryError past MAX_TEXT_LEN or `--max-memory`.
    let most = if old.is_empty() {
        s.len() + 1
    } else {
        s.len() / old.len()
    };
    let growth = new.len().saturating_sub(old.len());
    let bound = s
        .len()
        .saturating_add(most.min(limit).saturating_mul(growth));
    if bound <= LARGE_RESULT {
        return Ok(s.replacen(old, new, limit));
    }
    let found = s.match_indices(old).take(limit).count();
    let bytes = (s.len() - found * old.len()).saturating_add(found.saturating_mul(new.len()));
    let chars = || {
        let chars = char_len(s) - found * char_len(old);
        chars.saturating_add(found.saturating_mul(char_len(new)))
    };
    let mut out = text_with_capacity(bytes, chars)?;
    let mut last = 0;
    for (at, _) in s.match_indices(old).take(limit) {
        out.push_str(&s[last..at]);
        out.push_str(new);
        last = at + old.len();
    }
    out.push_str(&s[last..]);
    Ok(out)
}

/// Past this many bytes a result is measured before it is built ([`replace`]).
const LARGE_RESULT: usize = 1 << 20;

// ---- splitting ------------------------------------------------------------------------

/// `s.split(sep, maxsplit)`; `None` splits on runs of whitespace; `maxsplit < 0` is
/// unlimited.
pub fn split<'a>(s: &'a str, sep: Option<&str>, maxsplit: i64) -> OpResult<Vec<&'a str>> {
    let limit = usize::try_from(maxsplit).ok();
    match sep {
        None => Ok(split_whitespace(s, limit)),
        Some("") => Err(OpError::value("empty separator")),
        Some(sep) => Ok(match limit {
            Some(limit) => s.splitn(limit.saturating_add(1), sep).collect(),
            None => s.split(sep).collect(),
        }),
    }
}

/// `s.rsplit(sep, maxsplit)`.
pub fn rsplit<'a>(s: &'a str, sep: Option<&str>, maxsplit: i64) -> OpResult<Vec<&'a str>> {
    let limit = usize::try_from(maxsplit).ok();
    let mut parts: Vec<&str> = match sep {
        None => return Ok(rsplit_whitespace(s, limit)),
        Some("") => return Err(OpError::value("empty separator")),
        Some(sep) => match limit {
            Some(limit) => s.rsplitn(limit.saturating_add(1), sep).collect(),
            None => s.rsplit(sep).collect(),
        },
    };
    parts.reverse();
    Ok(parts)
}

fn split_whitespace(s: &str, limit: Option<usize>) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = s.trim_start_matches(is_python_whitespace);
    while !rest.is_empty() {
        if limit.is_some_and(|limit| parts.len() == limit) {
            parts.push(rest);
            break;
        }
        let end = rest.find(is_python_whitespace).unwrap_or(rest.len());
        parts.push(&rest[..end]);
        rest = rest[end..].trim_start_matches(is_python_whitespace);
    }
    parts
}

fn rsplit_whitespace(s: &str, limit: Option<usize>) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = s.trim_end_matches(is_python_whitespace);
    while !rest.is_empty() {
        if limit.is_some_and(|limit| parts.len() == limit) {
            parts.push(rest);
            break;
        }
        let start = rest
            .char_indices()
            .rev()
            .find(|(_, c)| is_python_whitespace(*c))
            .map_or(0, |(offset, c)| offset + c.len_utf8());
        parts.push(&rest[start..]);
        rest = rest[..start].trim_end_matches(is_python_whitespace);
    }
    parts.reverse();
    parts
}

/// Line boundaries of `str.splitlines`.
fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\x0b'
            | '\x0c'
            | '\x1c'
            | '\x1d'
            | '\x1e'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// `s.splitlines(keepends)`; `\r\n` is one boundary.
pub fn splitlines(s: &str, keepends: bool) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut line_start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((offset, c)) = chars.next() {
        if !is_line_break(c) {
            continue;
        }
        let mut break_end = offset + c.len_utf8();
        if c == '\r' && chars.peek().is_some_and(|(_, next)| *next == '\n') {
            chars.next();
            break_end += 1;
        }
        lines.push(&s[line_start..if keepends { break_end } else { offset }]);
        line_start = break_end;
    }
    if line_start < s.len() {
        lines.push(&s[line_start..]);
    }
    lines
}

/// `s.partition(sep)` (`reverse` for `rpartition`).
pub fn partition<'a>(
    s: &'a str,
    sep: &str,
    reverse: bool,
) -> OpResult<(&'a str, &'a str, &'a str)> {
    // The bytes algorithm, whose parts end at character boundaries on UTF-8.
    let (head, found, _) = super::bytes_ops::partition(s.as_bytes(), sep.as_bytes(), reverse)?;
    let (at, end) = (head.len(), head.len() + found.len());
    Ok((&s[..at], &s[at..end], &s[end..]))
}

// ---- stripping and padding ------------------------------------------------------------

/// Which ends `strip` works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StripSide {
    Left,
    Right,
    Both,
}

/// `s.strip(chars)`, `lstrip`, `rstrip`; `None` strips whitespace.
pub fn strip<'a>(s: &'a str, chars: Option<&str>, side: StripSide) -> &'a str {
    let strip_this = |c: char| match chars {
        Some(set) => set.contains(c),
        None => is_python_whitespace(c),
    };
    match side {
        StripSide::Left => s.trim_start_matches(strip_this),
        StripSide::Right => s.trim_end_matches(strip_this),
        StripSide::Both => s.trim_matches(strip_this),
    }
}

/// `s.center(width, fill)` with CPython's choice of where the odd space goes.
pub fn center(s: &str, width: i64, fill: char) -> String {
    let length = char_len(s) as i64;
    if width <= length {
        return s.to_string();
    }
    let margin = width - length;
    let left = margin / 2 + (margin & width & 1);
    pad_with(s, left as usize, (margin - left) as usize, fill)
}

/// `s.ljust(width, fill)`.
pub fn ljust(s: &str, width: i64, fill: char) -> String {
    let margin = width.saturating_sub(char_len(s) as i64).max(0) as usize;
    pad_with(s, 0, margin, fill)
}

/// `s.rjust(width, fill)`.
pub fn rjust(s: &str, width: i64, fill: char) -> String {
    let margin = width.saturating_sub(char_len(s) as i64).max(0) as usize;
    pad_with(s, margin, 0, fill)
}

pub(super) fn pad_with(s: &str, left: usize, right: usize, fill: char) -> String {
    let mut out = String::with_capacity(s.len() + left + right);
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(s);
    out.extend(std::iter::repeat_n(fill, right));
    out
}

/// `s.zfill(width)`: zeros after a leading sign.
pub fn zfill(s: &str, width: i64) -> String {
    let margin = width.saturating_sub(char_len(s) as i64).max(0) as usize;
    let zeros = "0".repeat(margin);
    match s.strip_prefix(['+', '-']) {
        Some(rest) => format!("{}{zeros}{rest}", &s[..1]),
        None => format!("{zeros}{s}"),
    }
}

/// `s.expandtabs(tabsize)`: the column restarts after `\n` and `\r`.
pub fn expandtabs(s: &str, tabsize: i64) -> String {
    let mut out = String::with_capacity(s.len());
    let mut column: i64 = 0;
    for c in s.chars() {
        match c {
            '\t' => {
                if tabsize > 0 {
                    let spaces = tabsize - column % tabsize;
                    out.extend(std::iter::repeat_n(' ', spaces as usize));
                    column += spaces;
                }
            }
            '\n' | '\r' => {
                out.push(c);
                column = 0;
            }
            _ => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

// ---- case -------------------------------------------------------------------------------

/// A character that has case (CPython's `_PyUnicode_IsCased`: uppercase, lowercase or
/// titlecase).
fn is_cased(c: char) -> bool {
    is_uppercase(c) || is_lowercase(c) || is_titlecase(c)
}

/// The titlecase mapping of one character.
fn to_titlecase(c: char) -> String {
    match c {
        'Ǆ' | 'ǅ' | 'ǆ' => "ǅ".to_string(),
        'Ǉ' | 'ǈ' | 'ǉ' => "ǈ".to_string(),
        'Ǌ' | 'ǋ' | 'ǌ' => "ǋ".to_string(),
        'Ǳ' | 'ǲ' | 'ǳ' => "ǲ".to_string(),
        'ß' => "Ss".to_string(),
        '\u{FB00}'..='\u{FB06}' => {
            let upper: String = c.to_uppercase().collect();
            let mut chars = upper.chars();
            let first = chars.next().map(String::from).unwrap_or_default();
            first + &chars.as_str().to_lowercase()
        }
        _ => c.to_uppercase().collect(),
    }
}

/// `s.title()`: title-case after an uncased character, lowercase after a cased one.
pub fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut previous_is_cased = false;
    for c in s.chars() {
        if previous_is_cased {
            out.extend(c.to_lowercase());
        } else {
            out.push_str(&to_titlecase(c));
        }
        previous_is_cased = is_cased(c);
    }
    out
}

/// `s.capitalize()`: the first character title-cased, the rest lowercased.
pub fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => to_titlecase(first) + &chars.as_str().to_lowercase(),
        None => String::new(),
    }
}

/// `s.swapcase()`.
pub fn swapcase(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if is_uppercase(c) {
            out.extend(c.to_lowercase());
        } else if is_lowercase(c) {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `s.casefold()`: lowercase plus the full case foldings a learner meets (`ß` → `ss`).
pub fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.to_lowercase().chars() {
        match c {
            'ß' => out.push_str("ss"),
            'ς' => out.push('σ'),
            'ſ' => out.push('s'),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected value below was printed by python3.13.

    #[test]
    fn splitting() {
        assert_eq!(split("  a b  c ", None, -1).unwrap(), ["a", "b", "c"]);
        assert_eq!(split(" a b c ", None, 1).unwrap(), ["a", "b c "]);
        assert_eq!(split("a,b,,c", Some(","), -1).unwrap(), ["a", "b", "", "c"]);
        assert_eq!(split("a,b,,c", Some(","), 2).unwrap(), ["a", "b", ",c"]);
        assert_eq!(split("", Some(","), -1).unwrap(), [""]);
        assert!(split("", None, -1).unwrap().is_empty());
        assert_eq!(rsplit("a b c", None, 1).unwrap(), ["a b", "c"]);
        assert_eq!(rsplit("  a b c  ", None, 1).unwrap(), ["  a b", "c"]);
        assert_eq!(rsplit("a,b,c", Some(","), 1).unwrap(), ["a,b", "c"]);
        assert_eq!(
            split("a", Some(""), -1).unwrap_err().to_string(),
            "ValueError: empty separator"
        );
        let text = "a\nb\r\nc\rd\x0be\x0cf\x1cg\u{85}h\u{2028}i\n";
        assert_eq!(
            splitlines(text, false),
            ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        );
        assert_eq!(splitlines("a\nb\r\n", true), ["a\n", "b\r\n"]);
        assert!(splitlines("", false).is_empty());
        assert_eq!(partition("a=b=c", "=", false).unwrap(), ("a", "=", "b=c"));
        assert_eq!(partition("a=b=c", "=", true).unwrap(), ("a=b", "=", "c"));
        assert_eq!(partition("abc", "x", false).unwrap(), ("abc", "", ""));
        assert_eq!(partition("abc", "x", true).unwrap(), ("", "", "abc"));
    }

    #[test]
    fn stripping_and_padding() {
        assert_eq!(strip("xxhixx", Some("x"), StripSide::Both), "hi");
        assert_eq!(strip("  hi\t\n", None, StripSide::Both), "hi");
        assert_eq!(strip("abcba", Some("ab"), StripSide::Left), "cba");
        assert_eq!(strip("abcba", Some("ab"), StripSide::Right), "abc");
        assert_eq!(center("ab", 5, ' '), "  ab ");
        assert_eq!(center("ab", 6, '*'), "**ab**");
        assert_eq!(center("abc", 6, ' '), " abc  ");
        assert_eq!(center("abc", 4, ' '), "abc ");
        assert_eq!(center("a", 4, ' '), " a  ");
        assert_eq!(ljust("ab", 4, '-'), "ab--");
        assert_eq!(rjust("ab", 4, ' '), "  ab");
        assert_eq!(zfill("-42", 6), "-00042");
        assert_eq!(zfill("+4", 4), "+004");
        assert_eq!(zfill("abc", 5), "00abc");
        assert_eq!(zfill("", 3), "000");
        // python3.13: 'ab'.zfill(-2**63) == 'ab' (the margin is not computed by wrapping)
        assert_eq!(zfill("ab", i64::MIN), "ab");
        assert_eq!(ljust("ab", i64::MIN, ' '), "ab");
        assert_eq!(rjust("ab", i64::MIN, ' '), "ab");
        assert_eq!(
            expandtabs("a\tbc\td\n\tx", 8),
            "a       bc      d\n        x"
        );
        assert_eq!(expandtabs("a\tb", 4), "a   b");
        assert_eq!(expandtabs("a\tb", 0), "ab");
        assert_eq!(expandtabs("ab\r\tc", 4), "ab\r    c");
    }

    #[test]
    fn case_changes() {
        assert_eq!(title("they're bill's friends"), "They'Re Bill'S Friends");
        assert_eq!(capitalize("hello wORLD"), "Hello world");
        assert_eq!(swapcase("Hello World ß"), "hELLO wORLD SS");
        assert_eq!(casefold("Straße"), "strasse");
        assert_eq!(title("ǆa"), "ǅa");
    }

    #[test]
    fn counting_and_finding() {
        assert_eq!(count("aaaa".into(), "aa", None, None), 2);
        assert_eq!(count("abc".into(), "", None, None), 4);
        assert_eq!(count("abc".into(), "", Some(1), None), 3);
        assert_eq!(count("abc".into(), "", Some(5), None), 0);
        assert_eq!(count("abcabc".into(), "b", Some(2), None), 1);
        assert_eq!(count("abcabc".into(), "b", Some(-2), None), 1);
        assert_eq!(find("abcabc".into(), "c", Some(3), None, false), 5);
        assert_eq!(find("abcabc".into(), "b", None, None, true), 4);
        assert_eq!(find("abc".into(), "", Some(5), None, false), -1);
        assert_eq!(find("abc".into(), "", Some(3), None, false), 3);
        assert_eq!(find("abc".into(), "", None, None, true), 3);
        assert_eq!(find("héllo".into(), "l", None, None, false), 2);
        assert_eq!(find("héllo".into(), "l", Some(3), None, false), 3);
        assert_eq!(find("abc".into(), "c", Some(-1), None, false), 2);
        assert_eq!(find("abc".into(), "a", Some(1), Some(0), false), -1);
        assert_eq!(
            index("abc".into(), "x", None, None, false)
                .unwrap_err()
                .to_string(),
            "ValueError: substring not found"
        );
        assert!(starts_or_ends_with("abc".into(), "b", Some(1), None, false));
        assert!(!starts_or_ends_with("abc".into(), "", Some(5), None, false));
        assert!(starts_or_ends_with("abc".into(), "", Some(3), None, false));
        assert!(starts_or_ends_with(
            "abc".into(),
            "b",
            Some(0),
            Some(2),
            true
        ));
        assert!(starts_or_ends_with("abc".into(), "c", Some(-1), None, true));
        assert_eq!(byte_offset("héllo", 2), 3);
        assert_eq!(char_index("héllo", 3), 2);
    }

    #[test]
    fn replacing() {
        let replace = |s, old, new, count| replace(s, old, new, count).unwrap();
        assert_eq!(replace("aaa", "a", "b", 2), "bba");
        assert_eq!(replace("abc", "", "-", -1), "-a-b-c-");
        assert_eq!(replace("abc", "", "-", 2), "-a-bc");
        assert_eq!(replace("abc", "x", "y", -1), "abc");
        assert_eq!(replace("", "", "x", -1), "x");
    }

    #[test]
    fn replacing_past_the_longest_text_is_a_memory_error() {
        let long = "ab".repeat(1 << 10);
        let wide = "x".repeat(1 << 20);
        assert_eq!(
            replace(&long, "a", &wide, -1).unwrap_err().to_string(),
            "MemoryError: "
        );
        // Only the replacements made count: one is far inside the limit.
        assert_eq!(
            replace(&long, "a", &wide, 1).unwrap().len(),
            2047 + (1 << 20)
        );
    }
}
