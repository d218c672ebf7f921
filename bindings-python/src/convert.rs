//! Conversion both ways: a result's `Node` tree into Python objects (`abws.Model`
//! subclasses, `Decimal`, aware `datetime`, `abws.Money`), and Python arguments into the
//! JSON text the core's parameter structs are read from.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyModule, PyString, PyTuple};
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
    gc: Py<PyModule>,
}

/// Model classes by declared shape: two result types may share a name (reconciliation's
/// and reporting's former `OrderLineItem`, now `OrderReportLineItem`), so the key is the name and every field name.
static CLASSES: Mutex<Option<HashMap<u64, Shape>>> = Mutex::new(None);

/// A model class and its field names as Python strings (made once, not per object).
struct Shape {
    class: Py<PyAny>,
    names: Vec<Py<PyString>>,
}

fn shape_key(o: &Object<'_>) -> u64 {
    // The names are `&'static str`s: their addresses and lengths identify them.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (o.type_name.as_ptr() as usize, o.type_name.len()).hash(&mut h);
    for (name, wire, _) in &o.fields {
        (name.as_ptr() as usize, name.len(), wire.as_ptr() as usize).hash(&mut h);
    }
    h.finish()
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
            gc: py.import("gc")?.unbind(),
        })
    })
}

/// Converts any result to Python.
pub fn to_py<T: ToNode + ?Sized>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let h = helpers(py)?;
    // A big page makes hundreds of thousands of objects, none of them in a cycle: the
    // cyclic collector would walk the growing heap again and again while they are made.
    let gc = h.gc.bind(py);
    let was_enabled = gc.call_method0(intern!(py, "isenabled"))?.is_truthy()?;
    if was_enabled {
        gc.call_method0(intern!(py, "disable"))?;
    }
    let out = node_to_py(py, h, &value.to_node());
    if was_enabled {
        gc.call_method0(intern!(py, "enable"))?;
    }
    out
}

