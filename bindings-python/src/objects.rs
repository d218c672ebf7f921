//! The Python objects of a result: instances of the generated classes of `abws.models`,
//! `Decimal`, aware `datetime`, `abws.Money`, made as `from_json.rs` reads the JSON.
//! (Arguments go the other way in `args.rs`.)
//!
//! A big page is ~500,000 Python objects, so the hot path stays off Python's generic
//! machinery: instances are made by `object.__new__`'s C function and filled through
//! their `__dict__` without attribute lookups (`Money`, which has slots, through its slot
//! descriptors), lists are made at their final length, and immutable leaves (`Decimal`,
//! `datetime`, repeated strings) are shared (`leaves.rs`).

use std::os::raw::c_int;
use std::sync::{Arc, Mutex};

use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};

use abws::describe::FieldInfo;
use abws::AmountForm;

use crate::leaves::{Leaf, Leaves};

/// Python objects the conversion needs, looked up once.
pub(crate) struct Helpers {
    decimal: Py<PyAny>,
    datetime: Py<PyAny>,
    utc: Py<PyAny>,
    timezone: Py<PyAny>,
    timedelta: Py<PyAny>,
    money: Py<PyAny>,
    model: Py<PyAny>,
    models: Py<PyModule>,
    pub(crate) loads_raw: Py<PyAny>,
    offsets: Py<PyDict>,
    /// `object.__new__`'s C function (`tp_new` of `object`), called without the
    /// argument tuple and type checks of the Python-level call.
    object_new: ffi::newfunc,
    empty_tuple: Py<PyTuple>,
    /// Attribute names of `Money`.
    amount: Py<PyString>,
    currency_code: Py<PyString>,
    flags: Py<PyString>,
    money_extra: Py<PyString>,
    pub(crate) wire: Py<PyString>,
    pub(crate) extra: Py<PyString>,
    pub(crate) nulls: Py<PyString>,
}

// SAFETY (Send + Sync): `object_new` is a plain C function pointer of the interpreter.
unsafe impl Send for Helpers {}
unsafe impl Sync for Helpers {}

/// The class of each model type, by the address and length of its name (a `&'static
/// str`: no hashing of text per object), found in `abws.models` on first use.
static CLASSES: Mutex<Vec<(ShapeKey, Arc<Shape>)>> = Mutex::new(Vec::new());

type ShapeKey = (usize, usize);

/// A model class and the Python names of its declared fields, in the order of the core's
/// fields (made once, not per object).
pub(crate) struct Shape {
    class: Py<PyAny>,
    pub(crate) names: Vec<Py<PyString>>,
    /// The class makes its instances with `object.__new__` (true for every generated
    /// class; checked, so that a class with its own `__new__` is still made by it).
    plain_new: bool,
}

fn shape_key(type_name: &'static str) -> ShapeKey {
    (type_name.as_ptr() as usize, type_name.len())
}

static HELPERS: PyOnceLock<Helpers> = PyOnceLock::new();

/// `tp_new` of a type (`PyType_GetSlot` works on static types from Python 3.10, the
/// oldest this extension supports).
fn tp_new(t: *mut ffi::PyTypeObject) -> Option<ffi::newfunc> {
    // SAFETY: `t` is a live type object; the slot holds a `newfunc` or is null.
    unsafe {
        let slot = ffi::PyType_GetSlot(t, ffi::Py_tp_new);
        (!slot.is_null()).then(|| std::mem::transmute::<*mut std::ffi::c_void, ffi::newfunc>(slot))
    }
}

