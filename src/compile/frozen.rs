//! Code objects compiled ahead of time ("frozen", as CPython calls the modules it carries
//! compiled in its binary).
//!
//! apy's library written in apy (`src/asyncio/lib`, `src/stdlib`) is compiled by `build.rs`
//! (through the `apy-freeze` crate, which builds this very layer for the build machine) into a
//! *library image* the binary includes: for each file, the hash and length of its text and
//! its module code serialized with postcard. When the VM asks to compile a text that is one
//! of those files, the code is read back from the image instead, which is what it would
//! have compiled: `tests/frozen.rs` checks that for every file.
//!
//! The image's layout, all integers little-endian:
//! `count: u32`, then `count` entries of `text_hash: u64, text_len: u32, offset: u32,
//! size: u32`, then the serialized codes (`offset` counts from the end of the entries).
//!
//! A module's code is read back whole, but each code object nested in it (a function, a
//! class body, a lambda) only as far as its *head*: its name, flags, arguments, variables
//! and stack size, with its serialized self beside ([`FrozenCode`]). The VM reads the rest
//! when the function first runs: most of a library's functions never do in a given program,
//! and reading them all was most of `import asyncio`'s start-up.

use std::borrow::Cow;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::bytecode::{Code, Constant};

/// A frozen code object nested in another (`Constant::Frozen`): its head, a [`Code`] whose
/// body (`instructions`, `locations`, `constants`, `names`, `exception_table`, `anchors`)
/// is empty, and the whole code serialized, to be read by [`FrozenCode::thaw`]. Read from an
/// image, the serialized code stays where it is in the image (which the binary carries).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct FrozenCode {
    pub head: Rc<Code>,
    body: FrozenBytes,
}

impl FrozenCode {
    fn of(code: &Code) -> FrozenCode {
        FrozenCode {
            head: Rc::new(Code {
                instructions: Vec::new(),
                locations: Vec::new(),
                constants: Vec::new(),
                names: Vec::new(),
                exception_table: Vec::new(),
                anchors: Vec::new(),
                warnings: Vec::new(),
                ..code.clone()
            }),
            body: FrozenBytes(Cow::Owned(freeze(code))),
        }
    }

    /// The whole code object, under its head's file name; None if the bytes do not read
    /// back (they were written by [`freeze`], and `tests/frozen.rs` reads every file's), or
    /// were never written to an image (one made by `freeze` itself, not read from one).
    pub fn thaw(&self) -> Option<Rc<Code>> {
        let Cow::Borrowed(bytes) = self.body.0 else {
            return None;
        };
        let mut code: Code = postcard::from_bytes(bytes).ok()?;
        set_filename(&mut code, &self.head.filename);
        Some(Rc::new(code))
    }
}

/// Serialized bytes, written as one byte string (not byte by byte, as serde would a
/// `Vec<u8>`), and read in place from the image they are part of.
#[derive(Clone, Debug, PartialEq)]
struct FrozenBytes(Cow<'static, [u8]>);

impl Serialize for FrozenBytes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de: 'static> Deserialize<'de> for FrozenBytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl<'de: 'static> serde::de::Visitor<'de> for Bytes {
            type Value = FrozenBytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            // Only borrowed bytes are accepted (postcard reading a slice gives them): a
            // copy would be a `FrozenCode` that `thaw` refuses.
            fn visit_borrowed_bytes<E: serde::de::Error>(
                self,
                bytes: &'de [u8],
            ) -> Result<FrozenBytes, E> {
                Ok(FrozenBytes(Cow::Borrowed(bytes)))
            }
        }
        deserializer.deserialize_bytes(Bytes)
    }
}

/// The file name frozen code is compiled under; [`thaw`] replaces it with the real one.
pub const FILENAME: &str = "<frozen>";

const ENTRY_SIZE: usize = 8 + 4 + 4 + 4;

/// The serialized form of `code`, its nested code objects each as a [`FrozenCode`].
pub fn freeze(code: &Code) -> Vec<u8> {
    let constants = code
        .constants
        .iter()
        .map(|constant| match constant {
            Constant::Code(inner) => Constant::Frozen(Rc::new(FrozenCode::of(inner))),
            other => other.clone(),
        })
        .collect();
    let code = Code {
        constants,
        ..code.clone()
    };
    postcard::to_stdvec(&code).expect("a code object serializes")
}

/// A library image of `files`: each a text and its [`freeze`]d code.
pub fn image<T: AsRef<str>>(files: &[(T, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(files.len() as u32).to_le_bytes());
    let mut offset = 0u32;
    for (text, code) in files {
        let text = text.as_ref();
        out.extend_from_slice(&text_hash(text).to_le_bytes());
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&(code.len() as u32).to_le_bytes());
        offset += code.len() as u32;
    }
    for (_, code) in files {
        out.extend_from_slice(code);
    }
    out
}

