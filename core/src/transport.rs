//! HTTP: reqwest with rustls, a keep-alive pool, no redirects, our headers marked
//! sensitive, the response read under a size cap, and the error envelope decoded.
//!
//! One attempt is one call of `send`; what to do after a failure is decided elsewhere
//! (`retry`), from the `FailureClass` this module reports.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http::{HeaderMap, HeaderName, HeaderValue, Method};

use crate::config::Settings;
use crate::error::{ApiFailure, Error, ErrorEntry};
use crate::retry::FailureClass;
use crate::wipe::{wipe_received, wiped_bytes, WipeBuf};
use crate::wire;

/// A response that arrived whole.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    /// `x-svc-RequestId`.
    pub fn request_id(&self) -> Option<String> {
        self.header(wire::HEADER_REQUEST_ID).map(str::to_string)
    }
    /// `x-svc-RateLimit-Limit`.
    pub fn rate_limit(&self) -> Option<String> {
        self.header(wire::HEADER_RATE_LIMIT).map(str::to_string)
    }
    /// Decodes the JSON body; a body that is not the expected JSON is a transport error
    /// naming the status, the content type, the operation and the request id.
    pub fn decode<T: serde::de::DeserializeOwned>(&self, op: &'static str) -> Result<T, Error> {
        // One UTF-8 check of the whole body, not one per string (from_slice's way: ~8 % of
        // the time of a big page); invalid UTF-8 goes to from_slice for its error position.
        let parsed = match std::str::from_utf8(&self.body) {
            Ok(text) => serde_json::from_str(text),
            Err(_) => serde_json::from_slice(&self.body),
        };
        parsed.map_err(|e| {
            let ctype = self.header("content-type").unwrap_or("no content type");
            let excerpt: String = String::from_utf8_lossy(&self.body)
                .chars()
                .take(120)
                .filter(|c| !c.is_control())
                .collect();
            Error::transport(format!(
                "HTTP {} ({ctype}) is not a valid {op} response: {e}; it starts with {excerpt:?}",
                self.status
            ))
            .with_request_id(self.request_id())
            .with_operation(op)
        })
    }

    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// Decodes the error envelope; a body that is not one becomes a single entry whose
    /// message describes it (status, content type, a short excerpt).
    pub fn failure(&self) -> ApiFailure {
        #[derive(serde::Deserialize)]
        struct Envelope {
            errors: Vec<ErrorEntry>,
        }
        let errors = match serde_json::from_slice::<Envelope>(&self.body) {
            Ok(env) if !env.errors.is_empty() => env.errors,
            _ => vec![ErrorEntry {
                code: String::new(),
                message: self.describe_body(),
                details: String::new(),
            }],
        };
        ApiFailure {
            status: self.status,
            errors,
            request_id: self.request_id(),
            rate_limit: self.rate_limit(),
        }
    }

    /// "HTTP 502, text/html, body: <html>…" with at most 200 characters of the body.
    pub fn describe_body(&self) -> String {
        let ctype = self.header("content-type").unwrap_or("no content type");
        let text = String::from_utf8_lossy(&self.body);
        let excerpt: String = text.chars().take(200).filter(|c| !c.is_control()).collect();
        if excerpt.is_empty() {
            format!("HTTP {} with an empty {ctype} body", self.status)
        } else {
            format!("HTTP {} with a {ctype} body: {excerpt}", self.status)
        }
    }
}

/// A document response whose body is read piece by piece (`Transport::open_document`).
#[derive(Debug)]
pub struct DocumentBody {
    pub status: u16,
    pub headers: HeaderMap,
    response: reqwest::Response,
    received: u64,
    cap: u64,
    stall: Duration,
    timeout: Duration,
    /// What is left of `timeout` for waiting on the network.
    left: Duration,
}

impl DocumentBody {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// `x-svc-RequestId`.
    pub fn request_id(&self) -> Option<String> {
        header_string(&self.headers, wire::HEADER_REQUEST_ID)
    }

    /// The body bytes received so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// The next piece of the body, as it arrived; `None` at its end.
    pub async fn chunk(&mut self) -> Result<Option<Bytes>, SendFailure> {
        let wait = self.stall.min(self.left);
        let started = tokio::time::Instant::now();
        let next = tokio::time::timeout(wait, self.response.chunk()).await;
        self.left = self.left.saturating_sub(started.elapsed());
        match next {
            Err(_) if wait < self.stall => Err(budget_spent(self.timeout, self.request_id())),
            Err(_) => Err(SendFailure {
                class: FailureClass::Ambiguous,
                error: Error::timeout(format!(
                    "the response body stalled: no byte for {:.1} s after {} bytes",
                    self.stall.as_secs_f64(),
                    self.received
                ))
                .with_request_id(self.request_id()),
                timed_out: true,
            }),
            Ok(Err(e)) => Err(SendFailure::new(
                FailureClass::Ambiguous,
                Error::transport(format!(
                    "the response body was cut off after {} bytes ({})",
                    self.received,
                    error_chain(&e)
                ))
                .with_request_id(self.request_id()),
            )),
            Ok(Ok(None)) => Ok(None),
            Ok(Ok(Some(chunk))) => {
                self.received += chunk.len() as u64;
                if self.received > self.cap {
                    return Err(document_too_large(self.cap, &self.headers));
                }
                Ok(Some(chunk))
            }
        }
    }

