//! A result built straight from its JSON answer: the parser drives the building of the
//! Python objects, guided by the body's shape (`abws::describe::Ty`), with no Rust
//! structs in between; a result held in the one field of its body (`invoiceDetail`) is
//! built from that field. A big page is then read once, not decoded into the core's types
//! and walked again (B2).
//!
//! It must give exactly what `convert::to_py` gives for the decoded result. It takes the
//! leaves through the core's own readers (`Amount::from_json`, `Timestamp::parse`), and
//! it gives up (`None`) on anything it does not build the same way: a shape it does not
//! handle (checked once per shape, `supported`), a value the core would refuse or read
//! differently, a Python error. A one-of it cannot build in its one pass is declined
//! instead (`OneOfV`), and counted with the shapes not built here. The caller then decodes
//! the answer the usual way, which gives the result or the error the Rust API reports.
//! Tests compare both ways on every operation (`tests/python/test_from_json.py`).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pyo3::IntoPyObjectExt;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use abws::describe::{ModelInfo, OneOfInfo, Ty};
use abws::model::Key;
use abws::operation::JsonAnswer;
use abws::{Amount, AmountForm, Timestamp};

use crate::convert::{new_datetime, renders_as_received, untrack, Build, Fill, Shape};
use crate::leaves::{self, Slot};

/// The most fields a model may have (the core's null mask is 64 bits).
const MAX_FIELDS: usize = 64;

/// How results with a JSON answer are built: `ABWS_FROM_JSON` (read once), a diagnostic
/// switch documented in docs/decisions/021-python-results.md.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Straight from the JSON where the shape allows (the default).
    On,
    /// Always decoded into the core's types first, then converted (`off`).
    Off,
    /// Both, compared; a difference is an internal error (`check`: the tests' mode).
    Check,
}

/// The mode of this process.
pub fn mode() -> Mode {
    static MODE: OnceLock<Mode> = OnceLock::new();
    *MODE.get_or_init(|| match std::env::var("ABWS_FROM_JSON").as_deref() {
        Ok("off") => Mode::Off,
        Ok("check") => Mode::Check,
        _ => Mode::On,
    })
}

/// Results built here, results whose shape is not built here (or with a one-of this reader
/// declines, `OneOfV`), and answers given up on (a value the core refuses or reads
/// otherwise): the tests check which way a call went.
static COUNTS: [AtomicU64; 3] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];
const BUILT: usize = 0;
const UNSUPPORTED: usize = 1;
const GIVEN_UP: usize = 2;

/// (built, unsupported shape, given up) since the process started.
pub fn counts() -> (u64, u64, u64) {
    let c = |i: usize| COUNTS[i].load(Ordering::Relaxed);
    (c(BUILT), c(UNSUPPORTED), c(GIVEN_UP))
}

/// What `build` made of an answer.
pub enum Built {
    /// The result.
    Done(Py<PyAny>),
    /// A shape not built here, or a one-of declined: the result comes from the decoded
    /// answer.
    Unsupported,
    /// Given up on a value: the decoded answer gives the result or the error.
    GivenUp,
}

/// The Python objects of `answer`'s result, when they can be built here.
pub fn build(py: Python<'_>, answer: &JsonAnswer) -> Built {
    let ty = answer.ty();
    if !supported_shape(answer.operation(), ty, answer.part()) {
        COUNTS[UNSUPPORTED].fetch_add(1, Ordering::Relaxed);
        return Built::Unsupported;
    }
    let mut declined = false;
    match build_supported(py, answer, ty, &mut declined) {
        Some(obj) => {
            COUNTS[BUILT].fetch_add(1, Ordering::Relaxed);
            Built::Done(obj)
        }
        None if declined => {
            COUNTS[UNSUPPORTED].fetch_add(1, Ordering::Relaxed);
            Built::Unsupported
        }
        None => {
            COUNTS[GIVEN_UP].fetch_add(1, Ordering::Relaxed);
            Built::GivenUp
        }
    }
}

