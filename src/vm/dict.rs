//! An insertion-ordered hash table of values (`Objects/dictobject.c`'s compact layout): an
//! entries vector in insertion order plus an open-addressing index with CPython's perturbed
//! probing. Keys are compared by a caller-supplied function so that the VM can fall back to
//! user `__eq__` without holding a borrow of the table. Knows nothing of the evaluation loop.

use std::rc::Rc;

use super::value::{PyStr, Value};

const EMPTY: u32 = u32::MAX;
const DUMMY: u32 = u32::MAX - 1;
const PERTURB_SHIFT: u32 = 5;

#[derive(Clone)]
pub struct Entry {
    pub hash: i64,
    pub key: Value,
    pub value: Value,
}

/// The outcome of comparing a stored key with the probe key without running user code.
pub enum KeyEq {
    Equal,
    Different,
    /// Needs `__eq__` of a user object: the caller retries through the slow path.
    Unknown,
}

/// What a lookup found.
pub enum Probe {
    Found(usize),
    Missing,
    /// A key with the same hash needs a user-level comparison; here are the candidates'
    /// entry indices in probe order.
    NeedsEq(Vec<usize>),
}

#[derive(Clone, Default)]
pub struct DictTable {
    entries: Vec<Option<Entry>>,
    indices: Vec<u32>,
    len: usize,
}

