//! The Unicode Character Database as CPython 3.13's `unicodedata` has it (Unicode 15.1.0):
//! each character's category, bidirectional class, East Asian width, combining class,
//! mirroring, decomposition, numeric values and name, the names' aliases and named
//! sequences, and normalization (NFC, NFD, NFKC, NFKD) over them. The data is
//! `unicode_data.bin`, written by `tests/gen_unicode_data.py` from what CPython itself says
//! of every code point (its docstring gives the format); it is read when first asked for,
//! so start-up does not pay for it. `unicodedata` (builtins) and the `\N{…}` escapes use it.

use std::collections::HashMap;
use std::sync::OnceLock;

static DATA: &[u8] = include_bytes!("unicode_data.bin");

/// The database, read from [`DATA`] on first use.
pub fn ucd() -> &'static Ucd {
    static UCD: OnceLock<Ucd> = OnceLock::new();
    UCD.get_or_init(|| Ucd::read(DATA))
}

/// A property given by runs: each run's first code point and its value's index.
struct Property {
    values: Vec<&'static str>,
    runs: Vec<(u32, u8)>,
}

impl Property {
    fn of(&self, c: char) -> &'static str {
        let at = self.runs.partition_point(|&(start, _)| start <= c as u32);
        let index = at.checked_sub(1).map_or(0, |i| self.runs[i].1);
        self.values.get(usize::from(index)).copied().unwrap_or("")
    }
}

/// A character's numeric values: `decimal`, `digit` (-1: none) and `numeric`.
#[derive(Clone, Copy)]
pub struct Numeric {
    pub decimal: i8,
    pub digit: i8,
    pub numeric: f64,
}

/// What `unicodedata` knows, read from the data file ([`ucd`]): the properties and numeric
/// values at once (what `str.isalpha()` or `int('٣')` asks first), the decompositions and
/// compositions ([`Normalization`]) and the names ([`Names`]) each on their first use.
pub struct Ucd {
    pub version: &'static str,
    category: Property,
    bidirectional: Property,
    east_asian_width: Property,
    combining: Property,
    mirrored: Property,
    uppercase: Property,
    lowercase: Property,
    identifier_start: Property,
    identifier_continue: Property,
    numerics: Vec<(u32, Numeric)>,
    /// Where in [`DATA`] the decompositions, the compositions and the names start.
    sections: [usize; 3],
    normalization: OnceLock<Normalization>,
    names: OnceLock<Names>,
}

/// The decomposition of each character that has one, and the primary composites.
struct Normalization {
    decompositions: Vec<(u32, &'static str)>,
    compositions: HashMap<(u32, u32), u32>,
}

/// The character names: the words they are made of, and the aliases.
struct Names {
    words: Vec<&'static str>,
    /// Each named character and where its word indices start in [`DATA`].
    names: Vec<(u32, usize)>,
    /// Names made of a prefix and the code point in hex: first, last, prefix.
    derived: Vec<(u32, u32, &'static str)>,
    /// Aliases and named sequences: the code points and the name.
    extras: Vec<(Vec<u32>, &'static str)>,
}

/// Reads the data file's integers and texts in order; past its end every read is 0 or "".
struct Reader {
    data: &'static [u8],
    at: usize,
}

impl Reader {
    fn bytes(&mut self, n: usize) -> &'static [u8] {
        let data = self.data;
        let got = data.get(self.at..self.at + n).unwrap_or(&[]);
        self.at += n;
        got
    }
    fn int(&mut self, n: usize) -> u32 {
        self.bytes(n)
            .iter()
            .rev()
            .fold(0, |acc, &b| (acc << 8) | u32::from(b))
    }
    fn u8(&mut self) -> u8 {
        self.int(1) as u8
    }
    fn u16(&mut self) -> u16 {
        self.int(2) as u16
    }
    fn u24(&mut self) -> u32 {
        self.int(3)
    }
    fn u32(&mut self) -> u32 {
        self.int(4)
    }
    fn text(&mut self) -> &'static str {
        let n = usize::from(self.u8());
        std::str::from_utf8(self.bytes(n)).unwrap_or("")
    }
    /// Steps over a text without reading it.
    fn skip_text(&mut self) {
        let n = usize::from(self.u8());
        self.at += n;
    }
    fn property(&mut self) -> Property {
        let values = (0..self.u8()).map(|_| self.text()).collect();
        let runs = (0..self.u32()).map(|_| (self.u24(), self.u8())).collect();
        Property { values, runs }
    }
}

impl Ucd {
    /// Reads the properties and the numeric values, and finds where the sections read
    /// later start (the file's order: version, properties, decompositions, numerics,
    /// compositions, names).
    fn read(data: &'static [u8]) -> Ucd {
        let mut r = Reader { data, at: 4 };
        let version = r.text();
        let category = r.property();
        let bidirectional = r.property();
        let east_asian_width = r.property();
        let combining = r.property();
        let mirrored = r.property();
        let uppercase = r.property();
        let lowercase = r.property();
        let identifier_start = r.property();
        let identifier_continue = r.property();
        let decompositions_at = r.at;
        for _ in 0..r.u32() {
            r.u24();
            r.skip_text();
        }
        let numerics = (0..r.u32())
            .map(|_| {
                let cp = r.u24();
                let (decimal, digit) = (r.u8() as i8, r.u8() as i8);
                let numeric = r.text().parse().unwrap_or(f64::NAN);
                let values = Numeric {
                    decimal,
                    digit,
                    numeric,
                };
                (cp, values)
            })
            .collect();
        let compositions_at = r.at;
        let compositions = r.u32() as usize;
        let names_at = r.at + 9 * compositions;
        Ucd {
            version,
            category,
            bidirectional,
            east_asian_width,
            combining,
            mirrored,
            uppercase,
            lowercase,
            identifier_start,
            identifier_continue,
            numerics,
            sections: [decompositions_at, compositions_at, names_at],
            normalization: OnceLock::new(),
            names: OnceLock::new(),
        }
    }

