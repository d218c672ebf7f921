//! Conversion both ways: a result's `Node` tree into Python objects (`abws.Model`
//! subclasses, `Decimal`, aware `datetime`, `abws.Money`), and Python arguments into the
//! JSON text the core's parameter structs are read from.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::{intern, IntoPyObjectExt};

use abws::node::{Node, Object, ToNode};
use abws::AmountForm;

/// Python objects the conversion needs, looked up once.
struct Helpers {
    decimal: Py<PyAny>,
    datetime: Py<PyAny>,
    utc: Py<PyAny>,
    timezone: Py<PyAny>,
    timedelta: Py<PyAny>,
    money: Py<PyAny>,
    model_class: Py<PyAny>,
    loads_raw: Py<PyAny>,
    object_new: Py<PyAny>,
    offsets: Py<PyDict>,
}

/// Model classes by declared shape: two result types may share a name (reconciliation's
/// and reporting's former `OrderLineItem`, now `OrderReportLineItem`), so the key is the name and every field name.
static CLASSES: Mutex<Option<HashMap<u64, Arc<Shape>>>> = Mutex::new(None);

/// A model class and its field names as Python strings (made once, not per object).
struct Shape {
    class: Py<PyAny>,
    names: Vec<Py<PyString>>,
}

fn shape_key(o: &Object<'_>) -> u64 {
    // The names are `&'static str`s: their addresses and lengths identify them. A cheap
    // multiplicative mix (this runs once per object of a big page), not SipHash: the keys
    // are our own pointers, nobody can choose them.
    let mut h = (o.type_name.as_ptr() as u64) ^ (o.type_name.len() as u64).rotate_left(48);
    for (name, wire, _) in &o.fields {
        for v in [
            name.as_ptr() as u64,
            name.len() as u64,
            wire.as_ptr() as u64,
        ] {
            h = (h.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    h
}

static HELPERS: PyOnceLock<Helpers> = PyOnceLock::new();

fn helpers(py: Python<'_>) -> PyResult<&Helpers> {
    HELPERS.get_or_try_init(py, || {
        let dec = py.import("decimal")?;
        let dt = py.import("datetime")?;
        let models = py.import("abws.models")?;
        let builtins = py.import("builtins")?;
        Ok(Helpers {
            decimal: dec.getattr("Decimal")?.unbind(),
            datetime: dt.getattr("datetime")?.unbind(),
            utc: dt.getattr("timezone")?.getattr("utc")?.unbind(),
            timezone: dt.getattr("timezone")?.unbind(),
            timedelta: dt.getattr("timedelta")?.unbind(),
            money: models.getattr("Money")?.unbind(),
            model_class: models.getattr("_model_class")?.unbind(),
            loads_raw: models.getattr("_loads_raw")?.unbind(),
            object_new: builtins.getattr("object")?.getattr("__new__")?.unbind(),
            offsets: PyDict::new(py).unbind(),
        })
    })
}

/// Converts any result to Python.
pub fn to_py<T: ToNode + ?Sized>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let node = value.to_node();
    Build {
        py,
        h: helpers(py)?,
        shared: HashMap::new(),
    }
    .node(&node)
}

/// Takes a finished container (model instance, its `__dict__`, `Money`, list) out of the
/// cyclic collector's lists. A result is a tree made from JSON, so it holds no cycle; a
/// big page makes ~145,000 such containers, and each later collection would walk them all
/// (decisions.md, "Python results are not tracked by the cyclic GC"). Call it only once
/// the container is filled: inserting a tracked value re-tracks a dict.
fn untrack(obj: &Bound<'_, PyAny>) {
    // SAFETY: `obj` is a live object of a GC type (dict, list or a Python class instance);
    // untracking an object that is not tracked is a no-op.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) }
}

fn tz(py: Python<'_>, h: &Helpers, seconds: i32) -> PyResult<Py<PyAny>> {
    if seconds == 0 {
        return Ok(h.utc.clone_ref(py));
    }
    let cache = h.offsets.bind(py);
    if let Some(t) = cache.get_item(seconds)? {
        return Ok(t.unbind());
    }
    let delta = h
        .timedelta
        .bind(py)
        .call((), Some(&[("seconds", seconds)].into_py_dict(py)?))?;
    let t = h.timezone.bind(py).call1((delta,))?;
    cache.set_item(seconds, &t)?;
    Ok(t.unbind())
}

use pyo3::types::IntoPyDict;

/// How `models._iso` writes a date-time back: Python's `isoformat()` with UTC as `Z`.
fn wire_style(v: &chrono::DateTime<chrono::FixedOffset>) -> String {
    use chrono::{Datelike, Offset, Timelike};
    use std::fmt::Write;
    let mut out = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        v.year(),
        v.month(),
        v.day(),
        v.hour(),
        v.minute(),
        v.second()
    );
    let nanos = v.nanosecond();
    if !nanos.is_multiple_of(1000) {
        return String::new(); // finer than Python keeps: never equal to the wire text
    }
    if nanos != 0 {
        let _ = write!(out, ".{:06}", nanos / 1000);
    }
    let offset = v.offset().fix().local_minus_utc();
    if offset == 0 {
        out.push('Z');
    } else {
        let (sign, abs) = if offset < 0 {
            ('-', -offset)
        } else {
            ('+', offset)
        };
        let _ = write!(out, "{sign}{:02}:{:02}", abs / 3600, abs / 60 % 60);
        if abs % 60 != 0 {
            let _ = write!(out, ":{:02}", abs % 60);
        }
    }
    out
}

/// True when `models._iso` gives the received text back.
fn renders_as_received(ts: &abws::Timestamp) -> bool {
    use chrono::Timelike;
    let text = ts.as_str().as_bytes();
    // The common `2026-07-06T05:23:00Z`: that exact shape parsed is what `_iso` writes
    // (unless it was a leap second, which Python cannot hold).
    if text.len() == 20 && text[10] == b'T' && text[19] == b'Z' {
        return ts.value().nanosecond() < 1_000_000_000;
    }
    ts.as_str() == wire_style(&ts.value())
}

/// True when the Python value of a node cannot be written back to the wire exactly
/// (some date-time texts, string amounts' quotes), so the model keeps the wire value of
/// that field apart for `to_dict()`.
fn needs_wire(node: &Node<'_>) -> bool {
    match node {
        Node::DateTime(ts) => !renders_as_received(ts),
        Node::Decimal(a) => a.form() == AmountForm::String,
        Node::List(items) => items.iter().any(needs_wire),
        Node::Map(entries) => entries.iter().any(|(_, v)| needs_wire(v)),
        _ => false,
    }
}

fn shape(py: Python<'_>, h: &Helpers, o: &Object<'_>) -> PyResult<Arc<Shape>> {
    let key = shape_key(o);
    let classes = || CLASSES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = classes().as_ref().and_then(|m| m.get(&key).cloned()) {
        return Ok(found);
    }
    let fields = PyTuple::new(
        py,
        o.fields
            .iter()
            .map(|(name, wire, _)| PyTuple::new(py, [*name, *wire]))
            .collect::<PyResult<Vec<_>>>()?,
    )?;
    let made = Arc::new(Shape {
        class: h
            .model_class
            .bind(py)
            .call1((o.type_name, fields))?
            .unbind(),
        names: o
            .fields
            .iter()
            .map(|(name, _, _)| PyString::intern(py, name).unbind())
            .collect(),
    });
    classes()
        .get_or_insert_with(HashMap::new)
        .insert(key, made.clone());
    Ok(made)
}

/// An immutable leaf value, by its exact wire value.
#[derive(Hash, PartialEq, Eq)]
enum Leaf<'a> {
    /// `Decimal::serialize()` (sign, scale and digits: 1.0 and 1.00 differ) and a
    /// negative zero's sign.
    Decimal([u8; 16], bool),
    DateTime(&'a str),
}

/// Builds the Python objects of one result. `Decimal`s and `datetime`s are immutable, so
/// one object serves every field with the same wire value: pages repeat them (a feed
/// date, a zero tax, a unit price), and each would otherwise cost a constructor call.
struct Build<'py, 'a> {
    py: Python<'py>,
    h: &'py Helpers,
    shared: HashMap<Leaf<'a>, Py<PyAny>>,
}

impl<'py, 'a> Build<'py, 'a> {
    fn shared(
        &mut self,
        leaf: Leaf<'a>,
        make: impl FnOnce(&Self) -> PyResult<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        if let Some(v) = self.shared.get(&leaf) {
            return Ok(v.clone_ref(self.py));
        }
        let v = make(self)?;
        self.shared.insert(leaf, v.clone_ref(self.py));
        Ok(v)
    }

    fn decimal(&mut self, v: &abws::Decimal, negative_zero: bool) -> PyResult<Py<PyAny>> {
        self.shared(Leaf::Decimal(v.serialize(), negative_zero), |b| {
            let text = if negative_zero {
                format!("-{v}")
            } else {
                v.to_string()
            };
            Ok(b.h.decimal.bind(b.py).call1((text,))?.unbind())
        })
    }

    fn datetime(&mut self, ts: &'a abws::Timestamp) -> PyResult<Py<PyAny>> {
        self.shared(Leaf::DateTime(ts.as_str()), |b| {
            use chrono::{Datelike, Offset, Timelike};
            let v = ts.value();
            let zone = tz(b.py, b.h, v.offset().fix().local_minus_utc())?;
            let micro = (v.nanosecond() % 1_000_000_000) / 1000;
            let args = (
                v.year(),
                v.month(),
                v.day(),
                v.hour(),
                v.minute(),
                v.second(),
                micro,
                zone,
            );
            Ok(b.h.datetime.bind(b.py).call1(args)?.unbind())
        })
    }

    /// The value `to_dict()` gives back for a node `needs_wire` picked.
    fn wire_value(&mut self, node: &'a Node<'a>) -> PyResult<Py<PyAny>> {
        let py = self.py;
        match node {
            Node::DateTime(ts) => ts.as_str().into_py_any(py),
            Node::Decimal(a) if a.form() == AmountForm::String => {
                a.to_wire_string().into_py_any(py)
            }
            Node::List(items) => {
                let list = PyList::empty(py);
                for it in items {
                    list.append(self.wire_value(it)?)?;
                }
                Ok(list.into_any().unbind())
            }
            Node::Map(entries) => {
                let d = PyDict::new(py);
                for (k, v) in entries {
                    d.set_item(*k, self.wire_value(v)?)?;
                }
                Ok(d.into_any().unbind())
            }
            other => self.node(other),
        }
    }

    fn object(&mut self, o: &'a Object<'a>) -> PyResult<Py<PyAny>> {
        let (py, h) = (self.py, self.h);
        let shape = shape(py, h, o)?;
        let inst = h.object_new.bind(py).call1((shape.class.bind(py),))?;
        let dict = inst.getattr(intern!(py, "__dict__"))?;
        let fields = dict.cast::<PyDict>()?;
        let mut wire: Option<Bound<'_, PyDict>> = None;
        for ((_, _, node), name) in o.fields.iter().zip(&shape.names) {
            let name = name.bind(py);
            fields.set_item(name, self.node(node)?)?;
            if needs_wire(node) {
                let w = wire.get_or_insert_with(|| PyDict::new(py));
                w.set_item(name, self.wire_value(node)?)?;
            }
        }
        if let Some(w) = wire {
            fields.set_item(intern!(py, "_wire"), w)?;
        }
        if !o.extra.is_empty() {
            let extra = PyDict::new(py);
            for (k, raw) in o.extra.iter() {
                extra.set_item(k, h.loads_raw.bind(py).call1((raw,))?)?;
            }
            fields.set_item(intern!(py, "_extra"), extra)?;
        }
        untrack(&dict);
        untrack(&inst);
        Ok(inst.unbind())
    }

    fn money(&mut self, m: &abws::Money) -> PyResult<Py<PyAny>> {
        let (py, h) = (self.py, self.h);
        let amount = self.decimal(&m.amount.value(), m.amount.is_negative_zero())?;
        // Filled directly, without running Money.__init__ (hot path of big pages).
        let inst = h.object_new.bind(py).call1((h.money.bind(py),))?;
        let dict = inst.getattr(intern!(py, "__dict__"))?;
        let dict = dict.cast::<PyDict>()?;
        dict.set_item(intern!(py, "amount"), amount)?;
        dict.set_item(intern!(py, "currency_code"), m.currency_code.as_deref())?;
        if m.amount.form() == AmountForm::String {
            dict.set_item(intern!(py, "_string_form"), true)?;
        }
        untrack(dict);
        untrack(&inst);
        Ok(inst.unbind())
    }

    fn node(&mut self, node: &'a Node<'a>) -> PyResult<Py<PyAny>> {
        let py = self.py;
        match node {
            Node::Null => Ok(py.None()),
            Node::Bool(b) => b.into_py_any(py),
            Node::Int(i) => i.into_py_any(py),
            Node::Str(s) => s.into_py_any(py),
            Node::Decimal(a) => self.decimal(&a.value(), a.is_negative_zero()),
            Node::Money(m) => self.money(m),
            Node::DateTime(ts) => self.datetime(ts),
            Node::List(items) => {
                let list = PyList::empty(py);
                for it in items {
                    list.append(self.node(it)?)?;
                }
                untrack(&list);
                Ok(list.into_any().unbind())
            }
            Node::Map(entries) => {
                let d = PyDict::new(py);
                for (k, v) in entries {
                    d.set_item(*k, self.node(v)?)?;
                }
                untrack(&d);
                Ok(d.into_any().unbind())
            }
            Node::Object(o) => self.object(o),
            Node::Raw(text) => Ok(self.h.loads_raw.bind(py).call1((*text,))?.unbind()),
        }
    }
}

/// Writes a Python argument as JSON text: dicts, lists, tuples, str, int, float, bool,
/// None, `Decimal` (its exact digits), `datetime`/`date` (ISO text; a naive datetime is
/// UTC), and anything with `to_dict()` (models, `Money`).
pub fn to_json(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut out = String::new();
    write_json(obj, &mut out, 0)?;
    Ok(out)
}

fn write_str(s: &str, out: &mut String) {
    out.push_str(&serde_json::Value::from(s).to_string());
}

fn write_json(obj: &Bound<'_, PyAny>, out: &mut String, depth: usize) -> PyResult<()> {
    let py = obj.py();
    if depth > 64 {
        return Err(PyTypeError::new_err("argument nested too deeply"));
    }
    if obj.is_none() {
        out.push_str("null");
    } else if let Ok(b) = obj.cast::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
    } else if obj.is_instance_of::<PyInt>() {
        out.push_str(&obj.str()?.to_cow()?);
    } else if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        if !v.is_finite() {
            return Err(PyTypeError::new_err("a number must be finite"));
        }
        out.push_str(&obj.repr()?.to_cow()?);
    } else if let Ok(s) = obj.cast::<PyString>() {
        write_str(&s.to_cow()?, out);
    } else if let Ok(d) = obj.cast::<PyDict>() {
        out.push('{');
        for (i, (k, v)) in d.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let key = k
                .cast::<PyString>()
                .map_err(|_| PyTypeError::new_err("dictionary keys must be str"))?;
            write_str(&key.to_cow()?, out);
            out.push(':');
            write_json(&v, out, depth + 1)?;
        }
        out.push('}');
    } else if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        out.push('[');
        for (i, v) in obj.try_iter()?.enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_json(&v?, out, depth + 1)?;
        }
        out.push(']');
    } else {
        let h = helpers(py)?;
        if obj.is_instance(h.decimal.bind(py))? {
            let text = obj.str()?.to_cow()?.into_owned();
            if !obj.call_method0("is_finite")?.is_truthy()? {
                return Err(PyTypeError::new_err("a Decimal must be finite"));
            }
            out.push_str(&text);
        } else if obj.is_instance(h.datetime.bind(py))? {
            let text = if obj.getattr("tzinfo")?.is_none() {
                format!("{}Z", obj.call_method0("isoformat")?.str()?.to_cow()?)
            } else {
                obj.call_method0("isoformat")?.str()?.to_cow()?.into_owned()
            };
            write_str(&text, out);
        } else if obj.hasattr("isoformat")? {
            write_str(&obj.call_method0("isoformat")?.str()?.to_cow()?, out);
        } else if obj.hasattr("to_dict")? {
            write_json(&obj.call_method0("to_dict")?, out, depth + 1)?;
        } else {
            let name = obj.get_type().name()?.to_string();
            return Err(PyTypeError::new_err(format!("cannot send a {name} value")));
        }
    }
    Ok(())
}
