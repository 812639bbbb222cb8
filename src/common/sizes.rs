//! Sizes checked before allocating: what a program asks for (`[0] * n`, `'x' * n`,
//! `s.ljust(n)`, `list(range(n))`) becomes `MemoryError` (or CPython's `OverflowError`)
//! when it cannot be had, never an abort that loses the program's output.
//!
//! In: lengths and counts. Out: buffers reserved up front with `try_reserve_exact` (inside
//! `memory::fallible`, so that `--max-memory` refuses them with an error rather than ending
//! the process), or an [`OpError`]. Mirrors the checks of CPython's `list_repeat`, `tuple_repeat` and
//! `unicode_repeat` (`Objects/*.c`) before they call the allocator.

use super::op_error::{ErrorKind, OpError, OpResult};

/// The longest text (in characters) a helper agrees to build; beyond it CPython would
/// exhaust memory, and apy raises `MemoryError` instead of aborting.
pub const MAX_TEXT_LEN: usize = 1 << 28;

/// `MemoryError` with no message, as CPython's `PyErr_NoMemory()` raises it.
pub fn no_memory() -> OpError {
    OpError::new(ErrorKind::MemoryError, "")
}

/// Refuse to build a text of `length` characters when it exceeds [`MAX_TEXT_LEN`].
pub fn check_text_len(length: usize) -> OpResult<()> {
    if length > MAX_TEXT_LEN {
        return Err(no_memory());
    }
    Ok(())
}

/// An empty string with room for `bytes` bytes of UTF-8, which hold `chars()` characters
/// (counted only when the bytes alone exceed [`MAX_TEXT_LEN`]): `MemoryError` past that
/// many characters or when the allocator cannot give the room.
pub fn text_with_capacity(bytes: usize, chars: impl FnOnce() -> usize) -> OpResult<String> {
    if bytes > MAX_TEXT_LEN {
        check_text_len(chars())?;
    }
    let mut text = String::new();
    super::memory::fallible(|| text.try_reserve_exact(bytes)).map_err(|_| no_memory())?;
    Ok(text)
}

/// An empty vector with room for `capacity` items, or `MemoryError` when the allocator
/// cannot give it (a size past `isize::MAX` bytes included).
pub fn vec_with_capacity<T>(capacity: usize) -> OpResult<Vec<T>> {
    let mut items = Vec::new();
    super::memory::fallible(|| items.try_reserve_exact(capacity)).map_err(|_| no_memory())?;
    Ok(items)
}

/// Makes room in `items` for `more` items (by doubling, as `push` grows), or `MemoryError`
/// when the allocator cannot give it: a list that grows an item at a time meets
/// `--max-memory` where it grows. Costs a comparison while there is room.
#[inline]
pub fn grow_for<T>(items: &mut Vec<T>, more: usize) -> OpResult<()> {
    if items.capacity() - items.len() >= more {
        return Ok(());
    }
    super::memory::fallible(|| items.try_reserve(more)).map_err(|_| no_memory())
}

/// Makes room in `text` for `more` bytes (by doubling, as `push_str` grows), or
/// `MemoryError` when the allocator cannot give it: [`grow_for`] for a text built a piece
/// at a time (a JSON document), which meets `--max-memory` where it grows.
#[inline]
pub fn grow_text(text: &mut String, more: usize) -> OpResult<()> {
    if text.capacity() - text.len() >= more {
        return Ok(());
    }
    super::memory::fallible(|| text.try_reserve(more)).map_err(|_| no_memory())
}

/// The room CPython's `list_resize` (`Objects/listobject.c`) gives a list resized from
/// `len` to `new_len` items: about an eighth more than asked, rounded to a multiple of
/// four, or just the rounding when one step grows it by more than that (an `extend`).
pub fn list_room(new_len: usize, len: usize) -> usize {
    if new_len == 0 {
        return 0;
    }
    let room = new_len.saturating_add((new_len >> 3) + 6) & !3;
    if new_len.saturating_sub(len) > room.saturating_sub(new_len) {
        new_len.saturating_add(3) & !3
    } else {
        room
    }
}

