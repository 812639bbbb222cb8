//! The generator under the `random` module: CPython's Mersenne Twister (MT19937) and its
//! seeding, exactly as `Modules/_randommodule.c` runs them, so a seed draws the very words
//! CPython draws. In: seeds (an int's 32-bit words, OS entropy) and bit counts; out: words,
//! 53-bit floats and ints of any width. Value-free: `random.rs` holds the Python side.

use num_bigint::{BigInt, BigUint, Sign};

use crate::common::int_ops::Int;

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// One generator's state (`RandomObject`): 624 words and the index of the next one.
#[derive(Clone)]
pub struct Twister {
    mt: [u32; N],
    index: usize,
}

impl Twister {
    /// The state of a `Random` object before it is seeded (`PyType_GenericNew` zeroes it).
    pub fn zeroed() -> Twister {
        Twister {
            mt: [0; N],
            index: 0,
        }
    }

    /// `genrand_uint32`: the next 32-bit word.
    pub fn next_u32(&mut self) -> u32 {
        let mag01 = |y: u32| if y & 1 == 0 { 0 } else { MATRIX_A };
        let mt = &mut self.mt;
        if self.index >= N {
            for kk in 0..N - M {
                let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
                mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag01(y);
            }
            for kk in N - M..N - 1 {
                let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
                mt[kk] = mt[kk + M - N] ^ (y >> 1) ^ mag01(y);
            }
            let y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
            mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag01(y);
            self.index = 0;
        }
        let mut y = mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random()` (`genrand_res53`): 27 bits and 26 bits make a float in [0, 1).
    pub fn random(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        (a as f64 * 67108864.0 + b as f64) * (1.0 / 9007199254740992.0)
    }

    /// `getrandbits(k)` for `k <= 64`, as a `u64`.
    pub fn bits_u64(&mut self, k: u32) -> u64 {
        match k {
            0 => 0,
            1..=32 => u64::from(self.next_u32() >> (32 - k)),
            _ => {
                let low = u64::from(self.next_u32());
                let high = u64::from(self.next_u32() >> (64 - k));
                (high << 32) | low
            }
        }
    }

    /// `getrandbits(k)`: words from the least significant up, the last one cut to size.
    pub fn getrandbits(&mut self, k: u64) -> Int {
        if k <= 63 {
            return Int::Small(self.bits_u64(k as u32) as i64);
        }
        let words = (k - 1) / 32 + 1;
        let mut left = k;
        let digits: Vec<u32> = (0..words)
            .map(|_| {
                let r = self.next_u32();
                let r = if left < 32 { r >> (32 - left) } else { r };
                left = left.saturating_sub(32);
                r
            })
            .collect();
        Int::from(BigInt::from_biguint(
            Sign::Plus,
            BigUint::from_slice(&digits),
        ))
    }

    /// `init_genrand`.
    fn init_genrand(&mut self, s: u32) {
        self.mt[0] = s;
        for i in 1..N {
            let prev = self.mt[i - 1];
            self.mt[i] = 1812433253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        self.index = N;
    }

    /// `init_by_array`: the seeding every `seed()` ends in.
    pub fn init_by_array(&mut self, key: &[u32]) {
        self.init_genrand(19650218);
        let mt = &mut self.mt;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = mt[i - 1];
            mt[i] = (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1664525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1];
            mt[i] = (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1566083941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
    }

    /// `random_seed` for an int: its absolute value split into 32-bit words, lowest first.
    pub fn seed_int(&mut self, n: &Int) {
        let digits = n.to_bigint().magnitude().to_u32_digits();
        self.init_by_array(if digits.is_empty() { &[0] } else { &digits });
    }

    /// `random_seed_urandom`, falling back on the time and process id
    /// (`random_seed_time_pid`) when the OS has no entropy to give.
    pub fn seed_from_os(&mut self) {
        let mut bytes = [0u8; N * 4];
        let read = std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
        let key: Vec<u32> = if read.is_ok() {
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        } else {
            let now = (crate::common::clock::unix_time() * 1e9) as u64;
            let mono = (crate::common::clock::seconds_since_start() * 1e9) as u64;
            vec![
                now as u32,
                (now >> 32) as u32,
                crate::vm::sandbox::process_id(),
                mono as u32,
                (mono >> 32) as u32,
            ]
        };
        self.init_by_array(&key);
    }

    /// `getstate()`'s inner tuple: the 624 words, then the index.
    pub fn state(&self) -> (Vec<u32>, usize) {
        (self.mt.to_vec(), self.index)
    }

    /// `setstate()` once its tuple has been checked: `words` has 624 entries and
    /// `index <= 624`.
    pub fn set_state(&mut self, words: &[u32], index: usize) {
        self.mt.copy_from_slice(&words[..N]);
        self.index = index;
    }
}

/// How many words `getstate()` holds before the index.
pub const STATE_WORDS: usize = N;

/// `seed(a, version=2)` of a str (its UTF-8), bytes or bytearray: the bytes followed by
/// their SHA-512, read as one big-endian unsigned int (`int.from_bytes(a +
/// sha512(a).digest())` in `Lib/random.py`).
pub fn bytes_seed_v2(data: &[u8]) -> Int {
    use sha2::{Digest, Sha512};
    let mut bytes = data.to_vec();
    bytes.extend_from_slice(&Sha512::digest(data));
    Int::from(BigInt::from_bytes_be(Sign::Plus, &bytes))
}

/// `seed(str, version=1)`: the old string hash of `Lib/random.py`.
pub fn str_seed_v1(text: &str) -> Int {
    let chars: Vec<u32> = text.chars().map(u32::from).collect();
    let mut x: u64 = chars.first().map_or(0, |&c| u64::from(c) << 7);
    for &c in &chars {
        x = 1000003u64.wrapping_mul(x) ^ u64::from(c);
    }
    x ^= chars.len() as u64;
    Int::from(BigInt::from(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_sequence_of_init_by_array() {
        // mt19937ar.c's own test: init_by_array({0x123, 0x234, 0x345, 0x456}).
        let mut t = Twister::zeroed();
        t.init_by_array(&[0x123, 0x234, 0x345, 0x456]);
        let first: Vec<u32> = (0..3).map(|_| t.next_u32()).collect();
        assert_eq!(first, [1067595299, 955945823, 477289528]);
    }

    #[test]
    fn seed_zero_uses_one_zero_word() {
        let mut a = Twister::zeroed();
        a.seed_int(&Int::Small(0));
        let mut b = Twister::zeroed();
        b.init_by_array(&[0]);
        assert_eq!(a.next_u32(), b.next_u32());
    }
}
