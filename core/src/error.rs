//! One error type for the whole library, with texts a user can act on.

use std::fmt;
use std::sync::Arc;

/// What went wrong, in the coarse terms the bindings map to their own error classes.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Bad input, caught before any request was sent.
    Validation,
    /// The service answered with an error status.
    Api,
    /// A page token expired (15 minutes); restart the listing.
    PageTokenExpired,
    /// A report ended CANCELLED or FATAL.
    ReportFailed,
    /// A downloaded document could not be unpacked, or held an error document.
    Document,
    /// A non-idempotent request may or may not have been applied (placeOrder, addItems).
    OutcomeUnknown,
    /// The request or response failed on the network, or the response was not readable.
    Transport,
    /// An attempt or the operation's deadline ran out.
    Timeout,
    /// Authorization failed: bad client credentials, revoked consent, invalid code.
    Auth,
    /// The blocking facade was misused: called inside an async runtime, or from inside a
    /// callback the library was running (a nested call).
    Runtime,
    /// A bug in the library; please report it.
    Internal,
}

impl ErrorKind {
    /// Every kind, so bindings can test that they map each one.
    pub const ALL: [ErrorKind; 11] = [
        ErrorKind::Validation,
        ErrorKind::Api,
        ErrorKind::PageTokenExpired,
        ErrorKind::ReportFailed,
        ErrorKind::Document,
        ErrorKind::OutcomeUnknown,
        ErrorKind::Transport,
        ErrorKind::Timeout,
        ErrorKind::Auth,
        ErrorKind::Runtime,
        ErrorKind::Internal,
    ];

    /// A stable, snake_case name (used by the C API and in JSON).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Validation => "validation",
            ErrorKind::Api => "api",
            ErrorKind::PageTokenExpired => "page_token_expired",
            ErrorKind::ReportFailed => "report_failed",
            ErrorKind::Document => "document",
            ErrorKind::OutcomeUnknown => "outcome_unknown",
            ErrorKind::Transport => "transport",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Auth => "auth",
            ErrorKind::Runtime => "runtime",
            ErrorKind::Internal => "internal",
        }
    }
}

/// One entry of the service's error envelope.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ErrorEntry {
    /// The service's error code.
    #[serde(default)]
    pub code: String,
    /// The service's message.
    #[serde(default)]
    pub message: String,
    /// Further details (empty when absent or `null`).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub details: String,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    use serde::Deserialize;
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// `text` with every word that holds an `@` replaced by `<e-mail>`. A response body quoted
/// in an error (a 2xx answer that could not be read, an error page) may carry buyers'
/// addresses, and errors reach logs, where e-mail addresses never go. A word ends at
/// whitespace, quotes, brackets and JSON's punctuation.
pub fn without_emails(text: &str) -> String {
    fn push_word(out: &mut String, word: &str) {
        out.push_str(if word.contains('@') { "<e-mail>" } else { word });
    }
    let mut out = String::with_capacity(text.len());
    let mut word = 0;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() || "\"'`,;:{}[]()<>\\".contains(c) {
            push_word(&mut out, &text[word..i]);
            out.push(c);
            word = i + c.len_utf8();
        }
    }
    push_word(&mut out, &text[word..]);
    out
}

/// What to do about an unsafe write whose outcome is unknown: one call resolves a
/// placeOrder (the service answers a known externalId with the original result); an
/// addItems is read back and converged, never resent.
fn recovery(operation: &str) -> &'static str {
    match operation {
        "placeOrder" => {
            "to resolve it, call place_order again with the same order (the same externalId): \
             the service answers a known externalId with the original order's result and creates \
             no second order (the shared write ledger lets that call through)"
        }
        "addItems" => {
            "read the cart with get_items and set the quantities with modify_items; do not send \
             these externalIds again (addItems would add the quantities a second time)"
        }
        _ => "read the current state before trying again",
    }
}

/// The longest piece of server text (an error message, an error document's
/// `errorMessage`, a header) kept in an error or a log line, in bytes.
pub const SERVER_TEXT_LIMIT: usize = 2048;

/// Server text made fit for an error message or a log line: control characters (and the
/// bidirectional overrides that reorder what a terminal shows) become spaces or go, and
/// text longer than `SERVER_TEXT_LIMIT` bytes is cut there, with the full length noted.
/// The one filter for everything a server says that reaches our errors and logs.
pub fn server_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(SERVER_TEXT_LIMIT + 48));
    let mut cut = false;
    for c in text.chars() {
        let c = match c {
            '\n' | '\r' | '\t' => ' ',
            c if c.is_control() => continue,
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' => continue,
            c => c,
        };
        if out.len() + c.len_utf8() > SERVER_TEXT_LIMIT {
            cut = true;
            break;
        }
        out.push(c);
    }
    if cut {
        out.push_str(&format!("… (cut; {} bytes in all)", text.len()));
    }
    out
}

