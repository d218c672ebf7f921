//! The one builder of Python results: the parser drives the making of the Python objects
//! (`objects.rs`), guided by the shape of the JSON (`abws::describe::Ty`), with no Rust
//! structs in between. Its one input is JSON:
//! - an operation's answer (`Reply::Json`), read as it came; a result held in the one field
//!   of its body (`invoiceDetail`) is built from that field. A big page is then read once,
//!   not decoded into the core's types and walked again (B2);
//! - a result the core makes itself (`Reply::Decoded`: addItems, deleteItems, placeOrder,
//!   the conveniences' results, a listing's pages), written as its wire JSON by the core
//!   (`Output::to_json`) and read the same way.
//!
//! It builds what the core's decoding reads: the leaves go through the core's own readers
//! (`Amount::from_json`, `Timestamp::parse`), and an answer it cannot build (a value the
//! core would refuse, a Python error) is decoded by the core, which gives the error the
//! Rust API reports (docs/decisions/021-python-results.md).

use std::collections::HashMap;
use std::fmt;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pyo3::IntoPyObjectExt;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use abws::describe::{ModelInfo, OneOfInfo, Ty};
use abws::model::Key;
use abws::operation::{JsonAnswer, Output, Reply};
use abws::{Amount, AmountForm, Timestamp};

use crate::errors::to_py_err;
use crate::leaves::{self, Slot};
use crate::objects::{new_datetime, renders_as_received, untrack, Build, Fill, Shape};

/// The most fields a model may have (the null mask is 64 bits).
const MAX_FIELDS: usize = 64;

/// The Python result of an operation's reply.
pub fn reply_to_py(py: Python<'_>, reply: Reply) -> PyResult<Py<PyAny>> {
    match reply {
        Reply::Decoded(out) => output_to_py(py, &*out),
        Reply::Json(answer) => answer_to_py(py, &answer),
    }
}

/// The Python result of a result the core made, read from its wire JSON.
pub fn output_to_py(py: Python<'_>, out: &dyn Output) -> PyResult<Py<PyAny>> {
    let text = out.to_json().map_err(to_py_err)?;
    build(py, &text, None, out.ty()).map_err(|e| {
        to_py_err(abws::Error::internal(format!(
            "the Python result of a {} could not be built: {e}",
            type_name(out.ty())
        )))
    })
}

/// The Python result of a JSON answer, or the error the core gives when it reads it.
fn answer_to_py(py: Python<'_>, answer: &JsonAnswer) -> PyResult<Py<PyAny>> {
    let built = match answer.text() {
        Some(text) => build(py, text, answer.part(), answer.ty()),
        None => Err("the body is not UTF-8".to_string()),
    };
    let why = match built {
        Ok(obj) => return Ok(obj),
        Err(why) => why,
    };
    // Not built: the core's decoding gives the error it reports.
    let decoded = answer.decode().map_err(to_py_err)?;
    // The core reads what this builder refused: a difference between the two readers. The
    // tests run a debug build, where it is an error; a release build reads the core's
    // decoded result from its wire JSON instead.
    if cfg!(debug_assertions) {
        return Err(to_py_err(abws::Error::internal(format!(
            "the Python builder refused a {} answer the core reads: {why}",
            answer.operation()
        ))));
    }
    output_to_py(py, &*decoded)
}

fn type_name(ty: Ty) -> &'static str {
    match ty {
        Ty::Model(m) => m.name,
        _ => "result",
    }
}

