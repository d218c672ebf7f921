//! Python arguments → the JSON text the core's one argument reader (`abws::params::read`)
//! takes, guided by the parameters' description (`Ty`): a `datetime` or `date` where a
//! date-time is expected becomes ISO 8601 text, a `Decimal` its exact digits, a result
//! model where a nested part is expected gives the fields of that part by name, a tuple of
//! the right length is zipped with the part's field names, a camelCase key of a part is
//! read as its snake_case, and an optional parameter given as `None` is left out. Every
//! rule about values is the core's: its errors name the parameter's path.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple,
};

use abws::describe::{ParamsInfo, Ty};

use crate::errors::to_py_err;

/// `abws._model_base.Model`, `decimal.Decimal`, `datetime.datetime` and `datetime.date`,
/// looked up once.
struct Classes {
    model: Py<PyAny>,
    decimal: Py<PyAny>,
    datetime: Py<PyAny>,
    date: Py<PyAny>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        Ok(Classes {
            model: py.import("abws._model_base")?.getattr("Model")?.unbind(),
            decimal: py.import("decimal")?.getattr("Decimal")?.unbind(),
            datetime: py.import("datetime")?.getattr("datetime")?.unbind(),
            date: py.import("datetime")?.getattr("date")?.unbind(),
        })
    })
}

/// The arguments object of a parameter struct as JSON text.
pub fn args_json(args: &Bound<'_, PyAny>, ty: Ty) -> PyResult<String> {
    let mut w = Writer {
        out: String::with_capacity(128),
        path: String::new(),
        c: classes(args.py())?,
    };
    w.value(args, ty, 0)?;
    Ok(w.out)
}

/// Any Python value as JSON text, without a description (the settings object).
pub fn plain_json(obj: &Bound<'_, PyAny>, root: &str) -> PyResult<String> {
    let mut w = Writer {
        out: String::new(),
        path: root.to_string(),
        c: classes(obj.py())?,
    };
    w.plain(obj, 0)?;
    Ok(w.out)
}

const MAX_DEPTH: usize = 64;

struct Writer<'c> {
    out: String,
    /// The path of the value being written (`order_line_items[3].shipment_id`).
    path: String,
    c: &'c Classes,
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// `orderLineItemId` → `order_line_item_id`.
fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    let mut prev_lower = false;
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else {
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.push(c);
        }
    }
    out
}

