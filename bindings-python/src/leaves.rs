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

/// A shared `Decimal` or `datetime`, by its exact wire value.
#[derive(Hash, PartialEq, Eq)]
pub enum Leaf<'a> {
    /// `Decimal::serialize()` (sign, scale and digits: 1.0 and 1.00 differ) and a
    /// negative zero's sign.
    Decimal([u8; 16], bool),
    DateTime(&'a str),
}

/// Where a string sits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Field `.1` of the model type numbered `.0` in this result.
    Field(usize, usize),
    Currency,
    MapKey,
    MapValue,
    /// An item of a list of strings, or a string anywhere else.
    Item,
}

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
#[derive(Default)]
pub struct Leaves<'a> {
    shared: HashMap<Leaf<'a>, Py<PyAny>, Fast>,
    strings: HashMap<&'a str, Py<PyAny>, Fast>,
    fields: Vec<SlotStats>,
    /// Field slots, by model number: where that model's fields start in `fields`.
    starts: Vec<usize>,
    other: [SlotStats; 4],
}

impl<'a> Leaves<'a> {
    /// The shared object for `leaf`, made by `make` the first time.
    pub fn get_or_make(
        &mut self,
        py: Python<'_>,
        leaf: Leaf<'a>,
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

    fn stats(&mut self, slot: Slot) -> &mut SlotStats {
        match slot {
            Slot::Field(model, field) => {
                if model >= self.starts.len() {
                    self.starts.resize(model + 1, usize::MAX);
                }
                if self.starts[model] == usize::MAX {
                    self.starts[model] = self.fields.len();
                }
                let at = self.starts[model] + field;
                if at >= self.fields.len() {
                    // A model's fields are numbered from its start; models are numbered in
                    // the order they are met, so only the newest model can grow here.
                    self.fields.resize(at + 1, SlotStats::default());
                }
                &mut self.fields[at]
            }
            Slot::Currency => &mut self.other[0],
            Slot::MapKey => &mut self.other[1],
            Slot::MapValue => &mut self.other[2],
            Slot::Item => &mut self.other[3],
        }
    }

    /// A Python string of `s`, shared with an equal earlier one while its slot repeats.
    pub fn string(&mut self, py: Python<'_>, s: &'a str, slot: Slot) -> Py<PyAny> {
        let stats = self.stats(slot);
        if stats.off {
            return PyString::new(py, s).into_any().unbind();
        }
        let found = self.strings.get(s).map(|v| v.clone_ref(py));
        let stats = self.stats(slot);
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
        self.strings.insert(s, v.clone_ref(py));
        v
    }
}

/// FxHash (as in rustc): a multiply-rotate hash of 8 bytes at a time. The keys are short
/// strings and 17-byte decimals of one response; SipHash was ~1 % of building a page.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

type Fast = BuildHasherDefault<FxHasher>;

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
