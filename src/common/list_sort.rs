//! `list.sort()` and `sorted()`: CPython's timsort, comparison for comparison.
//!
//! In: a slice and a fallible "less than" (a user `__lt__` can raise or print). Out: the
//! slice sorted stably, having made exactly the comparisons CPython 3.13 makes, in the same
//! order (`count_run` with its descending-run handling, binary insertion up to `minrun`,
//! powersort's merge policy, galloping merges): `Objects/listobject.c`, `listsort.txt`.
//! On an error the slice keeps every element (some permutation). Generic; no VM types.

/// Runs shorter than this are extended by binary insertion (`MAX_MINRUN`).
const MAX_MINRUN: usize = 64;
/// Initial threshold for entering galloping mode (`MIN_GALLOP`).
const MIN_GALLOP: usize = 7;

/// One pending run: `items[base..base + len]`, with its powersort "power".
#[derive(Clone, Copy)]
struct Run {
    base: usize,
    len: usize,
    power: u32,
}

struct MergeState<'a, T, F> {
    items: &'a mut [T],
    less: F,
    min_gallop: usize,
    pending: Vec<Run>,
}

/// Sort `items` stably with `less(a, b)` meaning `a < b`, as `list.sort` does.
pub fn timsort<T: Clone, E>(
    items: &mut [T],
    less: impl FnMut(&T, &T) -> Result<bool, E>,
) -> Result<(), E> {
    let len = items.len();
    if len < 2 {
        return Ok(());
    }
    let mut state = MergeState {
        items,
        less,
        min_gallop: MIN_GALLOP,
        pending: Vec::new(),
    };
    let minrun = compute_minrun(len);
    let mut low = 0;
    while low < len {
        let remaining = len - low;
        let mut run = state.count_run(low, remaining)?;
        if run < minrun {
            let forced = remaining.min(minrun);
            state.binary_sort(low, forced, run)?;
            run = forced;
        }
        state.found_new_run(low, run, len)?;
        state.pending.push(Run {
            base: low,
            len: run,
            power: 0,
        });
        low += run;
    }
    state.force_collapse()
}

/// `merge_compute_minrun`.
fn compute_minrun(mut n: usize) -> usize {
    let mut r = 0;
    while n >= MAX_MINRUN {
        r |= n & 1;
        n >>= 1;
    }
    n + r
}

/// `powerloop`: the power of the boundary between runs `[s1, s1+n1)` and `[s1+n1, +n2)`.
fn power_loop(s1: usize, n1: usize, n2: usize, n: usize) -> u32 {
    let mut result = 0;
    let mut a = 2 * s1 + n1;
    let mut b = a + n1 + n2;
    loop {
        result += 1;
        if a >= n {
            a -= n;
            b -= n;
        } else if b >= n {
            break;
        }
        a <<= 1;
        b <<= 1;
    }
    result
}

