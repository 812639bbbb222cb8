//! The engine under `zlib` (src/builtins/zlib_module.rs), free of the VM: a [`Deflater`]
//! and an [`Inflater`] that wrap miniz_oxide's raw deflate in the three containers zlib
//! knows (a zlib header and Adler-32, a gzip header and CRC-32, or none), with zlib's
//! parameter checks and its error messages, and the two checksums.
//!
//! miniz_oxide decodes and encodes the deflate blocks; the containers are parsed and
//! written here, as C zlib's `inflate.c`/`deflate.c` do. miniz only says that a block is
//! bad, not why: [`super::zlib_diagnose`] names the fault as zlib would.

use miniz_oxide::MZFlush;
use miniz_oxide::deflate::core::{CompressionStrategy, CompressorOxide};
use miniz_oxide::deflate::stream::deflate;
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress_with_limit, inflate_flags};

/// The size of the deflate window (32 KiB), the most back-references may reach.
const WINDOW: usize = 32 * 1024;

/// How much compressed input an [`Inflater`] keeps to name an error (see
/// [`super::zlib_diagnose`]); past this a bad block is "invalid input data".
const KEEP_FOR_DIAGNOSIS: usize = 64 << 20;

/// The CRC-32 table of zlib (and gzip, zip and PNG): the reflected polynomial 0xEDB88320.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
};

