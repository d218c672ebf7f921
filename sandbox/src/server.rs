//! Our own HTTP/1.1 accept loop: every response is fully built before it is written, so the
//! connection-level faults (reset, truncation, broken chunking, throttling, stall) can be
//! produced byte by byte on the raw socket.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::faults::FaultAction;
use crate::http::{envelope, percent_decode, reason, Req, Resp};
use crate::state::State;

const MAX_HEAD: usize = 64 * 1024;
/// Larger request bodies get 413.
pub const MAX_BODY: usize = 1024 * 1024;

static CONN_IDS: AtomicU64 = AtomicU64::new(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listener {
    Api,
    Documents,
    Foreign,
}

impl Listener {
    pub fn name(self) -> &'static str {
        match self {
            Listener::Api => "api",
            Listener::Documents => "documents",
            Listener::Foreign => "foreign",
        }
    }
}

/// What the dispatcher decided: the response and, possibly, a fault to apply while writing it.
pub struct Planned {
    pub resp: Option<Resp>,
    pub fault: Option<FaultAction>,
}

pub async fn accept_loop(
    listener: TcpListener,
    kind: Listener,
    state: Arc<State>,
    mut shutdown: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            _ = shutdown.changed() => break,
            acc = listener.accept() => {
                let Ok((stream, _)) = acc else { continue };
                let _ = stream.set_nodelay(true);
                let id = CONN_IDS.fetch_add(1, Ordering::Relaxed);
                let st = state.clone();
                let sd = shutdown.clone();
                tokio::spawn(async move {
                    let mut sd2 = sd.clone();
                    tokio::select! {
                        _ = serve_conn(stream, id, kind, st, sd) => {}
                        _ = sd2.changed() => {}
                    }
                });
            }
        }
    }
}

enum ReadOutcome {
    Request(Box<Req>, bool),
    Closed,
    Reply(Resp),
}

async fn serve_conn(
    mut stream: TcpStream,
    conn_id: u64,
    kind: Listener,
    state: Arc<State>,
    shutdown: watch::Receiver<bool>,
) {
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let idle = state.config.idle_timeout.filter(|_| buf.is_empty());
        let next = read_request(&mut stream, &mut buf, conn_id);
        let next = match idle {
            // Idle between requests (nothing of the next one read yet): closed quietly.
            Some(idle) => match tokio::time::timeout(idle, next).await {
                Ok(outcome) => outcome,
                Err(_) => return,
            },
            _ => next.await,
        };
        let (req, keep_alive) = match next {
            ReadOutcome::Request(r, k) => (r, k),
            ReadOutcome::Closed => return,
            ReadOutcome::Reply(resp) => {
                let mut resp = resp;
                resp.headers
                    .push(("x-svc-RequestId".into(), state.request_id()));
                let _ = stream.write_all(&serialize(&resp, false, None)).await;
                return;
            }
        };
        let head_only = req.method == "HEAD";
        let mut planned = state.dispatch(kind, *req).await;
        if head_only {
            // HEAD: the headers of the GET answer, no body.
            if let Some(r) = planned.resp.as_mut() {
                let len = r.body.len();
                r.body.clear();
                r.headers.push(("Content-Length".into(), len.to_string()));
                let bytes = head(r, !keep_alive, None);
                if stream.write_all(&bytes).await.is_err() || !keep_alive {
                    return;
                }
                continue;
            }
        }
        let close = write_planned(&mut stream, planned, keep_alive, shutdown.clone())
            .await
            .unwrap_or(true);
        if close {
            return;
        }
    }
}

