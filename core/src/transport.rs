//! HTTP: reqwest with rustls, a keep-alive pool, no redirects, our headers marked
//! sensitive, the response read under a size cap, and the error envelope decoded.
//!
//! One attempt is one call of `send`; what to do after a failure is decided elsewhere
//! (`retry`), from the `FailureClass` this module reports.

use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http::{HeaderMap, HeaderName, HeaderValue, Method};

use crate::config::Settings;
use crate::error::{server_text, without_emails, ApiFailure, Error, ErrorEntry};
use crate::pools::{Pool, PoolKind};
use crate::retry::FailureClass;
use crate::wipe::{wipe_received, wiped_bytes, WipeBuf};
use crate::wire;

/// A response that arrived whole. Its `Debug` shows the status, the header names and
/// the body's size, never the body (a token response carries tokens).
#[derive(Clone)]
pub struct HttpResponse {
    /// The HTTP status.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The whole body.
    pub body: Bytes,
}

impl std::fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status)
            .field("headers", &HeaderNames(&self.headers))
            .field("body", &format_args!("<{} bytes>", self.body.len()))
            .finish()
    }
}

/// Header names only (values may be credentials).
struct HeaderNames<'a>(&'a HeaderMap);

impl std::fmt::Debug for HeaderNames<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

impl HttpResponse {
    /// A header's value, if present and visible ASCII.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    /// `x-svc-RequestId` (server text: filtered and bounded).
    pub fn request_id(&self) -> Option<String> {
        header_string(&self.headers, wire::HEADER_REQUEST_ID)
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
            let ctype = self.content_type();
            let excerpt: String = String::from_utf8_lossy(&self.body)
                .chars()
                .take(120)
                .filter(|c| !c.is_control())
                .collect();
            // serde's message may quote a value too ("invalid type: string \"…\"").
            let (why, excerpt) = (without_emails(&e.to_string()), without_emails(&excerpt));
            Error::transport(format!(
                "HTTP {} ({ctype}) is not a valid {op} response: {why}; it starts with {excerpt:?}",
                self.status
            ))
            .with_request_id(self.request_id())
            .with_operation(op)
        })
    }

    /// The status is 2xx.
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
        // The envelope is server text headed for errors and logs: filtered and bounded.
        let errors = match serde_json::from_slice::<Envelope>(&self.body) {
            Ok(env) if !env.errors.is_empty() => env
                .errors
                .into_iter()
                .map(|e| ErrorEntry {
                    code: server_text(&e.code),
                    message: server_text(&e.message),
                    details: server_text(&e.details),
                })
                .collect(),
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

    /// `"HTTP 502, text/html, body: <html>…"`, with at most 200 characters of the body.
    pub fn describe_body(&self) -> String {
        let ctype = self.content_type();
        let text = String::from_utf8_lossy(&self.body);
        let excerpt: String = text.chars().take(200).filter(|c| !c.is_control()).collect();
        let excerpt = without_emails(&excerpt);
        if excerpt.is_empty() {
            format!("HTTP {} with an empty {ctype} body", self.status)
        } else {
            format!("HTTP {} with a {ctype} body: {excerpt}", self.status)
        }
    }

    /// The content type, as server text (filtered and bounded).
    fn content_type(&self) -> String {
        self.header("content-type")
            .map_or_else(|| "no content type".to_string(), server_text)
    }
}

/// A document response whose body is read piece by piece (`Transport::open_document`).
/// Its `Debug` shows neither the address (presigned: a credential) nor the body.
pub struct DocumentBody {
    /// The HTTP status.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    response: reqwest::Response,
    received: u64,
    cap: u64,
    stall: Duration,
    timeout: Duration,
    /// What is left of `timeout` for waiting on the network.
    left: Duration,
}

impl std::fmt::Debug for DocumentBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocumentBody")
            .field("status", &self.status)
            .field("headers", &HeaderNames(&self.headers))
            .field("received", &self.received)
            .field("cap", &self.cap)
            .finish_non_exhaustive()
    }
}