fn build_supported(
    py: Python<'_>,
    answer: &JsonAnswer,
    ty: Ty,
    declined: &mut bool,
) -> Option<Py<PyAny>> {
    let text = answer.text()?;
    let mut b = Direct {
        b: Build::new(py).ok()?,
        datetimes: HashMap::default(),
        declined: false,
    };
    let built = read(&mut b, text, answer.part(), ty);
    *declined = b.declined;
    built
}

/// The result read from `text` (`part`: the body's field that holds it).
fn read<'a>(
    b: &mut Direct<'_, 'a>,
    text: &'a str,
    part: Option<&'static str>,
    ty: Ty,
) -> Option<Py<PyAny>> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = match (part, ty) {
        (None, _) => {
            let top = Value {
                b: &mut *b,
                ty,
                slot: leaves::ITEM,
            };
            top.deserialize(&mut de).ok()?.value
        }
        (Some(field), Ty::Model(m)) => de
            .deserialize_map(PartV {
                b: &mut *b,
                m,
                field,
            })
            .ok()??,
        (Some(_), _) => return None,
    };
    de.end().ok()?;
    Some(value)
}

/// A body whose one declared field holds the result (`{"invoiceDetail": {...}}`): that
/// field's value (`None` when absent or `null`: the decoded answer gives the error), the
/// other fields read and left, as the core's wrapper keeps them as unknown fields.
struct PartV<'s, 'py, 'a> {
    b: &'s mut Direct<'py, 'a>,
    m: &'static ModelInfo,
    field: &'static str,
}

impl<'a> Visitor<'a> for PartV<'_, '_, 'a> {
    type Value = Option<Py<PyAny>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} object", self.m.name)
    }
    fn visit_map<A: MapAccess<'a>>(self, mut map: A) -> Result<Option<Py<PyAny>>, A::Error> {
        let f = self.m.fields.iter().find(|f| f.wire == self.field);
        let f = f.ok_or_else(|| de::Error::custom("the part is not a field of the body"))?;
        let mut part = None;
        while let Some(key) = map.next_key::<Key<'a>>()? {
            if key.as_str() == self.field {
                part = map.next_value_seed(FieldV {
                    b: &mut *self.b,
                    ty: (f.ty)(),
                    slot: leaves::ITEM,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(part.map(|p| p.value))
    }
}

/// Whether the result of an operation (by id) has a shape built here; decided once each.
fn supported_shape(op: &'static str, ty: Ty, part: Option<&str>) -> bool {
    static KNOWN: Mutex<Vec<(&'static str, bool)>> = Mutex::new(Vec::new());
    let mut known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, ok)) = known.iter().find(|(id, _)| *id == op) {
        return *ok;
    }
    let ok = match (part, ty) {
        (None, _) => supported(ty, &mut Vec::new()),
        // A wrapper: its one declared field holds the result (the others are left).
        (Some(field), Ty::Model(m)) => match m.fields {
            [f] => f.wire == field && supported((f.ty)(), &mut Vec::new()),
            _ => false,
        },
        (Some(_), _) => false,
    };
    known.push((op, ok));
    ok
}

/// The shapes built here: every leaf but floats, models, one-ofs, and lists and maps of
/// anything but date-times and decimals (whose wire text `to_dict()` keeps per field, not
/// per item).
fn supported(ty: Ty, seen: &mut Vec<&'static str>) -> bool {
    match ty {
        Ty::Str | Ty::Enum(_) | Ty::Int | Ty::Bool | Ty::Decimal | Ty::Money | Ty::DateTime => true,
        Ty::Raw => true,
        Ty::List(t) | Ty::Map(t) => {
            let item = t();
            !matches!(item, Ty::DateTime | Ty::Decimal) && supported(item, seen)
        }
        Ty::Model(m) => {
            if seen.contains(&m.name) {
                return true;
            }
            seen.push(m.name);
            m.fields.len() <= MAX_FIELDS && m.fields.iter().all(|f| supported((f.ty)(), seen))
        }
        Ty::OneOf(o) => o.variants.iter().all(|t| supported(t(), seen)),
        Ty::Float | Ty::Unit | Ty::DateTimeArg | Ty::Params(_) | Ty::Object(_) => false,
    }
}