impl Writer<'_> {
    fn error(&self, rule: impl Into<String>) -> PyErr {
        let at = if self.path.is_empty() {
            "arguments"
        } else {
            &self.path
        };
        to_py_err(abws::Error::validation(at, rule))
    }

    /// A float where money is taken (refused: money is exact).
    fn float_money(&self) -> PyErr {
        self.error(
            "is a float, and money amounts are exact: pass a Decimal, an int or a str \
             (Decimal(\"0.30\"), not 0.1 + 0.2, which is 0.30000000000000004)",
        )
    }

    fn with_key<T>(&mut self, key: &str, f: impl FnOnce(&mut Self) -> PyResult<T>) -> PyResult<T> {
        let len = self.path.len();
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(key);
        let r = f(self);
        self.path.truncate(len);
        r
    }

    fn with_index<T>(&mut self, i: usize, f: impl FnOnce(&mut Self) -> PyResult<T>) -> PyResult<T> {
        let len = self.path.len();
        self.path.push_str(&format!("[{i}]"));
        let r = f(self);
        self.path.truncate(len);
        r
    }

    fn depth(&self, depth: usize) -> PyResult<()> {
        if depth > MAX_DEPTH {
            return Err(self.error("is nested too deeply"));
        }
        Ok(())
    }

    fn string(&mut self, s: &str) {
        // serde_json writes the escapes JSON needs (and nothing else).
        self.out
            .push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
    }

    fn value(&mut self, obj: &Bound<'_, PyAny>, ty: Ty, depth: usize) -> PyResult<()> {
        self.depth(depth)?;
        match ty {
            Ty::Params(p) => self.params(obj, p, depth),
            Ty::List(t) => self.list(obj, t(), depth),
            Ty::Map(t) => self.map(obj, t(), depth),
            Ty::DateTimeArg => self.datetime_arg(obj),
            Ty::Decimal if obj.is_instance_of::<PyFloat>() => Err(self.float_money()),
            _ => self.plain(obj, depth),
        }
    }

    fn params(&mut self, obj: &Bound<'_, PyAny>, p: &ParamsInfo, depth: usize) -> PyResult<()> {
        if let Ok(d) = obj.cast::<PyDict>() {
            return self.params_entries(d.iter().map(Ok), p, depth);
        }
        if obj.is_instance(self.c.model.bind(obj.py()))? {
            // A result model: the part's fields, picked by name.
            self.out.push('{');
            let mut first = true;
            for f in p.fields {
                let v = match obj.getattr(f.name) {
                    Ok(v) => v,
                    Err(_) => continue,
                };
                if v.is_none() && !f.required {
                    continue;
                }
                self.member(&mut first, f.name, |w| w.value(&v, (f.ty)(), depth + 1))?;
            }
            self.out.push('}');
            return Ok(());
        }
        if let Ok(t) = obj.cast::<PyTuple>() {
            if t.len() != p.fields.len() {
                let names: Vec<&str> = p.fields.iter().map(|f| f.name).collect();
                return Err(self.error(format!(
                    "a tuple must hold {} values ({}), not {}",
                    p.fields.len(),
                    names.join(", "),
                    t.len()
                )));
            }
            self.out.push('{');
            let mut first = true;
            for (f, v) in p.fields.iter().zip(t.iter()) {
                self.member(&mut first, f.name, |w| w.value(&v, (f.ty)(), depth + 1))?;
            }
            self.out.push('}');
            return Ok(());
        }
        if let Ok(m) = obj.cast::<PyMapping>() {
            let items = m.items()?;
            return self.params_entries(
                items.iter().map(|kv| {
                    let kv = kv.cast_into::<PyTuple>()?;
                    Ok((kv.get_item(0)?, kv.get_item(1)?))
                }),
                p,
                depth,
            );
        }
        let names: Vec<&str> = p.fields.iter().map(|f| f.name).collect();
        Err(self.error(format!(
            "must be a mapping of {}, a result model with those fields, or a tuple of them \
             (got {})",
            names.join(", "),
            type_name(obj)
        )))
    }

    fn params_entries<'py>(
        &mut self,
        entries: impl Iterator<Item = PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)>>,
        p: &ParamsInfo,
        depth: usize,
    ) -> PyResult<()> {
        self.out.push('{');
        let mut first = true;
        for kv in entries {
            let (k, v) = kv?;
            let key = self.key(&k)?;
            let field = p.fields.iter().find(|f| f.name == key).or_else(|| {
                let s = snake(&key);
                p.fields.iter().find(|f| f.name == s)
            });
            match field {
                Some(f) if v.is_none() && !f.required => continue,
                Some(f) => self.member(&mut first, f.name, |w| w.value(&v, (f.ty)(), depth + 1))?,
                // Not a parameter: the core refuses it, naming it.
                None => self.member(&mut first, &key, |w| w.plain(&v, depth + 1))?,
            }
        }
        self.out.push('}');
        Ok(())
    }

    /// A dict's key (`str` only).
    fn key(&self, k: &Bound<'_, PyAny>) -> PyResult<String> {
        match k.cast::<PyString>() {
            Ok(s) => Ok(s.to_cow()?.into_owned()),
            Err(_) => Err(self.error("keys must be str")),
        }
    }

    /// `"key":value` of an object being written (a comma before it unless `first`), the
    /// value written by `value` at the key's path.
    fn member(
        &mut self,
        first: &mut bool,
        key: &str,
        value: impl FnOnce(&mut Self) -> PyResult<()>,
    ) -> PyResult<()> {
        if !std::mem::take(first) {
            self.out.push(',');
        }
        self.string(key);
        self.out.push(':');
        self.with_key(key, value)
    }

    fn list(&mut self, obj: &Bound<'_, PyAny>, item: Ty, depth: usize) -> PyResult<()> {
        // One string where a list of strings is expected: a list of that one string
        // (`Sequence[str]` admits a str; iterating its characters would surprise).
        if matches!(item, Ty::Str) && obj.is_instance_of::<PyString>() {
            self.out.push('[');
            self.plain(obj, depth)?;
            self.out.push(']');
            return Ok(());
        }
        let iterable = obj.is_instance_of::<PyList>()
            || obj.is_instance_of::<PyTuple>()
            || !(obj.is_instance_of::<PyString>()
                || obj.is_instance_of::<PyBytes>()
                || obj.is_instance_of::<PyByteArray>()
                || obj.is_instance_of::<PyDict>()
                || obj.cast::<PyMapping>().is_ok()
                || obj.is_instance(self.c.model.bind(obj.py()))?)
                && obj.try_iter().is_ok();
        if !iterable {
            return Err(self.error(format!("must be a list (got {})", type_name(obj))));
        }
        self.container(obj, |w, v| w.value(v, item, depth + 1))
    }

    fn map(&mut self, obj: &Bound<'_, PyAny>, item: Ty, depth: usize) -> PyResult<()> {
        let Ok(d) = obj.cast::<PyDict>() else {
            return self.plain(obj, depth);
        };
        self.container(d, |w, v| w.value(v, item, depth + 1))
    }

    /// `{...}` of a dict (`str` keys) or `[...]` of any other iterable's items, each value
    /// written by `each` at its key's or index's path.
    fn container(
        &mut self,
        obj: &Bound<'_, PyAny>,
        mut each: impl FnMut(&mut Self, &Bound<'_, PyAny>) -> PyResult<()>,
    ) -> PyResult<()> {
        if let Ok(d) = obj.cast::<PyDict>() {
            self.out.push('{');
            let mut first = true;
            for (k, v) in d.iter() {
                let key = self.key(&k)?;
                self.member(&mut first, &key, |w| each(w, &v))?;
            }
            self.out.push('}');
            return Ok(());
        }
        self.out.push('[');
        for (i, v) in obj.try_iter()?.enumerate() {
            let v = v?;
            if i > 0 {
                self.out.push(',');
            }
            self.with_index(i, |w| each(w, &v))?;
        }
        self.out.push(']');
        Ok(())
    }

    /// A `datetime` (naive: UTC), a `date` (midnight UTC) or text (checked by the core).
    fn datetime_arg(&mut self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        if obj.is_instance_of::<PyString>() || obj.is_none() {
            return self.plain(obj, 0);
        }
        let py = obj.py();
        if obj.is_instance(self.c.datetime.bind(py))? {
            return self.datetime(obj);
        }
        if obj.is_instance(self.c.date.bind(py))? {
            let text = obj.call_method0("isoformat")?.str()?.to_cow()?.into_owned();
            self.string(&format!("{text}T00:00:00Z"));
            return Ok(());
        }
        Err(self.error(format!(
            "must be a datetime, a date or ISO 8601 text (got {})",
            type_name(obj)
        )))
    }

    fn datetime(&mut self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        let text = obj.call_method0("isoformat")?.str()?.to_cow()?.into_owned();
        if obj.getattr("tzinfo")?.is_none() {
            self.string(&format!("{text}Z"));
        } else {
            self.string(&text);
        }
        Ok(())
    }

    /// JSON of any value: dicts, lists, tuples, str, int, float, bool, None, `Decimal`
    /// (its exact digits), `datetime`/`date` (ISO text), models and `Money` (their wire
    /// form).
    fn plain(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<()> {
        self.depth(depth)?;
        let py = obj.py();
        if obj.is_none() {
            self.out.push_str("null");
        } else if let Ok(b) = obj.cast::<PyBool>() {
            self.out
                .push_str(if b.is_true() { "true" } else { "false" });
        } else if obj.is_instance_of::<PyInt>() {
            self.out.push_str(&obj.str()?.to_cow()?);
        } else if let Ok(f) = obj.cast::<PyFloat>() {
            // A money amount (`amount` of a Money, an expectation, ...) is exact: a float
            // already lost the digits the caller meant (0.1 + 0.2 is 0.30000000000000004).
            if self.path == "amount" || self.path.ends_with(".amount") {
                return Err(self.float_money());
            }
            if !f.value().is_finite() {
                return Err(self.error("must be a finite number"));
            }
            self.out.push_str(&obj.repr()?.to_cow()?);
        } else if let Ok(s) = obj.cast::<PyString>() {
            self.string(&s.to_cow()?);
        } else if obj.is_instance_of::<PyDict>()
            || obj.is_instance_of::<PyList>()
            || obj.is_instance_of::<PyTuple>()
        {
            self.container(obj, |w, v| w.plain(v, depth + 1))?;
        } else if obj.is_instance(self.c.decimal.bind(py))? {
            if !obj.call_method0("is_finite")?.is_truthy()? {
                return Err(self.error("must be a finite number"));
            }
            self.out.push_str(&obj.str()?.to_cow()?);
        } else if obj.is_instance(self.c.datetime.bind(py))? {
            self.datetime(obj)?;
        } else if obj.is_instance(self.c.date.bind(py))? {
            let text = obj.call_method0("isoformat")?.str()?.to_cow()?.into_owned();
            self.string(&text);
        } else if obj.hasattr("to_dict")? {
            let d = obj.call_method0("to_dict")?;
            self.plain(&d, depth + 1)?;
        } else if let Ok(m) = obj.cast::<PyMapping>() {
            let d = PyDict::new(py);
            for kv in m.items()?.iter() {
                let kv = kv.cast_into::<PyTuple>()?;
                d.set_item(kv.get_item(0)?, kv.get_item(1)?)?;
            }
            self.plain(d.as_any(), depth + 1)?;
        } else {
            return Err(self.error(format!(
                "cannot be sent: a {} value is not JSON",
                type_name(obj)
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::snake;

    #[test]
    fn camel_keys_become_snake() {
        assert_eq!(snake("orderLineItemId"), "order_line_item_id");
        assert_eq!(snake("order_id"), "order_id");
        assert_eq!(snake("addressLine1"), "address_line1");
    }
}