/// `zlib.crc32(data, value)`: the CRC-32 of `data`, continuing from `value`.
pub fn crc32(data: &[u8], value: u32) -> u32 {
    let mut crc = !value;
    for &byte in data {
        crc = CRC_TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

/// `zlib.adler32(data, value)`: the Adler-32 of `data`, continuing from `value`.
pub fn adler32(data: &[u8], value: u32) -> u32 {
    miniz_oxide::mz_adler32_oxide(value, data)
}

/// The container around the deflate data, chosen by `wbits`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Wrap {
    /// No header, no checksum (`wbits` -8..-15).
    Raw,
    /// A 2-byte header and an Adler-32 (`wbits` 8..15, or 0 for the header's window).
    Zlib,
    /// A gzip member: a header of 10 bytes or more, a CRC-32 and the size (`wbits` 16..31).
    Gzip,
    /// Zlib or gzip, whichever the first two bytes say (`wbits` 32..47).
    Auto,
}

/// zlib's `Z_STREAM_ERROR` on a compressor: used after `flush(Z_FINISH)`, or with an
/// unknown flush mode ("Error -2 …: inconsistent stream state").
#[derive(Debug)]
pub struct StreamError;

/// What `deflateInit2` refuses.
#[derive(Debug)]
pub enum DeflateInitError {
    /// A parameter out of range (zlib's `Z_STREAM_ERROR`).
    BadOption,
    /// A dictionary for a gzip stream.
    BadDictionary,
}

/// A compressor: `zlib.compressobj()`'s state.
#[derive(Clone)]
pub struct Deflater {
    raw: Box<CompressorOxide>,
    wrap: Wrap,
    /// The header, written before the first output.
    header: Option<Vec<u8>>,
    /// The checksum of the input so far (Adler-32 or CRC-32 as `wrap` says) and its size.
    check: u32,
    size: u32,
    finished: bool,
}

impl Deflater {
    /// `deflateInit2(level, DEFLATED, wbits, mem_level, strategy)`, then the dictionary.
    pub fn new(
        level: i32,
        method: i32,
        wbits: i32,
        mem_level: i32,
        strategy: i32,
        zdict: Option<&[u8]>,
    ) -> Result<Deflater, DeflateInitError> {
        let level = if level == -1 { 6 } else { level };
        let (wrap, bits) = match wbits {
            -15..=-9 => (Wrap::Raw, -wbits),
            8..=15 => (Wrap::Zlib, wbits.max(9)),
            25..=31 => (Wrap::Gzip, wbits - 16),
            _ => return Err(DeflateInitError::BadOption),
        };
        let valid = method == 8
            && (0..=9).contains(&level)
            && (1..=9).contains(&mem_level)
            && (0..=4).contains(&strategy);
        if !valid {
            return Err(DeflateInitError::BadOption);
        }
        if wrap == Wrap::Gzip && zdict.is_some() {
            return Err(DeflateInitError::BadDictionary);
        }
        let mz_strategy = match strategy {
            // miniz's matches may reach further back than a window smaller than 32 KiB
            // allows: with one, literals only (valid for any window, if larger).
            _ if bits < 15 => CompressionStrategy::HuffmanOnly,
            1 => CompressionStrategy::Filtered,
            2 => CompressionStrategy::HuffmanOnly,
            3 => CompressionStrategy::RLE,
            4 => CompressionStrategy::Fixed,
            _ => CompressionStrategy::Default,
        };
        // `bits` and `level` were checked above: 9..=15 and 0..=9.
        let raw = CompressorOxide::with_params(
            miniz_oxide::DataFormat::Raw,
            level as u8,
            mz_strategy,
            bits as u8,
        );
        let header = match wrap {
            Wrap::Zlib => Some(zlib_header(level, bits, strategy, zdict)),
            // zlib's gzip header: no name, no time; XFL says fastest or best; OS 3 (Unix).
            _ => {
                let xfl = match (level, strategy) {
                    (9, _) => 2,
                    (0 | 1, _) | (_, 2..) => 4,
                    _ => 0,
                };
                (wrap == Wrap::Gzip).then(|| vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 3])
            }
        };
        let mut deflater = Deflater {
            raw: Box::new(raw),
            wrap,
            header,
            check: if wrap == Wrap::Zlib { 1 } else { 0 },
            size: 0,
            finished: false,
        };
        if let Some(dict) = zdict.filter(|d| !d.is_empty()) {
            // miniz has no preset dictionary: compress the dictionary and drop what that
            // writes. After a sync flush the next block starts on a byte, and its matches
            // may reach back into the dictionary, which the decompressor is given.
            let _ = deflater.run(dict, MZFlush::Sync);
        }
        Ok(deflater)
    }

    /// `Compress.compress(data)`.
    pub fn compress(&mut self, data: &[u8]) -> Result<Vec<u8>, StreamError> {
        if self.finished {
            return Err(StreamError);
        }
        self.note_input(data);
        let mut out = self.header.take().unwrap_or_default();
        out.extend(self.run(data, MZFlush::None));
        Ok(out)
    }

    /// `Compress.flush(mode)`: `Z_NO_FLUSH` (0) does nothing, `Z_FINISH` (4) ends the
    /// stream, the others (1, 2, 3, 5) end the current block on a byte boundary.
    pub fn flush(&mut self, mode: i32) -> Result<Vec<u8>, StreamError> {
        let flush = match mode {
            0 => return Ok(Vec::new()),
            1 | 5 => MZFlush::Partial,
            2 => MZFlush::Sync,
            3 => MZFlush::Full,
            4 => MZFlush::Finish,
            _ => return Err(StreamError),
        };
        if self.finished {
            return Err(StreamError);
        }
        let mut out = self.header.take().unwrap_or_default();
        out.extend(self.run(&[], flush));
        if flush == MZFlush::Finish {
            self.finished = true;
            match self.wrap {
                Wrap::Zlib => out.extend(self.check.to_be_bytes()),
                Wrap::Gzip => {
                    out.extend(self.check.to_le_bytes());
                    out.extend(self.size.to_le_bytes());
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Whether `flush(Z_FINISH)` has ended the stream.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    fn note_input(&mut self, data: &[u8]) {
        match self.wrap {
            Wrap::Zlib => self.check = adler32(data, self.check),
            Wrap::Gzip => {
                self.check = crc32(data, self.check);
                self.size = self.size.wrapping_add(data.len() as u32);
            }
            _ => {}
        }
    }

    /// Feeds all of `input` to the raw compressor with `flush`, returning what it writes.
    fn run(&mut self, mut input: &[u8], flush: MZFlush) -> Vec<u8> {
        let mut out = Vec::new();
        let mut chunk = vec![0u8; 16 * 1024];
        loop {
            let result = deflate(&mut self.raw, input, &mut chunk, flush);
            input = &input[result.bytes_consumed.min(input.len())..];
            out.extend_from_slice(&chunk[..result.bytes_written.min(chunk.len())]);
            let full = result.bytes_written == chunk.len();
            let stuck = result.bytes_consumed == 0 && result.bytes_written == 0;
            match result.status {
                Ok(miniz_oxide::MZStatus::StreamEnd) | Err(_) => break,
                Ok(_) if stuck || (input.is_empty() && !full && flush != MZFlush::Finish) => {
                    break;
                }
                Ok(_) => {}
            }
        }
        out
    }
}

/// The two bytes of a zlib header (and the dictionary's id when there is one), as zlib
/// writes them: the window size, a hint of the level, and a check that makes the pair a
/// multiple of 31.
fn zlib_header(level: i32, bits: i32, strategy: i32, zdict: Option<&[u8]>) -> Vec<u8> {
    let cmf = ((bits - 8) << 4 | 8) as u8;
    let level_flags = match level {
        _ if strategy >= 2 || level < 2 => 0,
        2..=5 => 1,
        6 => 2,
        _ => 3,
    };
    let mut flg = level_flags << 6 | if zdict.is_some() { 0x20 } else { 0 };
    let remainder = (u32::from(cmf) << 8 | flg) % 31;
    if remainder != 0 {
        flg += 31 - remainder;
    }
    let mut header = vec![cmf, flg as u8];
    if let Some(dict) = zdict {
        header.extend(adler32(dict, 1).to_be_bytes());
    }
    header
}

/// Why an [`Inflater`] stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InflateError {
    /// zlib's `Z_DATA_ERROR` (-3) with its message.
    Data(&'static str),
    /// A zlib stream made with a dictionary, and none given (`Z_NEED_DICT`, 2).
    NeedDict,
    /// The dictionary given is not the one the stream names ("while setting zdict").
    WrongDict,
}

/// Where an [`Inflater`] is in its stream.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Header,
    DictId,
    Body,
    Trailer,
    Done,
}

/// A decompressor: `zlib.decompressobj()`'s state, and `zlib.decompress`'s.
#[derive(Clone)]
pub struct Inflater {
    wrap: Wrap,
    /// The largest window the stream may use (8..15), or 0 for what its header says.
    window_bits: u32,
    phase: Phase,
    /// Whether the container turned out to be gzip's (for the trailer).
    gzip: bool,
    /// Header, dictionary-id or trailer bytes gathered so far.
    held: Vec<u8>,
    raw: Box<DecompressorOxide>,
    /// The output, after (up to) the 32 KiB before it that back-references may copy from:
    /// miniz refuses a reference before the start, as zlib does one past what it has.
    window: Box<[u8]>,
    /// Where the next output goes in `window`.
    pos: usize,
    check: u32,
    size: u32,
    dict: Option<Vec<u8>>,
    /// How many bytes of dictionary the window started with.
    preset: usize,
    /// The deflate data so far, to name the fault when miniz finds one.
    seen: Vec<u8>,
    failed: Option<InflateError>,
}

impl Inflater {
    /// `inflateInit2(wbits)`, then the dictionary of a raw stream; None for a `wbits`
    /// zlib refuses.
    pub fn new(wbits: i32, zdict: Option<&[u8]>) -> Option<Inflater> {
        let (wrap, bits) = match wbits {
            -15..=-8 => (Wrap::Raw, -wbits),
            0 | 8..=15 => (Wrap::Zlib, wbits),
            16 | 24..=31 => (Wrap::Gzip, wbits - 16),
            32 | 40..=47 => (Wrap::Auto, wbits - 32),
            _ => return None,
        };
        let mut inflater = Inflater {
            wrap,
            window_bits: bits as u32,
            phase: if wrap == Wrap::Raw {
                Phase::Body
            } else {
                Phase::Header
            },
            gzip: wrap == Wrap::Gzip,
            held: Vec::new(),
            raw: Box::default(),
            window: vec![0u8; 2 * WINDOW].into_boxed_slice(),
            pos: 0,
            check: 0,
            size: 0,
            dict: zdict.map(<[u8]>::to_vec),
            preset: 0,
            seen: Vec::new(),
            failed: None,
        };
        if wrap == Wrap::Raw
            && let Some(dict) = zdict
        {
            inflater.preset(dict);
        }
        Some(inflater)
    }

    /// Whether the end of the stream (its trailer included) has been read.
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Starts the window with a dictionary (its last 32 KiB).
    fn preset(&mut self, dict: &[u8]) {
        let tail = &dict[dict.len().saturating_sub(WINDOW)..];
        self.window[..tail.len()].copy_from_slice(tail);
        self.pos = tail.len();
        self.preset = tail.len();
    }

    /// Decompresses `input` onto `out` until the input is used up, the stream ends, or
    /// `out` holds `limit` bytes; returns how much of `input` was used.
    pub fn inflate(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Result<usize, InflateError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let result = self.inflate_inner(input, out, limit);
        if let Err(error) = &result {
            self.failed = Some(error.clone());
        }
        result
    }

    fn inflate_inner(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Result<usize, InflateError> {
        let mut used = 0;
        loop {
            let rest = &input[used..];
            match self.phase {
                Phase::Done => return Ok(used),
                Phase::Header | Phase::DictId | Phase::Trailer if rest.is_empty() => {
                    return Ok(used);
                }
                Phase::Header => {
                    let before = self.held.len();
                    self.held.extend_from_slice(rest);
                    match self.parse_header()? {
                        Some((length, next)) => {
                            used += length - before;
                            self.held.clear();
                            self.phase = next;
                        }
                        None => return Ok(input.len()),
                    }
                }
                Phase::DictId | Phase::Trailer => {
                    let want = match self.phase {
                        Phase::DictId => 4,
                        _ if self.gzip => 8,
                        _ => 4,
                    };
                    let take = (want - self.held.len()).min(rest.len());
                    self.held.extend_from_slice(&rest[..take]);
                    used += take;
                    if self.held.len() == want {
                        let held = std::mem::take(&mut self.held);
                        if self.phase == Phase::DictId {
                            self.set_dictionary(&held)?;
                            self.phase = Phase::Body;
                        } else {
                            self.check_trailer(&held)?;
                            self.phase = Phase::Done;
                        }
                    }
                }
                Phase::Body => {
                    if out.len() >= limit {
                        return Ok(used);
                    }
                    let (status, read, written) = self.inflate_body(rest, out, limit - out.len());
                    used += read;
                    match status {
                        TINFLStatus::Done => {
                            self.seen = Vec::new();
                            self.phase = match self.wrap {
                                Wrap::Raw => Phase::Done,
                                _ => Phase::Trailer,
                            };
                        }
                        TINFLStatus::NeedsMoreInput => return Ok(used),
                        TINFLStatus::HasMoreOutput if read > 0 || written > 0 => {}
                        TINFLStatus::HasMoreOutput => return Ok(used),
                        _ => {
                            let message = super::zlib_diagnose::diagnose(&self.seen, self.preset)
                                .unwrap_or("invalid input data");
                            return Err(InflateError::Data(message));
                        }
                    }
                }
            }
        }
    }

    /// One call of miniz on deflate data: at most `room` bytes of output.
    fn inflate_body(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        room: usize,
    ) -> (TINFLStatus, usize, usize) {
        if self.pos >= WINDOW {
            // Keep the last 32 KiB, and room for as much again after it.
            self.window.copy_within(self.pos - WINDOW..self.pos, 0);
            self.pos = WINDOW;
        }
        let (status, read, written) = decompress_with_limit(
            &mut self.raw,
            input,
            &mut self.window,
            self.pos,
            room,
            inflate_flags::TINFL_FLAG_HAS_MORE_INPUT
                | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
        );
        let read = read.min(input.len());
        if self.seen.len() < KEEP_FOR_DIAGNOSIS {
            // A failure may lie past what miniz says it read: keep it all then.
            let kept = if (status as i8) < 0 {
                input.len()
            } else {
                read
            };
            self.seen.extend_from_slice(&input[..kept]);
        }
        let start = out.len();
        let end = (self.pos + written).min(self.window.len());
        out.extend_from_slice(&self.window[self.pos..end]);
        self.pos = end;
        let produced = &out[start..];
        if self.gzip {
            self.check = crc32(produced, self.check);
        } else if self.wrap != Wrap::Raw {
            self.check = adler32(produced, self.check);
        }
        self.size = self.size.wrapping_add(produced.len() as u32);
        (status, read, produced.len())
    }

    /// Parses the header in `held`: None while it is incomplete, else its length and the
    /// phase after it.
    fn parse_header(&mut self) -> Result<Option<(usize, Phase)>, InflateError> {
        let h = &self.held;
        if h.len() < 2 {
            return Ok(None);
        }
        let gzip_magic = h[0] == 0x1f && h[1] == 0x8b;
        if matches!(self.wrap, Wrap::Gzip | Wrap::Auto) && gzip_magic {
            self.gzip = true;
            self.check = 0;
            return parse_gzip_header(h);
        }
        if self.wrap == Wrap::Gzip || (u32::from(h[0]) << 8 | u32::from(h[1])) % 31 != 0 {
            return Err(InflateError::Data("incorrect header check"));
        }
        if h[0] & 0x0f != 8 {
            return Err(InflateError::Data("unknown compression method"));
        }
        let bits = u32::from(h[0] >> 4) + 8;
        if self.window_bits == 0 {
            self.window_bits = bits;
        }
        if bits > 15 || bits > self.window_bits {
            return Err(InflateError::Data("invalid window size"));
        }
        self.gzip = false;
        self.check = 1;
        let next = if h[1] & 0x20 != 0 {
            Phase::DictId
        } else {
            Phase::Body
        };
        Ok(Some((2, next)))
    }

    /// The dictionary a zlib stream asks for by its Adler-32.
    fn set_dictionary(&mut self, id: &[u8]) -> Result<(), InflateError> {
        let Some(dict) = self.dict.take() else {
            return Err(InflateError::NeedDict);
        };
        let wanted = u32::from_be_bytes([id[0], id[1], id[2], id[3]]);
        if adler32(&dict, 1) != wanted {
            self.dict = Some(dict);
            return Err(InflateError::WrongDict);
        }
        self.preset(&dict);
        self.dict = Some(dict);
        Ok(())
    }

    fn check_trailer(&self, t: &[u8]) -> Result<(), InflateError> {
        let (check, size) = if self.gzip {
            (
                u32::from_le_bytes([t[0], t[1], t[2], t[3]]),
                Some(u32::from_le_bytes([t[4], t[5], t[6], t[7]])),
            )
        } else {
            (u32::from_be_bytes([t[0], t[1], t[2], t[3]]), None)
        };
        if check != self.check {
            return Err(InflateError::Data("incorrect data check"));
        }
        if size.is_some_and(|size| size != self.size) {
            return Err(InflateError::Data("incorrect length check"));
        }
        Ok(())
    }
}

/// A gzip member's header (RFC 1952) at the start of `h`: its length once complete.
fn parse_gzip_header(h: &[u8]) -> Result<Option<(usize, Phase)>, InflateError> {
    if let Some(&method) = h.get(2)
        && method != 8
    {
        return Err(InflateError::Data("unknown compression method"));
    }
    let Some(&flags) = h.get(3) else {
        return Ok(None);
    };
    if flags & 0xe0 != 0 {
        return Err(InflateError::Data("unknown header flags set"));
    }
    let mut at = 10;
    if at > h.len() {
        return Ok(None);
    }
    if flags & 4 != 0 {
        let Some(extra) = h.get(at..at + 2) else {
            return Ok(None);
        };
        at += 2 + usize::from(u16::from_le_bytes([extra[0], extra[1]]));
    }
    for flag in [8, 16] {
        if flags & flag != 0 {
            let Some(end) = h.get(at..).and_then(|s| s.iter().position(|&b| b == 0)) else {
                return Ok(None);
            };
            at += end + 1;
        }
    }
    if flags & 2 != 0 {
        let Some(crc) = h.get(at..at + 2) else {
            return Ok(None);
        };
        if u32::from(u16::from_le_bytes([crc[0], crc[1]])) != crc32(&h[..at], 0) & 0xffff {
            return Err(InflateError::Data("header crc mismatch"));
        }
        at += 2;
    }
    if at > h.len() {
        return Ok(None);
    }
    Ok(Some((at, Phase::Body)))
}

#[cfg(test)]
mod tests {
    use super::{Deflater, Inflater, adler32, crc32};

    fn round_trip(wbits: i32, data: &[u8]) -> Vec<u8> {
        let mut d = Deflater::new(6, 8, wbits, 8, 0, None).unwrap();
        let mut packed = d.compress(data).unwrap();
        packed.extend(d.flush(4).unwrap());
        let mut i = Inflater::new(wbits, None).unwrap();
        let mut out = Vec::new();
        i.inflate(&packed, &mut out, usize::MAX).unwrap();
        assert!(i.is_done());
        out
    }

    #[test]
    fn checksums_match_zlib() {
        assert_eq!(crc32(b"hello", 0), 907_060_870);
        assert_eq!(adler32(b"hello", 1), 103_547_413);
    }

    #[test]
    fn containers_round_trip() {
        let data = b"hello hello hello world".repeat(100);
        for wbits in [15, -15, 31, 9] {
            assert_eq!(round_trip(wbits, &data), data);
        }
    }

    #[test]
    fn zlib_headers_are_zlibs() {
        for (level, header) in [(1, [0x78, 0x01]), (6, [0x78, 0x9c]), (9, [0x78, 0xda])] {
            let mut d = Deflater::new(level, 8, 15, 8, 0, None).unwrap();
            assert_eq!(d.flush(4).unwrap()[..2], header);
        }
    }
}