/// The builder, with the date-times met so far: by their text, the `datetime` and, when
/// Python would not write it back as received, that text for `to_dict()`.
struct Direct<'py, 'a> {
    b: Build<'py, 'a>,
    datetimes: HashMap<&'a str, Part, leaves::FastHash>,
    /// A one-of was declined (`OneOfV`): the answer is read the decoded way, as a shape not
    /// built here is, not given up on.
    declined: bool,
}

/// A built value, and what a model keeps of its wire text (a date-time Python would
/// write differently, an amount sent as a string).
struct Part {
    value: Py<PyAny>,
    wire: Option<Py<PyAny>>,
}

impl Part {
    fn plain(value: Py<PyAny>) -> Part {
        Part { value, wire: None }
    }
    /// Another reference to the same objects (they are immutable).
    fn share(&self, py: Python<'_>) -> Part {
        Part {
            value: self.value.clone_ref(py),
            wire: self.wire.as_ref().map(|w| w.clone_ref(py)),
        }
    }
}

/// A Python error as the parser's error (the build is then given up).
fn py_err<E: de::Error>(e: PyErr) -> E {
    E::custom(format_args!("while building the Python result: {e}"))
}

/// A value of shape `ty`; `slot` is where a string of it sits (`leaves`).
struct Value<'s, 'py, 'a> {
    b: &'s mut Direct<'py, 'a>,
    ty: Ty,
    slot: Slot,
}

impl<'a> DeserializeSeed<'a> for Value<'_, '_, 'a> {
    type Value = Part;

    fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<Part, D::Error> {
        let py = self.b.b.py;
        match self.ty {
            Ty::Str | Ty::Enum(_) => d
                .deserialize_str(Text {
                    b: &mut self.b.b,
                    slot: self.slot,
                })
                .map(Part::plain),
            Ty::Int => {
                let v = i64::deserialize(d)?;
                v.into_py_any(py).map(Part::plain).map_err(py_err)
            }
            Ty::Bool => {
                let v = bool::deserialize(d)?;
                v.into_py_any(py).map(Part::plain).map_err(py_err)
            }
            Ty::Decimal => {
                let raw = <&'a RawValue>::deserialize(d)?;
                let a = Amount::from_json(raw.get()).map_err(de::Error::custom)?;
                let value = self
                    .b
                    .b
                    .decimal(&a.value(), a.is_negative_zero())
                    .map_err(py_err)?;
                let wire = match a.form() {
                    AmountForm::String => Some(a.to_wire_string().into_py_any(py).map_err(py_err)?),
                    AmountForm::Number => None,
                };
                Ok(Part { value, wire })
            }
            Ty::Money => d.deserialize_map(MoneyV(&mut self.b.b)).map(Part::plain),
            Ty::DateTime => self.b.datetime(Key::deserialize(d)?),
            Ty::Raw => {
                let raw = <&'a RawValue>::deserialize(d)?;
                let h = self.b.b.h;
                h.loads_raw
                    .bind(py)
                    .call1((raw.get(),))
                    .map(|v| Part::plain(v.unbind()))
                    .map_err(py_err)
            }
            Ty::List(item) => d
                .deserialize_seq(ListV {
                    b: self.b,
                    item: item(),
                })
                .map(Part::plain),
            Ty::Map(value) => d
                .deserialize_map(MapV {
                    b: self.b,
                    value: value(),
                })
                .map(Part::plain),
            Ty::Model(m) => d.deserialize_map(ModelV { b: self.b, m }).map(Part::plain),
            Ty::OneOf(o) => {
                // Whatever stops the one pass declines it: a field read as a shape the tag
                // then does not name, a value that is not an object, a value the core
                // refuses. The decoded path gives the answer's result or its error.
                let built = d.deserialize_map(OneOfV { b: &mut *self.b, o });
                self.b.declined |= built.is_err();
                built.map(Part::plain)
            }
            _ => Err(de::Error::custom("a shape from_json does not build")),
        }
    }
}

