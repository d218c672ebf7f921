//! Plain request/response values passed between the connection loop and the handlers.

use serde_json::{json, Value};

#[derive(Debug, Clone)]
pub struct Req {
    pub method: String,
    /// Path without the query string, as sent.
    pub path: String,
    /// Percent-decoded path segments.
    pub segments: Vec<String>,
    pub raw_query: String,
    pub query: Vec<(String, String)>,
    /// Header names are lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub conn_id: u64,
    /// Path parameters of the matched operation.
    pub params: Vec<String>,
    /// Party (refresh-token family) of the access token, once authenticated.
    pub party: u64,
    /// The regional group of the address used (`/na`, `/eu`, `/fe` prefixes); `None` at
    /// the root address, which serves every group (docs/sandbox.md, "Regional addresses").
    pub scope: Option<&'static str>,
}

impl Req {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn q(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn param(&self, i: usize) -> &str {
        self.params.get(i).map(String::as_str).unwrap_or("")
    }

    /// Strips a regional group prefix (`/na`, `/eu`, `/fe`) from the path and records it.
    pub fn take_scope(&mut self) {
        let group = match self.segments.first().map(String::as_str) {
            Some("na") => "NA",
            Some("eu") => "EU",
            Some("fe") => "FE",
            _ => return,
        };
        if self.segments.len() < 2 {
            return;
        }
        self.scope = Some(group);
        self.segments.remove(0);
        self.path = self.path[3..].to_string();
    }
}

#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

pub type ApiResult = Result<Resp, Resp>;

impl Resp {
    pub fn new(status: u16, content_type: &str, body: Vec<u8>) -> Resp {
        Resp {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body,
        }
    }

    pub fn json(status: u16, v: &Value) -> Resp {
        Resp::new(status, "application/json", crate::money::render_bytes(v))
    }

    /// JSON text already serialised (used where exact decimal numbers are embedded).
    pub fn json_text(status: u16, text: String) -> Resp {
        Resp::new(status, "application/json", text.into_bytes())
    }

    pub fn empty(status: u16) -> Resp {
        Resp {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    pub fn with_header(mut self, k: &str, v: &str) -> Resp {
        self.headers.push((k.into(), v.into()));
        self
    }
}

/// The service's error envelope.
pub fn envelope(status: u16, code: &str, message: &str) -> Resp {
    Resp::json(
        status,
        &json!({"errors": [{"code": code, "message": message, "details": ""}]}),
    )
}

/// 400 INVALID_REQUEST_PARAMETER.
pub fn bad(message: impl AsRef<str>) -> Resp {
    envelope(400, "INVALID_REQUEST_PARAMETER", message.as_ref())
}

/// 400 InvalidInput (reporting 2025 and tracking).
pub fn invalid_input(message: impl AsRef<str>) -> Resp {
    envelope(400, "InvalidInput", message.as_ref())
}

pub fn not_found(message: impl AsRef<str>) -> Resp {
    envelope(404, "NotFound", message.as_ref())
}

pub fn missing(name: &str) -> Resp {
    bad(format!(
        "The required request parameter is missing: {name}."
    ))
}

pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