    fn normalization(&self) -> &Normalization {
        self.normalization.get_or_init(|| {
            let [decompositions_at, compositions_at, _] = self.sections;
            let mut r = Reader {
                data: DATA,
                at: decompositions_at,
            };
            let decompositions = (0..r.u32()).map(|_| (r.u24(), r.text())).collect();
            r.at = compositions_at;
            let compositions = (0..r.u32())
                .map(|_| ((r.u24(), r.u24()), r.u24()))
                .collect();
            Normalization {
                decompositions,
                compositions,
            }
        })
    }

    fn names(&self) -> &Names {
        self.names.get_or_init(|| {
            let mut r = Reader {
                data: DATA,
                at: self.sections[2],
            };
            let words = (0..r.u16()).map(|_| r.text()).collect();
            let names = (0..r.u32())
                .map(|_| {
                    let (cp, at) = (r.u24(), r.at);
                    let count = usize::from(r.u8());
                    r.bytes(2 * count);
                    (cp, at)
                })
                .collect();
            let derived = (0..r.u16()).map(|_| (r.u24(), r.u24(), r.text())).collect();
            let extras = (0..r.u16())
                .map(|_| {
                    let cps = (0..r.u8()).map(|_| r.u24()).collect();
                    (cps, r.text())
                })
                .collect();
            Names {
                words,
                names,
                derived,
                extras,
            }
        })
    }

    pub fn category(&self, c: char) -> &'static str {
        self.category.of(c)
    }