impl<'a> Direct<'_, 'a> {
    /// A date-time, shared by its text; parsed by the core's reader the first time.
    fn datetime<E: de::Error>(&mut self, text: Key<'a>) -> Result<Part, E> {
        let py = self.b.py;
        let borrowed = text.borrowed();
        if let Some(known) = borrowed.and_then(|s| self.datetimes.get(s)) {
            return Ok(known.share(py));
        }
        let ts = Timestamp::parse(text.as_str()).map_err(E::custom)?;
        let value = new_datetime(py, self.b.h, &ts).map_err(py_err)?;
        let wire = if renders_as_received(&ts) {
            None
        } else {
            Some(ts.as_str().into_py_any(py).map_err(py_err)?)
        };
        let part = Part { value, wire };
        if let Some(s) = borrowed {
            self.datetimes.insert(s, part.share(py));
        }
        Ok(part)
    }
}

/// A string: shared through its slot when it is a slice of the body (no escapes).
struct Text<'s, 'py, 'a> {
    b: &'s mut Build<'py, 'a>,
    slot: Slot,
}

impl<'a> Visitor<'a> for Text<'_, '_, 'a> {
    type Value = Py<PyAny>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'a str) -> Result<Py<PyAny>, E> {
        Ok(self.b.string(v, self.slot))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Py<PyAny>, E> {
        Ok(PyString::new(self.b.py, v).into_any().unbind())
    }
}

/// A string key or value that may have been unescaped (not a slice of the body).
fn any_string(b: &mut Build<'_, '_>, text: &Key<'_>) -> Py<PyAny> {
    PyString::new(b.py, text.as_str()).into_any().unbind()
}

/// `abws.Money`: `amount` and `currencyCode` (each may be `null` or absent, noted as the
/// core's `Money.nulls` notes it), other fields kept as `convert.rs` keeps the core's
/// `Money.extra`.
struct MoneyV<'s, 'py, 'a>(&'s mut Build<'py, 'a>);

impl<'a> Visitor<'a> for MoneyV<'_, '_, 'a> {
    type Value = Py<PyAny>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a money object {currencyCode, amount}")
    }
    fn visit_map<A: MapAccess<'a>>(self, mut map: A) -> Result<Py<PyAny>, A::Error> {
        let b = self.0;
        let mut amount = None;
        let mut currency = None;
        let mut nulls = 0;
        let mut extra: Option<Vec<(Key<'a>, &'a RawValue)>> = None;
        while let Some(key) = map.next_key::<Key<'a>>()? {
            match key.as_str() {
                "amount" => {
                    let raw = map.next_value::<&'a RawValue>()?;
                    amount = if raw.get().trim() == "null" {
                        nulls |= crate::convert::NULL_AMOUNT;
                        None
                    } else {
                        nulls &= !crate::convert::NULL_AMOUNT;
                        Some(Amount::from_json(raw.get()).map_err(de::Error::custom)?)
                    };
                }
                "currencyCode" => {
                    currency = map.next_value::<Option<Key<'a>>>()?;
                    if currency.is_none() {
                        nulls |= crate::convert::NULL_CURRENCY;
                    } else {
                        nulls &= !crate::convert::NULL_CURRENCY;
                    }
                }
                _ => {
                    let raw = map.next_value::<&'a RawValue>()?;
                    extra.get_or_insert_with(Vec::new).push((key, raw));
                }
            }
        }
        let currency = match currency {
            None => b.py.None(),
            Some(c) => match c.borrowed() {
                Some(s) => b.string(s, leaves::CURRENCY),
                None => any_string(b, &c),
            },
        };
        let extra = match extra {
            None => None,
            Some(entries) => {
                let d = PyDict::new(b.py);
                for (k, raw) in entries {
                    let v =
                        b.h.loads_raw
                            .bind(b.py)
                            .call1((raw.get(),))
                            .map_err(py_err)?;
                    d.set_item(k.as_str(), v).map_err(py_err)?;
                }
                Some(d.into_any().unbind())
            }
        };
        b.money_of(amount.as_ref(), currency, nulls, extra)
            .map_err(py_err)
    }
}

/// A list, made at its final length and taken out of the cyclic collector; a `null`
/// element is `None`.
struct ListV<'s, 'py, 'a> {
    b: &'s mut Direct<'py, 'a>,
    item: Ty,
}

