//! The algorithms behind `bytes` and `bytearray` methods, on `&[u8]`.
//!
//! In: byte slices plus Python-style arguments (indices, `maxsplit`, `count`). Out: new
//! buffers, sub-slices or indices, or an [`OpError`]. Mirrors `Objects/stringlib/` as
//! `Objects/bytesobject.c` uses it: the same searching, splitting and partitioning as
//! `str`'s, which shares the ones that are the same on UTF-8 ([`partition`], [`find_sub`]).
//! Whitespace and line breaks are ASCII's only. Value-free.

use super::op_error::{OpError, OpResult};
use super::sizes::{check_text_len, vec_with_capacity};
use super::str_ops::{StripSide, adjust_indices};

/// Python's `bytes.isspace()` whitespace: space, `\t \n \r \x0b \x0c`.
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// The offset of the first (`reverse`: last) occurrence of `needle` in `hay`. On UTF-8, a
/// match is always at a character boundary, so `str` searches with it too.
pub fn find_sub(hay: &[u8], needle: &[u8], reverse: bool) -> Option<usize> {
    if needle.len() > hay.len() {
        return None;
    }
    let last = hay.len() - needle.len();
    let matches_at = |i: &usize| hay[*i..*i + needle.len()] == *needle;
    if reverse {
        (0..=last).rev().find(matches_at)
    } else {
        (0..=last).find(matches_at)
    }
}

/// `b.find(sub, start, end)` (`reverse` for `rfind`): an index or -1.
pub fn find(s: &[u8], sub: &[u8], start: Option<i64>, end: Option<i64>, reverse: bool) -> i64 {
    let (start, end) = adjust_indices(start, end, s.len());
    if start > end {
        return -1;
    }
    find_sub(&s[start..end], sub, reverse).map_or(-1, |at| (start + at) as i64)
}

/// `b.count(sub, start, end)`: non-overlapping occurrences; `len + 1` for an empty `sub`.
pub fn count(s: &[u8], sub: &[u8], start: Option<i64>, end: Option<i64>) -> usize {
    let (start, end) = adjust_indices(start, end, s.len());
    if start > s.len() || start > end {
        return 0;
    }
    if sub.is_empty() {
        return end - start + 1;
    }
    let mut window = &s[start..end];
    let mut found = 0;
    while let Some(at) = find_sub(window, sub, false) {
        found += 1;
        window = &window[at + sub.len()..];
    }
    found
}

/// `b.startswith(prefix, start, end)` (`at_end` for `endswith`) for one candidate.
pub fn starts_or_ends_with(
    s: &[u8],
    affix: &[u8],
    start: Option<i64>,
    end: Option<i64>,
    at_end: bool,
) -> bool {
    let (start, end) = adjust_indices(start, end, s.len());
    if start > s.len() || end < start + affix.len() {
        return false;
    }
    let window = &s[start..end];
    if at_end {
        window.ends_with(affix)
    } else {
        window.starts_with(affix)
    }
}

/// `b.replace(old, new, count)`; a negative `count` replaces all; an empty `old` inserts
/// `new` before every byte and at the end.
pub fn replace(s: &[u8], old: &[u8], new: &[u8], count: i64) -> OpResult<Vec<u8>> {
    let limit = usize::try_from(count).unwrap_or(usize::MAX);
    let mut out = Vec::new();
    if old.is_empty() {
        let inserts = limit.min(s.len() + 1);
        check_text_len(s.len().saturating_add(inserts.saturating_mul(new.len())))?;
        for (i, &b) in s.iter().enumerate() {
            if i < inserts {
                out.extend_from_slice(new);
            }
            out.push(b);
        }
        if inserts > s.len() {
            out.extend_from_slice(new);
        }
        return Ok(out);
    }
    let mut rest = s;
    let mut done = 0;
    while done < limit
        && let Some(at) = find_sub(rest, old, false)
    {
        check_text_len(out.len() + at + new.len())?;
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(new);
        rest = &rest[at + old.len()..];
        done += 1;
    }
    check_text_len(out.len() + rest.len())?;
    out.extend_from_slice(rest);
    Ok(out)
}