    pub fn bidirectional(&self, c: char) -> &'static str {
        self.bidirectional.of(c)
    }

    pub fn east_asian_width(&self, c: char) -> &'static str {
        self.east_asian_width.of(c)
    }

    /// The canonical combining class (0: a starter).
    pub fn combining(&self, c: char) -> u8 {
        self.combining.of(c).parse().unwrap_or(0)
    }

    pub fn mirrored(&self, c: char) -> bool {
        self.mirrored.of(c) == "1"
    }

    /// Whether `c` is uppercase (category Lu or Other_Uppercase), as `str.isupper` counts.
    pub fn is_uppercase(&self, c: char) -> bool {
        self.uppercase.of(c) == "True"
    }

    /// Whether `c` is lowercase (category Ll or Other_Lowercase), as `str.islower` counts.
    pub fn is_lowercase(&self, c: char) -> bool {
        self.lowercase.of(c) == "True"
    }

    /// Whether an identifier may start with `c` (XID_Start, or `_`).
    pub fn is_identifier_start(&self, c: char) -> bool {
        self.identifier_start.of(c) == "True"
    }

    /// Whether an identifier may go on with `c` (XID_Continue).
    pub fn is_identifier_continue(&self, c: char) -> bool {
        self.identifier_continue.of(c) == "True"
    }

    /// The decomposition as CPython writes it (`"<compat> 0020 0301"`), "" for none.
    pub fn decomposition(&self, c: char) -> &'static str {
        let decompositions = &self.normalization().decompositions;
        match decompositions.binary_search_by_key(&(c as u32), |&(cp, _)| cp) {
            Ok(i) => decompositions[i].1,
            Err(_) => "",
        }
    }

    pub fn numeric(&self, c: char) -> Option<Numeric> {
        let i = self
            .numerics
            .binary_search_by_key(&(c as u32), |&(cp, _)| cp)
            .ok()?;
        Some(self.numerics[i].1)
    }

    /// The character's name, if it has one (Hangul syllables and ideographs included).
    pub fn name(&self, c: char) -> Option<String> {
        let cp = c as u32;
        let table = self.names();
        if let Some(&(_, _, prefix)) = table
            .derived
            .iter()
            .find(|&&(first, last, _)| (first..=last).contains(&cp))
        {
            return Some(format!("{prefix}{cp:04X}"));
        }
        let i = table.names.binary_search_by_key(&cp, |&(cp, _)| cp).ok()?;
        let mut r = Reader {
            data: DATA,
            at: table.names[i].1,
        };
        let count = r.u8();
        let words: Vec<&str> = (0..count)
            .map(|_| table.words.get(usize::from(r.u16())).copied().unwrap_or(""))
            .collect();
        Some(words.join(" "))
    }

    /// The character (or, for a named sequence, the characters) a name or alias names,
    /// as CPython's `lookup` and `\N{…}` find them: unified ideographs and Hangul
    /// syllables by rule, case and all (four or five upper-case hex digits for an
    /// ideograph); every other name with its case ignored.
    pub fn lookup(&self, name: &str) -> Option<String> {
        const UNIFIED: &str = "CJK UNIFIED IDEOGRAPH-";
        let derived = &self.names().derived;
        if let Some(hex) = name.strip_prefix(UNIFIED) {
            let upper_hex = |b: u8| b.is_ascii_digit() || (b'A'..=b'F').contains(&b);
            if !(4..=5).contains(&hex.len()) || !hex.bytes().all(upper_hex) {
                return None;
            }
            let cp = u32::from_str_radix(hex, 16).ok()?;
            let unified = |&&(first, last, prefix): &&(u32, u32, &str)| {
                prefix == UNIFIED && (first..=last).contains(&cp)
            };
            derived.iter().find(unified)?;
            return char::from_u32(cp).map(String::from);
        }
        let upper = name.to_ascii_uppercase();
        for &(first, last, prefix) in derived {
            let Some(hex) = upper.strip_prefix(prefix).filter(|_| prefix != UNIFIED) else {
                continue;
            };
            if let Ok(cp) = u32::from_str_radix(hex, 16)
                && (first..=last).contains(&cp)
                && format!("{cp:04X}") == hex
            {
                return char::from_u32(cp).map(String::from);
            }
        }
        let found = self
            .named(&upper)
            .map(String::from)
            .or_else(|| self.alias(&upper))?;
        let hangul = found
            .chars()
            .next()
            .is_some_and(|c| hangul::decompose(c).is_some());
        (!hangul || name == upper).then_some(found)
    }

    /// The one character a name or alias names, as a `\N{…}` escape takes it (not a named
    /// sequence, which only `unicodedata.lookup` gives).
    pub fn lookup_char(&self, name: &str) -> Option<char> {
        let text = self.lookup(name)?;
        let mut chars = text.chars();
        chars.next().filter(|_| chars.next().is_none())
    }

    /// The character whose (upper-case) name is `name`, by its words' indices: a scan of
    /// the table without making a single name.
    fn named(&self, name: &str) -> Option<char> {
        let table = self.names();
        let wanted: Vec<u16> = name
            .split(' ')
            .map(|w| table.words.binary_search(&w).ok().map(|i| i as u16))
            .collect::<Option<_>>()?;
        let found = table.names.iter().find(|&&(_, at)| {
            let mut r = Reader { data: DATA, at };
            usize::from(r.u8()) == wanted.len() && wanted.iter().all(|&w| r.u16() == w)
        })?;
        char::from_u32(found.0)
    }

    /// The character or named sequence an alias (upper-case) names.
    fn alias(&self, name: &str) -> Option<String> {
        let (cps, _) = self
            .names()
            .extras
            .iter()
            .find(|(_, alias)| *alias == name)?;
        Some(cps.iter().filter_map(|&cp| char::from_u32(cp)).collect())
    }

    /// `text` in normalization form `form` ("NFC", "NFD", "NFKC" or "NFKD"); None for
    /// another form.
    pub fn normalize(&self, form: &str, text: &str) -> Option<String> {
        let (compat, compose) = match form {
            "NFC" => (false, true),
            "NFD" => (false, false),
            "NFKC" => (true, true),
            "NFKD" => (true, false),
            _ => return None,
        };
        let mut chars = Vec::with_capacity(text.len());
        for c in text.chars() {
            self.decompose_into(c, compat, &mut chars);
        }
        self.order_canonically(&mut chars);
        if compose {
            self.compose(&mut chars);
        }
        Some(chars.into_iter().collect())
    }

    /// Appends `c`'s full decomposition (canonical, or with `compat` compatibility ones
    /// too) to `out`: Hangul syllables by arithmetic, the rest from the table, recursively.
    fn decompose_into(&self, c: char, compat: bool, out: &mut Vec<char>) {
        if let Some(jamos) = hangul::decompose(c) {
            out.extend(jamos);
            return;
        }
        let mapping = self.decomposition(c);
        let (tagged, parts) = match mapping.strip_prefix('<') {
            Some(rest) => (true, rest.split_once('>').map_or("", |(_, parts)| parts)),
            None => (false, mapping),
        };
        if mapping.is_empty() || (tagged && !compat) {
            out.push(c);
            return;
        }
        for part in parts.split_whitespace() {
            match u32::from_str_radix(part, 16).ok().and_then(char::from_u32) {
                Some(d) => self.decompose_into(d, compat, out),
                None => out.push(c),
            }
        }
    }

    /// Sorts each run of non-starters by combining class, keeping the order of equals.
    fn order_canonically(&self, chars: &mut [char]) {
        let mut start = 0;
        while start < chars.len() {
            if self.combining(chars[start]) == 0 {
                start += 1;
                continue;
            }
            let end = chars[start..]
                .iter()
                .position(|&c| self.combining(c) == 0)
                .map_or(chars.len(), |n| start + n);
            chars[start..end].sort_by_key(|&c| self.combining(c));
            start = end;
        }
    }

    /// The canonical composition algorithm: each character not blocked from the last
    /// starter combines with it when the two have a primary composite.
    fn compose(&self, chars: &mut Vec<char>) {
        let mut out: Vec<char> = Vec::with_capacity(chars.len());
        let mut starter: Option<usize> = None;
        // The combining class of the last character kept after the starter.
        let mut last_class: Option<u8> = None;
        for &c in chars.iter() {
            let class = self.combining(c);
            if let Some(s) = starter {
                let blocked = last_class.is_some_and(|last| last == 0 || last >= class);
                if !blocked && let Some(composite) = self.composite(out[s], c) {
                    out[s] = composite;
                    continue;
                }
            }
            if class == 0 {
                starter = Some(out.len());
                last_class = None;
            } else {
                last_class = Some(class);
            }
            out.push(c);
        }
        *chars = out;
    }

    fn composite(&self, first: char, second: char) -> Option<char> {
        if let Some(c) = hangul::compose(first, second) {
            return Some(c);
        }
        let compositions = &self.normalization().compositions;
        let cp = compositions.get(&(first as u32, second as u32))?;
        char::from_u32(*cp)
    }
}

