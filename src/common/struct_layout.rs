//! The format strings of the `struct` module and the byte layouts they describe: parsing a
//! format (`">IH"`, `"@b0q"`, `"10s2x"`) into fields with their offsets, and packing and
//! unpacking the raw values of one field (integers of every width and signedness in either
//! byte order, IEEE half, single and double floats).
//!
//! In: a format as text, field values as `i128`/`f64`/bytes. Out: a [`Layout`] or a
//! [`LayoutError`] with CPython's message (`Modules/_struct.c`: `prepare_s`, the
//! `native_table`/`lilendian_table`/`bigendian_table` entries, `PyFloat_Pack2`/`Unpack2`).
//! Native sizes and alignments are those of CPython on a 64-bit Linux (LP64). The VM glue,
//! which turns Python values into these, is `builtins/struct_module.rs`.

/// The byte order of a format's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteOrder {
    Little,
    Big,
}

/// One field of a format: its code (`b'i'`, `b's'`, …), where it starts, and for `s` and
/// `p` its length in bytes (other codes repeat as fields of their own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub code: u8,
    pub offset: usize,
    pub size: usize,
}

/// A parsed format: its fields in order, the total size, and how numbers are laid out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub fields: Vec<Field>,
    pub size: usize,
    pub order: ByteOrder,
    /// `@` (the default): native sizes and alignment; `=`, `<`, `>`, `!`: standard sizes,
    /// no alignment.
    pub native: bool,
}

/// A format or value that `struct` refuses: its `struct.error` text, or for a float too
/// big for its field CPython's OverflowError.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    Struct(String),
    Overflow(String),
}

impl LayoutError {
    fn structure(message: impl Into<String>) -> LayoutError {
        LayoutError::Struct(message.into())
    }
}

/// The size of `code` in native (`@`) or standard mode, None when the mode lacks it.
fn field_size(code: u8, native: bool) -> Option<usize> {
    Some(match code {
        b'x' | b'c' | b'b' | b'B' | b'?' | b's' | b'p' => 1,
        b'h' | b'H' | b'e' => 2,
        b'i' | b'I' | b'f' => 4,
        b'l' | b'L' => match native {
            true => 8,
            false => 4,
        },
        b'q' | b'Q' | b'd' => 8,
        b'n' | b'N' | b'P' if native => 8,
        _ => return None,
    })
}

/// Parses `format` (`prepare_s`): an optional byte-order character, then fields, each an
/// optional repeat count and a code, with whitespace between fields.
pub fn parse(format: &str) -> Result<Layout, LayoutError> {
    let bytes = format.as_bytes();
    let (order, native, mut pos) = match bytes.first() {
        Some(b'@') => (native_order(), true, 1),
        Some(b'=') => (native_order(), false, 1),
        Some(b'<') => (ByteOrder::Little, false, 1),
        Some(b'>' | b'!') => (ByteOrder::Big, false, 1),
        _ => (native_order(), true, 0),
    };
    let bad = || LayoutError::structure("bad char in struct format");
    let too_long = || LayoutError::structure("total struct size too long");
    let mut fields = Vec::new();
    let mut size = 0usize;
    while pos < bytes.len() {
        let c = bytes[pos];
        if c.is_ascii_whitespace() {
            pos += 1;
            continue;
        }
        let mut count = None;
        while let Some(digit) = bytes.get(pos).filter(|b| b.is_ascii_digit()) {
            let n: usize = count.unwrap_or(0);
            let n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(usize::from(digit - b'0')))
                .ok_or_else(too_long)?;
            count = Some(n);
            pos += 1;
        }
        let Some(&code) = bytes.get(pos) else {
            return Err(LayoutError::structure(
                "repeat count given without format specifier",
            ));
        };
        pos += 1;
        let width = field_size(code, native).ok_or_else(bad)?;
        let count = count.unwrap_or(1);
        if native {
            // Each field starts at a multiple of its own size.
            size = size.checked_next_multiple_of(width).ok_or_else(too_long)?;
        }
        match code {
            b's' | b'p' => {
                fields.push(Field {
                    code,
                    offset: size,
                    size: count,
                });
                size = size.checked_add(count).ok_or_else(too_long)?;
            }
            b'x' => size = size.checked_add(count).ok_or_else(too_long)?,
            _ => {
                let total = width.checked_mul(count).ok_or_else(too_long)?;
                if size
                    .checked_add(total)
                    .is_none_or(|end| end > isize::MAX as usize)
                {
                    return Err(too_long());
                }
                for k in 0..count {
                    fields.push(Field {
                        code,
                        offset: size + k * width,
                        size: width,
                    });
                }
                size += total;
            }
        }
    }
    Ok(Layout {
        fields,
        size,
        order,
        native,
    })
}