/// The failed HTTP exchange behind an `Api` error (and some others).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiFailure {
    /// The HTTP status.
    pub status: u16,
    /// Every entry of the envelope; the first one is the headline.
    pub errors: Vec<ErrorEntry>,
    /// The server's `x-svc-RequestId`, when it sent one.
    pub request_id: Option<String>,
    /// The rate the server applied, from `x-svc-RateLimit-Limit`.
    pub rate_limit: Option<String>,
}

impl ApiFailure {
    /// The first entry's code (empty if there is none).
    pub fn code(&self) -> &str {
        self.errors.first().map(|e| e.code.as_str()).unwrap_or("")
    }
    /// The first entry's message (empty if there is none).
    pub fn message(&self) -> &str {
        self.errors
            .first()
            .map(|e| e.message.as_str())
            .unwrap_or("")
    }
    /// The first entry's details (empty if there are none).
    pub fn details(&self) -> &str {
        self.errors
            .first()
            .map(|e| e.details.as_str())
            .unwrap_or("")
    }
    /// Compares the headline code case-insensitively (the service mixes styles).
    pub fn has_code(&self, code: &str) -> bool {
        self.errors
            .iter()
            .any(|e| e.code.eq_ignore_ascii_case(code))
    }
}

#[derive(Clone)]
struct Inner {
    kind: ErrorKind,
    message: String,
    parameter: Option<String>,
    api: Option<ApiFailure>,
    request_id: Option<String>,
    external_id: Option<String>,
    operation: Option<&'static str>,
    attempts: u32,
    report: Option<(String, String)>,
    document_code: Option<String>,
    items_yielded: Option<u64>,
    hint: Option<String>,
    /// A validation error about an input that was not given (shown "missing {parameter}").
    missing: bool,
    raw_body: Option<bytes::Bytes>,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

/// The library's error. Cheap to move (one box), cloneable, `Send + Sync`.
#[derive(Clone)]
pub struct Error(Box<Inner>);

/// The library's result type: `Error` by default.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The constructors of the kinds that carry nothing but their message, one a kind.
macro_rules! kind_constructors {
    ($($(#[$doc:meta])* $name:ident => $kind:ident,)+) => {
        $(
            $(#[$doc])*
            pub fn $name(message: impl Into<String>) -> Error {
                Error::new(ErrorKind::$kind, message)
            }
        )+
    };
}

impl Error {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error(Box::new(Inner {
            kind,
            message: message.into(),
            parameter: None,
            api: None,
            request_id: None,
            external_id: None,
            operation: None,
            attempts: 0,
            report: None,
            document_code: None,
            items_yielded: None,
            hint: None,
            missing: false,
            raw_body: None,
            source: None,
        }))
    }

    /// Bad input: names the parameter and the rule it broke.
    pub fn validation(parameter: impl Into<String>, rule: impl Into<String>) -> Error {
        let parameter = parameter.into();
        let mut e = Error::new(ErrorKind::Validation, rule);
        e.0.parameter = Some(parameter);
        e
    }

    /// An input that is needed and was not given: a validation error shown as
    /// "missing {parameter}: {why}" (`why` says what needs it and how to give it).
    pub fn missing(parameter: impl Into<String>, why: impl Into<String>) -> Error {
        let mut e = Error::validation(parameter, why);
        e.0.missing = true;
        e
    }

    /// An error status from the service.
    pub fn api(failure: ApiFailure) -> Error {
        let mut e = Error::new(ErrorKind::Api, failure.message().to_string());
        e.0.request_id = failure.request_id.clone();
        e.0.api = Some(failure);
        e
    }

    kind_constructors! {
        /// The network failed, or a response could not be read.
        transport => Transport,
        /// An attempt or the operation ran out of time.
        timeout => Timeout,
        /// Authorization failed.
        auth => Auth,
        /// A document could not be unpacked, or held an error document.
        document => Document,
        /// The blocking facade was misused.
        runtime => Runtime,
        /// A bug in the library.
        internal => Internal,
    }

    /// A page token expired after `items_yielded` items had been delivered.
    pub fn page_token_expired(message: impl Into<String>, items_yielded: u64) -> Error {
        let mut e = Error::new(ErrorKind::PageTokenExpired, message);
        e.0.items_yielded = Some(items_yielded);
        e
    }

    /// A report ended in `status` (CANCELLED or FATAL).
    pub fn report_failed(report_id: &str, status: &str) -> Error {
        Error::report_failed_because(report_id, status, None)
    }

    /// A report ended in `status`, with the reason the service gave (if any) in the message.
    pub fn report_failed_because(report_id: &str, status: &str, reason: Option<&str>) -> Error {
        let message = match reason.map(str::trim).filter(|r| !r.is_empty()) {
            Some(r) => format!("report {report_id} ended {status}; no document was produced: {r}"),
            None => format!("report {report_id} ended {status}; no document was produced"),
        };
        let mut e = Error::new(ErrorKind::ReportFailed, message);
        e.0.report = Some((report_id.to_string(), status.to_string()));
        e
    }

    /// The request may have been applied; `external_id` lets the caller check. The message
    /// says how to resolve it (`recovery`).
    pub fn outcome_unknown(
        operation: &'static str,
        external_id: Option<&str>,
        cause: Error,
    ) -> Error {
        let what = match external_id {
            Some(id) => format!(
                "{operation} with externalId {id:?} may or may not have been applied ({}); \
                 it was not resent: {}",
                cause.untagged(),
                recovery(operation)
            ),
            None => format!(
                "{operation} may or may not have been applied ({}); it was not resent: \
                 read the current state before trying again",
                cause.untagged()
            ),
        };
        let mut e = Error::new(ErrorKind::OutcomeUnknown, what);
        e.0.external_id = external_id.map(str::to_string);
        e.0.request_id = cause.request_id().map(str::to_string);
        e.0.api = cause.0.api.clone();
        e.0.attempts = cause.0.attempts;
        e.0.source = Some(Arc::new(cause));
        e
    }

    /// A write whose entry the shared write ledger holds as `state` (sending: another call
    /// has it on the wire now; outcome unknown): not sent, as it may have been applied.
    pub fn already_recorded(operation: &'static str, external_id: &str, state: &str) -> Error {
        let mut e = Error::new(
            ErrorKind::OutcomeUnknown,
            format!(
                "{operation} with externalId {external_id:?} is recorded as {state} in the shared \
                 write ledger (by this or another process): it was not sent; {}",
                match state {
                    "sending" => "another call is sending it now: wait for that call's outcome",
                    _ => recovery(operation),
                }
            ),
        );
        e.0.external_id = Some(external_id.to_string());
        e.0.operation = Some(operation);
        e
    }

    /// addItems whose items (these externalIds, this cart) the shared write ledger records as
    /// applied: refused unsent, as it would add the quantities a second time.
    pub fn already_applied(operation: &'static str, external_id: &str) -> Error {
        let mut e = Error::validation(
            "items[].external_id",
            format!(
                "must be new for each {operation}: {operation} with externalIds {external_id:?} \
                 was already applied to this cart (recorded as done in the shared write ledger, \
                 by this or another process) and was not sent again, as it would add the \
                 quantities a second time; use new externalIds for new items, or modify_items to \
                 change a quantity"
            ),
        );
        e.0.external_id = Some(external_id.to_string());
        e.0.operation = Some(operation);
        e
    }

    /// Keeps the body of a response that could not be read as its operation's result (the
    /// 2xx of an unsafe write: the caller may find the order's id in it).
    pub fn with_raw_body(mut self, body: bytes::Bytes) -> Error {
        self.0.raw_body = Some(body);
        self
    }

    /// The body of the response behind an `OutcomeUnknown` that arrived (a 2xx that did not
    /// decode), as received.
    pub fn raw_body(&self) -> Option<&[u8]> {
        self.0.raw_body.as_deref()
    }

    /// Attaches the underlying cause.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Error {
        self.0.source = Some(Arc::new(source));
        self
    }

    /// Sets the request id, if `request_id` is one (a `None` keeps the one already set).
    pub fn with_request_id(mut self, request_id: Option<String>) -> Error {
        if request_id.is_some() {
            self.0.request_id = request_id;
        }
        self
    }

    /// Sets the operationId, unless one is set already (the innermost one is kept).
    pub fn with_operation(mut self, operation: &'static str) -> Error {
        if self.0.operation.is_none() {
            self.0.operation = Some(operation);
        }
        self
    }

    /// Adds a sentence on what the library did about the failure (shown after the message).
    pub fn with_hint(mut self, hint: impl Into<String>) -> Error {
        self.0.hint = Some(hint.into());
        self
    }

    /// What the library did about the failure, if it says.
    pub fn hint(&self) -> Option<&str> {
        self.0.hint.as_deref()
    }

    /// Sets how many attempts were made.
    pub fn with_attempts(mut self, attempts: u32) -> Error {
        self.0.attempts = attempts;
        self
    }

    /// Sets the error document's code (`document_code`).
    pub fn with_document_code(mut self, code: impl Into<String>) -> Error {
        self.0.document_code = Some(code.into());
        self
    }

    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }
    /// The human-readable message (without the parameter or status prefix).
    pub fn message(&self) -> &str {
        &self.0.message
    }
    /// The parameter a validation error is about.
    pub fn parameter(&self) -> Option<&str> {
        self.0.parameter.as_deref()
    }
    /// The HTTP status, for API errors.
    pub fn status(&self) -> Option<u16> {
        self.0.api.as_ref().map(|a| a.status)
    }
    /// The service's error code (as sent), for API errors.
    pub fn code(&self) -> Option<&str> {
        self.0.api.as_ref().map(|a| a.code())
    }
    /// The service's details text, for API errors.
    pub fn details(&self) -> Option<&str> {
        self.0.api.as_ref().map(|a| a.details())
    }
    /// The whole failed exchange (status, every envelope entry, request id), for API
    /// errors.
    pub fn api_failure(&self) -> Option<&ApiFailure> {
        self.0.api.as_ref()
    }
    /// The server's `x-svc-RequestId`, when a response was received.
    pub fn request_id(&self) -> Option<&str> {
        self.0.request_id.as_deref()
    }
    /// The externalId of an order or cart line whose outcome is unknown.
    pub fn external_id(&self) -> Option<&str> {
        self.0.external_id.as_deref()
    }
    /// The operationId the error happened in.
    pub fn operation(&self) -> Option<&'static str> {
        self.0.operation
    }
    /// How many attempts were made (0 when none was sent).
    pub fn attempts(&self) -> u32 {
        self.0.attempts
    }
    /// Report id and final processing status, for `ReportFailed`.
    pub fn report(&self) -> Option<(&str, &str)> {
        self.0
            .report
            .as_ref()
            .map(|(a, b)| (a.as_str(), b.as_str()))
    }
    /// The errorCode of an error document found inside a downloaded archive.
    pub fn document_code(&self) -> Option<&str> {
        self.0.document_code.as_deref()
    }
    /// Items delivered before a page token expired.
    pub fn items_yielded(&self) -> Option<u64> {
        self.0.items_yielded
    }
    /// True for an API error of that status.
    pub fn is_status(&self, status: u16) -> bool {
        self.status() == Some(status)
    }
}