/// The result read from `text` (`part`: the body's field that holds it), or why it was not
/// built (a value the core may refuse, a Python error). A one-of the first pass cannot
/// build in one go (`OneOfV`) makes a second pass, which reads each one-of as the core does.
fn build(
    py: Python<'_>,
    text: &str,
    part: Option<&'static str>,
    ty: Ty,
) -> Result<Py<PyAny>, String> {
    let mut careful = false;
    loop {
        let mut b = Direct {
            b: Build::new(py).map_err(|e| e.to_string())?,
            datetimes: HashMap::default(),
            careful,
            declined: false,
        };
        match read(&mut b, text, part, ty) {
            Ok(v) => return Ok(v),
            Err(_) if b.declined && !careful => careful = true,
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The result read from `text` (`part`: the body's field that holds it).
fn read<'a>(
    b: &mut Direct<'_, 'a>,
    text: &'a str,
    part: Option<&'static str>,
    ty: Ty,
) -> serde_json::Result<Py<PyAny>> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = match (part, ty) {
        (None, _) => {
            let top = Value {
                b: &mut *b,
                ty,
                slot: leaves::ITEM,
            };
            top.deserialize(&mut de)?.value
        }
        (Some(field), Ty::Model(m)) => de
            .deserialize_map(PartV {
                b: &mut *b,
                m,
                field,
            })?
            .ok_or_else(|| de::Error::custom(format_args!("no {field} in the body")))?,
        (Some(_), _) => return Err(de::Error::custom("a part of a body that is not an object")),
    };
    de.end()?;
    Ok(value)
}

/// A body whose one declared field holds the result (`{"invoiceDetail": {...}}`): that
/// field's value (`None` when absent or `null`: the core's decoding gives the error), the
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

/// The builder, with the date-times met so far: by their text, the `datetime` and, when
/// Python would not write it back as received, that text for `to_dict()`.
struct Direct<'py, 'a> {
    b: Build<'py, 'a>,
    datetimes: HashMap<&'a str, Part, leaves::FastHash>,
    /// The second pass: each one-of is read as the core reads it (`careful_one_of`).
    careful: bool,
    /// A one-of was declined in the first pass (`OneOfV`): the second pass reads it.
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

/// A Python error as the parser's error (the result is then not built).
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
            Ty::List(item) | Ty::Map(item) => {
                let item = item();
                // `to_dict()` keeps a wire text per field, not per item: no result holds these.
                if matches!(item, Ty::DateTime | Ty::Decimal) {
                    return Err(de::Error::custom(
                        "a list or map of date-times or decimals is not built",
                    ));
                }
                let items = ItemsV { b: self.b, item };
                match self.ty {
                    Ty::List(_) => d.deserialize_seq(items),
                    _ => d.deserialize_map(items),
                }
                .map(Part::plain)
            }
            Ty::Model(m) => d.deserialize_map(ModelV { b: self.b, m }).map(Part::plain),
            Ty::OneOf(o) if self.b.careful => careful_one_of(self.b, o, d).map(Part::plain),
            Ty::OneOf(o) => {
                // Whatever stops the one pass declines it: a field read as a shape the tag
                // then does not name, a value that is not an object, a value the core
                // refuses. The second pass reads it as the core does.
                let built = d.deserialize_map(OneOfV { b: &mut *self.b, o });
                self.b.declined |= built.is_err();
                built.map(Part::plain)
            }
            // A result of no value (deleteItems): `None`.
            Ty::Unit => {
                <()>::deserialize(d)?;
                Ok(Part::plain(py.None()))
            }
            // No result holds these shapes (floats, arguments' shapes).
            _ => Err(de::Error::custom(
                "a shape the Python builder does not build",
            )),
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

/// A string value, read without a `Key` in between (the most common leaf of a page):
/// shared through its slot when it is a slice of the body (no escapes).
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

/// A string read as a `Key` (a map's key, a money's currency): shared through its slot
/// when it is a slice of the body (no escapes), else made from its unescaped text.
fn string<'a>(b: &mut Build<'_, 'a>, text: &Key<'a>, slot: Slot) -> Py<PyAny> {
    match text.borrowed() {
        Some(s) => b.string(s, slot),
        None => PyString::new(b.py, text.as_str()).into_any().unbind(),
    }
}

/// `abws.Money`: `amount` and `currencyCode` (each may be `null` or absent, noted as the
/// core's `Money.nulls` notes it), other fields kept as the core's `Money.extra` keeps
/// them.
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
                        nulls |= crate::objects::NULL_AMOUNT;
                        None
                    } else {
                        nulls &= !crate::objects::NULL_AMOUNT;
                        Some(Amount::from_json(raw.get()).map_err(de::Error::custom)?)
                    };
                }
                "currencyCode" => {
                    currency = map.next_value::<Option<Key<'a>>>()?;
                    if currency.is_none() {
                        nulls |= crate::objects::NULL_CURRENCY;
                    } else {
                        nulls &= !crate::objects::NULL_CURRENCY;
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
            Some(c) => string(b, &c, leaves::CURRENCY),
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

/// A list or a string map of items of one shape (`deserialize_seq` asks for the one,
/// `deserialize_map` for the other); a `null` item is `None`.
/// - A list is made at its final length.
/// - A map is in key order as the core's `BTreeMap` gives it (the last of repeated keys
///   kept).
///
/// Either is taken out of the cyclic collector once filled.
struct ItemsV<'s, 'py, 'a> {
    b: &'s mut Direct<'py, 'a>,
    item: Ty,
}

impl<'a> Visitor<'a> for ItemsV<'_, '_, 'a> {
    type Value = Py<PyAny>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list or a map")
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
    fn visit_map<A: MapAccess<'a>>(self, mut map: A) -> Result<Py<PyAny>, A::Error> {
        let py = self.b.b.py;
        let mut entries: Vec<(Key<'a>, Py<PyAny>)> = Vec::new();
        while let Some(key) = map.next_key::<Key<'a>>()? {
            let v = map.next_value_seed(FieldV {
                b: &mut *self.b,
                ty: self.item,
                slot: leaves::MAP_VALUE,
            })?;
            entries.push((key, v.map_or_else(|| py.None(), |v| v.value)));
        }
        entries.sort_by(|(a, _), (b, _)| a.as_str().cmp(b.as_str()));
        let d = PyDict::new(py);
        for (k, v) in entries {
            let key = string(&mut self.b.b, &k, leaves::MAP_KEY);
            d.set_item(key, v).map_err(py_err)?;
        }
        untrack(&d);
        Ok(d.into_any().unbind())
    }
}

