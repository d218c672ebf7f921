//! A result's `Node` tree into Python objects: instances of the generated classes of
//! `abws.models`, `Decimal`, aware `datetime`, `abws.Money`. (Arguments go the other way
//! in `args.rs`.)

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};
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
    model: Py<PyAny>,
    models: Py<PyModule>,
    loads_raw: Py<PyAny>,
    object_new: Py<PyAny>,
    offsets: Py<PyDict>,
}

/// The class of each model type, by the address and length of its name (a `&'static
/// str`: no hashing of text per object), found in `abws.models` on first use.
static CLASSES: Mutex<Vec<(ShapeKey, Arc<Shape>)>> = Mutex::new(Vec::new());

type ShapeKey = (usize, usize);

/// A model class and the Python names of its declared fields, in the order of the core's
/// fields (made once, not per object).
struct Shape {
    class: Py<PyAny>,
    names: Vec<Py<PyString>>,
}

fn shape_key(o: &Object<'_>) -> ShapeKey {
    (o.type_name.as_ptr() as usize, o.type_name.len())
}

static HELPERS: PyOnceLock<Helpers> = PyOnceLock::new();

fn helpers(py: Python<'_>) -> PyResult<&Helpers> {
    HELPERS.get_or_try_init(py, || {
        let dec = py.import("decimal")?;
        let dt = py.import("datetime")?;
        let base = py.import("abws._model_base")?;
        let models = py.import("abws.models")?;
        let builtins = py.import("builtins")?;
        Ok(Helpers {
            decimal: dec.getattr("Decimal")?.unbind(),
            datetime: dt.getattr("datetime")?.unbind(),
            utc: dt.getattr("timezone")?.getattr("utc")?.unbind(),
            timezone: dt.getattr("timezone")?.unbind(),
            timedelta: dt.getattr("timedelta")?.unbind(),
            money: base.getattr("Money")?.unbind(),
            model: base.getattr("Model")?.unbind(),
            models: models.unbind(),
            loads_raw: base.getattr("_loads_raw")?.unbind(),
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
        shapes: Vec::new(),
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
    if let Some((_, found)) = classes().iter().find(|(k, _)| *k == key) {
        return Ok(found.clone());
    }
    let made = Arc::new(make_shape(py, h, o)?);
    classes().push((key, made.clone()));
    Ok(made)
}

/// Finds the generated class of a model and matches its `_fields` (attribute, wire name)
/// to the core's fields by wire name.
fn make_shape(py: Python<'_>, h: &Helpers, o: &Object<'_>) -> PyResult<Shape> {
    let stale = |what: String| {
        crate::errors::to_py_err(abws::Error::internal(format!(
            "abws.models {what}: the Python package and the extension come from different \
             builds (run `cargo run -p xtask -- gen` and reinstall)"
        )))
    };
    let class = h
        .models
        .bind(py)
        .getattr(o.type_name)
        .map_err(|_| stale(format!("has no class {}", o.type_name)))?;
    let is_model = class
        .cast::<pyo3::types::PyType>()
        .map(|t| t.is_subclass(h.model.bind(py)))
        .unwrap_or(Ok(false))?;
    if !is_model {
        return Err(stale(format!("{} is not a Model class", o.type_name)));
    }
    let declared: Vec<(String, String)> = class.getattr(intern!(py, "_fields"))?.extract()?;
    let mut names = Vec::with_capacity(o.fields.len());
    for (_, wire, _) in &o.fields {
        let name = declared
            .iter()
            .find(|(_, w)| w == wire)
            .map(|(n, _)| n.as_str())
            .ok_or_else(|| stale(format!("{} has no field for {wire}", o.type_name)))?;
        names.push(PyString::intern(py, name).unbind());
    }
    if declared.len() != o.fields.len() {
        return Err(stale(format!("{} declares other fields", o.type_name)));
    }
    Ok(Shape {
        class: class.unbind(),
        names,
    })
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
    /// The shapes met in this result (a page holds a handful of types): no lock per object.
    shapes: Vec<(ShapeKey, Arc<Shape>)>,
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

    fn shape(&mut self, o: &Object<'_>) -> PyResult<Arc<Shape>> {
        let key = shape_key(o);
        if let Some((_, s)) = self.shapes.iter().find(|(k, _)| *k == key) {
            return Ok(s.clone());
        }
        let s = shape(self.py, self.h, o)?;
        self.shapes.push((key, s.clone()));
        Ok(s)
    }

    fn object(&mut self, o: &'a Object<'a>) -> PyResult<Py<PyAny>> {
        let (py, h) = (self.py, self.h);
        let shape = self.shape(o)?;
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
        // Fields that came as an explicit `null` (bit i: field i), so that `to_dict()`
        // gives them back; absent on almost every object.
        if o.nulls.bits() != 0 {
            fields.set_item(intern!(py, "_nulls"), o.nulls.bits())?;
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
