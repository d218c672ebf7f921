//! Fault rules: what the sandbox does wrong on purpose (status, delay, connection-level faults).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::rng::Rng;

/// What a matching request gets instead of (or on top of) its normal answer.
#[derive(Debug, Clone, PartialEq)]
pub enum FaultAction {
    /// Answer this status without running the handler; default body is the error envelope.
    Status {
        status: u16,
        body: Option<Value>,
        headers: BTreeMap<String, String>,
    },
    /// A 200 answer with these exact bytes (a document archive made by a test).
    Bytes(Vec<u8>),
    /// Wait before processing the request (so before the headers).
    Delay { delay_ms: u64 },
    /// Close the connection with a TCP reset after reading the request, before any byte.
    ResetBeforeHeaders,
    /// Send the first n bytes of the response, then reset.
    ResetAfterBytes(u64),
    /// Declare a Content-Length larger than the body sent, then close.
    Truncate,
    /// Send a chunked body whose framing is broken, then close.
    BrokenChunking,
    /// Send the response at this many bytes per second.
    BytesPerSecond(u64),
    /// Send n bytes of the response, then nothing more (the connection stays open).
    StallAfterBytes(u64),
    /// A 200 answer whose body is HTML, not JSON.
    NonJson,
    /// The real answer (the handler runs: an order is created) with its body cut to its
    /// first half, correctly framed: a 2xx whose JSON does not decode.
    Garbled,
    /// A 200 JSON answer of this many bytes.
    Oversized(u64),
    /// Answer a redirect to `location`.
    Redirect { status: u16, location: String },
}

/// One rule: requests matching `path` (a path prefix starting with '/', or an operationId)
/// get `action`, for the next `times` matches or with `probability`.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultRule {
    pub path: String,
    /// How many matching requests fire the rule; None = unlimited (or by probability).
    pub times: Option<u32>,
    /// Fire with this probability (0..=1) instead of always.
    pub probability: Option<f64>,
    /// Restrict to one listener: "api", "documents" or "foreign".
    pub listener: Option<String>,
    /// For connection-level faults: run the real handler first (default true), so side
    /// effects such as an order being created happen although the answer is lost.
    pub process: bool,
    pub action: FaultAction,
}

impl FaultRule {
    pub fn new(path: impl Into<String>, action: FaultAction) -> FaultRule {
        FaultRule {
            path: path.into(),
            times: None,
            probability: None,
            listener: None,
            process: true,
            action,
        }
    }

    /// Refuses a rule whose `path` can match nothing: not a path prefix (`/…`), not `*`
    /// and not an operationId of the sandbox. The message (which starts with "path ")
    /// lists the operationIds; `unknown_path` gives it without that word.
    pub fn check(&self) -> Result<(), String> {
        match self.unknown_path() {
            Some(rule) => Err(format!("path {rule}")),
            None => Ok(()),
        }
    }

    /// Why the rule's `path` matches nothing, if it does not (see `check`).
    pub fn unknown_path(&self) -> Option<String> {
        let p = self.path.as_str();
        if p.starts_with('/') || p == "*" || abws_spec::by_id(p).is_some() {
            return None;
        }
        let names: Vec<&str> = abws_spec::ALL.iter().map(|o| o.id).collect();
        Some(format!(
            "{p:?} is not an operationId of the sandbox, a path prefix starting with '/' \
             or '*'; the operationIds are: {}",
            names.join(", ")
        ))
    }

    pub fn times(mut self, n: u32) -> FaultRule {
        self.times = Some(n);
        self
    }

    pub fn probability(mut self, p: f64) -> FaultRule {
        self.probability = Some(p);
        self
    }

    /// The JSON form of `POST /_sandbox/faults`.
    pub fn from_json(v: &Value) -> Result<FaultRule, String> {
        let path = v
            .get("path")
            .and_then(Value::as_str)
            .ok_or("path is required")?
            .to_string();
        let times = match v.get("times") {
            None | Some(Value::Null) => None,
            Some(t) => Some(t.as_u64().ok_or("times must be a non-negative integer")? as u32),
        };
        let probability = match v.get("probability") {
            None | Some(Value::Null) => None,
            Some(p) => {
                let p = p.as_f64().ok_or("probability must be a number")?;
                if !(0.0..=1.0).contains(&p) {
                    return Err("probability must be within 0..1".into());
                }
                Some(p)
            }
        };
        let listener = v.get("listener").and_then(Value::as_str).map(String::from);
        let process = v.get("process").and_then(Value::as_bool).unwrap_or(true);
        let action = FaultAction::from_json(v.get("action").ok_or("action is required")?)?;
        Ok(FaultRule {
            path,
            times,
            probability,
            listener,
            process,
            action,
        })
    }

    pub fn to_json(&self) -> Value {
        json!({"path": self.path, "times": self.times, "probability": self.probability,
               "listener": self.listener, "process": self.process, "action": self.action.to_json()})
    }