/// Hangul syllables, decomposed and composed by arithmetic (Unicode's chapter 3.12).
mod hangul {
    const S_BASE: u32 = 0xAC00;
    const L_BASE: u32 = 0x1100;
    const V_BASE: u32 = 0x1161;
    const T_BASE: u32 = 0x11A7;
    const L_COUNT: u32 = 19;
    const V_COUNT: u32 = 21;
    const T_COUNT: u32 = 28;
    const N_COUNT: u32 = V_COUNT * T_COUNT;
    const S_COUNT: u32 = L_COUNT * N_COUNT;

    /// A syllable's two or three jamo.
    pub fn decompose(c: char) -> Option<Vec<char>> {
        let s = (c as u32).checked_sub(S_BASE).filter(|&s| s < S_COUNT)?;
        let l = L_BASE + s / N_COUNT;
        let v = V_BASE + (s % N_COUNT) / T_COUNT;
        let t = T_BASE + s % T_COUNT;
        let mut jamos: Vec<char> = [l, v].into_iter().filter_map(char::from_u32).collect();
        if t != T_BASE {
            jamos.extend(char::from_u32(t));
        }
        Some(jamos)
    }

    /// A leading and a vowel jamo into an LV syllable, or an LV syllable and a trailing
    /// jamo into an LVT one.
    pub fn compose(first: char, second: char) -> Option<char> {
        let (a, b) = (first as u32, second as u32);
        if (L_BASE..L_BASE + L_COUNT).contains(&a) && (V_BASE..V_BASE + V_COUNT).contains(&b) {
            return char::from_u32(S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT);
        }
        let s = a.checked_sub(S_BASE).filter(|&s| s < S_COUNT)?;
        let trailing = (T_BASE + 1..T_BASE + T_COUNT).contains(&b);
        (s % T_COUNT == 0 && trailing).then(|| char::from_u32(a + (b - T_BASE)))?
    }
}