impl<T: Clone, E, F: FnMut(&T, &T) -> Result<bool, E>> MergeState<'_, T, F> {
    fn lt(&mut self, a: usize, b: usize) -> Result<bool, E> {
        (self.less)(&self.items[a], &self.items[b])
    }

    /// `count_run`: the length of the run at `low` (at most `remaining`), made ascending.
    fn count_run(&mut self, low: usize, remaining: usize) -> Result<usize, E> {
        let mut n = 1;
        while n < remaining {
            if self.lt(low + n, low + n - 1)? {
                break;
            }
            n += 1;
        }
        if n == remaining {
            return Ok(n);
        }
        if n > 1 {
            if self.lt(low, low + n - 1)? {
                return Ok(n);
            }
            self.items[low..low + n].reverse();
        }
        n += 1;
        let mut equal = 0;
        while n < remaining {
            if self.lt(low + n, low + n - 1)? {
                self.reverse_equal_tail(low, n, &mut equal);
            } else if self.lt(low + n - 1, low + n)? {
                break;
            } else {
                equal += 1;
            }
            n += 1;
        }
        self.reverse_equal_tail(low, n, &mut equal);
        self.items[low..low + n].reverse();
        while n < remaining {
            if self.lt(low + n, low + n - 1)? {
                break;
            }
            n += 1;
        }
        Ok(n)
    }

    /// `REVERSE_LAST_NEQ`: reverse the last `equal + 1` elements of the run so far, so the
    /// final whole-run reversal restores their original (stable) order.
    fn reverse_equal_tail(&mut self, low: usize, n: usize, equal: &mut usize) {
        if *equal > 0 {
            let count = *equal + 1;
            self.items[low + n - count..low + n].reverse();
            *equal = 0;
        }
    }

    /// `binarysort`: extend the sorted prefix `[low, low+sorted)` to `[low, low+n)`.
    fn binary_sort(&mut self, low: usize, n: usize, sorted: usize) -> Result<(), E> {
        for ok in sorted.max(1)..n {
            let pivot = self.items[low + ok].clone();
            let (mut left, mut right) = (0, ok);
            while left < right {
                let middle = (left + right) >> 1;
                if (self.less)(&pivot, &self.items[low + middle])? {
                    right = middle;
                } else {
                    left = middle + 1;
                }
            }
            self.items[low + left..=low + ok].rotate_right(1);
        }
        Ok(())
    }

    /// `found_new_run`: merge pending runs whose power exceeds the new boundary's.
    fn found_new_run(&mut self, start: usize, length: usize, total: usize) -> Result<(), E> {
        let Some(last) = self.pending.last() else {
            return Ok(());
        };
        let power = power_loop(last.base, last.len, length, total);
        debug_assert_eq!(last.base + last.len, start);
        while self.pending.len() > 1 && self.pending[self.pending.len() - 2].power > power {
            self.merge_at(self.pending.len() - 2)?;
        }
        if let Some(last) = self.pending.last_mut() {
            last.power = power;
        }
        Ok(())
    }

    /// `merge_force_collapse`.
    fn force_collapse(&mut self) -> Result<(), E> {
        while self.pending.len() > 1 {
            let mut n = self.pending.len() - 2;
            if n > 0 && self.pending[n - 1].len < self.pending[n + 1].len {
                n -= 1;
            }
            self.merge_at(n)?;
        }
        Ok(())
    }

    /// `merge_at`: merge pending runs `i` and `i + 1`.
    fn merge_at(&mut self, i: usize) -> Result<(), E> {
        let (a, b) = (self.pending[i], self.pending[i + 1]);
        self.pending[i].len = a.len + b.len;
        self.pending.remove(i + 1);
        // Where does b start in a? Elements of a before that are already in place.
        let key = self.items[b.base].clone();
        let k = gallop_right(&mut self.less, &key, &self.items[a.base..a.base + a.len], 0)?;
        let (base_a, len_a) = (a.base + k, a.len - k);
        if len_a == 0 {
            return Ok(());
        }
        // Where does a end in b? Elements of b after that are already in place.
        let key = self.items[base_a + len_a - 1].clone();
        let len_b = gallop_left(
            &mut self.less,
            &key,
            &self.items[b.base..b.base + b.len],
            b.len - 1,
        )?;
        if len_b == 0 {
            return Ok(());
        }
        if len_a <= len_b {
            self.merge_low(base_a, len_a, b.base, len_b)
        } else {
            self.merge_high(base_a, len_a, b.base, len_b)
        }
    }

    /// `merge_lo`: merge adjacent runs a (copied out, the shorter) and b, left to right.
    fn merge_low(
        &mut self,
        base_a: usize,
        len_a: usize,
        base_b: usize,
        len_b: usize,
    ) -> Result<(), E> {
        let temp: Vec<T> = self.items[base_a..base_a + len_a].to_vec();
        let (mut na, mut nb) = (len_a, len_b);
        let (mut a, mut b, mut dest) = (0, base_b, base_a);
        let result = self.merge_low_loop(&temp, &mut a, &mut na, &mut b, &mut nb, &mut dest);
        match result {
            Ok(true) => {
                // CopyB: the last element of a belongs at the end of the merge.
                move_within(self.items, b, dest, nb);
                self.items[dest + nb] = temp[a].clone();
                Ok(())
            }
            Ok(false) => {
                self.items[dest..dest + na].clone_from_slice(&temp[a..a + na]);
                Ok(())
            }
            Err(error) => {
                self.items[dest..dest + na].clone_from_slice(&temp[a..a + na]);
                Err(error)
            }
        }
    }

    /// The body of `merge_lo`; `Ok(true)` means "CopyB", `Ok(false)` "Succeed".
    fn merge_low_loop(
        &mut self,
        temp: &[T],
        a: &mut usize,
        na: &mut usize,
        b: &mut usize,
        nb: &mut usize,
        dest: &mut usize,
    ) -> Result<bool, E> {
        self.items[*dest] = self.items[*b].clone();
        *dest += 1;
        *b += 1;
        *nb -= 1;
        if *nb == 0 {
            return Ok(false);
        }
        if *na == 1 {
            return Ok(true);
        }
        let mut min_gallop = self.min_gallop;
        loop {
            let (mut a_count, mut b_count) = (0, 0);
            loop {
                if (self.less)(&self.items[*b], &temp[*a])? {
                    self.items[*dest] = self.items[*b].clone();
                    *dest += 1;
                    *b += 1;
                    b_count += 1;
                    a_count = 0;
                    *nb -= 1;
                    if *nb == 0 {
                        return Ok(false);
                    }
                    if b_count >= min_gallop {
                        break;
                    }
                } else {
                    self.items[*dest] = temp[*a].clone();
                    *dest += 1;
                    *a += 1;
                    a_count += 1;
                    b_count = 0;
                    *na -= 1;
                    if *na == 1 {
                        return Ok(true);
                    }
                    if a_count >= min_gallop {
                        break;
                    }
                }
            }
            min_gallop += 1;
            loop {
                min_gallop -= usize::from(min_gallop > 1);
                self.min_gallop = min_gallop;
                let key = self.items[*b].clone();
                let k = gallop_right(&mut self.less, &key, &temp[*a..*a + *na], 0)?;
                a_count = k;
                if k > 0 {
                    self.items[*dest..*dest + k].clone_from_slice(&temp[*a..*a + k]);
                    *dest += k;
                    *a += k;
                    *na -= k;
                    if *na == 1 {
                        return Ok(true);
                    }
                    if *na == 0 {
                        return Ok(false);
                    }
                }
                self.items[*dest] = self.items[*b].clone();
                *dest += 1;
                *b += 1;
                *nb -= 1;
                if *nb == 0 {
                    return Ok(false);
                }
                let key = temp[*a].clone();
                let k = gallop_left(&mut self.less, &key, &self.items[*b..*b + *nb], 0)?;
                b_count = k;
                if k > 0 {
                    move_within(self.items, *b, *dest, k);
                    *dest += k;
                    *b += k;
                    *nb -= k;
                    if *nb == 0 {
                        return Ok(false);
                    }
                }
                self.items[*dest] = temp[*a].clone();
                *dest += 1;
                *a += 1;
                *na -= 1;
                if *na == 1 {
                    return Ok(true);
                }
                if a_count < MIN_GALLOP && b_count < MIN_GALLOP {
                    break;
                }
            }
            min_gallop += 1;
            self.min_gallop = min_gallop;
        }
    }

    /// `merge_hi`: merge adjacent runs a and b (copied out, the shorter), right to left.
    fn merge_high(
        &mut self,
        base_a: usize,
        len_a: usize,
        base_b: usize,
        len_b: usize,
    ) -> Result<(), E> {
        let temp: Vec<T> = self.items[base_b..base_b + len_b].to_vec();
        // Positions are one past the element they denote, so they never go below zero.
        let (mut na, mut nb) = (len_a, len_b);
        let (mut a_end, mut b_end, mut dest_end) = (base_a + len_a, len_b, base_b + len_b);
        let result = self.merge_high_loop(
            &temp,
            base_a,
            &mut a_end,
            &mut na,
            &mut b_end,
            &mut nb,
            &mut dest_end,
        );
        match result {
            Ok(true) => {
                // CopyA: the first element of b belongs at the front of the merge.
                let start = dest_end - na;
                move_within(self.items, a_end - na, start, na);
                self.items[start - 1] = temp[b_end - 1].clone();
                Ok(())
            }
            Ok(false) | Err(_) => {
                self.items[dest_end - nb..dest_end].clone_from_slice(&temp[b_end - nb..b_end]);
                result.map(|_| ())
            }
        }
    }

    /// The body of `merge_hi`; `Ok(true)` means "CopyA", `Ok(false)` "Succeed".
    #[allow(clippy::too_many_arguments)]
    fn merge_high_loop(
        &mut self,
        temp: &[T],
        base_a: usize,
        a_end: &mut usize,
        na: &mut usize,
        b_end: &mut usize,
        nb: &mut usize,
        dest_end: &mut usize,
    ) -> Result<bool, E> {
        self.items[*dest_end - 1] = self.items[*a_end - 1].clone();
        *dest_end -= 1;
        *a_end -= 1;
        *na -= 1;
        if *na == 0 {
            return Ok(false);
        }
        if *nb == 1 {
            return Ok(true);
        }
        let mut min_gallop = self.min_gallop;
        loop {
            let (mut a_count, mut b_count) = (0, 0);
            loop {
                if (self.less)(&temp[*b_end - 1], &self.items[*a_end - 1])? {
                    self.items[*dest_end - 1] = self.items[*a_end - 1].clone();
                    *dest_end -= 1;
                    *a_end -= 1;
                    a_count += 1;
                    b_count = 0;
                    *na -= 1;
                    if *na == 0 {
                        return Ok(false);
                    }
                    if a_count >= min_gallop {
                        break;
                    }
                } else {
                    self.items[*dest_end - 1] = temp[*b_end - 1].clone();
                    *dest_end -= 1;
                    *b_end -= 1;
                    b_count += 1;
                    a_count = 0;
                    *nb -= 1;
                    if *nb == 1 {
                        return Ok(true);
                    }
                    if b_count >= min_gallop {
                        break;
                    }
                }
            }
            min_gallop += 1;
            loop {
                min_gallop -= usize::from(min_gallop > 1);
                self.min_gallop = min_gallop;
                let key = temp[*b_end - 1].clone();
                let k = gallop_right(
                    &mut self.less,
                    &key,
                    &self.items[base_a..base_a + *na],
                    *na - 1,
                )?;
                let k = *na - k;
                a_count = k;
                if k > 0 {
                    *dest_end -= k;
                    *a_end -= k;
                    move_within(self.items, *a_end, *dest_end, k);
                    *na -= k;
                    if *na == 0 {
                        return Ok(false);
                    }
                }
                self.items[*dest_end - 1] = temp[*b_end - 1].clone();
                *dest_end -= 1;
                *b_end -= 1;
                *nb -= 1;
                if *nb == 1 {
                    return Ok(true);
                }
                let key = self.items[*a_end - 1].clone();
                let k = gallop_left(&mut self.less, &key, &temp[..*nb], *nb - 1)?;
                let k = *nb - k;
                b_count = k;
                if k > 0 {
                    *dest_end -= k;
                    *b_end -= k;
                    self.items[*dest_end..*dest_end + k]
                        .clone_from_slice(&temp[*b_end..*b_end + k]);
                    *nb -= k;
                    if *nb == 1 {
                        return Ok(true);
                    }
                    if *nb == 0 {
                        return Ok(false);
                    }
                }
                self.items[*dest_end - 1] = self.items[*a_end - 1].clone();
                *dest_end -= 1;
                *a_end -= 1;
                *na -= 1;
                if *na == 0 {
                    return Ok(false);
                }
                if a_count < MIN_GALLOP && b_count < MIN_GALLOP {
                    break;
                }
            }
            min_gallop += 1;
            self.min_gallop = min_gallop;
        }
    }
}