    /// Reads the body whole (keeping at most `limit` bytes of it; the rest is not read)
    /// into an `HttpResponse`: for an answer that is not the document.
    pub async fn into_response(mut self, limit: usize) -> Result<HttpResponse, SendFailure> {
        let mut body = WipeBuf::new();
        while body.len() < limit {
            match self.chunk().await? {
                Some(chunk) => {
                    let n = chunk.len().min(limit - body.len());
                    body.extend_from_slice(&chunk[..n]);
                    wipe_received(chunk);
                }
                None => break,
            }
        }
        Ok(HttpResponse {
            status: self.status,
            headers: self.headers,
            body: body.into_bytes(),
        })
    }
}

fn budget_spent(timeout: Duration, request_id: Option<String>) -> SendFailure {
    SendFailure {
        class: FailureClass::Ambiguous,
        error: Error::timeout(format!(
            "no complete response within {:.1} s",
            timeout.as_secs_f64()
        ))
        .with_request_id(request_id),
        timed_out: true,
    }
}

/// A failed attempt: what happened, and how far the request got.
#[derive(Debug, Clone)]
pub struct SendFailure {
    pub class: FailureClass,
    pub error: Error,
    /// The attempt ran out of time (costs more retry budget).
    pub timed_out: bool,
}

impl SendFailure {
    fn new(class: FailureClass, error: Error) -> SendFailure {
        SendFailure {
            class,
            error,
            timed_out: false,
        }
    }
}

/// A request ready to send.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub body: Option<(Bytes, &'static str)>,
}

/// The HTTP layer shared by a client's operations.
#[derive(Debug, Clone)]
pub struct Transport {
    /// The API pool; replaced after a transient failure so that a connection that may be
    /// in a bad state (a reset, a half-read body, a server in trouble) is not reused.
    api: Arc<RwLock<reqwest::Client>>,
    connect_timeout: Duration,
    user_agent: String,
    /// The longest wait for the next body byte once a response has started.
    stall_timeout: Duration,
    /// For presigned document addresses: a separate pool that never carries our headers.
    documents: reqwest::Client,
    max_response_bytes: usize,
}

impl Transport {
    fn api_pool(connect_timeout: Duration, user_agent: &str) -> Result<reqwest::Client, Error> {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(connect_timeout)
            .pool_idle_timeout(Duration::from_secs(60))
            .tcp_nodelay(true)
            .user_agent(user_agent)
            .build()
            .map_err(|e| Error::internal(format!("cannot build the HTTP client: {e}")))
    }

    pub fn new(settings: &Settings) -> Result<Transport, Error> {
        let user_agent = settings.user_agent();
        let api = Self::api_pool(settings.timeouts.connect, &user_agent)?;
        let documents = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(settings.timeouts.connect)
            .pool_idle_timeout(Duration::from_secs(30))
            .user_agent(settings.user_agent())
            .build()
            .map_err(|e| Error::internal(format!("cannot build the HTTP client: {e}")))?;
        Ok(Transport {
            api: Arc::new(RwLock::new(api)),
            connect_timeout: settings.timeouts.connect,
            user_agent,
            stall_timeout: settings.timeouts.stall,
            documents,
            max_response_bytes: settings.max_response_bytes,
        })
    }