fn native_order() -> ByteOrder {
    if cfg!(target_endian = "little") {
        ByteOrder::Little
    } else {
        ByteOrder::Big
    }
}

/// Whether an integer code is signed.
pub fn is_signed(code: u8) -> bool {
    matches!(code, b'b' | b'h' | b'i' | b'l' | b'q' | b'n')
}

/// Writes the integer `value` into `out` (a field of `out.len()` bytes), or the error
/// "'h' format requires -32768 <= number <= 32767". A native `P` takes any value an
/// address can hold, wrapping a negative one as C does.
pub fn pack_int(
    code: u8,
    value: i128,
    order: ByteOrder,
    out: &mut [u8],
) -> Result<(), LayoutError> {
    let bits = out.len() as u32 * 8;
    let (min, max) = match is_signed(code) {
        true => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        false => (0, (1i128 << bits) - 1),
    };
    let in_range = (min..=max).contains(&value) || (code == b'P' && value >= -max / 2 - 1);
    if !in_range {
        let code = char::from(code);
        return Err(LayoutError::Struct(format!(
            "'{code}' format requires {min} <= number <= {max}"
        )));
    }
    place(&value.to_le_bytes(), order, out);
    Ok(())
}

/// Writes the first `out.len()` bytes of the little-endian `le` into `out` in `order`.
fn place(le: &[u8], order: ByteOrder, out: &mut [u8]) {
    let n = out.len();
    match order {
        ByteOrder::Little => out.copy_from_slice(&le[..n]),
        ByteOrder::Big => {
            for (byte, &from) in out.iter_mut().zip(le[..n].iter().rev()) {
                *byte = from;
            }
        }
    }
}

/// The field `data` (at most 16 bytes) in `order`, as little-endian bytes padded with
/// zeros.
fn gather(data: &[u8], order: ByteOrder) -> [u8; 16] {
    let mut le = [0u8; 16];
    match order {
        ByteOrder::Little => le[..data.len()].copy_from_slice(data),
        ByteOrder::Big => {
            for (to, &byte) in le.iter_mut().zip(data.iter().rev()) {
                *to = byte;
            }
        }
    }
    le
}

/// Reads the integer field `data` for `code`.
pub fn unpack_int(code: u8, data: &[u8], order: ByteOrder) -> i128 {
    let raw = u128::from_le_bytes(gather(data, order));
    let bits = data.len() as u32 * 8;
    if is_signed(code) && raw >> (bits - 1) & 1 == 1 {
        (raw as i128) - (1i128 << bits)
    } else {
        raw as i128
    }
}

/// Writes the float `x` as an `e`, `f` or `d` field (`out.len()` is 2, 4 or 8). A finite
/// value too big for a half, or for a single in standard mode, is CPython's
/// OverflowError; a native `f` becomes infinity as a C cast does.
pub fn pack_float(
    x: f64,
    native: bool,
    order: ByteOrder,
    out: &mut [u8],
) -> Result<(), LayoutError> {
    let overflow =
        |code: char| LayoutError::Overflow(format!("float too large to pack with {code} format"));
    let le: Vec<u8> = match out.len() {
        2 => half_bits(x)
            .ok_or_else(|| overflow('e'))?
            .to_le_bytes()
            .to_vec(),
        4 => {
            let y = x as f32;
            if y.is_infinite() && x.is_finite() && !native {
                return Err(overflow('f'));
            }
            y.to_le_bytes().to_vec()
        }
        _ => x.to_le_bytes().to_vec(),
    };
    place(&le, order, out);
    Ok(())
}