/// A model: its class made without `__init__`, every declared field set in declared
/// order (`None` when absent or `null`), then the wire texts kept, the unknown fields and
/// the fields that came as `null`, as the core keeps them.
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
        if m.fields.len() > MAX_FIELDS {
            return Err(de::Error::custom("a model of more than 64 fields"));
        }
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
/// fields that came as `null` (bit i: field i), as the core keeps them.
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
/// the core reads it is declined, and a second pass reads the answer (`Direct::declined`,
/// `careful_one_of`):
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

/// A one-of read as the core reads it (the second pass): the value captured whole, its
/// shape chosen by the core's own chooser (`OneOfInfo::choose`), then read as that shape;
/// a shape of raw JSON (a tag the library does not know) kept as received.
fn careful_one_of<'a, D: Deserializer<'a>>(
    b: &mut Direct<'_, 'a>,
    o: &'static OneOfInfo,
    d: D,
) -> Result<Py<PyAny>, D::Error> {
    let raw = <&'a RawValue>::deserialize(d)?;
    let chosen = (o.choose)(raw.get()).map_err(de::Error::custom)?;
    let ty = o
        .variants
        .get(chosen)
        .ok_or_else(|| de::Error::custom("the chooser named no shape"))?();
    let mut inner = serde_json::Deserializer::from_str(raw.get());
    let built = Value {
        b,
        ty,
        slot: leaves::ITEM,
    }
    .deserialize(&mut inner)
    .and_then(|v| inner.end().map(|()| v.value));
    built.map_err(de::Error::custom)
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
