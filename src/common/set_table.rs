//! Hash tables with CPython's observable order, and CPython's hash functions.
//!
//! In: entries with a precomputed `hash: i64` and an equality callback that may fail (a user
//! `__eq__` can raise). Out: [`SetTable`], which reproduces `Objects/setobject.c` slot for
//! slot (so sets iterate, print and `pop` in CPython's order), [`DictTable`], an
//! insertion-ordered table like `Objects/dictobject.c`'s compact dict, and the hashes of
//! `Python/pyhash.c`, `Objects/longobject.c`, `Objects/tupleobject.c`. Must not depend on
//! the VM's value model. The callback must not mutate the table it is called from.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive};

use super::int_ops::Int;

// ---- hashes --------------------------------------------------------------------------------

/// `_PyHASH_BITS` and `_PyHASH_MODULUS` (2**61 - 1): numeric hashes are reductions modulo it.
const HASH_BITS: u32 = 61;
const HASH_MODULUS: u64 = (1 << HASH_BITS) - 1;

/// `hash(float('inf'))`; `-inf` hashes to its negation.
const HASH_INF: i64 = 314_159;

/// `hash(None)` since CPython 3.12.
pub const HASH_NONE: i64 = 0xFCA8_6420;

/// Python never returns -1 from `hash`: it means "error" in C, so -1 becomes -2.
fn avoid_minus_one(hash: i64) -> i64 {
    if hash == -1 { -2 } else { hash }
}

/// `hash(n)` for an int: `n mod (2**61 - 1)` with the sign of `n`, as `long_hash`.
pub fn hash_int(value: &Int) -> i64 {
    match value {
        Int::Small(v) => hash_small_int(*v),
        Int::Big(v) => hash_bigint(v),
    }
}

/// [`hash_int`] of an int that fits in an `i64`, without a division: as 2**61 is 1 modulo
/// 2**61 - 1, the magnitude's top three bits add to its low 61, and one subtraction at
/// most brings that below the modulus.
#[inline]
pub fn hash_small_int(v: i64) -> i64 {
    let x = v.unsigned_abs();
    let mut magnitude = (x & HASH_MODULUS) + (x >> HASH_BITS);
    if magnitude >= HASH_MODULUS {
        magnitude -= HASH_MODULUS;
    }
    let magnitude = magnitude as i64;
    avoid_minus_one(if v < 0 { -magnitude } else { magnitude })
}

fn hash_bigint(value: &BigInt) -> i64 {
    let magnitude = value
        .abs()
        .mod_floor(&BigInt::from(HASH_MODULUS))
        .to_i64()
        .unwrap_or(0);
    avoid_minus_one(if value.is_negative() {
        -magnitude
    } else {
        magnitude
    })
}

/// `hash(b)` for a bool.
pub fn hash_bool(value: bool) -> i64 {
    i64::from(value)
}

/// `hash(x)` for a float, as `_Py_HashDouble`: equal to the hash of an equal int. `None`
/// for NaN, whose hash CPython derives from the object's identity.
pub fn hash_float(value: f64) -> Option<i64> {
    if value.is_nan() {
        return None;
    }
    if value.is_infinite() {
        return Some(if value > 0.0 { HASH_INF } else { -HASH_INF });
    }
    let (mut mantissa, mut exponent) = frexp(value);
    let sign: i64 = if mantissa < 0.0 { -1 } else { 1 };
    mantissa = mantissa.abs();
    // Consume the mantissa 28 bits at a time, reducing modulo 2**61 - 1 as we go.
    let mut x: u64 = 0;
    while mantissa != 0.0 {
        x = ((x << 28) & HASH_MODULUS) | x >> (HASH_BITS - 28);
        mantissa *= 268_435_456.0;
        exponent -= 28;
        let integer_part = mantissa as u64;
        mantissa -= integer_part as f64;
        x += integer_part;
        if x >= HASH_MODULUS {
            x -= HASH_MODULUS;
        }
    }
    let bits = HASH_BITS as i32;
    let exponent = if exponent >= 0 {
        exponent % bits
    } else {
        bits - 1 - ((-1 - exponent) % bits)
    } as u32;
    x = ((x << exponent) & HASH_MODULUS) | x >> (HASH_BITS - exponent);
    Some(avoid_minus_one((x as i64).wrapping_mul(sign)))
}

/// C's `frexp`: `value == mantissa * 2**exponent` with `0.5 <= |mantissa| < 1`.
fn frexp(value: f64) -> (f64, i32) {
    if value == 0.0 || !value.is_finite() {
        return (value, 0);
    }
    let bits = value.to_bits();
    let raw_exponent = ((bits >> 52) & 0x7ff) as i32;
    if raw_exponent == 0 {
        // Subnormal: scale into the normal range first.
        let (mantissa, exponent) = frexp(value * 2f64.powi(64));
        return (mantissa, exponent - 64);
    }
    let mantissa = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (mantissa, raw_exponent - 1022)
}