/// `MemoryError` unless the allocator can give `bytes` now (tried and given back): for
/// memory a library allocates where it cannot fail without ending the process (a big int's
/// digits, a dict's doubled table), checked before it does. Only worth it for big sizes.
pub fn check_room(bytes: usize) -> OpResult<()> {
    let mut trial: Vec<u8> = Vec::new();
    super::memory::fallible(|| trial.try_reserve_exact(bytes)).map_err(|_| no_memory())
}

/// `items` repeated `count` times (`list * n`, `tuple * n`): `MemoryError` when the result
/// cannot be allocated, as `list_repeat` does. Copies by doubling.
pub fn repeat_items<T: Clone>(items: &[T], count: usize) -> OpResult<Vec<T>> {
    if items.is_empty() || count == 0 {
        return Ok(Vec::new());
    }
    let total = items.len().checked_mul(count).ok_or_else(no_memory)?;
    let mut out = vec_with_capacity(total)?;
    out.extend_from_slice(items);
    while out.len() < total {
        out.extend_from_within(..out.len().min(total - out.len()));
    }
    Ok(out)
}

/// `text` repeated `count` times (`str * n`): CPython's `OverflowError` when the length
/// overflows, `MemoryError` past [`MAX_TEXT_LEN`] characters or when it cannot be allocated.
pub fn repeat_text(text: &str, chars: usize, count: usize) -> OpResult<String> {
    if chars == 0 || count == 0 {
        return Ok(String::new());
    }
    let length = chars
        .checked_mul(count)
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| OpError::overflow("repeated string is too long"))?;
    check_text_len(length)?;
    let bytes = repeat_items(text.as_bytes(), count)?;
    // Whole copies of a str are a str.
    String::from_utf8(bytes).map_err(|_| no_memory())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list grown an item at a time has CPython's rooms (`sys.getsizeof` of a list
    /// appended to in a loop: 4, 8, 16, 24, 32, 40, 52, 64, 76 items).
    #[test]
    fn appending_grows_by_cpythons_steps() {
        let mut room = 0;
        let mut rooms = Vec::new();
        for len in 0..70 {
            if len + 1 > room {
                room = list_room(len + 1, len);
                rooms.push(room);
            }
        }
        assert_eq!(rooms, [4, 8, 16, 24, 32, 40, 52, 64, 76]);
    }

    /// One step that grows a list by more than an eighth gets just that, rounded to four.
    #[test]
    fn a_big_step_is_rounded_not_overallocated() {
        assert_eq!(list_room(5, 2), 8);
        assert_eq!(list_room(100, 0), 100);
        assert_eq!(list_room(101, 1), 104);
        assert_eq!(list_room(0, 10), 0);
        assert_eq!(list_room(usize::MAX - 1, 0), usize::MAX - 3);
    }

    #[test]
    fn repeats_are_whole_copies() {
        assert_eq!(repeat_items(&[1, 2], 3).unwrap(), [1, 2, 1, 2, 1, 2]);
        assert_eq!(repeat_items(&[7], 5).unwrap(), [7; 5]);
        assert_eq!(repeat_text("é-", 2, 3).unwrap(), "é-é-é-");
        assert_eq!(repeat_text("", 0, usize::MAX).unwrap(), "");
        assert!(repeat_items::<u8>(&[], usize::MAX).unwrap().is_empty());
    }

    #[test]
    fn sizes_that_cannot_be_had_are_errors() {
        // python3.13: [0] * 2**62, [0, 0] * 2**62, 'xx' * 2**62, 'x' * 2**62
        let memory = "MemoryError: ";
        assert_eq!(
            repeat_items(&[0u64], 1 << 62).unwrap_err().to_string(),
            memory
        );
        assert_eq!(
            repeat_items(&[0u8; 2], 1 << 62).unwrap_err().to_string(),
            memory
        );
        assert_eq!(
            repeat_text("xx", 2, 1 << 62).unwrap_err().to_string(),
            "OverflowError: repeated string is too long"
        );
        assert_eq!(
            repeat_text("x", 1, 1 << 62).unwrap_err().to_string(),
            memory
        );
        assert!(vec_with_capacity::<u64>(1 << 61).is_err());
    }
}