/// `gallop_left`: the leftmost position for `key` in sorted `run` (`run[k-1] < key <=
/// run[k]`), galloping outward from `hint` before a binary search.
fn gallop_left<T, E>(
    less: &mut impl FnMut(&T, &T) -> Result<bool, E>,
    key: &T,
    run: &[T],
    hint: usize,
) -> Result<usize, E> {
    let n = run.len();
    let mut last_offset = 0;
    let mut offset = 1;
    // Search bounds are kept one higher than CPython's (`low` may be CPython's -1 + 1).
    let (mut low, mut high);
    if less(&run[hint], key)? {
        let max_offset = n - hint;
        while offset < max_offset {
            if less(&run[hint + offset], key)? {
                last_offset = offset;
                offset = (offset << 1) + 1;
            } else {
                break;
            }
        }
        offset = offset.min(max_offset);
        low = hint + last_offset + 1;
        high = hint + offset;
    } else {
        let max_offset = hint + 1;
        while offset < max_offset {
            if less(&run[hint - offset], key)? {
                break;
            }
            last_offset = offset;
            offset = (offset << 1) + 1;
        }
        offset = offset.min(max_offset);
        low = hint + 1 - offset;
        high = hint - last_offset;
    }
    while low < high {
        let middle = low + ((high - low) >> 1);
        if less(&run[middle], key)? {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    Ok(high)
}

/// `gallop_right`: the rightmost position for `key` in sorted `run` (`run[k-1] <= key <
/// run[k]`), galloping outward from `hint` before a binary search.
fn gallop_right<T, E>(
    less: &mut impl FnMut(&T, &T) -> Result<bool, E>,
    key: &T,
    run: &[T],
    hint: usize,
) -> Result<usize, E> {
    let n = run.len();
    let mut last_offset = 0;
    let mut offset = 1;
    let (mut low, mut high);
    if less(key, &run[hint])? {
        let max_offset = hint + 1;
        while offset < max_offset {
            if less(key, &run[hint - offset])? {
                last_offset = offset;
                offset = (offset << 1) + 1;
            } else {
                break;
            }
        }
        offset = offset.min(max_offset);
        low = hint + 1 - offset;
        high = hint - last_offset;
    } else {
        let max_offset = n - hint;
        while offset < max_offset {
            if less(key, &run[hint + offset])? {
                break;
            }
            last_offset = offset;
            offset = (offset << 1) + 1;
        }
        offset = offset.min(max_offset);
        low = hint + last_offset + 1;
        high = hint + offset;
    }
    while low < high {
        let middle = low + ((high - low) >> 1);
        if less(key, &run[middle])? {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    Ok(low)
}

/// `memmove` for cloneable elements: `items[dest..dest+count] = items[src..src+count]`.
fn move_within<T: Clone>(items: &mut [T], src: usize, dest: usize, count: usize) {
    if dest < src {
        for i in 0..count {
            items[dest + i] = items[src + i].clone();
        }
    } else {
        for i in (0..count).rev() {
            items[dest + i] = items[src + i].clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sort `values` tagged with their positions; the comparison trace as `i<j` pairs and
    /// the final order of positions.
    fn traced(values: &[i64]) -> (String, Vec<usize>) {
        let mut items: Vec<(i64, usize)> = values.iter().copied().zip(0..).collect();
        let mut log = Vec::new();
        timsort(&mut items, |a, b| -> Result<bool, ()> {
            log.push(format!("{}<{}", a.1, b.1));
            Ok(a.0 < b.0)
        })
        .unwrap();
        (log.join(" "), items.iter().map(|item| item.1).collect())
    }

    // Traces printed by python3.13 sorting objects whose __lt__ logs its operands.

    #[test]
    fn makes_cpythons_comparisons() {
        assert_eq!(
            traced(&[3, 1, 2]),
            ("1<0 2<1 1<2 2<0 2<0 2<1".to_string(), vec![1, 2, 0])
        );
        assert_eq!(
            traced(&[5, 5, 3, 3, 1, 2]),
            (
                "1<0 2<1 0<1 3<2 2<3 4<3 5<4 4<5 5<1 5<3 5<2 5<4".to_string(),
                vec![4, 5, 2, 3, 0, 1]
            )
        );
        assert_eq!(
            traced(&[1, 2, 3, 2, 1]),
            (
                "1<0 2<1 3<2 0<2 3<1 3<2 4<3 4<1 4<0".to_string(),
                vec![0, 4, 1, 3, 2]
            )
        );
    }

    #[test]
    fn long_lists_merge_like_cpython() {
        // 300 elements: several minruns, merged with galloping; 2008 comparisons in CPython.
        let values: Vec<i64> = (0..300).map(|i| (i * 7919) % 1000).collect();
        let (trace, order) = traced(&values);
        assert_eq!(trace.split(' ').count(), 2008);
        let sorted: Vec<i64> = order.iter().map(|i| values[*i]).collect();
        assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn is_stable() {
        let values: Vec<i64> = (0..500).map(|i| (i * 31) % 7).collect();
        let (_, order) = traced(&values);
        assert!(
            order
                .windows(2)
                .all(|w| values[w[0]] < values[w[1]] || w[0] < w[1])
        );
    }

    #[test]
    fn an_error_keeps_every_element() {
        // The 2008 comparisons of the list above: fail at each stage (runs, merges).
        for failing_call in [5, 150, 1500, 2000] {
            let mut items: Vec<i64> = (0..300).map(|i| (i * 7919) % 1000).collect();
            let mut calls = 0;
            let result = timsort(&mut items, |a, b| {
                calls += 1;
                if calls == failing_call {
                    Err("boom")
                } else {
                    Ok(a < b)
                }
            });
            assert_eq!(result, Err("boom"));
            items.sort();
            let mut expected: Vec<i64> = (0..300).map(|i| (i * 7919) % 1000).collect();
            expected.sort();
            assert_eq!(items, expected);
        }
    }
}