impl DictTable {
    pub fn new() -> DictTable {
        DictTable::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Probes for `hash`, comparing candidates with `eq`.
    pub fn probe(&self, hash: i64, mut eq: impl FnMut(&Value) -> KeyEq) -> Probe {
        if self.indices.is_empty() {
            return Probe::Missing;
        }
        let mask = self.indices.len() - 1;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        let mut unknown: Vec<usize> = Vec::new();
        loop {
            let ix = self.indices[i];
            if ix == EMPTY {
                return if unknown.is_empty() {
                    Probe::Missing
                } else {
                    Probe::NeedsEq(unknown)
                };
            }
            if ix != DUMMY
                && let Some(entry) = &self.entries[ix as usize]
                && entry.hash == hash
            {
                match eq(&entry.key) {
                    KeyEq::Equal if unknown.is_empty() => return Probe::Found(ix as usize),
                    KeyEq::Equal | KeyEq::Unknown => unknown.push(ix as usize),
                    KeyEq::Different => {}
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        }
    }

    pub fn entry(&self, index: usize) -> Option<&Entry> {
        self.entries.get(index).and_then(Option::as_ref)
    }

    pub fn set_value_at(&mut self, index: usize, value: Value) {
        if let Some(Some(entry)) = self.entries.get_mut(index) {
            entry.value = value;
        }
    }

    /// Appends a key known to be absent.
    pub fn insert_new(&mut self, hash: i64, key: Value, value: Value) {
        if (self.entries.len() + 1) * 3 >= self.indices.len() * 2 {
            self.resize();
        }
        let index = self.entries.len() as u32;
        self.entries.push(Some(Entry { hash, key, value }));
        self.place(hash, index);
        self.len += 1;
    }

    /// Removes the entry at `index`, returning it.
    pub fn remove_at(&mut self, index: usize) -> Option<Entry> {
        let entry = self.entries.get_mut(index)?.take()?;
        let mask = self.indices.len() - 1;
        let mut perturb = entry.hash as u64;
        let mut i = (entry.hash as u64 as usize) & mask;
        loop {
            if self.indices[i] == index as u32 {
                self.indices[i] = DUMMY;
                break;
            }
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        }
        self.len -= 1;
        if self.len == 0 {
            self.clear();
        }
        Some(entry)
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.indices.clear();
        self.len = 0;
    }

    fn place(&mut self, hash: i64, index: u32) {
        let mask = self.indices.len() - 1;
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        while self.indices[i] != EMPTY {
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        }
        self.indices[i] = index;
    }

    fn resize(&mut self) {
        let live: Vec<Option<Entry>> = self.entries.drain(..).filter(Option::is_some).collect();
        let mut size = 8;
        while size * 2 < (live.len() + 1) * 3 + 1 {
            size *= 2;
        }
        self.indices = vec![EMPTY; size];
        self.entries = live;
        for (index, entry) in self.entries.iter().enumerate() {
            let hash = entry.as_ref().map_or(0, |e| e.hash);
            let mask = size - 1;
            let mut perturb = hash as u64;
            let mut i = (hash as u64 as usize) & mask;
            while self.indices[i] != EMPTY {
                perturb >>= PERTURB_SHIFT;
                i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
            }
            self.indices[i] = index as u32;
        }
    }

    /// Live entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter_map(Option::as_ref)
    }

    /// The live entry at or after raw position `pos`, with its position: for iterators that
    /// must survive mutation of the table between steps.
    pub fn next_from(&self, pos: usize) -> Option<(usize, &Entry)> {
        self.entries
            .iter()
            .enumerate()
            .skip(pos)
            .find_map(|(i, e)| e.as_ref().map(|e| (i, e)))
    }

    /// The most recently inserted live entry's position (for `popitem`).
    pub fn last_index(&self) -> Option<usize> {
        self.entries.iter().rposition(Option::is_some)
    }

    pub fn keys(&self) -> Vec<Value> {
        self.iter().map(|e| e.key.clone()).collect()
    }

    pub fn values(&self) -> Vec<Value> {
        self.iter().map(|e| e.value.clone()).collect()
    }
}

/// Lookups by interned-or-not `str` key, which never need user code (attribute dicts,
/// globals, keyword arguments).
impl DictTable {
    pub fn get_str(&self, key: &PyStr) -> Option<&Value> {
        match self.probe(key.hash(), |k| str_key_eq(k, key)) {
            Probe::Found(i) => self.entry(i).map(|e| &e.value),
            _ => None,
        }
    }

    pub fn set_str(&mut self, key: Rc<PyStr>, value: Value) {
        match self.probe(key.hash(), |k| str_key_eq(k, &key)) {
            Probe::Found(i) => self.set_value_at(i, value),
            _ => self.insert_new(key.hash(), Value::Str(key), value),
        }
    }

    pub fn remove_str(&mut self, key: &PyStr) -> Option<Value> {
        match self.probe(key.hash(), |k| str_key_eq(k, key)) {
            Probe::Found(i) => self.remove_at(i).map(|e| e.value),
            _ => None,
        }
    }
}

fn str_key_eq(stored: &Value, key: &PyStr) -> KeyEq {
    match stored {
        Value::Str(s) if std::ptr::eq(Rc::as_ptr(s), key) || s.as_str() == key.as_str() => {
            KeyEq::Equal
        }
        _ => KeyEq::Different,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_eq(n: i64) -> impl Fn(&Value) -> KeyEq {
        move |k| match k {
            Value::Int(m) if *m == n => KeyEq::Equal,
            _ => KeyEq::Different,
        }
    }

    #[test]
    fn keeps_insertion_order_across_removals_and_growth() {
        let mut t = DictTable::new();
        for n in 0..100 {
            t.insert_new(n % 7, Value::Int(n), Value::Int(n * 2));
        }
        for n in (0..100).step_by(3) {
            let Probe::Found(i) = t.probe(n % 7, int_eq(n)) else { panic!("missing {n}") };
            t.remove_at(i);
        }
        let keys: Vec<i64> =
            t.iter().map(|e| if let Value::Int(n) = e.key { n } else { -1 }).collect();
        let expected: Vec<i64> = (0..100).filter(|n| n % 3 != 0).collect();
        assert_eq!(keys, expected);
        assert!(matches!(t.probe(5, int_eq(5)), Probe::Found(_)));
        assert!(matches!(t.probe(6, int_eq(6)), Probe::Missing));
    }
}