    /// Compact text form used by the binary's `--fault`:
    /// `TARGET[,times=N][,probability=P][,listener=L][,noprocess],KIND[=VALUE]` where KIND is
    /// status=503 | delay_ms=N | reset | reset_after_bytes=N | truncate | broken_chunking |
    /// bytes_per_second=N | stall_after_bytes=N | non_json | oversized_bytes=N |
    /// redirect=302@URL.
    pub fn parse(spec: &str) -> Result<FaultRule, String> {
        let mut parts = spec.split(',');
        let path = parts
            .next()
            .filter(|p| !p.is_empty())
            .ok_or("empty fault")?;
        let mut rule = FaultRule::new(path, FaultAction::ResetBeforeHeaders);
        let mut action = None;
        for part in parts {
            let (k, val) = match part.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (part, None),
            };
            let num = || -> Result<u64, String> {
                val.and_then(|v| v.parse().ok())
                    .ok_or(format!("{k} needs a number"))
            };
            match k {
                "times" => rule.times = Some(num()? as u32),
                "probability" => {
                    rule.probability = Some(
                        val.and_then(|v| v.parse().ok())
                            .ok_or("probability needs a number")?,
                    )
                }
                "listener" => rule.listener = val.map(String::from),
                "noprocess" => rule.process = false,
                "status" => {
                    action = Some(FaultAction::Status {
                        status: num()? as u16,
                        body: None,
                        headers: BTreeMap::new(),
                    })
                }
                "delay_ms" => action = Some(FaultAction::Delay { delay_ms: num()? }),
                "reset" => action = Some(FaultAction::ResetBeforeHeaders),
                "reset_after_bytes" => action = Some(FaultAction::ResetAfterBytes(num()?)),
                "truncate" => action = Some(FaultAction::Truncate),
                "broken_chunking" => action = Some(FaultAction::BrokenChunking),
                "bytes_per_second" => action = Some(FaultAction::BytesPerSecond(num()?)),
                "stall_after_bytes" => action = Some(FaultAction::StallAfterBytes(num()?)),
                "non_json" => action = Some(FaultAction::NonJson),
                "garbled" => action = Some(FaultAction::Garbled),
                "oversized_bytes" => action = Some(FaultAction::Oversized(num()?)),
                "redirect" => {
                    let v = val.ok_or("redirect needs STATUS@URL")?;
                    let (s, loc) = v.split_once('@').ok_or("redirect needs STATUS@URL")?;
                    action = Some(FaultAction::Redirect {
                        status: s.parse().map_err(|_| "bad redirect status")?,
                        location: loc.to_string(),
                    })
                }
                other => return Err(format!("unknown fault option {other}")),
            }
        }
        rule.action = action.ok_or("fault kind missing")?;
        rule.check()?;
        Ok(rule)
    }
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