impl<'a> Visitor<'a> for ListV<'_, '_, 'a> {
    type Value = Py<PyAny>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list")
    }
    fn visit_seq<A: SeqAccess<'a>>(self, mut seq: A) -> Result<Py<PyAny>, A::Error> {
        let py = self.b.b.py;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        // An element may be `null` (`None`), as the core's `Vec<Option<T>>` allows.
        while let Some(v) = seq.next_element_seed(FieldV {
            b: &mut *self.b,
            ty: self.item,
            slot: leaves::ITEM,
        })? {
            items.push(v.map_or_else(|| py.None(), |v| v.value));
        }
        // SAFETY: a new list of `len` empty slots, each filled once (`PyList_SetItem`
        // steals the reference).
        unsafe {
            let list = Bound::from_owned_ptr_or_err(py, ffi::PyList_New(items.len() as isize))
                .map_err(py_err)?;
            for (i, v) in items.into_iter().enumerate() {
                ffi::PyList_SetItem(list.as_ptr(), i as ffi::Py_ssize_t, v.into_ptr());
            }
            untrack(&list);
            Ok(list.unbind())
        }
    }
}

/// A string map, in key order as the core's `BTreeMap` gives it (the last of repeated
/// keys kept); a value may be `null` (`None`), as the core's `Option` values allow.
struct MapV<'s, 'py, 'a> {
    b: &'s mut Direct<'py, 'a>,
    value: Ty,
}

impl<'a> Visitor<'a> for MapV<'_, '_, 'a> {
    type Value = Py<PyAny>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map")
    }
    fn visit_map<A: MapAccess<'a>>(self, mut map: A) -> Result<Py<PyAny>, A::Error> {
        let py = self.b.b.py;
        let mut entries: Vec<(Key<'a>, Py<PyAny>)> = Vec::new();
        while let Some(key) = map.next_key::<Key<'a>>()? {
            let v = map.next_value_seed(FieldV {
                b: &mut *self.b,
                ty: self.value,
                slot: leaves::MAP_VALUE,
            })?;
            entries.push((key, v.map_or_else(|| py.None(), |v| v.value)));
        }
        entries.sort_by(|(a, _), (b, _)| a.as_str().cmp(b.as_str()));
        let d = PyDict::new(py);
        for (k, v) in entries {
            let key = match k.borrowed() {
                Some(s) => self.b.b.string(s, leaves::MAP_KEY),
                None => any_string(&mut self.b.b, &k),
            };
            d.set_item(key, v).map_err(py_err)?;
        }
        untrack(&d);
        Ok(d.into_any().unbind())
    }
}

/// A model: its class made without `__init__`, every declared field set in declared
/// order (`None` when absent or `null`), then the wire texts kept, the unknown fields and
/// the fields that came as `null`, as `convert.rs` sets them.
struct ModelV<'s, 'py, 'a> {
    b: &'s mut Direct<'py, 'a>,
    m: &'static ModelInfo,
}

/// A field's value: `None` for `null`.
struct FieldV<'s, 'py, 'a> {
    b: &'s mut Direct<'py, 'a>,
    ty: Ty,
    slot: Slot,
}

impl<'a> DeserializeSeed<'a> for FieldV<'_, '_, 'a> {
    type Value = Option<Part>;
    fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<Option<Part>, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'a> Visitor<'a> for FieldV<'_, '_, 'a> {
    type Value = Option<Part>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field's value")
    }
    fn visit_none<E: de::Error>(self) -> Result<Option<Part>, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<Part>, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'a>>(self, d: D) -> Result<Option<Part>, D::Error> {
        Value {
            b: self.b,
            ty: self.ty,
            slot: self.slot,
        }
        .deserialize(d)
        .map(Some)
    }
}