fn decimal(py: Python<'_>, h: &Helpers, v: &abws::Decimal) -> PyResult<Py<PyAny>> {
    Ok(h.decimal.bind(py).call1((v.to_string(),))?.unbind())
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

fn datetime(py: Python<'_>, h: &Helpers, ts: &abws::Timestamp) -> PyResult<Py<PyAny>> {
    use chrono::{Datelike, Offset, Timelike};
    let v = ts.value();
    let zone = tz(py, h, v.offset().fix().local_minus_utc())?;
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
    Ok(h.datetime.bind(py).call1(args)?.unbind())
}

/// True when the Python value of a node cannot be written back to the wire exactly
/// (date-times keep their text, string amounts their quotes), so the model keeps the
/// wire value of that field apart for `to_dict()`.
fn needs_wire(node: &Node<'_>) -> bool {
    match node {
        Node::DateTime(_) | Node::Decimal(_, AmountForm::String) => true,
        Node::List(items) => items.iter().any(needs_wire),
        Node::Map(entries) => entries.iter().any(|(_, v)| needs_wire(v)),
        _ => false,
    }
}

fn wire_value(py: Python<'_>, h: &Helpers, node: &Node<'_>) -> PyResult<Py<PyAny>> {
    match node {
        Node::DateTime(ts) => ts.as_str().into_py_any(py),
        Node::Decimal(v, AmountForm::String) => v.to_string().into_py_any(py),
        Node::List(items) => {
            let list = PyList::empty(py);
            for it in items {
                list.append(wire_value(py, h, it)?)?;
            }
            Ok(list.into_any().unbind())
        }
        Node::Map(entries) => {
            let d = PyDict::new(py);
            for (k, v) in entries {
                d.set_item(*k, wire_value(py, h, v)?)?;
            }
            Ok(d.into_any().unbind())
        }
        other => node_to_py(py, h, other),
    }
}

fn object(py: Python<'_>, h: &Helpers, o: &Object<'_>) -> PyResult<Py<PyAny>> {
    let key = shape_key(o);
    let cached = CLASSES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .and_then(|m| {
            m.get(&key).map(|c| {
                (
                    c.class.clone_ref(py),
                    c.names.iter().map(|n| n.clone_ref(py)).collect::<Vec<_>>(),
                )
            })
        });
    let (cls, names) = match cached {
        Some(c) => c,
        None => {
            let fields = PyTuple::new(
                py,
                o.fields
                    .iter()
                    .map(|(name, wire, _)| PyTuple::new(py, [*name, *wire]))
                    .collect::<PyResult<Vec<_>>>()?,
            )?;
            let c = h
                .model_class
                .bind(py)
                .call1((o.type_name, fields))?
                .unbind();
            let names: Vec<Py<PyString>> = o
                .fields
                .iter()
                .map(|(name, _, _)| PyString::intern(py, name).unbind())
                .collect();
            CLASSES
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert_with(HashMap::new)
                .insert(
                    key,
                    Shape {
                        class: c.clone_ref(py),
                        names: names.iter().map(|n| n.clone_ref(py)).collect(),
                    },
                );
            (c, names)
        }
    };
    let inst = h.object_new.bind(py).call1((cls.bind(py),))?;
    let dict = inst.getattr(intern!(py, "__dict__"))?;
    let dict = dict.cast::<PyDict>()?;
    let mut wire: Option<Bound<'_, PyDict>> = None;
    for ((_, _, node), name) in o.fields.iter().zip(&names) {
        let name = name.bind(py);
        dict.set_item(name, node_to_py(py, h, node)?)?;
        if needs_wire(node) {
            let w = wire.get_or_insert_with(|| PyDict::new(py));
            w.set_item(name, wire_value(py, h, node)?)?;
        }
    }
    if let Some(w) = wire {
        dict.set_item(intern!(py, "_wire"), w)?;
    }
    if !o.extra.is_empty() {
        let extra = PyDict::new(py);
        for (k, raw) in o.extra.iter() {
            extra.set_item(k, h.loads_raw.bind(py).call1((raw,))?)?;
        }
        dict.set_item(intern!(py, "_extra"), extra)?;
    }
    Ok(inst.unbind())
}

fn node_to_py(py: Python<'_>, h: &Helpers, node: &Node<'_>) -> PyResult<Py<PyAny>> {
    match node {
        Node::Null => Ok(py.None()),
        Node::Bool(b) => b.into_py_any(py),
        Node::Int(i) => i.into_py_any(py),
        Node::Str(s) => s.into_py_any(py),
        Node::Decimal(v, _) => decimal(py, h, v),
        Node::Money(m) => {
            let amount = decimal(py, h, &m.amount.value())?;
            let string_form = m.amount.form() == AmountForm::String;
            // Filled directly, without running Money.__init__ (hot path of big pages).
            let inst = h.object_new.bind(py).call1((h.money.bind(py),))?;
            let dict = inst.getattr(intern!(py, "__dict__"))?;
            let dict = dict.cast::<PyDict>()?;
            dict.set_item(intern!(py, "amount"), amount)?;
            dict.set_item(intern!(py, "currency_code"), m.currency_code.as_deref())?;
            if string_form {
                dict.set_item(intern!(py, "_string_form"), true)?;
            }
            Ok(inst.unbind())
        }
        Node::DateTime(ts) => datetime(py, h, ts),
        Node::List(items) => {
            let list = PyList::empty(py);
            for it in items {
                list.append(node_to_py(py, h, it)?)?;
            }
            Ok(list.into_any().unbind())
        }
        Node::Map(entries) => {
            let d = PyDict::new(py);
            for (k, v) in entries {
                d.set_item(*k, node_to_py(py, h, v)?)?;
            }
            Ok(d.into_any().unbind())
        }
        Node::Object(o) => object(py, h, o),
        Node::Raw(text) => Ok(h.loads_raw.bind(py).call1((*text,))?.unbind()),
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