fn helpers(py: Python<'_>) -> PyResult<&Helpers> {
    HELPERS.get_or_try_init(py, || {
        let dec = py.import("decimal")?;
        let dt = py.import("datetime")?;
        let base = py.import("abws._model_base")?;
        let models = py.import("abws.models")?;
        let object = std::ptr::addr_of_mut!(ffi::PyBaseObject_Type);
        let object_new = tp_new(object).ok_or_else(|| {
            crate::errors::to_py_err(abws::Error::internal("object has no tp_new"))
        })?;
        // `money()` makes `Money`s with `object.__new__`'s C function: only right while
        // `Money` has no `__new__` of its own.
        let money = base.getattr("Money")?;
        let money_new = money
            .cast::<pyo3::types::PyType>()
            .ok()
            .and_then(|t| tp_new(t.as_type_ptr()));
        if !money_new.is_some_and(|f| std::ptr::fn_addr_eq(f, object_new)) {
            return Err(crate::errors::to_py_err(abws::Error::internal(
                "abws.Money has its own __new__; objects.rs makes it with object.__new__",
            )));
        }
        Ok(Helpers {
            decimal: dec.getattr("Decimal")?.unbind(),
            datetime: dt.getattr("datetime")?.unbind(),
            utc: dt.getattr("timezone")?.getattr("utc")?.unbind(),
            timezone: dt.getattr("timezone")?.unbind(),
            timedelta: dt.getattr("timedelta")?.unbind(),
            money: money.unbind(),
            model: base.getattr("Model")?.unbind(),
            models: models.unbind(),
            loads_raw: base.getattr("_loads_raw")?.unbind(),
            offsets: PyDict::new(py).unbind(),
            object_new,
            empty_tuple: PyTuple::empty(py).unbind(),
            amount: PyString::intern(py, "amount").unbind(),
            currency_code: PyString::intern(py, "currency_code").unbind(),
            flags: PyString::intern(py, "_flags").unbind(),
            money_extra: PyString::intern(py, "_extra").unbind(),
            wire: PyString::intern(py, "_wire").unbind(),
            extra: PyString::intern(py, "_extra").unbind(),
            nulls: PyString::intern(py, "_nulls").unbind(),
        })
    })
}

/// Takes a finished container (model instance, `Money`, list, dict) out of the cyclic
/// collector's lists. A result is a tree made from JSON, so it holds no cycle; a big page
/// makes ~145,000 such containers, and each later collection would walk them all
/// (docs/decisions/021-python-results.md, "Python results are not tracked by the cyclic GC"). Call it only once
/// the container is filled: inserting a tracked value re-tracks a dict.
pub(crate) fn untrack(obj: &Bound<'_, PyAny>) {
    // SAFETY: `obj` is a live object of a GC type (dict, list or a Python class instance);
    // untracking an object that is not tracked is a no-op.
    unsafe { ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) }
}

/// The attributes of a fresh instance being filled: its `__dict__`, made at once
/// (`PyObject_GenericGetDict`: a dict sharing its class's key table) and taken out of
/// the collector with the instance once filled.
pub(crate) struct Fill<'py> {
    inst: Bound<'py, PyAny>,
    dict: Bound<'py, PyAny>,
}