impl<'a> Visitor<'a> for ModelV<'_, '_, 'a> {
    type Value = Py<PyAny>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} object", self.m.name)
    }
    fn visit_map<A: MapAccess<'a>>(self, mut map: A) -> Result<Py<PyAny>, A::Error> {
        let m = self.m;
        let (first_slot, shape) = self.b.b.shape(m.name, m.fields).map_err(py_err)?;
        // As many slots as the model has fields (a fixed array of MAX_FIELDS was made and
        // dropped whole for every object: ~1,100 instructions each).
        let mut values: Vec<Option<Part>> = std::iter::repeat_with(|| None)
            .take(m.fields.len())
            .collect();
        let mut nulls = 0u64;
        let mut extra: Option<Bound<'_, PyDict>> = None;
        // Fields mostly come in declared order: the one after the last is tried first.
        let mut next = 0;
        while let Some(key) = map.next_key::<Key<'a>>()? {
            let name = key.as_str();
            let found = match m.fields.get(next) {
                Some(f) if f.wire == name => Some(next),
                _ => m.fields.iter().position(|f| f.wire == name),
            };
            let Some(i) = found else {
                let raw = map.next_value::<&'a RawValue>()?;
                keep_unknown(&self.b.b, &mut extra, name, raw).map_err(py_err)?;
                continue;
            };
            next = i + 1;
            values[i] = map.next_value_seed(FieldV {
                b: &mut *self.b,
                ty: (m.fields[i].ty)(),
                slot: first_slot + i,
            })?;
            if values[i].is_none() {
                nulls |= 1 << i;
            }
        }
        finish(&mut self.b.b, &shape, values, nulls, extra).map_err(py_err)
    }
}

/// A field the model does not declare, kept as JSON in the object's unknown fields.
fn keep_unknown<'py>(
    b: &Build<'py, '_>,
    extra: &mut Option<Bound<'py, PyDict>>,
    name: &str,
    raw: &RawValue,
) -> PyResult<()> {
    let value = b.h.loads_raw.bind(b.py).call1((raw.get(),))?;
    extra
        .get_or_insert_with(|| PyDict::new(b.py))
        .set_item(name, value)
}

/// The object of a model whose fields are read: every declared field set in declared order
/// (`None` when absent or `null`), then the wire texts kept, the unknown fields and the
/// fields that came as `null` (bit i: field i), as `convert.rs` sets them.
fn finish(
    b: &mut Build<'_, '_>,
    shape: &Shape,
    mut values: Vec<Option<Part>>,
    nulls: u64,
    extra: Option<Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let py = b.py;
    let inst = Fill::new(b.instance(shape)?)?;
    let mut wire: Option<Bound<'_, PyDict>> = None;
    for (name, value) in shape.names.iter().zip(values.iter_mut()) {
        let (value, kept) = match value.take() {
            Some(Part { value, wire }) => (value, wire),
            None => (py.None(), None),
        };
        inst.set(name, value.bind(py))?;
        if let Some(w) = kept {
            let d = wire.get_or_insert_with(|| PyDict::new(py));
            d.set_item(name, w)?;
        }
    }
    let h = b.h;
    if let Some(w) = wire {
        inst.set(&h.wire, &w)?;
    }
    if let Some(d) = extra {
        inst.set(&h.extra, &d)?;
    }
    if nulls != 0 {
        let bits = nulls.into_py_any(py)?;
        inst.set(&h.nulls, bits.bind(py))?;
    }
    Ok(inst.done())
}

/// A one-of read in one pass. Each field is built as the first shape that declares it
/// declares it, the tag noted on the way, and the object is made as the shape the tag names
/// (the core captures the value whole, scans it for its tag, then reads it: two passes
/// more, ~14k instructions an invoice artifact). A field no
/// shape declares is kept as the named shape keeps it (unknown). What this cannot build as
/// the core reads it is declined, and the decoded path reads the answer (`Direct::declined`):
/// a tag value absent, `null`, repeated or escaped (the core's scan leaves those to serde), a
/// tag that names the fallback shape (kept as raw JSON), a field the named shape does not
/// declare but another does, or declares as another shape, and anything that stops the pass
/// (`Value`'s one-of arm: a field that does not fit the shape it was read as, a value that is
/// not an object).
struct OneOfV<'s, 'py, 'a> {
    b: &'s mut Direct<'py, 'a>,
    o: &'static OneOfInfo,
}

impl Direct<'_, '_> {
    /// Stops the building at a one-of this reader does not build as the core does.
    fn decline<E: de::Error>(&mut self, what: &str) -> E {
        self.declined = true;
        E::custom(format_args!("a one-of not built in one pass: {what}"))
    }
}