    /// The underlying pool, for callers that stream (documents use their own client).
    pub fn client(&self) -> reqwest::Client {
        self.api.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Drops every pooled connection: the next request opens a new one. Called after a
    /// transient failure; requests in flight keep the connection they have.
    pub fn reset_pool(&self) {
        if let Ok(fresh) = Self::api_pool(self.connect_timeout, &self.user_agent) {
            *self.api.write().unwrap_or_else(|p| p.into_inner()) = fresh;
        }
    }

    /// Sends one attempt and reads the whole response within `timeout`.
    pub async fn send(
        &self,
        req: HttpRequest,
        timeout: Duration,
    ) -> Result<HttpResponse, SendFailure> {
        let client = self.client();
        self.send_with(&client, req, timeout, self.max_response_bytes as u64)
            .await
    }

    /// Fetches a presigned document address: a plain GET on the separate pool, no auth
    /// headers, no redirects, no transparent decompression, at most `max_bytes`.
    pub async fn fetch_document(
        &self,
        url: &str,
        timeout: Duration,
        max_bytes: u64,
    ) -> Result<HttpResponse, SendFailure> {
        let req = HttpRequest {
            method: Method::GET,
            url: url.to_string(),
            headers: vec![],
            body: None,
        };
        self.send_with(&self.documents, req, timeout, max_bytes)
            .await
    }

    /// Opens a presigned document address for streaming: the same plain GET as
    /// `fetch_document` (the separate pool, no auth headers, no redirects, no transparent
    /// decompression), returned as soon as the status and headers are in; the body is then
    /// read piece by piece with `DocumentBody::chunk`, never held whole.
    ///
    /// `timeout` bounds the time spent waiting on the network (for the headers, then for
    /// each piece of the body) — not the time the caller spends between pieces, so a slow
    /// consumer is not a slow server. A body that sends no byte for `Timeouts::stall` is
    /// stalled; one of more than `max_bytes` is refused.
    pub async fn open_document(
        &self,
        url: &str,
        timeout: Duration,
        max_bytes: u64,
    ) -> Result<DocumentBody, SendFailure> {
        let started = tokio::time::Instant::now();
        let request = self.documents.request(Method::GET, url).send();
        // The response head counts as body bytes do: silent for `stall`, it is stalled.
        let wait = self.stall_timeout.min(timeout);
        let resp = match tokio::time::timeout(wait, request).await {
            Ok(r) => r.map_err(classify_reqwest)?,
            Err(_) if wait < self.stall_timeout => return Err(budget_spent(timeout, None)),
            Err(_) => {
                return Err(SendFailure {
                    class: FailureClass::Ambiguous,
                    error: Error::timeout(format!(
                        "the document host stalled: no response within {:.1} s",
                        wait.as_secs_f64()
                    )),
                    timed_out: true,
                })
            }
        };
        let status = resp.status().as_u16();
        let headers = own_headers(resp.headers());
        if (300..400).contains(&status) {
            return Err(redirect_failure(status, &headers));
        }
        if let Some(len) = resp.content_length() {
            if len > max_bytes {
                return Err(document_too_large(max_bytes, &headers));
            }
        }
        Ok(DocumentBody {
            status,
            headers,
            response: resp,
            received: 0,
            cap: max_bytes,
            stall: self.stall_timeout,
            timeout,
            left: timeout.saturating_sub(started.elapsed()),
        })
    }

    async fn send_with(
        &self,
        client: &reqwest::Client,
        req: HttpRequest,
        timeout: Duration,
        cap: u64,
    ) -> Result<HttpResponse, SendFailure> {
        match tokio::time::timeout(
            timeout,
            Self::send_inner(client, req, cap, self.stall_timeout),
        )
        .await
        {
            Ok(r) => r,
            Err(_) => Err(SendFailure {
                class: FailureClass::Ambiguous,
                error: Error::timeout(format!(
                    "no complete response within {:.1} s",
                    timeout.as_secs_f64()
                )),
                timed_out: true,
            }),
        }
    }

    async fn send_inner(
        client: &reqwest::Client,
        req: HttpRequest,
        cap: u64,
        stall: Duration,
    ) -> Result<HttpResponse, SendFailure> {
        let mut builder = client.request(req.method.clone(), &req.url);
        for (name, value) in req.headers {
            builder = builder.header(name, value);
        }
        if let Some((body, ctype)) = req.body {
            builder = builder.header(http::header::CONTENT_TYPE, ctype).body(body);
        }
        let resp = builder.send().await.map_err(classify_reqwest)?;
        let status = resp.status().as_u16();
        if (300..400).contains(&status) {
            return Err(redirect_failure(status, resp.headers()));
        }
        let headers = own_headers(resp.headers());
        let declared = resp.content_length();
        if declared.is_some_and(|len| len > cap) {
            return Err(too_large(cap, &headers));
        }
        // Bodies carry tokens and documents: read into a buffer wiped when dropped, with
        // room for the declared length at once (within the cap), so a big page never
        // moves (nor leaves unwiped copies) while it arrives; the pieces wiped as they go.
        let room = declared.map_or(0, |len| len.min(cap) as usize);
        let mut body = WipeBuf::with_capacity(room);
        let mut stream = resp.bytes_stream();
        loop {
            // A body that stops arriving is the server's fault (we read into memory, so a
            // slow consumer cannot cause it): give up after `stall` without a byte.
            let next = match tokio::time::timeout(stall, stream.next()).await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(_) => {
                    return Err(SendFailure {
                        class: FailureClass::Ambiguous,
                        error: Error::timeout(format!(
                            "the response body stalled: no byte for {:.1} s after {} bytes",
                            stall.as_secs_f64(),
                            body.len()
                        ))
                        .with_request_id(header_string(&headers, wire::HEADER_REQUEST_ID)),
                        timed_out: true,
                    })
                }
            };
            let chunk = next.map_err(|e| {
                SendFailure::new(
                    FailureClass::Ambiguous,
                    Error::transport(format!(
                        "the response body was cut off after {} bytes ({})",
                        body.len(),
                        error_chain(&e)
                    ))
                    .with_request_id(header_string(&headers, wire::HEADER_REQUEST_ID)),
                )
            })?;
            if (body.len() + chunk.len()) as u64 > cap {
                return Err(too_large(cap, &headers));
            }
            body.extend_from_slice(&chunk);
            wipe_received(chunk);
        }
        Ok(HttpResponse {
            status,
            headers,
            body: body.into_bytes(),
        })
    }
}