/// `b.split(sep, maxsplit)` (`reverse` for `rsplit`); `None` splits on runs of ASCII
/// whitespace; `maxsplit < 0` is unlimited.
pub fn split<'a>(
    s: &'a [u8],
    sep: Option<&[u8]>,
    maxsplit: i64,
    reverse: bool,
) -> OpResult<Vec<&'a [u8]>> {
    let limit = usize::try_from(maxsplit).unwrap_or(usize::MAX);
    let mut parts = Vec::new();
    match sep {
        Some([]) => return Err(OpError::value("empty separator")),
        Some(sep) => {
            let mut rest = s;
            while parts.len() < limit {
                let Some(at) = find_sub(rest, sep, reverse) else {
                    break;
                };
                if reverse {
                    parts.push(&rest[at + sep.len()..]);
                    rest = &rest[..at];
                } else {
                    parts.push(&rest[..at]);
                    rest = &rest[at + sep.len()..];
                }
            }
            parts.push(rest);
        }
        None => {
            let mut rest = strip(
                s,
                None,
                if reverse {
                    StripSide::Right
                } else {
                    StripSide::Left
                },
            );
            while !rest.is_empty() {
                if parts.len() == limit {
                    parts.push(rest);
                    break;
                }
                let side = if reverse {
                    StripSide::Right
                } else {
                    StripSide::Left
                };
                if reverse {
                    let at = rest.iter().rposition(|b| is_space(*b)).map_or(0, |i| i + 1);
                    parts.push(&rest[at..]);
                    rest = strip(&rest[..at], None, side);
                } else {
                    let at = rest.iter().position(|b| is_space(*b)).unwrap_or(rest.len());
                    parts.push(&rest[..at]);
                    rest = strip(&rest[at..], None, side);
                }
            }
        }
    }
    if reverse {
        parts.reverse();
    }
    Ok(parts)
}

/// `b.strip(chars)`, `lstrip`, `rstrip`; `None` strips ASCII whitespace.
pub fn strip<'a>(s: &'a [u8], chars: Option<&[u8]>, side: StripSide) -> &'a [u8] {
    let strip_this = |b: &u8| match chars {
        Some(set) => set.contains(b),
        None => is_space(*b),
    };
    let start = match side {
        StripSide::Right => 0,
        _ => s.iter().position(|b| !strip_this(b)).unwrap_or(s.len()),
    };
    let end = match side {
        StripSide::Left => s.len(),
        _ => s
            .iter()
            .rposition(|b| !strip_this(b))
            .map_or(start, |i| i + 1),
    };
    &s[start..end.max(start)]
}

/// `b.splitlines(keepends)`: lines end at `\n`, `\r` or `\r\n`.
pub fn splitlines(s: &[u8], keepends: bool) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut line_start = 0;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        i += 1;
        if c != b'\n' && c != b'\r' {
            continue;
        }
        let content_end = i - 1;
        if c == b'\r' && s.get(i) == Some(&b'\n') {
            i += 1;
        }
        lines.push(&s[line_start..if keepends { i } else { content_end }]);
        line_start = i;
    }
    if line_start < s.len() {
        lines.push(&s[line_start..]);
    }
    lines
}

/// The three parts of `s.partition(sep)` (`reverse` for `rpartition`), for bytes and str
/// alike (a UTF-8 separator is found at a character boundary).
pub fn partition<'a>(
    s: &'a [u8],
    sep: &[u8],
    reverse: bool,
) -> OpResult<(&'a [u8], &'a [u8], &'a [u8])> {
    if sep.is_empty() {
        return Err(OpError::value("empty separator"));
    }
    Ok(match find_sub(s, sep, reverse) {
        Some(at) => (&s[..at], &s[at..at + sep.len()], &s[at + sep.len()..]),
        None if reverse => (&[], &[], s),
        None => (s, &[], &[]),
    })
}

