//! Names the fault in bad deflate data as C zlib's `inflate.c` would ("invalid stored block
//! lengths", "invalid distance too far back", …). miniz_oxide, which does the decoding
//! (src/builtins/zlib_stream.rs), only reports that it failed; when it does, this walks
//! the same data again, block by block, checking what zlib checks, without keeping the
//! output. Slow (a bit at a time) but only ever run on data already known to be bad.

/// The longest Huffman code deflate allows.
const MAX_BITS: usize = 15;

/// Length codes 257..285: the base length and the extra bits of each.
const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
/// Distance codes 0..29: the base distance and the extra bits of each.
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order the code length code lengths come in.
const CODE_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// A fault, as zlib words it; `None` inside this file means the data ran out first.
type Fault = &'static str;

/// The message zlib gives for the first fault in the raw deflate stream `data`, decoded
/// after `preset` bytes of dictionary; None if the data ends before any fault.
pub fn diagnose(data: &[u8], preset: usize) -> Option<Fault> {
    let mut bits = Bits { data, at: 0 };
    let mut produced = preset as u64;
    loop {
        match block(&mut bits, &mut produced) {
            Ok(true) => return None,
            Ok(false) => {}
            Err(fault) => return fault,
        }
    }
}

/// Reads deflate's bits, least significant first.
struct Bits<'a> {
    data: &'a [u8],
    /// The position in bits.
    at: usize,
}

/// `Err(None)`: the data ran out; `Err(Some(fault))`: zlib would stop there.
type Step<T> = Result<T, Option<Fault>>;

impl Bits<'_> {
    fn take(&mut self, n: u32) -> Step<u32> {
        let mut value = 0;
        for i in 0..n {
            let byte = self.data.get(self.at / 8).ok_or(None)?;
            value |= u32::from(byte >> (self.at % 8) & 1) << i;
            self.at += 1;
        }
        Ok(value)
    }
}

/// A canonical Huffman code: how many codes of each length, and the symbols in order.
struct Huffman {
    counts: [u16; MAX_BITS + 1],
    symbols: Vec<u16>,
}

impl Huffman {
    /// The code of `lengths`, or None when zlib refuses it: over-subscribed, or
    /// incomplete (allowed, unless `strict`, for a single code of one bit).
    fn new(lengths: &[u8], strict: bool) -> Option<Huffman> {
        let mut counts = [0u16; MAX_BITS + 1];
        for &len in lengths {
            counts[usize::from(len)] += 1;
        }
        counts[0] = 0;
        let longest = (1..=MAX_BITS).rev().find(|&l| counts[l] != 0).unwrap_or(0);
        if longest > 0 {
            let mut left: i32 = 1;
            for &count in &counts[1..] {
                left = (left << 1) - i32::from(count);
                if left < 0 {
                    return None;
                }
            }
            if left > 0 && (strict || longest != 1) {
                return None;
            }
        }
        let mut symbols = Vec::new();
        for len in 1..=MAX_BITS {
            for (symbol, &l) in lengths.iter().enumerate() {
                if usize::from(l) == len {
                    symbols.push(symbol as u16);
                }
            }
        }
        Some(Huffman { counts, symbols })
    }