impl<'a> Visitor<'a> for OneOfV<'_, '_, 'a> {
    type Value = Py<PyAny>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of one of several shapes")
    }
    fn visit_map<A: MapAccess<'a>>(self, mut map: A) -> Result<Py<PyAny>, A::Error> {
        let o = self.o;
        let mut tag: Option<&'a str> = None;
        // (the field's wire name, the shape it was built as, its value: `None` for `null`,
        // whether it came as `null`: once is enough, as `ModelV` notes it)
        let mut read: Vec<(&'static str, Ty, Option<Part>, bool)> = Vec::with_capacity(4);
        let mut extra: Option<Bound<'_, PyDict>> = None;
        while let Some(key) = map.next_key::<Key<'a>>()? {
            let name = key.as_str();
            let declared = o.variants.iter().find_map(|v| match v() {
                Ty::Model(m) => m.fields.iter().position(|f| f.wire == name).map(|i| (m, i)),
                _ => None,
            });
            let Some((m, i)) = declared else {
                // Unknown to every shape, so to the one named too.
                let raw = map.next_value::<&'a RawValue>()?;
                keep_unknown(&self.b.b, &mut extra, name, raw).map_err(py_err)?;
                continue;
            };
            let (f, ty) = (&m.fields[i], (m.fields[i].ty)());
            let (first_slot, _) = self.b.b.shape(m.name, m.fields).map_err(py_err)?;
            let value = if name == o.tag {
                let text = map.next_value::<Option<Key<'a>>>()?;
                let s = match (tag, text.as_ref().and_then(Key::borrowed), ty) {
                    (None, Some(s), Ty::Str | Ty::Enum(_)) => s,
                    _ => return Err(self.b.decline("the tag")),
                };
                tag = Some(s);
                Some(Part::plain(self.b.b.string(s, first_slot + i)))
            } else {
                map.next_value_seed(FieldV {
                    b: &mut *self.b,
                    ty,
                    slot: first_slot + i,
                })?
            };
            let null = value.is_none();
            match read.iter_mut().find(|r| r.0 == f.wire) {
                // A repeated field: the last value, as `ModelV` keeps it.
                Some(r) => (r.2, r.3) = (value, r.3 || null),
                None => read.push((f.wire, ty, value, null)),
            }
        }
        let Some(Ty::Model(m)) = o.variants.get((o.by_tag)(tag)).map(|v| v()) else {
            return Err(self.b.decline("the fallback shape"));
        };
        let (_, shape) = self.b.b.shape(m.name, m.fields).map_err(py_err)?;
        let mut values: Vec<Option<Part>> = std::iter::repeat_with(|| None)
            .take(m.fields.len())
            .collect();
        let mut nulls = 0u64;
        for (name, ty, value, null) in read {
            let i = m.fields.iter().position(|f| f.wire == name);
            let Some(i) = i.filter(|&i| same_shape(ty, (m.fields[i].ty)())) else {
                return Err(self.b.decline("a field of another shape"));
            };
            if null {
                nulls |= 1 << i;
            }
            values[i] = value;
        }
        finish(&mut self.b.b, &shape, values, nulls, extra).map_err(py_err)
    }
}

/// Whether two shapes build the same Python value from the same JSON.
fn same_shape(a: Ty, b: Ty) -> bool {
    match (a, b) {
        (Ty::List(x), Ty::List(y)) | (Ty::Map(x), Ty::Map(y)) => same_shape(x(), y()),
        (Ty::Model(x), Ty::Model(y)) => std::ptr::eq(x, y),
        (Ty::Enum(x), Ty::Enum(y)) => std::ptr::eq(x, y),
        (Ty::OneOf(x), Ty::OneOf(y)) => std::ptr::eq(x, y),
        (Ty::Str, Ty::Str)
        | (Ty::Int, Ty::Int)
        | (Ty::Bool, Ty::Bool)
        | (Ty::Decimal, Ty::Decimal)
        | (Ty::Money, Ty::Money)
        | (Ty::DateTime, Ty::DateTime)
        | (Ty::Raw, Ty::Raw) => true,
        _ => false,
    }
}