/// A redirect: never followed, so our credentials never reach another host.
fn redirect_failure(status: u16, headers: &HeaderMap) -> SendFailure {
    let target = headers
        .get(http::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .map(redirect_host)
        .unwrap_or_else(|| "an unnamed location".to_string());
    SendFailure::new(
        FailureClass::Security,
        Error::transport(format!(
            "the server answered HTTP {status}, a redirect to {target}; API calls do not follow \
             redirects, so our credentials never reach another host (check the endpoint setting)"
        ))
        .with_request_id(header_string(headers, wire::HEADER_REQUEST_ID)),
    )
}

fn document_too_large(cap: u64, headers: &HeaderMap) -> SendFailure {
    SendFailure::new(
        FailureClass::Security,
        Error::transport(format!(
            "the document is larger than {cap} bytes (raise the max_document_bytes setting if this is expected)"
        ))
        .with_request_id(header_string(headers, wire::HEADER_REQUEST_ID)),
    )
}

fn too_large(cap: u64, headers: &HeaderMap) -> SendFailure {
    SendFailure::new(
        FailureClass::Security,
        Error::transport(format!(
            "response too large: more than {cap} bytes (raise the max_response_bytes setting if this is expected)"
        ))
        .with_request_id(header_string(headers, wire::HEADER_REQUEST_ID)),
    )
}

fn header_string(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The host of a redirect target (never the full address: it may carry a query).
fn redirect_host(location: &str) -> String {
    match url::Url::parse(location) {
        Ok(u) => u.host_str().unwrap_or("an unnamed host").to_string(),
        Err(_) => "a relative location on the same host".to_string(),
    }
}

/// Classifies a reqwest error: a connect failure never reached the server (F0); anything
/// after the request may have been written is ambiguous (F2).
pub(crate) fn classify_reqwest(e: reqwest::Error) -> SendFailure {
    let chain = error_chain(&e);
    if e.is_connect() {
        let tls = chain.to_ascii_lowercase().contains("certificate");
        let class = if tls {
            FailureClass::Security
        } else {
            FailureClass::NotSent
        };
        return SendFailure::new(
            class,
            Error::transport(format!("could not connect: {chain}")),
        );
    }
    if e.is_builder() {
        return SendFailure::new(
            FailureClass::Final,
            Error::transport(format!("the request could not be built: {chain}")),
        );
    }
    let timed_out = e.is_timeout();
    SendFailure {
        class: FailureClass::Ambiguous,
        error: if timed_out {
            Error::timeout(format!("the request timed out: {chain}"))
        } else {
            Error::transport(format!(
                "the connection failed after the request was sent: {chain}"
            ))
        },
        timed_out,
    }
}

/// "outer: inner: innermost", without the URL (it may carry identifiers).
pub(crate) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![];
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        let text = err.to_string();
        let text = match text.find(" for url (") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        if !parts.contains(&text) {
            parts.push(text);
        }
        cur = err.source();
    }
    parts.join(": ")
}

/// A header value marked sensitive, so no debug output of the request shows it, and
/// wiped when the HTTP client drops its last copy.
pub(crate) fn sensitive(value: &str, what: &str) -> Result<HeaderValue, Error> {
    let mut v = HeaderValue::from_maybe_shared(wiped_bytes(value.as_bytes())).map_err(|_| {
        Error::validation(what, "contains characters not allowed in an HTTP header")
    })?;
    v.set_sensitive(true);
    Ok(v)
}

/// The response's headers, copied: the client's values are slices of its read buffer,
/// which holds the body too and would live as long as we keep them.
fn own_headers(headers: &HeaderMap) -> HeaderMap {
    let mut own = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let mut v = HeaderValue::from_bytes(value.as_bytes()).unwrap_or_else(|_| value.clone());
        v.set_sensitive(value.is_sensitive());
        own.append(name.clone(), v);
    }
    own
}