impl DocumentBody {
    /// The status is 2xx.
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
    /// How far the request got, which decides whether it may be retried.
    pub class: FailureClass,
    /// The error to report if it is not retried.
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

/// A request ready to send. Its `Debug` shows the method, the address redacted (no
/// query: a presigned address's signature), the header names and the body's size and
/// type, never a header value or the body (the token form carries the secrets).
#[derive(Clone)]
pub struct HttpRequest {
    /// The HTTP method.
    pub method: Method,
    /// The full address, query included, parsed once (the HTTP client takes it as is).
    pub url: reqwest::Url,
    /// The headers, in order.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// The body and its content type.
    pub body: Option<(Bytes, &'static str)>,
}

impl std::fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&HeaderName> = self.headers.iter().map(|(n, _)| n).collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &crate::secret::redact_url(self.url.as_str()))
            .field("headers", &names)
            .field(
                "body",
                &self
                    .body
                    .as_ref()
                    .map(|(b, ctype)| format!("<{} bytes of {ctype}>", b.len())),
            )
            .finish()
    }
}

/// The HTTP layer shared by a client's operations. Its `Debug` shows no pool (a pool's
/// `Debug` would print the proxy address, password included).
// repr(C): what an API call reads first, together (`client::Inner`, B11).
#[derive(Clone)]
#[repr(C)]
pub struct Transport {
    /// The API pool (`pools.rs`: shared with the other clients of the same route where the
    /// call runs); reset after a transient failure so that a connection that may be in a
    /// bad state (a reset, a half-read body, a server in trouble) is not reused.
    api: Pool,
    /// Sent on every request (the pools are shared by clients of different applications);
    /// one per distinct value in the process (`fork::interned`).
    user_agent: std::sync::Arc<HeaderValue>,
    max_response_bytes: usize,
    /// The longest wait for the next body byte once a response has started.
    stall_timeout: Duration,
    /// For presigned document addresses: a separate pool that never carries our headers.
    documents: Pool,
}

/// How the pools reach hosts, decided once when the transport is built.
struct Route {
    /// For remote https addresses only (a `Proxy::https`, with loopback exempted): the
    /// `proxy` setting, else `https_proxy`/`all_proxy` minus `no_proxy` of the environment;
    /// with the text that identifies it (address and exemptions).
    proxy: Option<(reqwest::Proxy, String)>,
    /// `localhost` connects to what it resolved to when it was checked to be loopback
    /// only, never to what a later lookup says.
    localhost: Vec<std::net::SocketAddr>,
}
/// The API or the authorization server is a remote address (not loopback).
fn remote(settings: &Settings) -> bool {
    settings
        .addresses()
        .iter()
        .filter(|(name, _)| *name != "consent_endpoint")
        .any(|(_, a)| url::Url::parse(a).map_or(true, |u| !crate::config::is_loopback(&u)))
}

/// Hosts that never go through a proxy, whatever the settings or environment say.
const NEVER_PROXIED: &str = "localhost,127.0.0.0/8,::1";

/// The environment variables of a proxy for https addresses, in the order curl reads them.
const PROXY_ENV: [&str; 4] = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"];
const NO_PROXY_ENV: [&str; 2] = ["no_proxy", "NO_PROXY"];