/// The code that compiling `text` as a module named `filename` gives, if `image` holds it.
pub fn thaw(image: &'static [u8], text: &str, filename: &str) -> Option<Rc<Code>> {
    let bytes = find(image, text)?;
    let mut code: Code = postcard::from_bytes(bytes).ok()?;
    set_filename(&mut code, &Rc::from(filename));
    Some(Rc::new(code))
}

/// The serialized code of `text` in `image`.
fn find(image: &'static [u8], text: &str) -> Option<&'static [u8]> {
    let u32_at = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(image.get(at..at + 4)?.try_into().ok()?))
    };
    let count = u32_at(0)? as usize;
    let data = 4 + count * ENTRY_SIZE;
    let hash = text_hash(text);
    (0..count).find_map(|i| {
        let entry = 4 + i * ENTRY_SIZE;
        let entry_hash = u64::from_le_bytes(image.get(entry..entry + 8)?.try_into().ok()?);
        if entry_hash != hash || u32_at(entry + 8)? as usize != text.len() {
            return None;
        }
        let offset = data + u32_at(entry + 12)? as usize;
        image.get(offset..offset + u32_at(entry + 16)? as usize)
    })
}

/// Every code object in `code`'s tree names `filename` (the heads of those not read yet,
/// which pass it on when they are).
fn set_filename(code: &mut Code, filename: &Rc<str>) {
    code.filename = filename.clone();
    for constant in &mut code.constants {
        // Fresh from deserialization: no other reference exists.
        let head = match constant {
            Constant::Code(inner) => Rc::get_mut(inner),
            Constant::Frozen(frozen) => Rc::get_mut(frozen).and_then(|f| Rc::get_mut(&mut f.head)),
            _ => None,
        };
        if let Some(head) = head {
            set_filename(head, filename);
        }
    }
}

/// `code` with every code object nested in it read whole (`Constant::Frozen` made
/// `Constant::Code`): what `dis` shows, and what compiling its text gives.
pub fn thaw_all(code: &Rc<Code>) -> Rc<Code> {
    if !code
        .constants
        .iter()
        .any(|c| matches!(c, Constant::Code(_) | Constant::Frozen(_)))
    {
        return code.clone();
    }
    let constants = code
        .constants
        .iter()
        .map(|constant| match constant {
            Constant::Code(inner) => Constant::Code(thaw_all(inner)),
            Constant::Frozen(frozen) => match frozen.thaw() {
                Some(inner) => Constant::Code(thaw_all(&inner)),
                None => Constant::Code(frozen.head.clone()),
            },
            other => other.clone(),
        })
        .collect();
    Rc::new(Code {
        constants,
        ..(**code).clone()
    })
}

/// A 64-bit hash of a text, eight bytes at a time (the words of FxHash): it tells the
/// library's files apart, and the length is compared as well.
fn text_hash(text: &str) -> u64 {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut chunks = text.as_bytes().chunks_exact(8);
    let mut hash = 0u64;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        hash = (hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
    for &byte in chunks.remainder() {
        hash = (hash.rotate_left(5) ^ u64::from(byte)).wrapping_mul(SEED);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_module;

    fn compiled(text: &str, filename: &str) -> Code {
        let module = parse_module(text).unwrap();
        Rc::unwrap_or_clone(
            crate::compile::compile_module(&module, text, filename, crate::compile::Mode::Exec)
                .unwrap(),
        )
    }

    #[test]
    fn a_thawed_code_is_the_compiled_one_under_its_real_name() {
        let a = "def f(x):\n    return [y * 2 for y in x]\nclass C:\n    z = (1, 'a', 2.5)\n";
        let b = "async def g():\n    await f(10**40)\n";
        // An image lives as long as the program, as the one the binary carries.
        let image: &'static [u8] = Vec::leak(image(&[
            (a, freeze(&compiled(a, FILENAME))),
            (b, freeze(&compiled(b, FILENAME))),
        ]));
        for text in [a, b] {
            let thawed = thaw(image, text, "lib/m.py").expect("in the image");
            assert_ne!(
                *thawed,
                compiled(text, "lib/m.py"),
                "nested code is read on first use"
            );
            assert_eq!(*thaw_all(&thawed), compiled(text, "lib/m.py"));
        }
        assert!(thaw(image, "x = 1\n", "m.py").is_none());
        assert!(thaw(&[], a, "m.py").is_none());
    }
}