async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>, conn_id: u64) -> ReadOutcome {
    // Read until the end of the head.
    let head_end = loop {
        if let Some(p) = find(buf, b"\r\n\r\n") {
            break p + 4;
        }
        if buf.len() > MAX_HEAD {
            return ReadOutcome::Reply(envelope(
                431,
                "INVALID_REQUEST_PARAMETER",
                "Request headers too large.",
            ));
        }
        let mut tmp = [0u8; 8192];
        match stream.read(&mut tmp).await {
            Ok(0) | Err(_) => return ReadOutcome::Closed,
            Ok(n) => buf.extend_from_slice(&tmp[..n]),
        }
    };
    let mut hdrs = [httparse::EMPTY_HEADER; 128];
    let mut parsed = httparse::Request::new(&mut hdrs);
    let ok = matches!(
        parsed.parse(&buf[..head_end]),
        Ok(httparse::Status::Complete(_))
    );
    if !ok {
        return ReadOutcome::Reply(envelope(
            400,
            "INVALID_REQUEST_PARAMETER",
            "Malformed HTTP request.",
        ));
    }
    let method = parsed.method.unwrap_or("GET").to_string();
    let target = parsed.path.unwrap_or("/").to_string();
    let version = parsed.version.unwrap_or(1);
    let headers: Vec<(String, String)> = parsed
        .headers
        .iter()
        .map(|h| {
            (
                h.name.to_ascii_lowercase(),
                String::from_utf8_lossy(h.value).trim().to_string(),
            )
        })
        .collect();
    let get = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    let chunked = get("transfer-encoding")
        .map(|v| v.to_ascii_lowercase().contains("chunked"))
        .unwrap_or(false);
    let content_length: usize = match get("content-length") {
        Some(v) => match v.parse() {
            Ok(n) => n,
            Err(_) => {
                return ReadOutcome::Reply(envelope(
                    400,
                    "INVALID_REQUEST_PARAMETER",
                    "Invalid Content-Length.",
                ))
            }
        },
        None => 0,
    };
    if content_length > MAX_BODY {
        return ReadOutcome::Reply(envelope(
            413,
            "RequestEntityTooLarge",
            "The request is larger than accepted.",
        ));
    }
    if get("expect")
        .map(|v| v.eq_ignore_ascii_case("100-continue"))
        .unwrap_or(false)
    {
        let _ = stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await;
    }
    buf.drain(..head_end);
    let body = if chunked {
        match read_chunked(stream, buf).await {
            Some(b) => b,
            None => return ReadOutcome::Closed,
        }
    } else {
        while buf.len() < content_length {
            let mut tmp = [0u8; 16384];
            match stream.read(&mut tmp).await {
                Ok(0) | Err(_) => return ReadOutcome::Closed,
                Ok(n) => buf.extend_from_slice(&tmp[..n]),
            }
        }
        buf.drain(..content_length).collect()
    };
    if body.len() > MAX_BODY {
        return ReadOutcome::Reply(envelope(
            413,
            "RequestEntityTooLarge",
            "The request is larger than accepted.",
        ));
    }
    let keep_alive = match get("connection") {
        Some(c) if c.eq_ignore_ascii_case("close") => false,
        Some(c) if c.eq_ignore_ascii_case("keep-alive") => true,
        _ => version == 1,
    };
    let (path, raw_query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (target.clone(), String::new()),
    };
    let segments: Vec<String> = path
        .trim_start_matches('/')
        .split('/')
        .map(percent_decode)
        .collect();
    let query: Vec<(String, String)> = match serde_urlencoded::from_str(&raw_query) {
        Ok(q) => q,
        Err(_) => {
            return ReadOutcome::Reply(envelope(
                400,
                "INVALID_REQUEST_PARAMETER",
                "Malformed query string.",
            ))
        }
    };
    ReadOutcome::Request(
        Box::new(Req {
            method,
            path,
            segments,
            raw_query,
            query,
            headers,
            body,
            conn_id,
            params: Vec::new(),
            party: 0,
            scope: None,
        }),
        keep_alive,
    )
}

async fn read_chunked(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(p) = find(buf, b"\r\n") {
                break p;
            }
            fill(stream, buf).await?;
        };
        let size_text = String::from_utf8_lossy(&buf[..line_end]).to_string();
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        buf.drain(..line_end + 2);
        if size == 0 {
            // Trailers end with an empty line.
            loop {
                if let Some(p) = find(buf, b"\r\n") {
                    let empty = p == 0;
                    buf.drain(..p + 2);
                    if empty {
                        return Some(body);
                    }
                } else {
                    fill(stream, buf).await?;
                }
            }
        }
        while buf.len() < size + 2 {
            fill(stream, buf).await?;
        }
        body.extend_from_slice(&buf[..size]);
        buf.drain(..size + 2);
        if body.len() > MAX_BODY {
            return Some(body);
        }
    }
}

async fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<()> {
    let mut tmp = [0u8; 8192];
    match stream.read(&mut tmp).await {
        Ok(0) | Err(_) => None,
        Ok(n) => {
            buf.extend_from_slice(&tmp[..n]);
            Some(())
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Status line and headers; `content_length` None means the caller writes its own framing.
fn head(resp: &Resp, close: bool, content_length: Option<usize>) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status));
    for (k, v) in &resp.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    // 204 and 304 carry no body and no Content-Length.
    if let (Some(n), false) = (content_length, resp.status == 204 || resp.status == 304) {
        out.push_str(&format!("Content-Length: {n}\r\n"));
    }
    if close {
        out.push_str("Connection: close\r\n");
    }
    out.push_str("\r\n");
    out.into_bytes()
}

fn serialize(resp: &Resp, keep_alive: bool, declared: Option<usize>) -> Vec<u8> {
    let mut out = head(resp, !keep_alive, Some(declared.unwrap_or(resp.body.len())));
    out.extend_from_slice(&resp.body);
    out
}

/// Writes the response, applying a connection-level fault. Returns whether to close.
async fn write_planned(
    stream: &mut TcpStream,
    planned: Planned,
    keep_alive: bool,
    mut shutdown: watch::Receiver<bool>,
) -> std::io::Result<bool> {
    let Some(resp) = planned.resp else {
        reset(stream);
        return Ok(true);
    };
    match planned.fault {
        Some(FaultAction::ResetBeforeHeaders) => {
            reset(stream);
            Ok(true)
        }
        Some(FaultAction::ResetAfterBytes(n)) => {
            let bytes = serialize(&resp, false, None);
            let n = (n as usize).min(bytes.len());
            stream.write_all(&bytes[..n]).await?;
            stream.flush().await?;
            // Let the bytes leave before the reset discards them.
            tokio::time::sleep(Duration::from_millis(20)).await;
            reset(stream);
            Ok(true)
        }
        Some(FaultAction::Truncate) => {
            let declared = resp.body.len() + resp.body.len().max(64);
            let bytes = serialize(&resp, false, Some(declared));
            stream.write_all(&bytes).await?;
            stream.flush().await?;
            let _ = stream.shutdown().await;
            Ok(true)
        }
        Some(FaultAction::BrokenChunking) => {
            let mut r = resp.clone();
            r.headers
                .push(("Transfer-Encoding".into(), "chunked".into()));
            let mut bytes = head(&r, true, None);
            let half = resp.body.len() / 2;
            bytes.extend_from_slice(format!("{half:x}\r\n").as_bytes());
            bytes.extend_from_slice(&resp.body[..half]);
            bytes.extend_from_slice(b"\r\nnot-a-chunk-size\r\n");
            bytes.extend_from_slice(&resp.body[half..]);
            stream.write_all(&bytes).await?;
            stream.flush().await?;
            let _ = stream.shutdown().await;
            Ok(true)
        }
        Some(FaultAction::BytesPerSecond(bps)) => {
            let bytes = serialize(&resp, keep_alive, None);
            // Ten slices a second.
            let slice = ((bps / 10).max(1)) as usize;
            for chunk in bytes.chunks(slice) {
                stream.write_all(chunk).await?;
                stream.flush().await?;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Ok(!keep_alive)
        }
        Some(FaultAction::StallAfterBytes(n)) => {
            let bytes = serialize(&resp, false, None);
            let n = (n as usize).min(bytes.len());
            stream.write_all(&bytes[..n]).await?;
            stream.flush().await?;
            // Stall until the peer gives up or the sandbox stops.
            let mut tmp = [0u8; 1024];
            loop {
                tokio::select! {
                    _ = shutdown.changed() => break,
                    r = stream.read(&mut tmp) => match r { Ok(0) | Err(_) => break, Ok(_) => {} },
                }
            }
            Ok(true)
        }
        _ => {
            stream
                .write_all(&serialize(&resp, keep_alive, None))
                .await?;
            stream.flush().await?;
            Ok(!keep_alive)
        }
    }
}

fn reset(stream: &TcpStream) {
    let _ = stream.set_zero_linger();
}