/// `b.hex(sep, bytes_per_sep)` (`_Py_strhex_impl`): two lowercase hex digits per byte,
/// with `sep` between groups of `abs(per)` bytes counted from the right (from the left
/// when `per` is negative; no separator when it is 0).
pub fn hex(s: &[u8], sep: Option<u8>, per: i64) -> OpResult<Vec<u8>> {
    let group = per.unsigned_abs() as usize;
    let sep = sep.filter(|_| group > 0);
    let seps = sep.map_or(0, |_| s.len().saturating_sub(1) / group.max(1));
    check_text_len(s.len().saturating_mul(2).saturating_add(seps))?;
    let digits = b"0123456789abcdef";
    let mut out = vec_with_capacity(s.len() * 2 + seps)?;
    for (i, b) in s.iter().enumerate() {
        // A group ends before this byte, counted from the side the groups start at.
        let boundary = if per > 0 { s.len() - i } else { i };
        if let Some(sep) = sep
            && i > 0
            && boundary.is_multiple_of(group)
        {
            out.push(sep);
        }
        out.extend([digits[(b >> 4) as usize], digits[(b & 15) as usize]]);
    }
    Ok(out)
}

/// `bytes.fromhex(text)`: pairs of hex digits, ASCII whitespace allowed between pairs.
/// On error, CPython's ValueError.
pub fn fromhex(text: &str) -> OpResult<Vec<u8>> {
    let digits = text.as_bytes();
    let mut out = vec_with_capacity(digits.len() / 2)?;
    let mut i = 0;
    let error = |at: usize| {
        OpError::value(format!(
            "non-hexadecimal number found in fromhex() arg at position {at}"
        ))
    };
    while i < digits.len() {
        if is_space(digits[i]) {
            i += 1;
            continue;
        }
        let high = (digits[i] as char).to_digit(16).ok_or_else(|| error(i))?;
        let low = digits.get(i + 1).and_then(|d| (*d as char).to_digit(16));
        let low = low.ok_or_else(|| error(i + 1))?;
        out.push((high * 16 + low) as u8);
        i += 2;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searching_and_counting() {
        assert_eq!(find(b"abcabc", b"c", None, None, true), 5);
        assert_eq!(find(b"abcabc", b"c", Some(3), Some(4), false), -1);
        assert_eq!(count(b"aaaa", b"aa", None, None), 2);
        assert_eq!(count(b"ab", b"", None, None), 3);
    }

    #[test]
    fn splitting() {
        let parts = |v: Vec<&[u8]>| v.iter().map(|p| p.to_vec()).collect::<Vec<_>>();
        assert_eq!(
            parts(split(b"  a b  c ", None, 1, false).unwrap()),
            [b"a".to_vec(), b"b  c ".to_vec()]
        );
        assert_eq!(
            parts(split(b"a,b,c", Some(b","), 1, true).unwrap()),
            [b"a,b".to_vec(), b"c".to_vec()]
        );
        assert_eq!(
            parts(splitlines(b"a\r\nb\rc\n", true)),
            [b"a\r\n".to_vec(), b"b\r".to_vec(), b"c\n".to_vec()]
        );
    }

    #[test]
    fn replacing_and_hex() {
        assert_eq!(replace(b"aXbX", b"X", b"--", 1).unwrap(), b"a--bX");
        assert_eq!(replace(b"ab", b"", b"-", -1).unwrap(), b"-a-b-");
        assert_eq!(fromhex("0a ff").unwrap(), [10, 255]);
        assert!(fromhex("0g").is_err());
        assert_eq!(hex(&[1, 171], None, 1).unwrap(), b"01ab");
        assert_eq!(hex(&[1, 2, 3], Some(b':'), 2).unwrap(), b"01:0203");
        assert_eq!(hex(&[1, 2, 3], Some(b':'), -2).unwrap(), b"0102:03");
        assert_eq!(hex(&[1, 2, 3], Some(b':'), 0).unwrap(), b"010203");
    }
}
