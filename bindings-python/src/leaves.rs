//! Immutable leaves shared within one result: `Decimal`s, `datetime`s and strings are
//! immutable, so one object can serve every place of a result with the same wire value.
//! Pages repeat them (a feed date, a zero tax, a currency code, a buyer's name), and each
//! would otherwise cost a constructor call and its memory.
//!
//! Strings are shared per slot (a model's field, a map's keys or values) only while the
//! slot repeats itself: an identifier field (transactionId) stops being looked up after
//! its first values, so its strings cost no more than before.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use pyo3::prelude::*;
use pyo3::types::PyString;

/// A shared `Decimal`, by its exact wire value. (`datetime`s are shared by their text
/// where they are read, `from_json.rs`.)
#[derive(Hash, PartialEq, Eq)]
pub enum Leaf {
    /// `Decimal::serialize()` (sign, scale and digits: 1.0 and 1.00 differ) and a
    /// negative zero's sign.
    Decimal([u8; 16], bool),
}

/// Where a string sits: one of the fixed slots below, or a model's field (numbered by
/// `Leaves::field_slots`).
pub type Slot = usize;
pub const CURRENCY: Slot = 0;
pub const MAP_KEY: Slot = 1;
pub const MAP_VALUE: Slot = 2;
/// An item of a list of strings, or a string anywhere else.
pub const ITEM: Slot = 3;

/// Values of a slot looked up before it is judged.
const TRIAL: u32 = 64;

/// How a slot's strings have fared.
#[derive(Default, Clone, Copy)]
struct SlotStats {
    seen: u32,
    hits: u32,
    off: bool,
}

/// The leaves of one result.
pub struct Leaves<'a> {
    shared: HashMap<Leaf, Py<PyAny>, Fast>,
    strings: HashMap<Text<'a>, Py<PyAny>, BuildHasherDefault<Passthrough>>,
    slots: Vec<SlotStats>,
}

/// Room made at once in a result's maps: a small result (an invoice's ~30 strings) then
/// never grows them (rehashing was ~1 % of B1's client time).
const FIRST_ROOM: usize = 32;

impl Default for Leaves<'_> {
    fn default() -> Self {
        Leaves {
            shared: HashMap::with_capacity_and_hasher(FIRST_ROOM, Default::default()),
            strings: HashMap::with_capacity_and_hasher(FIRST_ROOM, Default::default()),
            slots: vec![SlotStats::default(); ITEM + 1],
        }
    }
}

impl<'a> Leaves<'a> {
    /// The shared object for `leaf`, made by `make` the first time.
    pub fn get_or_make(
        &mut self,
        py: Python<'_>,
        leaf: Leaf,
        make: impl FnOnce() -> PyResult<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        // Two steps (no entry API): `make` runs Python code, the map holds no borrow then.
        if let Some(v) = self.shared.get(&leaf) {
            return Ok(v.clone_ref(py));
        }
        let v = make()?;
        self.shared.insert(leaf, v.clone_ref(py));
        Ok(v)
    }

    /// `n` new slots (a model's fields); the first one's number.
    pub fn field_slots(&mut self, n: usize) -> Slot {
        let first = self.slots.len();
        self.slots.resize(first + n, SlotStats::default());
        first
    }

    /// A Python string of `s`, shared with an equal earlier one while its slot repeats.
    pub fn string(&mut self, py: Python<'_>, s: &'a str, slot: Slot) -> Py<PyAny> {
        if self.slots[slot].off {
            return PyString::new(py, s).into_any().unbind();
        }
        let found = self.strings.get(&Text(s)).map(|v| v.clone_ref(py));
        let stats = &mut self.slots[slot];
        stats.seen += 1;
        stats.hits += u32::from(found.is_some());
        if stats.seen == TRIAL && stats.hits < TRIAL / 4 {
            // Fewer than one value in four repeated: an identifier; stop looking it up.
            stats.off = true;
        }
        if let Some(v) = found {
            return v;
        }
        let v = PyString::new(py, s).into_any().unbind();
        self.strings.insert(Text(s), v.clone_ref(py));
        v
    }
}

/// A string key hashed by `text_hash` (the map's hasher passes that value through).
#[derive(PartialEq, Eq)]
struct Text<'a>(&'a str);

impl std::hash::Hash for Text<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(text_hash(self.0.as_bytes()));
    }
}

/// FxHash's step over the text's 8-byte words, the last one read overlapping the one
/// before (no copy of a tail), and the length.
#[inline]
fn text_hash(b: &[u8]) -> u64 {
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
    let mut h = FxHasher(b.len() as u64);
    if b.len() >= 8 {
        let mut i = 0;
        while i + 8 < b.len() {
            h.add(word(i));
            i += 8;
        }
        h.add(word(b.len() - 8));
    } else {
        let mut last = 0u64;
        for (k, &c) in b.iter().enumerate() {
            last |= u64::from(c) << (8 * k);
        }
        h.add(last);
    }
    h.0
}

/// Hands a `Text`'s precomputed hash to the map.
#[derive(Default)]
struct Passthrough(u64);

impl Hasher for Passthrough {
    fn write(&mut self, _: &[u8]) {
        unreachable!("Text hashes itself with write_u64")
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// FxHash (as in rustc): a multiply-rotate hash of 8 bytes at a time. The keys are short
/// strings and 17-byte decimals of one response; SipHash was ~1 % of building a page.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

type Fast = BuildHasherDefault<FxHasher>;

/// The hasher of the leaves' maps, for other maps of short keys of one result.
pub type FastHash = Fast;

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}