impl<'py> Fill<'py> {
    pub(crate) fn new(inst: Bound<'py, PyAny>) -> PyResult<Fill<'py>> {
        // SAFETY: a live instance of a class with a `__dict__`; returns a new reference.
        let dict = unsafe {
            Bound::from_owned_ptr_or_err(
                inst.py(),
                ffi::PyObject_GenericGetDict(inst.as_ptr(), std::ptr::null_mut()),
            )?
        };
        Ok(Fill { inst, dict })
    }

    pub(crate) fn set(&self, name: &Py<PyString>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        // SAFETY: three live objects; `PyDict_SetItem` does not steal references.
        let rc: c_int =
            unsafe { ffi::PyDict_SetItem(self.dict.as_ptr(), name.as_ptr(), value.as_ptr()) };
        checked(self.inst.py(), rc)
    }

    pub(crate) fn done(self) -> Py<PyAny> {
        untrack(&self.dict);
        untrack(&self.inst);
        self.inst.unbind()
    }
}

/// Sets a slot of a fresh `Money` by its interned name, through the slot's descriptor:
/// `PyObject_GenericSetAttr` is `object.__setattr__`, which `Money`'s own `__setattr__`
/// (it refuses: a `Money` is immutable) leaves to its constructors.
fn set_slot(
    inst: &Bound<'_, PyAny>,
    name: &Py<PyString>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    // SAFETY: three live objects; `PyObject_GenericSetAttr` does not steal references.
    let rc: c_int =
        unsafe { ffi::PyObject_GenericSetAttr(inst.as_ptr(), name.as_ptr(), value.as_ptr()) };
    checked(inst.py(), rc)
}

/// Bits of `Money._flags` (`_model_base.py`): the amount is a JSON string; `currencyCode`,
/// `amount` came as `null`.
pub(crate) const STRING_FORM: u8 = 1;
pub(crate) const NULL_CURRENCY: u8 = 2;
pub(crate) const NULL_AMOUNT: u8 = 4;

/// A C API call's return code as a result: below 0, the exception it set.
fn checked(py: Python<'_>, rc: c_int) -> PyResult<()> {
    if rc < 0 {
        return Err(PyErr::fetch(py));
    }
    Ok(())
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

/// A `datetime` of a timestamp (with its fixed offset as a `timezone`).
pub(crate) fn new_datetime(
    py: Python<'_>,
    h: &Helpers,
    ts: &abws::Timestamp,
) -> PyResult<Py<PyAny>> {
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
pub(crate) fn renders_as_received(ts: &abws::Timestamp) -> bool {
    use chrono::Timelike;
    let text = ts.as_str().as_bytes();
    // The common `2026-07-06T05:23:00Z`: that exact shape parsed is what `_iso` writes
    // (unless it was a leap second, which Python cannot hold).
    if text.len() == 20 && text[10] == b'T' && text[19] == b'Z' {
        return ts.value().nanosecond() < 1_000_000_000;
    }
    ts.as_str() == wire_style(&ts.value())
}

fn shape(
    py: Python<'_>,
    h: &Helpers,
    type_name: &'static str,
    fields: &'static [FieldInfo],
) -> PyResult<Arc<Shape>> {
    let key = shape_key(type_name);
    let classes = || CLASSES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, found)) = classes().iter().find(|(k, _)| *k == key) {
        return Ok(found.clone());
    }
    let made = Arc::new(make_shape(py, h, type_name, fields)?);
    classes().push((key, made.clone()));
    Ok(made)
}

/// Finds the generated class of a model and matches its `_fields` (attribute, wire name)
/// to the core's fields by wire name.
fn make_shape(
    py: Python<'_>,
    h: &Helpers,
    type_name: &'static str,
    fields: &'static [FieldInfo],
) -> PyResult<Shape> {
    let stale = |what: String| {
        crate::errors::to_py_err(abws::Error::internal(format!(
            "abws.models {what}: the Python package and the extension come from different \
             builds (run `cargo run -p xtask -- gen` and reinstall)"
        )))
    };
    let class = h
        .models
        .bind(py)
        .getattr(type_name)
        .map_err(|_| stale(format!("has no class {type_name}")))?;
    let class_type = class.cast::<pyo3::types::PyType>().ok();
    let is_model = class_type
        .map(|t| t.is_subclass(h.model.bind(py)))
        .unwrap_or(Ok(false))?;
    if !is_model {
        return Err(stale(format!("{type_name} is not a Model class")));
    }
    let declared: Vec<(String, String)> = class.getattr(intern!(py, "_fields"))?.extract()?;
    let mut names = Vec::with_capacity(fields.len());
    for f in fields {
        let name = declared
            .iter()
            .find(|(_, w)| w == f.wire)
            .map(|(n, _)| n.as_str())
            .ok_or_else(|| stale(format!("{type_name} has no field for {}", f.wire)))?;
        names.push(PyString::intern(py, name).unbind());
    }
    if declared.len() != fields.len() {
        return Err(stale(format!("{type_name} declares other fields")));
    }
    let plain_new = class_type
        .and_then(|t| tp_new(t.as_type_ptr()))
        .is_some_and(|f| std::ptr::fn_addr_eq(f, h.object_new));
    Ok(Shape {
        class: class.unbind(),
        names,
        plain_new,
    })
}

/// Makes the Python objects of one result (`from_json.rs` reads them from the JSON).
pub(crate) struct Build<'py, 'a> {
    pub(crate) py: Python<'py>,
    pub(crate) h: &'py Helpers,
    pub(crate) leaves: Leaves<'a>,
    /// The shapes met in this result (a page holds a handful of types): no lock per
    /// object; with the string slot of each one's first field in `leaves`.
    shapes: Vec<(ShapeKey, Arc<Shape>, crate::leaves::Slot)>,
}

impl<'py, 'a> Build<'py, 'a> {
    pub(crate) fn new(py: Python<'py>) -> PyResult<Build<'py, 'a>> {
        Ok(Build {
            py,
            h: helpers(py)?,
            leaves: Leaves::default(),
            shapes: Vec::new(),
        })
    }

