//! `_abws.Sandbox`: the embedded emulator, started in-process on ephemeral ports.

use std::sync::Mutex;
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use abws_sandbox::{FaultRule, RateLimits, Sandbox, SandboxConfig};

/// A running sandbox; stopped by `stop()` or when collected.
#[pyclass(name = "Sandbox", module = "abws._abws", frozen)]
pub struct PySandbox {
    inner: Mutex<Option<Sandbox>>,
    pid: u32,
}

fn secs(name: &str, v: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(v).map_err(|_| {
        PyValueError::new_err(format!("{name} must be a non-negative number of seconds"))
    })
}

impl PySandbox {
    fn with<T>(&self, f: impl FnOnce(&Sandbox) -> T) -> PyResult<T> {
        let guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        match guard.as_ref() {
            Some(sb) => Ok(f(sb)),
            None => Err(PyRuntimeError::new_err("the sandbox is stopped")),
        }
    }
}

#[pymethods]
impl PySandbox {
    #[new]
    #[pyo3(signature = (*, seed=42, rate_limits="spec", time_scale=1.0, token_lifetime=3600.0,
        page_token_lifetime=900.0, presigned_lifetime=300.0, today=None,
        rotate_refresh_tokens=false, static_mode=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        seed: u64,
        rate_limits: &str,
        time_scale: f64,
        token_lifetime: f64,
        page_token_lifetime: f64,
        presigned_lifetime: f64,
        today: Option<&str>,
        rotate_refresh_tokens: bool,
        static_mode: bool,
    ) -> PyResult<PySandbox> {
        let rate_limits = match rate_limits {
            "spec" => RateLimits::Spec,
            "off" => RateLimits::Off,
            other => {
                return Err(PyValueError::new_err(format!(
                    "rate_limits must be \"spec\" or \"off\" (got {other:?})"
                )))
            }
        };
        if !(time_scale.is_finite() && time_scale > 0.0) {
            return Err(PyValueError::new_err("time_scale must be more than zero"));
        }
        let today = today
            .map(|t| {
                chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d").map_err(|_| {
                    PyValueError::new_err(format!("today must be YYYY-MM-DD (got {t:?})"))
                })
            })
            .transpose()?;
        let config = SandboxConfig {
            seed,
            today,
            rate_limits,
            token_lifetime: secs("token_lifetime", token_lifetime)?,
            page_token_lifetime: secs("page_token_lifetime", page_token_lifetime)?,
            presigned_lifetime: secs("presigned_lifetime", presigned_lifetime)?,
            time_scale,
            static_mode,
            rotate_refresh_tokens,
            ..SandboxConfig::default()
        };
        let sb = py
            .detach(|| Sandbox::spawn(config))
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the sandbox: {e}")))?;
        Ok(PySandbox {
            inner: Mutex::new(Some(sb)),
            pid: std::process::id(),
        })
    }

    /// Addresses and credentials, as the binary prints them.
    fn describe(&self) -> PyResult<String> {
        self.with(|sb| sb.describe().to_string())
    }

    /// The API address of a region's group (`{base_url}/na`, `/eu`, `/fe`), like the
    /// service's regional addresses.
    fn group_url(&self, region: &str) -> PyResult<String> {
        self.with(|sb| sb.group_url(region))
    }

    /// The sandbox's present as the calendar goes (RFC 3339, microseconds, `+00:00`).
    fn now(&self) -> PyResult<String> {
        self.with(|sb| {
            sb.now()
                .to_rfc3339_opts(chrono::SecondsFormat::Micros, false)
        })
    }

    fn counters(&self) -> PyResult<String> {
        self.with(|sb| sb.counters().to_string())
    }

    fn dataset(&self) -> PyResult<String> {
        self.with(|sb| sb.dataset().to_string())
    }

    /// Adds a fault rule given in the JSON form of `POST /_sandbox/faults`; a path that
    /// can match nothing (a misspelt operationId) is a `ValidationError` of `path`.
    fn inject(&self, rule_json: &str) -> PyResult<()> {
        let v: serde_json::Value = serde_json::from_str(rule_json)
            .map_err(|e| PyValueError::new_err(format!("fault rule is not JSON: {e}")))?;
        let rule = FaultRule::from_json(&v).map_err(PyValueError::new_err)?;
        if let Some(why) = rule.unknown_path() {
            return Err(crate::errors::to_py_err(abws::Error::validation(
                "path", why,
            )));
        }
        self.with(|sb| sb.inject(rule))
    }

    fn clear_faults(&self) -> PyResult<()> {
        self.with(|sb| sb.clear_faults())
    }

    fn reset_counters(&self) -> PyResult<()> {
        self.with(|sb| sb.reset_counters())
    }

    fn expire_tokens(&self) -> PyResult<()> {
        self.with(|sb| sb.expire_tokens())
    }

    fn revoke(&self) -> PyResult<()> {
        self.with(|sb| sb.revoke())
    }

    fn set_rate(&self, operation: &str, rate: f64, burst: u32) -> PyResult<bool> {
        self.with(|sb| sb.set_rate(operation, rate, burst))
    }

    fn credentials<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.with(|sb| sb.credentials())?;
        let d = PyDict::new(py);
        d.set_item("client_id", c.client_id)?;
        d.set_item("client_secret", c.client_secret)?;
        d.set_item("refresh_token", c.refresh_token)?;
        d.set_item("user_email", c.user_email)?;
        d.set_item("application_id", c.application_id)?;
        d.set_item("redirect_uri", c.redirect_uri)?;
        Ok(d)
    }

    /// Stops the listeners and releases the ports. Idempotent.
    fn stop(&self, py: Python<'_>) {
        let taken = self.inner.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(sb) = taken {
            if std::process::id() == self.pid {
                py.detach(|| sb.stop());
            } else {
                // A forked child: the server thread exists only in the parent.
                std::mem::forget(sb);
            }
        }
    }
}

impl Drop for PySandbox {
    fn drop(&mut self) {
        if std::process::id() != self.pid {
            if let Some(sb) = self.inner.lock().unwrap_or_else(|p| p.into_inner()).take() {
                std::mem::forget(sb);
            }
        }
    }
}