impl FaultAction {
    pub fn from_json(v: &Value) -> Result<FaultAction, String> {
        let num = |k: &str| v.get(k).and_then(Value::as_u64);
        if let Some(hex) = v.get("body_hex") {
            return hex
                .as_str()
                .and_then(from_hex)
                .map(FaultAction::Bytes)
                .ok_or_else(|| "body_hex must be an even number of hex digits".into());
        }
        if let Some(s) = num("status") {
            let headers = v
                .get("headers")
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, x)| {
                            (
                                k.clone(),
                                x.as_str()
                                    .map(String::from)
                                    .unwrap_or_else(|| x.to_string()),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            if !(100..=599).contains(&s) {
                return Err("status must be within 100..599".into());
            }
            return Ok(FaultAction::Status {
                status: s as u16,
                body: v.get("body").cloned(),
                headers,
            });
        }
        let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
        // The actions of one number or one flag, in the order they are tried.
        let simple = num("delay_ms")
            .map(|delay_ms| FaultAction::Delay { delay_ms })
            .or_else(|| v.get("reset").map(|_| FaultAction::ResetBeforeHeaders))
            .or_else(|| num("reset_after_bytes").map(FaultAction::ResetAfterBytes))
            .or_else(|| flag("truncate").then_some(FaultAction::Truncate))
            .or_else(|| flag("broken_chunking").then_some(FaultAction::BrokenChunking))
            .or_else(|| num("bytes_per_second").map(|n| FaultAction::BytesPerSecond(n.max(1))))
            .or_else(|| num("stall_after_bytes").map(FaultAction::StallAfterBytes))
            .or_else(|| flag("non_json").then_some(FaultAction::NonJson))
            .or_else(|| flag("garbled").then_some(FaultAction::Garbled))
            .or_else(|| num("oversized_bytes").map(FaultAction::Oversized));
        if let Some(action) = simple {
            return Ok(action);
        }
        if let Some(r) = v.get("redirect") {
            let status = r.get("status").and_then(Value::as_u64).unwrap_or(302) as u16;
            let location = r
                .get("location")
                .and_then(Value::as_str)
                .ok_or("redirect.location is required")?;
            return Ok(FaultAction::Redirect {
                status,
                location: location.to_string(),
            });
        }
        Err("unknown fault action".into())
    }

    pub fn to_json(&self) -> Value {
        match self {
            FaultAction::Status {
                status,
                body,
                headers,
            } => json!({"status": status, "body": body, "headers": headers}),
            FaultAction::Bytes(body) => {
                let hex: String = body.iter().map(|b| format!("{b:02x}")).collect();
                json!({ "body_hex": hex })
            }
            FaultAction::Delay { delay_ms } => json!({"delay_ms": delay_ms}),
            FaultAction::ResetBeforeHeaders => json!({"reset": "before_headers"}),
            FaultAction::ResetAfterBytes(n) => json!({"reset_after_bytes": n}),
            FaultAction::Truncate => json!({"truncate": true}),
            FaultAction::BrokenChunking => json!({"broken_chunking": true}),
            FaultAction::BytesPerSecond(n) => json!({"bytes_per_second": n}),
            FaultAction::StallAfterBytes(n) => json!({"stall_after_bytes": n}),
            FaultAction::NonJson => json!({"non_json": true}),
            FaultAction::Garbled => json!({"garbled": true}),
            FaultAction::Oversized(n) => json!({"oversized_bytes": n}),
            FaultAction::Redirect { status, location } => {
                json!({"redirect": {"status": status, "location": location}})
            }
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            FaultAction::Status { .. } => "status",
            FaultAction::Bytes(_) => "bytes",
            FaultAction::Delay { .. } => "delay",
            FaultAction::ResetBeforeHeaders => "reset",
            FaultAction::ResetAfterBytes(_) => "reset_after_bytes",
            FaultAction::Truncate => "truncate",
            FaultAction::BrokenChunking => "broken_chunking",
            FaultAction::BytesPerSecond(_) => "bytes_per_second",
            FaultAction::StallAfterBytes(_) => "stall_after_bytes",
            FaultAction::NonJson => "non_json",
            FaultAction::Garbled => "garbled",
            FaultAction::Oversized(_) => "oversized",
            FaultAction::Redirect { .. } => "redirect",
        }
    }
}

/// A rule that fired: shared with the installed rule (a canned answer can be megabytes,
/// and a request must not copy it under the set's lock), with its body rendered once.
pub struct Fired {
    pub rule: Arc<FaultRule>,
    /// A `Status` rule's body as sent; made when the rule is installed.
    pub body: Option<Arc<Vec<u8>>>,
}

struct Active {
    rule: Arc<FaultRule>,
    body: Option<Arc<Vec<u8>>>,
    remaining: Option<u32>,
}

/// The installed rules; the first matching live rule fires.
pub struct FaultSet {
    rules: Mutex<(Vec<Active>, Rng)>,
}

impl FaultSet {
    pub fn new(initial: Vec<FaultRule>) -> FaultSet {
        let set = FaultSet {
            rules: Mutex::new((Vec::new(), Rng::from_time())),
        };
        for r in initial {
            set.add(r);
        }
        set
    }

    pub fn add(&self, rule: FaultRule) {
        let mut g = self.rules.lock().unwrap_or_else(|e| e.into_inner());
        let body = match &rule.action {
            FaultAction::Status {
                body: Some(Value::String(s)),
                ..
            } => Some(Arc::new(s.clone().into_bytes())),
            FaultAction::Status { body: Some(b), .. } => {
                Some(Arc::new(crate::money::render_bytes(b)))
            }
            _ => None,
        };
        g.0.push(Active {
            remaining: rule.times,
            rule: Arc::new(rule),
            body,
        });
    }

    pub fn clear(&self) {
        self.rules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .clear();
    }

    pub fn list(&self) -> Value {
        let g = self.rules.lock().unwrap_or_else(|e| e.into_inner());
        Value::Array(
            g.0.iter()
                .map(|a| {
                    let mut v = a.rule.to_json();
                    v["remaining"] = json!(a.remaining);
                    v
                })
                .collect(),
        )
    }

    /// The rule that fires for this request, if any (consumes one of its `times`).
    pub fn take(&self, listener: &str, path: &str, op: Option<&str>) -> Option<Fired> {
        let mut g = self.rules.lock().unwrap_or_else(|e| e.into_inner());
        let (rules, rng) = &mut *g;
        let mut fired = None;
        for a in rules.iter_mut() {
            if a.remaining == Some(0) {
                continue;
            }
            if let Some(l) = &a.rule.listener {
                if l != listener {
                    continue;
                }
            }
            let matches = if a.rule.path.starts_with('/') {
                path.starts_with(&a.rule.path)
            } else {
                op == Some(a.rule.path.as_str()) || a.rule.path == "*"
            };
            if !matches {
                continue;
            }
            if let Some(p) = a.rule.probability {
                let draw = (rng.next_u64() % 1_000_000) as f64 / 1_000_000.0;
                if draw >= p {
                    continue;
                }
            }
            if let Some(n) = a.remaining.as_mut() {
                *n -= 1;
            }
            fired = Some(Fired {
                rule: Arc::clone(&a.rule),
                body: a.body.clone(),
            });
            break;
        }
        rules.retain(|a| a.remaining != Some(0));
        fired
    }
}