    pub(crate) fn decimal(
        &mut self,
        v: &abws::Decimal,
        negative_zero: bool,
    ) -> PyResult<Py<PyAny>> {
        let (py, h) = (self.py, self.h);
        self.leaves
            .get_or_make(py, Leaf::Decimal(v.serialize(), negative_zero), || {
                // A whole amount (yen, most tax lines) from an int: the same `Decimal`
                // (exponent 0) without writing and parsing its text.
                if v.scale() == 0 && !negative_zero {
                    if let Ok(whole) = i64::try_from(v.mantissa()) {
                        return Ok(h.decimal.bind(py).call1((whole,))?.unbind());
                    }
                }
                let text = if negative_zero {
                    format!("-{v}")
                } else {
                    v.to_string()
                };
                Ok(h.decimal.bind(py).call1((text,))?.unbind())
            })
    }

    /// A string; `slot` names where it sits (a model's field, a map's keys or values), so
    /// that repeated values are shared where a slot repeats them.
    pub(crate) fn string(&mut self, s: &'a str, slot: crate::leaves::Slot) -> Py<PyAny> {
        let py = self.py;
        self.leaves.string(py, s, slot)
    }

    /// The shape of a model, and the number of the string slot of its first field.
    pub(crate) fn shape(
        &mut self,
        type_name: &'static str,
        fields: &'static [FieldInfo],
    ) -> PyResult<(crate::leaves::Slot, Arc<Shape>)> {
        let key = shape_key(type_name);
        if let Some((_, s, slot)) = self.shapes.iter().find(|(k, _, _)| *k == key) {
            return Ok((*slot, s.clone()));
        }
        let s = shape(self.py, self.h, type_name, fields)?;
        let slot = self.leaves.field_slots(s.names.len());
        self.shapes.push((key, s.clone(), slot));
        Ok((slot, s))
    }

    /// A fresh instance of a model class, without running `__init__`.
    pub(crate) fn instance(&self, shape: &Shape) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let class = shape.class.bind(py);
        if !shape.plain_new {
            return class.call_method1(intern!(py, "__new__"), (class,));
        }
        // SAFETY: `object.__new__`'s C function on a class whose own `tp_new` it is, with
        // an empty argument tuple: what `object.__new__(class)` does after its checks.
        unsafe {
            let obj = (self.h.object_new)(
                class.as_ptr().cast(),
                self.h.empty_tuple.as_ptr(),
                std::ptr::null_mut(),
            );
            Bound::from_owned_ptr_or_err(py, obj)
        }
    }

    /// An `abws.Money` of an amount (`None` when it came `null` or not at all), its
    /// currency code (a string or `None`), which of the two came as `null` (`NULL_*`) and
    /// its unknown fields (a dict, or `None` when there are none).
    pub(crate) fn money_of(
        &mut self,
        amount: Option<&abws::Amount>,
        currency: Py<PyAny>,
        nulls: u8,
        extra: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let (py, h) = (self.py, self.h);
        let mut flags = nulls;
        let amount = match amount {
            Some(a) => {
                if a.form() == AmountForm::String {
                    flags |= STRING_FORM;
                }
                self.decimal(&a.value(), a.is_negative_zero())?
            }
            None => py.None(),
        };
        // Filled directly, without running Money.__init__ (hot path of big pages): its
        // four slots, set through their descriptors (`Money` has no `__dict__`).
        // SAFETY: as in `instance`; `helpers` checked that `Money`'s `tp_new` is object's.
        let inst = unsafe {
            let obj = (h.object_new)(
                h.money.as_ptr().cast(),
                h.empty_tuple.as_ptr(),
                std::ptr::null_mut(),
            );
            Bound::from_owned_ptr_or_err(py, obj)?
        };
        set_slot(&inst, &h.amount, amount.bind(py))?;
        set_slot(&inst, &h.currency_code, currency.bind(py))?;
        // A small int: CPython's cached object, nothing allocated.
        set_slot(&inst, &h.flags, flags.into_pyobject(py)?.as_any())?;
        let extra = extra.unwrap_or_else(|| py.None());
        set_slot(&inst, &h.money_extra, extra.bind(py))?;
        untrack(&inst);
        Ok(inst.unbind())
    }
}
