//! The index machines behind `itertools.product`, `permutations`, `combinations` and
//! `combinations_with_replacement`: each step moves a vector of indices into the pools to
//! the next tuple in CPython's order (`Modules/itertoolsmodule.c`), or says there is none.
//! Value-free: `itertools.rs` turns indices into tuples of the pools' items.

/// Which combinatoric iterator the indices belong to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// One index per pool, an odometer over the pools' sizes.
    Product,
    /// `r` indices into one pool of `n`, with the cycles of the permutation algorithm.
    Permutations,
    Combinations,
    CombinationsWithReplacement,
}

/// The indices of the tuple last produced, and what is needed to find the next one.
pub struct Indices {
    pub kind: Kind,
    /// Pool sizes: one per pool for `Product`, else one entry `n`.
    pub sizes: Vec<usize>,
    pub r: usize,
    /// The positions the next tuple is made of (its first `r` for permutations).
    pub indices: Vec<usize>,
    cycles: Vec<usize>,
    started: bool,
    pub stopped: bool,
}

impl Indices {
    pub fn new(kind: Kind, sizes: Vec<usize>, r: usize) -> Indices {
        let n = sizes.first().copied().unwrap_or(0);
        let (indices, cycles, stopped) = match kind {
            Kind::Product => (vec![0; sizes.len()], vec![], sizes.contains(&0)),
            Kind::Permutations => (
                (0..n).collect(),
                (n + 1 - r.min(n)..=n).rev().collect(),
                r > n,
            ),
            Kind::Combinations => ((0..r).collect(), vec![], r > n),
            Kind::CombinationsWithReplacement => (vec![0; r], vec![], n == 0 && r > 0),
        };
        Indices {
            kind,
            sizes,
            r,
            indices,
            cycles,
            started: false,
            stopped,
        }
    }

    /// Moves to the next tuple: false when there is none (and from then on).
    pub fn advance(&mut self) -> bool {
        if self.stopped {
            return false;
        }
        if !self.started {
            self.started = true;
            return true;
        }
        let more = match self.kind {
            Kind::Product => self.next_product(),
            Kind::Permutations => self.next_permutation(),
            Kind::Combinations => self.next_combination(),
            Kind::CombinationsWithReplacement => self.next_with_replacement(),
        };
        self.stopped = !more;
        more
    }

    /// The rightmost pool that is not at its end moves on; those right of it restart.
    fn next_product(&mut self) -> bool {
        for i in (0..self.indices.len()).rev() {
            self.indices[i] += 1;
            if self.indices[i] < self.sizes[i] {
                return true;
            }
            self.indices[i] = 0;
        }
        false
    }

    /// ```python
    /// for i in reversed(range(r)):
    ///     cycles[i] -= 1
    ///     if cycles[i] == 0:
    ///         indices[i:] = indices[i+1:] + indices[i:i+1]
    ///         cycles[i] = n - i
    ///     else:
    ///         j = cycles[i]
    ///         indices[i], indices[-j] = indices[-j], indices[i]
    ///         yield tuple(pool[i] for i in indices[:r])
    ///         break
    /// else:
    ///     return
    /// ```
    fn next_permutation(&mut self) -> bool {
        let n = self.sizes[0];
        if n == 0 {
            return false;
        }
        for i in (0..self.r).rev() {
            self.cycles[i] -= 1;
            if self.cycles[i] == 0 {
                self.indices[i..].rotate_left(1);
                self.cycles[i] = n - i;
            } else {
                let j = self.cycles[i];
                self.indices.swap(i, n - j);
                return true;
            }
        }
        false
    }

    /// The rightmost index not at its highest place moves up one; those after it follow on.
    fn next_combination(&mut self) -> bool {
        let (n, r) = (self.sizes[0], self.r);
        let Some(i) = (0..r).rev().find(|&i| self.indices[i] != i + n - r) else {
            return false;
        };
        self.indices[i] += 1;
        for j in i + 1..r {
            self.indices[j] = self.indices[j - 1] + 1;
        }
        true
    }

    /// The rightmost index below `n - 1` moves up one, and those after it take its value.
    fn next_with_replacement(&mut self) -> bool {
        let n = self.sizes[0];
        let Some(i) = (0..self.r).rev().find(|&i| self.indices[i] != n - 1) else {
            return false;
        };
        let index = self.indices[i] + 1;
        self.indices[i..].fill(index);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(kind: Kind, sizes: Vec<usize>, r: usize) -> Vec<Vec<usize>> {
        let mut m = Indices::new(kind, sizes, r);
        let mut out = vec![];
        while m.advance() {
            out.push(m.indices[..r.min(m.indices.len())].to_vec());
        }
        out
    }

    #[test]
    fn permutations_come_in_lexicographic_order() {
        let p = all(Kind::Permutations, vec![3], 2);
        assert_eq!(p, [[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]]);
        assert_eq!(all(Kind::Permutations, vec![2], 3).len(), 0);
        assert_eq!(all(Kind::Permutations, vec![3], 0), [Vec::<usize>::new()]);
    }

    #[test]
    fn combinations_and_replacement() {
        assert_eq!(all(Kind::Combinations, vec![4], 2).len(), 6);
        assert_eq!(all(Kind::CombinationsWithReplacement, vec![3], 2).len(), 6);
        assert_eq!(all(Kind::CombinationsWithReplacement, vec![0], 0).len(), 1);
        assert_eq!(all(Kind::Product, vec![2, 3], 2).len(), 6);
        assert_eq!(all(Kind::Product, vec![], 0).len(), 1);
    }
}