/// The hash of a str's UTF-8 (and of bytes): FNV-1a, never -1. str hashes are randomised
/// in CPython, so any good hash will do, but for the empty one's, always 0 there
/// (`_Py_HashBytes`).
pub fn text_hash(bytes: &[u8]) -> i64 {
    if bytes.is_empty() {
        return 0;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let h = (h >> 1) as i64;
    if h == -1 { -2 } else { h }
}

const XX_PRIME_1: u64 = 11_400_714_785_074_694_791;
const XX_PRIME_2: u64 = 14_029_467_366_897_019_727;
const XX_PRIME_5: u64 = 2_870_177_450_012_600_261;

/// The xxHash lanes `tuplehash` and `slice_hash` fold their items' hashes through.
fn xx_lanes(item_hashes: impl Iterator<Item = i64>) -> u64 {
    let mut accumulator = XX_PRIME_5;
    for lane in item_hashes {
        accumulator = accumulator.wrapping_add((lane as u64).wrapping_mul(XX_PRIME_2));
        accumulator = accumulator.rotate_left(31);
        accumulator = accumulator.wrapping_mul(XX_PRIME_1);
    }
    accumulator
}

/// -1 is no hash: CPython's stand-in for it.
fn xx_result(accumulator: u64) -> i64 {
    match accumulator {
        u64::MAX => 1_546_275_796,
        a => a as i64,
    }
}

/// `hash(t)` for a tuple given its items' hashes: the xxHash-based `tuplehash` of 3.8+.
pub fn hash_tuple(item_hashes: impl ExactSizeIterator<Item = i64>) -> i64 {
    let length = item_hashes.len() as u64;
    let accumulator = xx_lanes(item_hashes);
    xx_result(accumulator.wrapping_add(length ^ (XX_PRIME_5 ^ 3_527_539)))
}

/// `hash(slice)` (3.12+) given the hashes of its start, stop and step: `tuplehash`'s lanes
/// without the length (`slice_hash`).
pub fn hash_slice(item_hashes: [i64; 3]) -> i64 {
    xx_result(xx_lanes(item_hashes.into_iter()))
}

// ---- sets ----------------------------------------------------------------------------------

/// `LINEAR_PROBES`: slots inspected after the first before jumping with `perturb`.
const LINEAR_PROBES: usize = 9;
const PERTURB_SHIFT: u32 = 5;
/// `PySet_MINSIZE`.
const SET_MIN_SIZE: usize = 8;

#[derive(Clone, Debug)]
enum SetSlot<T> {
    /// Never used: ends a probe sequence.
    Empty,
    /// Deleted (CPython's `dummy`, hash -1): probing continues past it.
    Dummy,
    Active {
        hash: i64,
        key: T,
    },
}

/// A set's table with CPython's layout: same size, probing, resizing and deletion rules, so
/// iteration order (`for`, `repr`, `pop`) is CPython's.
#[derive(Clone, Debug)]
pub struct SetTable<T> {
    slots: Vec<SetSlot<T>>,
    /// Active plus dummy slots.
    fill: usize,
    /// Active slots: `len(set)`.
    used: usize,
    /// Where `pop` resumes its search.
    finger: usize,
}

impl<T> Default for SetTable<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Where a probe for a key ended.
enum Probe {
    Found(usize),
    /// Not present; the slot an insertion should use, and whether it is a reused dummy.
    Missing {
        slot: usize,
        reuses_dummy: bool,
    },
}

impl<T> SetTable<T> {
    pub fn new() -> Self {
        SetTable {
            slots: Self::empty_slots(SET_MIN_SIZE),
            fill: 0,
            used: 0,
            finger: 0,
        }
    }

    fn empty_slots(size: usize) -> Vec<SetSlot<T>> {
        (0..size).map(|_| SetSlot::Empty).collect()
    }

    pub fn len(&self) -> usize {
        self.used
    }

    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// How many slots the table has (8 while the set is small, as CPython's `smalltable`).
    pub fn table_size(&self) -> usize {
        self.slots.len()
    }

    /// CPython's probe sequence: `LINEAR_PROBES` neighbours when they fit, then a jump.
    /// Returns the slots in probe order until `visit` says stop.
    fn probe<E>(
        &self,
        hash: i64,
        mut visit: impl FnMut(usize, &SetSlot<T>) -> Result<Option<Probe>, E>,
    ) -> Result<Probe, E> {
        let mask = self.mask();
        let mut perturb = hash as u64;
        let mut i = (hash as u64 as usize) & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask {
                LINEAR_PROBES
            } else {
                0
            };
            for slot in i..=i + probes {
                if let Some(result) = visit(slot, &self.slots[slot])? {
                    return Ok(result);
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
    }

    /// `set_add_entry`'s search: the active slot holding an equal key, or where to insert
    /// (the last dummy passed, else the empty slot that ended the search).
    fn find<E>(
        &self,
        key: &T,
        hash: i64,
        eq: &mut impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<Probe, E> {
        let mut free_slot = None;
        self.probe(hash, |index, slot| match slot {
            SetSlot::Empty => Ok(Some(match free_slot {
                Some(dummy) => Probe::Missing {
                    slot: dummy,
                    reuses_dummy: true,
                },
                None => Probe::Missing {
                    slot: index,
                    reuses_dummy: false,
                },
            })),
            SetSlot::Dummy => {
                free_slot = Some(index);
                Ok(None)
            }
            SetSlot::Active {
                hash: slot_hash,
                key: slot_key,
            } => {
                if *slot_hash == hash && eq(slot_key, key)? {
                    Ok(Some(Probe::Found(index)))
                } else {
                    Ok(None)
                }
            }
        })
    }

    /// `key in set`.
    pub fn contains<E>(
        &self,
        key: &T,
        hash: i64,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<bool, E> {
        Ok(matches!(self.find(key, hash, &mut eq)?, Probe::Found(_)))
    }

    /// The stored key equal to `key`, if any.
    pub fn get<E>(
        &self,
        key: &T,
        hash: i64,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<Option<&T>, E> {
        Ok(match self.find(key, hash, &mut eq)? {
            Probe::Found(index) => self.key_at(index),
            Probe::Missing { .. } => None,
        })
    }

    fn key_at(&self, index: usize) -> Option<&T> {
        match &self.slots[index] {
            SetSlot::Active { key, .. } => Some(key),
            _ => None,
        }
    }

    /// `set.add(key)`: true if it was added, false if an equal key was already there.
    pub fn insert<E>(
        &mut self,
        key: T,
        hash: i64,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<bool, E> {
        let (slot, reuses_dummy) = match self.find(&key, hash, &mut eq)? {
            Probe::Found(_) => return Ok(false),
            Probe::Missing { slot, reuses_dummy } => (slot, reuses_dummy),
        };
        self.slots[slot] = SetSlot::Active { hash, key };
        self.used += 1;
        if reuses_dummy {
            return Ok(true);
        }
        self.fill += 1;
        if self.fill * 5 >= self.mask() * 3 {
            let grow_to = if self.used > 50_000 {
                self.used * 2
            } else {
                self.used * 4
            };
            self.resize(grow_to);
        }
        Ok(true)
    }

    /// `set.discard(key)`: the removed key, leaving a dummy slot behind.
    pub fn remove<E>(
        &mut self,
        key: &T,
        hash: i64,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<Option<T>, E> {
        match self.find(key, hash, &mut eq)? {
            Probe::Found(index) => Ok(self.take_slot(index)),
            Probe::Missing { .. } => Ok(None),
        }
    }

    fn take_slot(&mut self, index: usize) -> Option<T> {
        match std::mem::replace(&mut self.slots[index], SetSlot::Dummy) {
            SetSlot::Active { key, .. } => {
                self.used -= 1;
                Some(key)
            }
            other => {
                self.slots[index] = other;
                None
            }
        }
    }

    /// `set.pop()`: the first active slot from the finger on, as `set_pop`.
    pub fn pop(&mut self) -> Option<T> {
        if self.used == 0 {
            return None;
        }
        let mask = self.mask();
        let mut index = self.finger & mask;
        while !matches!(self.slots[index], SetSlot::Active { .. }) {
            index = if index == mask { 0 } else { index + 1 };
        }
        self.finger = index + 1;
        self.take_slot(index)
    }

    /// `set.clear()`: back to the minimum size.
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// `set_table_resize`: a table of the smallest power of two above `min_used`, with the
    /// active entries reinserted in slot order.
    fn resize(&mut self, min_used: usize) {
        let mut size = SET_MIN_SIZE;
        while size <= min_used {
            size <<= 1;
        }
        if size == SET_MIN_SIZE && self.slots.len() == SET_MIN_SIZE && self.fill == self.used {
            return;
        }
        let old = std::mem::replace(&mut self.slots, Self::empty_slots(size));
        self.fill = self.used;
        for slot in old {
            if let SetSlot::Active { hash, key } = slot {
                self.insert_clean(key, hash);
            }
        }
    }

    /// `set_insert_clean`: place a key known to be absent into a table without dummies.
    fn insert_clean(&mut self, key: T, hash: i64) {
        let found = self.probe(hash, |index, slot| {
            Ok::<_, ()>(matches!(slot, SetSlot::Empty).then_some(Probe::Found(index)))
        });
        if let Ok(Probe::Found(index)) = found {
            self.slots[index] = SetSlot::Active { hash, key };
        }
    }

    /// The key at or after slot `position` and the position to continue from: what a set
    /// iterator stores between `next()` calls (as `setiter_iternext`).
    pub fn next_from(&self, position: usize) -> Option<(usize, &T)> {
        self.slots
            .iter()
            .enumerate()
            .skip(position)
            .find_map(|(index, slot)| match slot {
                SetSlot::Active { key, .. } => Some((index + 1, key)),
                _ => None,
            })
    }

    /// The keys with their hashes, in CPython's iteration order.
    pub fn iter(&self) -> impl Iterator<Item = (&T, i64)> {
        self.slots.iter().filter_map(|slot| match slot {
            SetSlot::Active { hash, key } => Some((key, *hash)),
            _ => None,
        })
    }

    /// `hash(frozenset)`: order-independent, as `frozenset_hash`.
    pub fn frozenset_hash(&self) -> i64 {
        fn shuffle_bits(h: u64) -> u64 {
            ((h ^ 89_869_747) ^ (h << 16)).wrapping_mul(3_644_798_167)
        }
        let mut hash: u64 = 0;
        for (_, entry_hash) in self.iter() {
            hash ^= shuffle_bits(entry_hash as u64);
        }
        hash ^= (self.used as u64 + 1).wrapping_mul(1_927_868_237);
        hash ^= (hash >> 11) ^ (hash >> 25);
        hash = hash.wrapping_mul(69_069).wrapping_add(907_133_923);
        if hash == u64::MAX {
            return 590_923_713;
        }
        hash as i64
    }
}

impl<T: Clone> SetTable<T> {
    /// `set_merge`: add every key of `other` (a set or frozenset), as `set.update(other)`,
    /// `set(other)`, `other.copy()` and `a | b` do, with CPython's up-front resize and its
    /// fast paths for an empty target.
    pub fn merge<E>(
        &mut self,
        other: &SetTable<T>,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<(), E> {
        if other.used == 0 {
            return Ok(());
        }
        if (self.fill + other.used) * 5 >= self.mask() * 3 {
            self.resize((self.used + other.used) * 2);
        }
        if self.fill == 0 && self.slots.len() == other.slots.len() && other.fill == other.used {
            // Same size, no dummies: the slots copy over one for one.
            self.slots.clone_from(&other.slots);
            self.fill = other.fill;
            self.used = other.used;
            return Ok(());
        }
        if self.fill == 0 {
            for (key, hash) in other.iter() {
                self.insert_clean(key.clone(), hash);
            }
            self.fill = other.used;
            self.used = other.used;
            return Ok(());
        }
        for (key, hash) in other.iter() {
            self.insert(key.clone(), hash, &mut eq)?;
        }
        Ok(())
    }

    /// `set.copy()` / `set(s)`: a fresh table filled by [`SetTable::merge`], which may be
    /// smaller than `self`'s and so iterate in a different order, as in CPython.
    pub fn copy(&self) -> SetTable<T> {
        let mut copy = SetTable::new();
        copy.merge_into_empty(self);
        copy
    }

    /// `set_merge` into a table that is still empty: cannot compare, cannot fail.
    fn merge_into_empty(&mut self, other: &SetTable<T>) {
        let never_equal = |_: &T, _: &T| Ok::<bool, std::convert::Infallible>(false);
        if let Err(never) = self.merge(other, never_equal) {
            match never {}
        }
    }

    /// `a | b` (`set_or`): a copy of `a` merged with `b`.
    pub fn union<E>(
        &self,
        other: &SetTable<T>,
        eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<SetTable<T>, E> {
        let mut result = self.copy();
        result.merge(other, eq)?;
        Ok(result)
    }

    /// `a & b` (`set_intersection`): walk the smaller set, keep what the larger contains.
    pub fn intersection<E>(
        &self,
        other: &SetTable<T>,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<SetTable<T>, E> {
        let (larger, smaller) = if other.len() > self.len() {
            (other, self)
        } else {
            (self, other)
        };
        let mut result = SetTable::new();
        for (key, hash) in smaller.iter() {
            if larger.contains(key, hash, &mut eq)? {
                result.insert(key.clone(), hash, &mut eq)?;
            }
        }
        Ok(result)
    }

    /// `a - b` (`set_difference`): copy and discard when `a` is much larger, else walk `a`.
    pub fn difference<E>(
        &self,
        other: &SetTable<T>,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<SetTable<T>, E> {
        if (self.len() >> 2) > other.len() {
            let mut result = self.copy();
            result.difference_update(other, eq)?;
            return Ok(result);
        }
        let mut result = SetTable::new();
        for (key, hash) in self.iter() {
            if !other.contains(key, hash, &mut eq)? {
                result.insert(key.clone(), hash, &mut eq)?;
            }
        }
        Ok(result)
    }

    /// `a -= b` (`set_difference_update_internal`), then purge dummies if over a quarter.
    pub fn difference_update<E>(
        &mut self,
        other: &SetTable<T>,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<(), E> {
        let narrowed;
        let other = if (other.len() >> 3) > self.len() {
            narrowed = self.intersection(other, &mut eq)?;
            &narrowed
        } else {
            other
        };
        for (key, hash) in other.iter() {
            self.remove(key, hash, &mut eq)?;
        }
        self.purge_dummies();
        Ok(())
    }

    /// The resize after removing many keys: when more than a quarter of the slots are dummies.
    pub fn purge_dummies(&mut self) {
        if self.fill - self.used > self.mask() / 4 {
            let size = if self.used > 50_000 {
                self.used * 2
            } else {
                self.used * 4
            };
            self.resize(size);
        }
    }

    /// `a &= b` (`set_intersection_update`): `a` becomes `a & b`.
    pub fn intersection_update<E>(
        &mut self,
        other: &SetTable<T>,
        eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<(), E> {
        *self = self.intersection(other, eq)?;
        Ok(())
    }

    /// `a ^= b` (`set_symmetric_difference_update`): toggle each key of `b` in `a`.
    pub fn symmetric_difference_update<E>(
        &mut self,
        other: &SetTable<T>,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<(), E> {
        for (key, hash) in other.iter() {
            if self.remove(key, hash, &mut eq)?.is_none() {
                self.insert(key.clone(), hash, &mut eq)?;
            }
        }
        Ok(())
    }

    /// `a ^ b` (`set_symmetric_difference`): a copy of `b` toggled by `a`.
    pub fn symmetric_difference<E>(
        &self,
        other: &SetTable<T>,
        eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<SetTable<T>, E> {
        let mut result = other.copy();
        result.symmetric_difference_update(self, eq)?;
        Ok(result)
    }

    /// `a <= b` (`set_issubset`).
    pub fn is_subset<E>(
        &self,
        other: &SetTable<T>,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<bool, E> {
        if self.len() > other.len() {
            return Ok(false);
        }
        for (key, hash) in self.iter() {
            if !other.contains(key, hash, &mut eq)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// `a.isdisjoint(b)`: walk the smaller set.
    pub fn is_disjoint<E>(
        &self,
        other: &SetTable<T>,
        mut eq: impl FnMut(&T, &T) -> Result<bool, E>,
    ) -> Result<bool, E> {
        let (larger, smaller) = if other.len() > self.len() {
            (other, self)
        } else {
            (self, other)
        };
        for (key, hash) in smaller.iter() {
            if larger.contains(key, hash, &mut eq)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The up-front resize `set.update(d)` does for a dict of `incoming` keys.
    pub fn reserve_for_dict(&mut self, incoming: usize) {
        if (self.fill + incoming) * 5 >= self.mask() * 3 {
            self.resize((self.used + incoming) * 2);
        }
    }
}

// ---- dicts ---------------------------------------------------------------------------------

/// One key/value pair of a [`DictTable`].
#[derive(Clone, Debug)]
pub struct DictEntry<K, V> {
    pub hash: i64,
    pub key: K,
    pub value: V,
}

/// Marks of the index table.
const INDEX_EMPTY: usize = usize::MAX;
const INDEX_DUMMY: usize = usize::MAX - 1;
const DICT_MIN_SIZE: usize = 8;
/// How many entry positions (holes included) a table without an index table holds.
const SMALL_DICT: usize = 8;

/// CPython's compact dict: a sparse index table probed by hash, pointing into a dense
/// vector of entries kept in insertion order. Deleting leaves a hole (skipped by iteration,
/// squeezed out when the table is rebuilt); updating an existing key keeps its position and
/// its original key object.
///
/// A table of up to [`SMALL_DICT`] entries (an instance's `__dict__`, keyword arguments)
/// that never had one deleted has no index table: its entries are searched in order. That
/// compares the same keys (those of equal hash) in the same order as CPython's probe, and
/// saves an allocation. The first deletion gives it the index table it would have had
/// ([`DictTable::index_entries`]): the dummy slot a deletion leaves changes where a later
/// key of the same hash goes, and so the order of comparisons.
#[derive(Debug)]
pub struct DictTable<K, V> {
    /// Empty while the table is small (and then `entries` has no holes).
    indices: Vec<usize>,
    entries: Vec<Option<DictEntry<K, V>>>,
    used: usize,
    /// One bit per key ever added since the last rebuild, chosen by its hash: a clear bit
    /// proves a key absent without probing (a one-word Bloom filter; lookups that miss, such
    /// as an instance dict checked for a method's name, are common).
    key_bits: u64,
    /// Changes whenever the table may have changed, to a number no table state had before
    /// (`ma_version_tag`): a cache holding a version and an entry position stays valid
    /// while the version is the same.
    version: u64,
}

thread_local! {
    static NEXT_DICT_VERSION: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
}

/// A dict version never handed out before (never 0).
fn next_dict_version() -> u64 {
    NEXT_DICT_VERSION.with(|next| {
        let version = next.get();
        next.set(version + 1);
        version
    })
}

impl<K: Clone, V: Clone> DictTable<K, V> {
    /// The entries copied out in insertion order: what code iterates over when each step
    /// may run Python code that changes the dict (or needs it borrowed mutably).
    pub fn snapshot(&self) -> Vec<(K, V)> {
        self.iter()
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect()
    }
}

impl<K: Clone, V: Clone> Clone for DictTable<K, V> {
    fn clone(&self) -> Self {
        DictTable {
            indices: self.indices.clone(),
            entries: self.entries.clone(),
            used: self.used,
            key_bits: self.key_bits,
            version: next_dict_version(),
        }
    }
}

impl<K, V> Default for DictTable<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

/// Where [`DictTable::find`] found a key, or where it would go. An index slot is None
/// while the table has no index table.
enum Lookup {
    Found { at: usize, slot: Option<usize> },
    Missing(Option<usize>),
}

impl<K, V> DictTable<K, V> {
    /// The entries of a table being freed, taken out to be dropped elsewhere (the
    /// interpreter's trashcan); the table is left empty.
    pub fn take_entries(&mut self) -> Vec<Option<DictEntry<K, V>>> {
        self.indices = Vec::new();
        self.used = 0;
        self.key_bits = 0;
        std::mem::take(&mut self.entries)
    }

    pub fn new() -> Self {
        DictTable {
            indices: Vec::new(),
            entries: Vec::new(),
            used: 0,
            key_bits: 0,
            version: next_dict_version(),
        }
    }

    /// An empty table with room for `capacity` entries before it must grow.
    pub fn with_capacity(capacity: usize) -> Self {
        DictTable {
            entries: Vec::with_capacity(capacity),
            ..Self::new()
        }
    }

    /// The table's version: equal versions mean equal contents at equal positions.
    #[inline]
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn len(&self) -> usize {
        self.used
    }

    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// Entries the index table can address before it must grow (2/3 of its size).
    /// The bytes the next insertion may allocate at once: none while the entries have
    /// room, else their doubled buffer (the old one still held while it is copied) and a
    /// rebuilt index table. A caller checks big ones first (`sizes::check_room`), so a
    /// dict that grows a key at a time meets `--max-memory` with `MemoryError`.
    pub fn growth_bytes(&self) -> usize {
        if self.entries.len() < self.entries.capacity() && self.entries.len() < self.usable() {
            return 0;
        }
        let entry = std::mem::size_of::<Option<DictEntry<K, V>>>();
        3 * self.entries.capacity().max(1) * entry + 2 * self.indices.len() * 8
    }

    fn usable(&self) -> usize {
        self.indices.len() * 2 / 3
    }

    /// Looks `key` up: by a search of the entries in order while the table is small, else
    /// by probing the index table.
    fn find<E>(
        &self,
        key: &K,
        hash: i64,
        eq: &mut impl FnMut(&K, &K) -> Result<bool, E>,
    ) -> Result<Lookup, E> {
        if self.indices.is_empty() {
            for (at, entry) in self.entries.iter().enumerate() {
                if let Some(entry) = entry
                    && entry.hash == hash
                    && eq(&entry.key, key)?
                {
                    return Ok(Lookup::Found { at, slot: None });
                }
            }
            return Ok(Lookup::Missing(None));
        }
        let mask = self.indices.len() - 1;
        let mut perturb = hash as u64;
        let mut slot = (hash as u64 as usize) & mask;
        let mut free_slot = None;
        loop {
            match self.indices[slot] {
                INDEX_EMPTY => return Ok(Lookup::Missing(Some(free_slot.unwrap_or(slot)))),
                INDEX_DUMMY => {
                    free_slot.get_or_insert(slot);
                }
                entry_index => {
                    if let Some(entry) = &self.entries[entry_index]
                        && entry.hash == hash
                        && eq(&entry.key, key)?
                    {
                        return Ok(Lookup::Found {
                            at: entry_index,
                            slot: Some(slot),
                        });
                    }
                }
            }
            perturb >>= PERTURB_SHIFT;
            slot = (slot
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
    }

    /// The bit of [`DictTable::key_bits`] for a hash.
    #[inline]
    fn key_bit(hash: i64) -> u64 {
        1 << ((hash as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
    }

    /// The position (in `entries`) of the entry for `key`.
    #[inline]
    pub fn position<E>(
        &self,
        key: &K,
        hash: i64,
        mut eq: impl FnMut(&K, &K) -> Result<bool, E>,
    ) -> Result<Option<usize>, E> {
        if self.key_bits & Self::key_bit(hash) == 0 {
            return Ok(None);
        }
        Ok(match self.find(key, hash, &mut eq)? {
            Lookup::Found { at, .. } => Some(at),
            Lookup::Missing(_) => None,
        })
    }

    /// `d.get(key)`.
    pub fn get<E>(
        &self,
        key: &K,
        hash: i64,
        eq: impl FnMut(&K, &K) -> Result<bool, E>,
    ) -> Result<Option<&V>, E> {
        Ok(self
            .position(key, hash, eq)?
            .and_then(|at| self.entry(at))
            .map(|entry| &entry.value))
    }

    /// The entries by position (None for a hole), in insertion order.
    pub fn entries(&self) -> &[Option<DictEntry<K, V>>] {
        &self.entries
    }

    /// The entry at position `at`, if it is not a hole.
    pub fn entry(&self, at: usize) -> Option<&DictEntry<K, V>> {
        self.entries.get(at).and_then(Option::as_ref)
    }

    /// Mutable access to the value at position `at`.
    pub fn value_mut(&mut self, at: usize) -> Option<&mut V> {
        self.version = next_dict_version();
        self.entries
            .get_mut(at)
            .and_then(Option::as_mut)
            .map(|entry| &mut entry.value)
    }

    /// `d[key] = value`: the previous value if the key was present (it keeps its place).
    pub fn insert<E>(
        &mut self,
        key: K,
        hash: i64,
        value: V,
        mut eq: impl FnMut(&K, &K) -> Result<bool, E>,
    ) -> Result<Option<V>, E> {
        let found = self.find(&key, hash, &mut eq)?;
        self.version = next_dict_version();
        let free_slot = match found {
            Lookup::Found { at, .. } => {
                let entry = self.entries[at].as_mut().map(|entry| &mut entry.value);
                return Ok(entry.map(|old| std::mem::replace(old, value)));
            }
            Lookup::Missing(free_slot) => free_slot,
        };
        let entry = DictEntry { hash, key, value };
        let slot = match free_slot {
            Some(slot) => slot,
            None if self.entries.len() < SMALL_DICT => {
                self.key_bits |= Self::key_bit(hash);
                self.entries.push(Some(entry));
                self.used += 1;
                return Ok(None);
            }
            None => {
                self.index_entries();
                self.free_index_slot(hash)
            }
        };
        if self.entries.len() >= self.usable() {
            self.rebuild(self.used * 3);
            self.push_entry(entry);
            return Ok(None);
        }
        self.indices[slot] = self.entries.len();
        self.key_bits |= Self::key_bit(hash);
        self.entries.push(Some(entry));
        self.used += 1;
        Ok(None)
    }

    /// Gives a small table the index table it would have had all along: its entries go in
    /// again in order, the index table growing where CPython's would have.
    fn index_entries(&mut self) {
        let entries = std::mem::take(&mut self.entries);
        self.indices = vec![INDEX_EMPTY; DICT_MIN_SIZE];
        self.used = 0;
        self.key_bits = 0;
        for entry in entries.into_iter().flatten() {
            if self.entries.len() >= self.usable() {
                self.rebuild(self.used * 3);
            }
            self.push_entry(entry);
        }
    }

    /// Append an entry whose key is known to be absent, after a rebuild.
    fn push_entry(&mut self, entry: DictEntry<K, V>) {
        let slot = self.free_index_slot(entry.hash);
        self.indices[slot] = self.entries.len();
        self.key_bits |= Self::key_bit(entry.hash);
        self.entries.push(Some(entry));
        self.used += 1;
    }

    /// The first empty index slot on `hash`'s probe sequence (the table has no dummies).
    fn free_index_slot(&self, hash: i64) -> usize {
        self.probe(hash, |index| index == INDEX_EMPTY)
    }

    /// The first index slot on `hash`'s probe sequence whose content is `wanted`.
    fn probe(&self, hash: i64, wanted: impl Fn(usize) -> bool) -> usize {
        let mask = self.indices.len() - 1;
        let mut perturb = hash as u64;
        let mut slot = (hash as u64 as usize) & mask;
        while !wanted(self.indices[slot]) {
            perturb >>= PERTURB_SHIFT;
            slot = (slot
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
        slot
    }

    /// Squeeze out holes and size the index table for `min_size` (`dictresize`).
    fn rebuild(&mut self, min_size: usize) {
        let mut size = DICT_MIN_SIZE;
        while size * 2 / 3 <= min_size.max(self.used) {
            size <<= 1;
        }
        let old_entries = std::mem::take(&mut self.entries);
        self.indices = vec![INDEX_EMPTY; size];
        self.used = 0;
        self.key_bits = 0;
        for entry in old_entries.into_iter().flatten() {
            self.push_entry(entry);
        }
    }

    /// `del d[key]` / `d.pop(key)`: the removed pair, leaving a hole in the order.
    pub fn remove<E>(
        &mut self,
        key: &K,
        hash: i64,
        mut eq: impl FnMut(&K, &K) -> Result<bool, E>,
    ) -> Result<Option<(K, V)>, E> {
        let Lookup::Found { at, slot } = self.find(key, hash, &mut eq)? else {
            return Ok(None);
        };
        self.version = next_dict_version();
        let slot = slot.unwrap_or_else(|| {
            // Positions stay as they were: a small table has no holes.
            self.index_entries();
            self.probe(hash, |index| index == at)
        });
        self.indices[slot] = INDEX_DUMMY;
        self.used -= 1;
        Ok(self.entries[at]
            .take()
            .map(|entry| (entry.key, entry.value)))
    }

    /// `d.popitem()`: the last inserted pair.
    pub fn pop_last(&mut self) -> Option<(K, V)> {
        self.version = next_dict_version();
        while let Some(last) = self.entries.pop() {
            let Some(entry) = last else { continue };
            let position = self.entries.len();
            if let Some(slot) = self.indices.iter().position(|index| *index == position) {
                self.indices[slot] = INDEX_DUMMY;
            }
            self.used -= 1;
            return Some((entry.key, entry.value));
        }
        None
    }

    /// `d.clear()`.
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    /// The entry at or after position `at` and the position to continue from: what a dict
    /// iterator stores between `next()` calls.
    pub fn next_from(&self, at: usize) -> Option<(usize, &DictEntry<K, V>)> {
        self.entries
            .iter()
            .enumerate()
            .skip(at)
            .find_map(|(index, entry)| entry.as_ref().map(|e| (index + 1, e)))
    }

    /// The last entry before `at` and where it is (a reverse iteration goes on from there).
    pub fn prev_before(&self, at: usize) -> Option<(usize, &DictEntry<K, V>)> {
        let before = self.entries.get(..at).unwrap_or(&self.entries);
        before
            .iter()
            .enumerate()
            .rev()
            .find_map(|(index, entry)| entry.as_ref().map(|e| (index, e)))
    }

    /// The next entry of an iteration standing at `at`, forwards ([`DictTable::next_from`])
    /// or `reversed` ([`DictTable::prev_before`]), and where it goes on from.
    pub fn step(&self, at: usize, reversed: bool) -> Option<(usize, &DictEntry<K, V>)> {
        match reversed {
            false => self.next_from(at),
            true => self.prev_before(at),
        }
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = &DictEntry<K, V>> {
        self.entries.iter().flatten()
    }

    /// Mutable entries in insertion order (values only should change).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut DictEntry<K, V>> {
        self.version = next_dict_version();
        self.entries.iter_mut().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_eq(a: &i64, b: &i64) -> Result<bool, ()> {
        Ok(a == b)
    }

    #[test]
    fn a_small_int_hashes_as_its_remainder_modulo_2_61_minus_1() {
        let m = HASH_MODULUS as i64;
        let edges = [
            0,
            1,
            -1,
            2,
            -2,
            m - 1,
            m,
            m + 1,
            2 * m,
            2 * m + 5,
            -m,
            -m - 1,
            i64::MAX,
            i64::MAX - 1,
            i64::MIN,
            i64::MIN + 1,
            (1 << 61) - 2,
            (1 << 62) + 12345,
        ];
        for v in edges.into_iter().chain((0..64).map(|b| 1i64 << b.min(62))) {
            let magnitude = (v.unsigned_abs() % HASH_MODULUS) as i64;
            let expected = match if v < 0 { -magnitude } else { magnitude } {
                -1 => -2,
                h => h,
            };
            assert_eq!(hash_small_int(v), expected, "hash of {v}");
        }
    }

    fn hash_of(v: i64) -> i64 {
        hash_int(&Int::Small(v))
    }

    fn set_of(values: &[i64]) -> SetTable<i64> {
        let mut set = SetTable::new();
        for v in values {
            set.insert(*v, hash_of(*v), int_eq).unwrap();
        }
        set
    }

    fn order(set: &SetTable<i64>) -> Vec<i64> {
        set.iter().map(|(k, _)| *k).collect()
    }

    fn remove(set: &mut SetTable<i64>, v: i64) {
        set.remove(&v, hash_of(v), int_eq).unwrap();
    }

    fn add(set: &mut SetTable<i64>, v: i64) {
        set.insert(v, hash_of(v), int_eq).unwrap();
    }

    // Expected orders printed by python3.13.

    #[test]
    fn small_int_sets_iterate_in_cpython_order() {
        assert_eq!(order(&set_of(&[3, 1, 2])), [1, 2, 3]);
        assert_eq!(order(&set_of(&[100, 5, 33])), [33, 100, 5]);
        assert_eq!(order(&set_of(&[8, 16, 0])), [8, 16, 0]);
        assert_eq!(order(&set_of(&[-1, -2, 5])), [5, -1, -2]);
        assert_eq!(
            order(&set_of(&[20, 17, 14, 11, 8, 5, 2])),
            [2, 5, 8, 11, 14, 17, 20]
        );
        let multiples: Vec<i64> = (0..12).map(|i| i * 8).collect();
        assert_eq!(
            order(&set_of(&multiples)),
            [0, 32, 64, 8, 40, 72, 16, 48, 80, 24, 56, 88]
        );
        assert_eq!(
            order(&set_of(&[1000, 2000, 3000, 12, 77, 5, 9, 31])),
            [5, 1000, 9, 12, 77, 2000, 3000, 31]
        );
    }

    #[test]
    fn removals_and_readds_follow_dummies() {
        let mut set = set_of(&[100, 5, 33]);
        remove(&mut set, 5);
        add(&mut set, 5);
        assert_eq!(order(&set), [33, 100, 5]);
        add(&mut set, 8);
        remove(&mut set, 100);
        add(&mut set, 200);
        assert_eq!(order(&set), [33, 5, 8, 200]);

        let mut set = set_of(&[40, 8, 16, 24, 32, 0, 7]);
        assert_eq!(order(&set), [32, 0, 7, 40, 8, 16, 24]);
        remove(&mut set, 8);
        add(&mut set, 72);
        assert_eq!(order(&set), [32, 0, 7, 40, 72, 16, 24]);

        let mut set = set_of(&(0..100).collect::<Vec<_>>());
        for v in (0..100).step_by(3) {
            remove(&mut set, v);
        }
        let expected: Vec<i64> = (0..100).filter(|v| v % 3 != 0).collect();
        assert_eq!(order(&set), expected);
    }

    #[test]
    fn pop_uses_the_finger() {
        // s=set(range(10)); s.pop(), s.pop() -> 0 1; s.add(0); s.pop() -> 2, s -> {0, 3, ..., 9}
        let mut set = set_of(&(0..10).collect::<Vec<_>>());
        assert_eq!(set.pop(), Some(0));
        assert_eq!(set.pop(), Some(1));
        add(&mut set, 0);
        assert_eq!(order(&set), [0, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(set.pop(), Some(2));
        assert_eq!(order(&set), [0, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(set.len(), 8);
    }

    #[test]
    fn merge_matches_set_operations() {
        // {1,2,3} | {9,8} and {9,8} | {1,2,3} both print {1, 2, 3, 8, 9}
        let mut union = SetTable::new();
        union.merge(&set_of(&[1, 2, 3]), int_eq).unwrap();
        union.merge(&set_of(&[9, 8]), int_eq).unwrap();
        assert_eq!(order(&union), [1, 2, 3, 8, 9]);
        let mut union = SetTable::new();
        union.merge(&set_of(&[9, 8]), int_eq).unwrap();
        union.merge(&set_of(&[1, 2, 3]), int_eq).unwrap();
        assert_eq!(order(&union), [1, 2, 3, 8, 9]);
    }

    #[test]
    fn set_algebra_orders_match_cpython() {
        // python3.13: a = set(); for v in [100, 5, 33, 64, 17]: a.add(v); b = {33, 7, 1000}
        // list(a), list(a.copy()), list(a ^ b), list(a - {5}), list(a & b), list(a | b),
        // list(b | a)
        let a = set_of(&[100, 5, 33, 64, 17]);
        let b = set_of(&[33, 7, 1000]);
        assert_eq!(order(&a), [64, 33, 100, 5, 17]);
        assert_eq!(order(&a.copy()), [64, 33, 17, 100, 5]);
        assert_eq!(
            order(&a.symmetric_difference(&b, int_eq).unwrap()),
            [64, 100, 5, 7, 1000, 17]
        );
        assert_eq!(
            order(&a.difference(&set_of(&[5]), int_eq).unwrap()),
            [64, 33, 100, 17]
        );
        assert_eq!(order(&a.intersection(&b, int_eq).unwrap()), [33]);
        assert_eq!(
            order(&a.union(&b, int_eq).unwrap()),
            [64, 33, 17, 100, 5, 7, 1000]
        );
        assert_eq!(
            order(&b.union(&a, int_eq).unwrap()),
            [64, 33, 100, 5, 7, 1000, 17]
        );
        assert!(set_of(&[33]).is_subset(&a, int_eq).unwrap());
        assert!(!b.is_subset(&a, int_eq).unwrap());
        assert!(a.is_disjoint(&set_of(&[1, 2]), int_eq).unwrap());
        assert!(!a.is_disjoint(&b, int_eq).unwrap());
    }

    #[test]
    fn failing_equality_propagates() {
        let mut set = set_of(&[1]);
        let result = set.insert(1, hash_of(1), |_, _| Err::<bool, &str>("boom"));
        assert_eq!(result, Err("boom"));
        assert!(set.contains(&1, hash_of(1), int_eq).unwrap());
    }

    #[test]
    fn hashes_match_cpython() {
        // python3.13: hash(-1), hash(2**61-1), hash(2**61), hash(-2**61), hash(2**100),
        // hash(-(2**100)), hash(-2), hash(2**63), hash(-2**63)
        assert_eq!(hash_of(-1), -2);
        assert_eq!(hash_of((1 << 61) - 1), 0);
        assert_eq!(hash_of(1 << 61), 1);
        assert_eq!(hash_of(-(1 << 61)), -2);
        assert_eq!(hash_of(-2), -2);
        assert_eq!(hash_of(i64::MIN), -4);
        let two_100: BigInt = BigInt::from(1) << 100;
        assert_eq!(hash_int(&Int::from(two_100.clone())), 549755813888);
        assert_eq!(hash_int(&Int::from(-two_100)), -549755813888);
        assert_eq!(hash_int(&Int::from(BigInt::from(1) << 63u32)), 4);
        // hash(1.5), hash(-1.5), hash(0.1), hash(1e300), hash(inf), hash(-0.0), hash(1e-300)
        assert_eq!(hash_float(1.5), Some(1152921504606846977));
        assert_eq!(hash_float(-1.5), Some(-1152921504606846977));
        assert_eq!(hash_float(0.1), Some(230584300921369408));
        assert_eq!(hash_float(1e300), Some(1224995262755759164));
        assert_eq!(hash_float(f64::INFINITY), Some(314159));
        assert_eq!(hash_float(-0.0), Some(0));
        assert_eq!(hash_float(1e-300), Some(482449582752280463));
        assert_eq!(
            hash_float(2f64.powi(70)),
            Some(hash_int(&Int::from(BigInt::from(1) << 70u32)))
        );
        assert_eq!(hash_float(-1.0), Some(-2));
        assert_eq!(hash_float(f64::NAN), None);
        // hash(()), hash((1,)), hash((1,2)), hash((1,(2,3)))
        assert_eq!(hash_tuple([].into_iter()), 5740354900026072187);
        assert_eq!(hash_tuple([1].into_iter()), -6644214454873602895);
        assert_eq!(hash_tuple([1, 2].into_iter()), -3550055125485641917);
        let inner = hash_tuple([2, 3].into_iter());
        assert_eq!(hash_tuple([1, inner].into_iter()), 7267574591690527098);
        // hash(frozenset()), hash(frozenset({1,2,3})), hash(frozenset({1}))
        assert_eq!(SetTable::<i64>::new().frozenset_hash(), 133146708735736);
        assert_eq!(set_of(&[1, 2, 3]).frozenset_hash(), -272375401224217160);
        assert_eq!(set_of(&[1]).frozenset_hash(), -558064481276695278);
        assert_eq!(HASH_NONE, 4238894112);
    }

    #[test]
    fn dict_keeps_insertion_order() {
        let mut dict: DictTable<i64, &str> = DictTable::new();
        for (k, v) in [(3, "c"), (1, "a"), (2, "b")] {
            dict.insert(k, hash_of(k), v, int_eq).unwrap();
        }
        assert_eq!(dict.insert(1, hash_of(1), "A", int_eq).unwrap(), Some("a"));
        assert_eq!(dict.remove(&3, hash_of(3), int_eq).unwrap(), Some((3, "c")));
        dict.insert(3, hash_of(3), "C", int_eq).unwrap();
        let pairs: Vec<(i64, &str)> = dict.iter().map(|e| (e.key, e.value)).collect();
        assert_eq!(pairs, [(1, "A"), (2, "b"), (3, "C")]);
        for k in 10..100 {
            dict.insert(k, hash_of(k), "x", int_eq).unwrap();
        }
        for k in 10..99 {
            dict.remove(&k, hash_of(k), int_eq).unwrap();
        }
        assert_eq!(dict.len(), 4);
        assert_eq!(dict.pop_last(), Some((99, "x")));
        assert_eq!(dict.get(&2, hash_of(2), int_eq).unwrap(), Some(&"b"));
        let keys: Vec<i64> = dict.iter().map(|e| e.key).collect();
        assert_eq!(keys, [1, 2, 3]);
    }

    fn dict_keys(dict: &DictTable<i64, i64>) -> Vec<i64> {
        dict.iter().map(|e| e.key).collect()
    }

    /// The keys `key` (stored with `hash`) is compared with until the lookup finds it.
    fn compared_to_find(dict: &DictTable<i64, i64>, key: i64, hash: i64) -> Vec<i64> {
        let mut compared = Vec::new();
        let found = dict.get(&key, hash, |stored, probe| {
            compared.push(*stored);
            Ok::<_, ()>(stored == probe)
        });
        assert_eq!(found.unwrap(), Some(&key));
        compared
    }

    #[test]
    fn small_dict_has_no_index_until_it_outgrows_it() {
        let mut dict: DictTable<i64, i64> = DictTable::new();
        for k in 0..SMALL_DICT as i64 {
            dict.insert(k, hash_of(k), k * 10, int_eq).unwrap();
        }
        assert!(dict.indices.is_empty());
        assert_eq!(dict.get(&5, hash_of(5), int_eq).unwrap(), Some(&50));
        assert_eq!(dict.position(&7, hash_of(7), int_eq).unwrap(), Some(7));
        assert_eq!(dict.get(&8, hash_of(8), int_eq).unwrap(), None);
        dict.insert(8, hash_of(8), 80, int_eq).unwrap();
        assert!(!dict.indices.is_empty());
        assert_eq!(dict_keys(&dict), (0..=8).collect::<Vec<_>>());
        for k in 0..=8 {
            assert_eq!(dict.get(&k, hash_of(k), int_eq).unwrap(), Some(&(k * 10)));
        }
    }

    #[test]
    fn deleting_from_a_small_dict_gives_it_the_index_it_would_have_had() {
        // 1, 9 and 17 share a hash: deleting 9 leaves a dummy slot that 25 then takes, so
        // a lookup of 25 compares it before 17, as CPython's probe does.
        let mut small: DictTable<i64, i64> = DictTable::new();
        let mut indexed: DictTable<i64, i64> = DictTable::new();
        indexed.indices = vec![INDEX_EMPTY; DICT_MIN_SIZE];
        for dict in [&mut small, &mut indexed] {
            for k in [1, 2, 9, 3, 17, 4] {
                dict.insert(k, k % 8, k, int_eq).unwrap();
            }
        }
        assert!(small.indices.is_empty());
        for dict in [&mut small, &mut indexed] {
            assert_eq!(dict.remove(&9, 1, int_eq).unwrap(), Some((9, 9)));
            dict.insert(25, 1, 25, int_eq).unwrap();
        }
        assert_eq!(small.indices, indexed.indices);
        assert_eq!(compared_to_find(&small, 17, 1), [1, 25, 17]);
        assert_eq!(dict_keys(&small), [1, 2, 3, 17, 4, 25]);
        assert_eq!(small.pop_last(), Some((25, 25)));
    }

    #[test]
    fn small_dict_compares_equal_hashes_in_insertion_order() {
        // Keys 1, 9 and 17 share a hash here: only they are compared, first inserted first.
        let mut dict: DictTable<i64, i64> = DictTable::new();
        for k in [1, 2, 9, 3, 17] {
            dict.insert(k, k % 8, k, int_eq).unwrap();
        }
        assert_eq!(compared_to_find(&dict, 17, 1), [1, 9, 17]);
    }
}