/// Reads an `e`, `f` or `d` field.
pub fn unpack_float(data: &[u8], order: ByteOrder) -> f64 {
    let le = gather(data, order);
    match data.len() {
        2 => half_value(u16::from_le_bytes([le[0], le[1]])),
        4 => f64::from(f32::from_le_bytes([le[0], le[1], le[2], le[3]])),
        _ => f64::from_le_bytes([le[0], le[1], le[2], le[3], le[4], le[5], le[6], le[7]]),
    }
}

/// The IEEE half-precision bits of `x`, rounded half to even (`PyFloat_Pack2`); None when
/// a finite `x` is too big.
fn half_bits(x: f64) -> Option<u16> {
    let sign = u16::from(x.is_sign_negative());
    let (e, bits): (i32, u16) = if x == 0.0 {
        (0, 0)
    } else if x.is_infinite() {
        (0x1f, 0)
    } else if x.is_nan() {
        (0x1f, 512)
    } else {
        let (mut f, mut e) = frexp(x.abs());
        // From [0.5, 1.0) to [1.0, 2.0).
        f *= 2.0;
        e -= 1;
        if e >= 16 {
            return None;
        } else if e < -25 {
            f = 0.0;
            e = 0;
        } else if e < -14 {
            f *= 2f64.powi(14 + e);
            e = 0;
        } else {
            e += 15;
            f -= 1.0;
        }
        f *= 1024.0;
        let mut bits = f as u16;
        let rest = f - f64::from(bits);
        if rest > 0.5 || (rest == 0.5 && bits % 2 == 1) {
            bits += 1;
            if bits == 1024 {
                bits = 0;
                e += 1;
                if e == 31 {
                    return None;
                }
            }
        }
        (e, bits)
    };
    Some(bits | (e as u16) << 10 | sign << 15)
}

/// The value of IEEE half-precision `bits` (`PyFloat_Unpack2`).
fn half_value(bits: u16) -> f64 {
    let sign = bits >> 15 == 1;
    let e = i32::from(bits >> 10 & 0x1f);
    let f = f64::from(bits & 0x3ff);
    let magnitude = if e == 0x1f {
        if f == 0.0 { f64::INFINITY } else { f64::NAN }
    } else if e == 0 {
        f / 1024.0 * 2f64.powi(-14)
    } else {
        (1.0 + f / 1024.0) * 2f64.powi(e - 15)
    };
    if sign { -magnitude } else { magnitude }
}

