//! A `range` object's arithmetic over whole ints, as `Objects/rangeobject.c` does it: its
//! length, the item at an index, the index of an item, a slice of it and its reverse, on
//! machine ints where the bounds fit and on big ints where they do not
//! (`range(10**30)[10**29]`, `max(range(2**63 - 2, 2**63 + 2))`).
//!
//! In: the bounds as [`Int`]s. Out: [`Int`]s and ranges. Knows nothing else of the VM.

use std::cmp::Ordering;

use crate::common::int_ops::{self, Int};

/// `range(start, stop, step)`; `step` is never zero.
#[derive(Clone)]
pub struct Range {
    pub start: Int,
    pub stop: Int,
    pub step: Int,
}

const ONE: Int = Int::Small(1);

impl Range {
    /// The bounds as machine ints, for the fast iterator; None when one of them is big.
    pub fn small(&self) -> Option<(i64, i64, i64)> {
        Some((
            self.start.as_i64()?,
            self.stop.as_i64()?,
            self.step.as_i64()?,
        ))
    }

    /// The number of items (`len(range)`, `compute_range_length`); never negative.
    pub fn length(&self) -> Int {
        if let Some((start, stop, step)) = self.small() {
            let (lo, hi, step) = if step > 0 {
                (i128::from(start), i128::from(stop), i128::from(step))
            } else {
                (i128::from(stop), i128::from(start), -i128::from(step))
            };
            if lo >= hi {
                return Int::Small(0);
            }
            let length = (hi - lo - 1) / step + 1;
            return i64::try_from(length)
                .map_or_else(|_| Int::from(num_bigint::BigInt::from(length)), Int::Small);
        }
        let (lo, hi, step) = if self.step.is_negative() {
            (&self.stop, &self.start, int_ops::neg(&self.step))
        } else {
            (&self.start, &self.stop, self.step.clone())
        };
        if lo >= hi {
            return Int::Small(0);
        }
        let span = int_ops::sub(&int_ops::sub(hi, lo), &ONE);
        let steps = int_ops::floor_div(&span, &step).unwrap_or(Int::Small(0));
        int_ops::add(&steps, &ONE)
    }

    /// True when the range has no items.
    pub fn is_empty(&self) -> bool {
        match self.step.is_negative() {
            false => self.start >= self.stop,
            true => self.start <= self.stop,
        }
    }

    /// The item at `index` (`compute_item`), for `0 <= index < len`.
    pub fn item(&self, index: &Int) -> Int {
        int_ops::add(&self.start, &int_ops::mul(index, &self.step))
    }

    /// The index of `n` among the items, if it is one of them.
    pub fn position(&self, n: &Int) -> Option<Int> {
        let inside = if self.step.is_negative() {
            n <= &self.start && n > &self.stop
        } else {
            n >= &self.start && n < &self.stop
        };
        let offset = int_ops::sub(n, &self.start);
        let (index, rest) = int_ops::divmod(&offset, &self.step).ok()?;
        (inside && rest.is_zero()).then_some(index)
    }

    /// `range[start:stop:step]` from the slice's bounds (None where left out): the indices
    /// clamped as `_PySlice_GetLongIndices` clamps them, then mapped onto the items; None
    /// when `step` is zero.
    pub fn slice(&self, start: Option<Int>, stop: Option<Int>, step: Option<Int>) -> Option<Range> {
        let step = step.unwrap_or(ONE);
        if step.is_zero() {
            return None;
        }
        let length = self.length();
        let backwards = step.is_negative();
        let (lower, upper) = if backwards {
            (Int::Small(-1), int_ops::sub(&length, &ONE))
        } else {
            (Int::Small(0), length.clone())
        };
        let clamp = |bound: Option<Int>, default: &Int| match bound {
            None => default.clone(),
            Some(i) if i.is_negative() => int_ops::add(&i, &length).max(lower.clone()),
            Some(i) => i.min(upper.clone()),
        };
        let (first, last) = if backwards {
            (&upper, &lower)
        } else {
            (&lower, &upper)
        };
        let start = clamp(start, first);
        let stop = clamp(stop, last);
        Some(Range {
            start: self.item(&start),
            stop: self.item(&stop),
            step: int_ops::mul(&self.step, &step),
        })
    }

    /// The same items in the opposite order (`reversed(range)`, `range_reverse`).
    pub fn reversed(&self) -> Range {
        let last = self.item(&int_ops::sub(&self.length(), &ONE));
        Range {
            stop: int_ops::sub(&self.start, &self.step),
            start: last,
            step: int_ops::neg(&self.step),
        }
    }

    /// `==` between ranges: the same items in the same order (`range_equals`).
    pub fn same_items(&self, other: &Range) -> bool {
        let length = self.length();
        if length != other.length() {
            return false;
        }
        match length.cmp(&ONE) {
            Ordering::Less => true,
            Ordering::Equal => self.start == other.start,
            Ordering::Greater => self.start == other.start && self.step == other.step,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: i128, stop: i128, step: i128) -> Range {
        let int = |n: i128| Int::from(num_bigint::BigInt::from(n));
        Range {
            start: int(start),
            stop: int(stop),
            step: int(step),
        }
    }

    fn big(text: &str) -> Int {
        int_ops::parse_int(text, 10).unwrap()
    }

    #[test]
    fn lengths_on_either_side_of_the_machine_int() {
        assert_eq!(range(0, 10, 3).length(), Int::Small(4));
        assert_eq!(range(10, 0, -3).length(), Int::Small(4));
        assert_eq!(range(5, 5, 1).length(), Int::Small(0));
        // python3.13: len(range(-2**63, 2**63 - 1)) overflows; its true length is 2**64 - 1
        assert_eq!(
            range(-(1 << 63), (1 << 63) - 1, 1).length(),
            big("18446744073709551615")
        );
        assert_eq!(range(0, 1 << 70, 3).length(), big("393530540239137101142"));
    }

    #[test]
    fn items_positions_and_slices_of_big_ranges() {
        let r = range(0, 10i128.pow(30), 1);
        assert_eq!(
            r.item(&big("100000000000000000000000000000")),
            big("100000000000000000000000000000")
        );
        assert_eq!(
            r.position(&big("12345678901234567890123")),
            Some(big("12345678901234567890123"))
        );
        // python3.13: range(0, 2**70, 3)[5:2**69] == range(15, 2**69 * 3, 3)
        let r = range(0, 1 << 70, 3);
        let s = r
            .slice(
                Some(Int::Small(5)),
                Some(big("590295810358705651712")),
                None,
            )
            .unwrap();
        assert_eq!(
            (s.start, s.stop, s.step),
            (Int::Small(15), big("1180591620717411303426"), Int::Small(3))
        );
        // python3.13: range(10)[::-3] == range(9, -1, -3)
        let s = range(0, 10, 1)
            .slice(None, None, Some(Int::Small(-3)))
            .unwrap();
        assert_eq!(
            (s.start, s.stop, s.step),
            (Int::Small(9), Int::Small(-1), Int::Small(-3))
        );
        let back = range((1 << 63) - 2, (1 << 63) + 2, 1).reversed();
        assert_eq!(back.start, big("9223372036854775809"));
        assert!(
            range(0, 10, 1)
                .slice(None, None, Some(Int::Small(0)))
                .is_none()
        );
    }
}