impl Error {
    /// The explanation without the trailing `[operation]` and `[request id …]` tags: what
    /// an error that wraps this one quotes (it carries the tags itself, once).
    fn untagged(&self) -> impl fmt::Display + '_ {
        Untagged(self)
    }
}

struct Untagged<'a>(&'a Error);

impl fmt::Display for Untagged<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.0 .0;
        match (i.kind, &i.parameter, &i.api) {
            (ErrorKind::Validation, Some(p), _) if i.missing => {
                write!(f, "missing {p}: {}", i.message)?
            }
            (ErrorKind::Validation, Some(p), _) => write!(f, "invalid {p}: {}", i.message)?,
            (ErrorKind::Api, _, Some(api)) => {
                write!(f, "HTTP {}", api.status)?;
                if !api.code().is_empty() {
                    write!(f, " {}", api.code())?;
                }
                if !api.message().is_empty() {
                    write!(f, ": {}", api.message())?;
                }
                if !api.details().is_empty() {
                    write!(f, " ({})", api.details())?;
                }
            }
            _ => f.write_str(&i.message)?,
        }
        if let Some(hint) = &i.hint {
            write!(f, "; {hint}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.0;
        Untagged(self).fmt(f)?;
        if let Some(op) = i.operation {
            write!(f, " [{op}]")?;
        }
        if let Some(rid) = &i.request_id {
            write!(f, " [request id {rid}]")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.0.kind)
            .field("message", &self.0.message);
        if let Some(p) = &self.0.parameter {
            d.field("parameter", p);
        }
        if let Some(a) = &self.0.api {
            d.field("api", a);
        }
        if let Some(r) = &self.0.request_id {
            d.field("request_id", r);
        }
        if let Some(x) = &self.0.external_id {
            d.field("external_id", x);
        }
        if let Some(op) = self.0.operation {
            d.field("operation", &op);
        }
        if self.0.attempts > 0 {
            d.field("attempts", &self.0.attempts);
        }
        if let Some(b) = &self.0.raw_body {
            d.field("raw_body", &format_args!("<{} bytes>", b.len()));
        }
        d.finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .source
            .as_ref()
            .map(|s| s.as_ref() as &(dyn std::error::Error + 'static))
    }
}