/// `frexp(x)` for a finite positive `x`: `(f, e)` with `x == f * 2**e` and `0.5 <= f < 1`.
fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    if exponent == 0 {
        // Subnormal: scale it into the normal range first.
        let (f, e) = frexp(x * 2f64.powi(64));
        return (f, e - 64);
    }
    let f = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (f, exponent - 1022)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected value below was printed by python3.13's struct module.

    #[test]
    fn sizes_and_alignment() {
        let size = |f: &str| parse(f).map(|l| l.size);
        assert_eq!(size("@bq"), Ok(16));
        assert_eq!(size("@bqb"), Ok(17));
        assert_eq!(size("@b0q"), Ok(8));
        assert_eq!(size("=bi"), Ok(5));
        assert_eq!(size("<l"), Ok(4));
        assert_eq!(size("l"), Ok(8));
        assert_eq!(size("10s2i"), Ok(20));
        assert_eq!(size("x2xb"), Ok(4));
        assert_eq!(size("<h i"), Ok(6));
        assert_eq!(size(""), Ok(0));
        let error = |f: &str| parse(f).unwrap_err();
        let bad = LayoutError::structure("bad char in struct format");
        assert_eq!(error("<n"), bad);
        assert_eq!(error("z"), bad);
        assert_eq!(error("3 i"), bad);
        assert_eq!(
            error("3"),
            LayoutError::structure("repeat count given without format specifier")
        );
        assert_eq!(
            error("99999999999999999999i"),
            LayoutError::structure("total struct size too long")
        );
    }

    #[test]
    fn integers() {
        let pack = |code, value, order, n| {
            let mut out = vec![0; n];
            pack_int(code, value, order, &mut out).map(|()| out)
        };
        assert_eq!(pack(b'h', 258, ByteOrder::Big, 2), Ok(vec![1, 2]));
        assert_eq!(pack(b'h', -2, ByteOrder::Little, 2), Ok(vec![0xfe, 0xff]));
        assert_eq!(
            pack(b'Q', (1 << 64) - 1, ByteOrder::Big, 8),
            Ok(vec![0xff; 8])
        );
        assert_eq!(pack(b'P', -1, ByteOrder::Little, 8), Ok(vec![0xff; 8]));
        assert_eq!(
            pack(b'h', 70000, ByteOrder::Big, 2),
            Err(LayoutError::structure(
                "'h' format requires -32768 <= number <= 32767"
            ))
        );
        assert_eq!(
            pack(b'Q', -1, ByteOrder::Big, 8),
            Err(LayoutError::structure(
                "'Q' format requires 0 <= number <= 18446744073709551615"
            ))
        );
        assert_eq!(unpack_int(b'h', &[0xff, 0xff], ByteOrder::Little), -1);
        assert_eq!(unpack_int(b'H', &[0xff, 0xff], ByteOrder::Little), 65535);
        assert_eq!(unpack_int(b'I', &[0, 0, 1, 2], ByteOrder::Big), 258);
        assert_eq!(unpack_int(b'q', &[0xff; 8], ByteOrder::Big), -1);
    }

    #[test]
    fn half_floats() {
        let pack = |x| {
            let mut out = [0u8; 2];
            pack_float(x, false, ByteOrder::Big, &mut out).map(|()| out)
        };
        assert_eq!(pack(1.5), Ok([0x3e, 0x00]));
        assert_eq!(pack(65519.0), Ok([0x7b, 0xff]));
        assert_eq!(
            pack(65520.0),
            Err(LayoutError::Overflow(
                "float too large to pack with e format".into()
            ))
        );
        assert_eq!(pack(5.960464477539063e-08), Ok([0x00, 0x01]));
        // Exactly half the smallest subnormal: to even, which is zero.
        assert_eq!(pack(2.9802322387695312e-08), Ok([0, 0]));
        assert_eq!(pack(f64::NAN), Ok([0x7e, 0x00]));
        assert_eq!(pack(-0.0), Ok([0x80, 0x00]));
        assert_eq!(unpack_float(&[0x7c, 0x00], ByteOrder::Big), f64::INFINITY);
        assert_eq!(
            unpack_float(&[0x01, 0x00], ByteOrder::Little),
            5.960464477539063e-08
        );
        let mut out = [0u8; 2];
        pack_float(3.3, false, ByteOrder::Little, &mut out).unwrap();
        assert_eq!(unpack_float(&out, ByteOrder::Little), 3.30078125);
    }

    #[test]
    fn singles_overflow_only_in_standard_mode() {
        let mut out = [0u8; 4];
        assert_eq!(
            pack_float(1e300, false, ByteOrder::Big, &mut out),
            Err(LayoutError::Overflow(
                "float too large to pack with f format".into()
            ))
        );
        assert_eq!(pack_float(1e300, true, ByteOrder::Little, &mut out), Ok(()));
        assert_eq!(out, [0, 0, 0x80, 0x7f]);
        pack_float(3.4028235e38, false, ByteOrder::Big, &mut out).unwrap();
        assert_eq!(out, [0x7f, 0x7f, 0xff, 0xff]);
    }
}