fn first_env(names: &[&'static str]) -> Option<(&'static str, String)> {
    names.iter().find_map(|n| {
        std::env::var(n)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .map(|v| (*n, v))
    })
}

impl Route {
    fn new(settings: &Settings) -> Result<Route, Error> {
        let proxy = match &settings.proxy {
            Some(p) => Some((
                crate::config::check_proxy("proxy", p.expose())?,
                String::new(),
            )),
            None => match first_env(&PROXY_ENV) {
                Some((name, value)) => match crate::config::check_proxy(name, &value) {
                    Ok(url) => Some((
                        url,
                        first_env(&NO_PROXY_ENV).map_or(String::new(), |(_, v)| v),
                    )),
                    // An environment proxy we cannot use (socks5://, a typo) is an error
                    // for a client of remote addresses (going direct would surprise
                    // whoever set it); a loopback-only client (the sandbox) never uses it.
                    Err(e) if remote(settings) => return Err(e),
                    Err(_) => {
                        log::debug!(target: "abws", "{name} is not a usable proxy address; a loopback client does not need it");
                        None
                    }
                },
                None => None,
            },
        };
        let proxy = match proxy {
            Some((url, no_proxy)) => {
                let exempt = format!("{no_proxy},{NEVER_PROXIED}");
                let proxy = reqwest::Proxy::https(url.as_str())
                    .map_err(|_| Error::validation("proxy", "is not a usable proxy address"))?
                    .no_proxy(reqwest::NoProxy::from_string(&exempt));
                Some((proxy, format!("{url} except {exempt}")))
            }
            None => None,
        };
        let localhost: Vec<std::net::SocketAddr> = crate::config::localhost_addrs()
            .unwrap_or_default()
            .into_iter()
            .map(|ip| std::net::SocketAddr::new(ip, 0))
            .collect();
        // Plain http to `localhost` was accepted because it resolved to loopback only; if
        // this second look says otherwise, refuse rather than connect to what it says now.
        for (name, address) in settings.addresses() {
            let plain_localhost = url::Url::parse(address).is_ok_and(|u| {
                u.scheme() == "http"
                    && u.host_str()
                        .is_some_and(|h| h.eq_ignore_ascii_case("localhost"))
            });
            if plain_localhost && localhost.is_empty() {
                return Err(Error::validation(
                    name,
                    "plain http to localhost needs localhost to resolve to loopback addresses only",
                ));
            }
        }
        Ok(Route { proxy, localhost })
    }
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("stall_timeout", &self.stall_timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("proxied", &self.proxied())
            .finish_non_exhaustive()
    }
}

/// A pool that cannot be had is a transport failure of the attempt (nothing was sent).
fn no_pool(error: Error) -> SendFailure {
    SendFailure::new(FailureClass::Final, error)
}

impl Transport {
    /// The transport of a client: its pools, with the proxy route of the settings (or of
    /// the environment) decided here, once.
    pub fn new(settings: &Settings) -> Result<Transport, Error> {
        static USER_AGENTS: std::sync::Mutex<Vec<std::sync::Weak<HeaderValue>>> =
            std::sync::Mutex::new(Vec::new());
        let user_agent = HeaderValue::from_str(&settings.user_agent())
            .map_err(|_| Error::validation("app_name", "must be printable ASCII text"))?;
        let user_agent = crate::fork::interned(&USER_AGENTS, user_agent);
        let route = Route::new(settings)?;
        let connect = settings.timeouts.connect;
        let pool = |kind| Pool::new(kind, route.proxy.clone(), route.localhost.clone(), connect);
        Ok(Transport {
            api: pool(PoolKind::Api)?,
            user_agent,
            stall_timeout: settings.timeouts.stall,
            documents: pool(PoolKind::Documents)?,
            max_response_bytes: settings.max_response_bytes,
        })
    }

    /// Whether remote https addresses go through a proxy (for diagnostics and tests).
    pub fn proxied(&self) -> bool {
        self.api.proxied()
    }

    /// The API pool of where the call runs, for callers that stream.
    pub fn client(&self) -> Result<reqwest::Client, Error> {
        self.api.get()
    }

    /// Drops every pooled connection of where the call runs: the next request opens a new
    /// one. Called after a transient failure; requests in flight keep the connection they
    /// have.
    pub fn reset_pool(&self) {
        self.api.reset();
    }

    /// Sends one attempt and reads the whole response within `timeout`.
    pub async fn send(
        &self,
        req: HttpRequest,
        timeout: Duration,
    ) -> Result<HttpResponse, SendFailure> {
        let client = self.api.get().map_err(no_pool)?;
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
            url: address(url)?,
            headers: vec![],
            body: None,
        };
        let client = self.documents.get().map_err(no_pool)?;
        self.send_with(&client, req, timeout, max_bytes).await
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
        let request = self
            .documents
            .get()
            .map_err(no_pool)?
            .request(Method::GET, url)
            .header(
                http::header::USER_AGENT,
                HeaderValue::clone(&self.user_agent),
            )
            .send();
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
            Self::send_inner(client, &self.user_agent, req, cap, self.stall_timeout),
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
        user_agent: &HeaderValue,
        req: HttpRequest,
        cap: u64,
        stall: Duration,
    ) -> Result<HttpResponse, SendFailure> {
        let mut builder = client
            .request(req.method.clone(), req.url)
            .header(http::header::USER_AGENT, user_agent.clone());
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
    security_failure(
        format!(
            "the server answered HTTP {status}, a redirect to {target}; API calls do not follow \
             redirects, so our credentials never reach another host (check the endpoint setting)"
        ),
        headers,
    )
}

fn document_too_large(cap: u64, headers: &HeaderMap) -> SendFailure {
    security_failure(
        format!(
            "the document is larger than {cap} bytes (raise the max_document_bytes setting if this is expected)"
        ),
        headers,
    )
}

fn too_large(cap: u64, headers: &HeaderMap) -> SendFailure {
    security_failure(
        format!(
            "response too large: more than {cap} bytes (raise the max_response_bytes setting if this is expected)"
        ),
        headers,
    )
}

/// A response refused for the client's safety (a redirect, a body past its bound): not
/// retried, with the response's request id.
fn security_failure(message: String, headers: &HeaderMap) -> SendFailure {
    SendFailure::new(
        FailureClass::Security,
        Error::transport(message).with_request_id(header_string(headers, wire::HEADER_REQUEST_ID)),
    )
}

/// A header's value as server text (filtered and bounded: it goes into errors and logs).
fn header_string(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(server_text)
}

/// The host of a redirect target (never the full address: it may carry a query).
fn redirect_host(location: &str) -> String {
    match url::Url::parse(location) {
        Ok(u) => server_text(u.host_str().unwrap_or("an unnamed host")),
        Err(_) => "a relative location on the same host".to_string(),
    }
}

/// Classifies a reqwest error: a connect failure never reached the server (F0); anything
/// after the request may have been written is ambiguous (F2).
/// A request's address, parsed: a malformed one is final, as the HTTP client's own refusal
/// to build the request would be (the error names the rule, not the address).
pub(crate) fn address(url: &str) -> Result<reqwest::Url, SendFailure> {
    reqwest::Url::parse(url).map_err(|e| {
        SendFailure::new(
            FailureClass::Final,
            Error::transport(format!(
                "the request could not be built: invalid address: {e}"
            )),
        )
    })
}

/// `scheme://host:port` of an address: what a connect error names (never the path or the
/// query, which may carry a presigned signature or identifiers).
pub fn origin(url: &url::Url) -> String {
    match (url.host_str(), url.port_or_known_default()) {
        (Some(host), Some(port)) => format!("{}://{host}:{port}", url.scheme()),
        (Some(host), None) => format!("{}://{host}", url.scheme()),
        _ => url.scheme().to_string(),
    }
}

pub(crate) fn classify_reqwest(e: reqwest::Error) -> SendFailure {
    let chain = error_chain(&e);
    if e.is_connect() {
        let to = e
            .url()
            .map(|u| format!(" to {}", origin(u)))
            .unwrap_or_default();
        let tls = chain.to_ascii_lowercase().contains("certificate");
        let class = if tls {
            FailureClass::Security
        } else {
            FailureClass::NotSent
        };
        return SendFailure::new(
            class,
            Error::transport(format!("could not connect{to}: {chain}")),
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