    /// The next symbol, or `invalid` for a code the set leaves unused.
    fn decode(&self, bits: &mut Bits, invalid: Fault) -> Step<usize> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..=MAX_BITS {
            code |= bits.take(1)? as i32;
            let count = i32::from(self.counts[len]);
            if code - first < count {
                let at = (index + code - first) as usize;
                return self
                    .symbols
                    .get(at)
                    .map(|&s| usize::from(s))
                    .ok_or(Some(invalid));
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        Err(Some(invalid))
    }
}

/// One block; true when it was the last.
fn block(bits: &mut Bits, produced: &mut u64) -> Step<bool> {
    let last = bits.take(1)? == 1;
    match bits.take(2)? {
        0 => stored(bits, produced)?,
        1 => {
            let mut lengths = [8u8; 288];
            lengths[144..256].fill(9);
            lengths[256..280].fill(7);
            let literals = Huffman::new(&lengths, false).ok_or(None)?;
            let distances = Huffman::new(&[5; 32], false).ok_or(None)?;
            codes(bits, produced, &literals, &distances)?;
        }
        2 => {
            let (literals, distances) = dynamic_tables(bits)?;
            codes(bits, produced, &literals, &distances)?;
        }
        _ => return Err(Some("invalid block type")),
    }
    Ok(last)
}

fn stored(bits: &mut Bits, produced: &mut u64) -> Step<()> {
    bits.at = bits.at.div_ceil(8) * 8;
    let length = bits.take(16)?;
    if bits.take(16)? != !length & 0xffff {
        return Err(Some("invalid stored block lengths"));
    }
    bits.at += length as usize * 8;
    if bits.at > bits.data.len() * 8 {
        return Err(None);
    }
    *produced += u64::from(length);
    Ok(())
}

/// The two codes of a dynamic block, read from its header.
fn dynamic_tables(bits: &mut Bits) -> Step<(Huffman, Huffman)> {
    let literal_count = bits.take(5)? as usize + 257;
    let distance_count = bits.take(5)? as usize + 1;
    let code_count = bits.take(4)? as usize + 4;
    if literal_count > 286 || distance_count > 30 {
        return Err(Some("too many length or distance symbols"));
    }
    let mut code_lengths = [0u8; 19];
    for &symbol in &CODE_ORDER[..code_count] {
        code_lengths[symbol] = bits.take(3)? as u8;
    }
    let lengths_code = Huffman::new(&code_lengths, true).ok_or(Some("invalid code lengths set"))?;
    let total = literal_count + distance_count;
    let mut lengths = Vec::with_capacity(total);
    while lengths.len() < total {
        let symbol = lengths_code.decode(bits, "invalid code lengths set")?;
        let (value, repeat) = match symbol {
            0..=15 => (symbol as u8, 1),
            16 => {
                let &previous = lengths.last().ok_or(Some("invalid bit length repeat"))?;
                (previous, 3 + bits.take(2)? as usize)
            }
            17 => (0, 3 + bits.take(3)? as usize),
            _ => (0, 11 + bits.take(7)? as usize),
        };
        if lengths.len() + repeat > total {
            return Err(Some("invalid bit length repeat"));
        }
        lengths.extend(std::iter::repeat_n(value, repeat));
    }
    if lengths[256] == 0 {
        return Err(Some("invalid code -- missing end-of-block"));
    }
    let literals = Huffman::new(&lengths[..literal_count], false)
        .ok_or(Some("invalid literal/lengths set"))?;
    let distances =
        Huffman::new(&lengths[literal_count..], false).ok_or(Some("invalid distances set"))?;
    Ok((literals, distances))
}

/// The literals and matches of a compressed block, up to its end-of-block code.
fn codes(bits: &mut Bits, produced: &mut u64, literals: &Huffman, distances: &Huffman) -> Step<()> {
    loop {
        let symbol = literals.decode(bits, "invalid literal/length code")?;
        match symbol {
            0..=255 => *produced += 1,
            256 => return Ok(()),
            257..=285 => {
                let i = symbol - 257;
                let length =
                    u64::from(LENGTH_BASE[i]) + u64::from(bits.take(LENGTH_EXTRA[i].into())?);
                let code = distances.decode(bits, "invalid distance code")?;
                let (Some(&base), Some(&extra)) = (DIST_BASE.get(code), DIST_EXTRA.get(code))
                else {
                    return Err(Some("invalid distance code"));
                };
                let distance = u64::from(base) + u64::from(bits.take(extra.into())?);
                if distance > *produced {
                    return Err(Some("invalid distance too far back"));
                }
                *produced += length;
            }
            _ => return Err(Some("invalid literal/length code")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::diagnose;

    #[test]
    fn names_faults_as_zlib() {
        // A zlib header read as raw deflate: a stored block with bad lengths.
        assert_eq!(
            diagnose(b"x\x9c\xcbH\xcd\xc9", 0),
            Some("invalid stored block lengths")
        );
        assert_eq!(diagnose(b"\x07\x00", 0), Some("invalid block type"));
        // A fixed block whose first code is a match of distance 1, with nothing before.
        assert_eq!(
            diagnose(b"\x03\x02", 0),
            Some("invalid distance too far back")
        );
        assert_eq!(diagnose(b"\x03\x00", 0), None);
    }
}