#[cfg(test)]
mod tests {
    use super::ucd;

    #[test]
    fn properties_read_from_the_table() {
        let u = ucd();
        assert_eq!(u.version, "15.1.0");
        assert_eq!(u.category('A'), "Lu");
        assert_eq!(u.category('\u{10FFFF}'), "Cn");
        assert_eq!(u.bidirectional('\u{05D0}'), "R");
        assert_eq!(u.east_asian_width('\u{4E00}'), "W");
        assert_eq!(u.combining('\u{0301}'), 230);
        assert!(u.mirrored('('));
        assert_eq!(u.decomposition('\u{00E9}'), "0065 0301");
        assert_eq!(u.numeric('\u{00BD}').map(|n| n.numeric), Some(0.5));
    }

    #[test]
    fn names_and_lookups_go_both_ways() {
        let u = ucd();
        assert_eq!(u.name('a').as_deref(), Some("LATIN SMALL LETTER A"));
        assert_eq!(u.name('\u{AC00}').as_deref(), Some("HANGUL SYLLABLE GA"));
        assert_eq!(
            u.name('\u{4E00}').as_deref(),
            Some("CJK UNIFIED IDEOGRAPH-4E00")
        );
        assert_eq!(u.name('\u{0378}'), None);
        assert_eq!(u.lookup("latin small letter a").as_deref(), Some("a"));
        assert_eq!(
            u.lookup("CJK UNIFIED IDEOGRAPH-4E00").as_deref(),
            Some("\u{4E00}")
        );
        assert_eq!(u.lookup("BYTE ORDER MARK").as_deref(), Some("\u{FEFF}"));
        assert_eq!(u.lookup("CJK UNIFIED IDEOGRAPH-0041"), None);
        assert_eq!(u.lookup("cjk unified ideograph-4e00"), None);
        assert_eq!(u.lookup("Hangul Syllable GA"), None);
        assert_eq!(
            u.lookup("cjk compatibility ideograph-f900").as_deref(),
            Some("\u{F900}")
        );
    }

    #[test]
    fn normalization_decomposes_orders_and_composes() {
        let u = ucd();
        let nfd = u.normalize("NFD", "\u{00E9}\u{AC01}");
        assert_eq!(nfd.as_deref(), Some("e\u{0301}\u{1100}\u{1161}\u{11A8}"));
        assert_eq!(
            u.normalize("NFC", "e\u{0301}\u{1100}\u{1161}\u{11A8}")
                .as_deref(),
            Some("\u{00E9}\u{AC01}")
        );
        // A dot below (220) sorts before an acute (230) and both compose.
        assert_eq!(
            u.normalize("NFC", "q\u{0307}\u{0323}").as_deref(),
            Some("q\u{0323}\u{0307}")
        );
        assert_eq!(u.normalize("NFKC", "\u{FB01}").as_deref(), Some("fi"));
        assert_eq!(u.normalize("NFKD", "\u{2460}").as_deref(), Some("1"));
        assert_eq!(u.normalize("NFX", "a"), None);
    }
}
