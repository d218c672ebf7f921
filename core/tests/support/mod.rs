//! A scripted HTTP server on 127.0.0.1 for the machinery tests: a token endpoint that
//! counts its calls, and API paths that answer from a per-path script, recording every
//! request. (Operation tests use the sandbox instead.)
#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::Router;

#[derive(Clone, Debug)]
pub struct Scripted {
    pub status: u16,
    pub body: String,
    pub headers: Vec<(String, String)>,
    pub delay: Duration,
}

impl Scripted {
    pub fn json(status: u16, body: &str) -> Scripted {
        Scripted {
            status,
            body: body.to_string(),
            headers: vec![("content-type".into(), "application/json".into())],
            delay: Duration::ZERO,
        }
    }
    pub fn header(mut self, k: &str, v: &str) -> Scripted {
        self.headers.push((k.into(), v.into()));
        self
    }
    pub fn delay(mut self, d: Duration) -> Scripted {
        self.delay = d;
        self
    }
}

#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub query: String,
    pub headers: HeaderMap,
    pub body: String,
}

#[derive(Default)]
pub struct Shared {
    pub token_calls: AtomicUsize,
    pub token_delay_ms: AtomicUsize,
    pub token_lifetime_s: AtomicUsize,
    pub token_script: Mutex<VecDeque<Scripted>>,
    pub scripts: Mutex<HashMap<String, VecDeque<Scripted>>>,
    pub seen: Mutex<Vec<Seen>>,
    pub counter: AtomicUsize,
}

pub struct TestServer {
    pub addr: SocketAddr,
    pub shared: Arc<Shared>,
    _shutdown: tokio::sync::oneshot::Sender<()>,
    _thread: Option<std::thread::JoinHandle<()>>,
}

impl TestServer {
    /// Starts on its own thread and runtime, so blocking clients can call it.
    pub fn start() -> TestServer {
        let shared = Arc::new(Shared::default());
        shared.token_lifetime_s.store(3600, Ordering::SeqCst);
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let s2 = shared.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx.send(listener.local_addr().unwrap()).unwrap();
                let app = Router::new().fallback(handle).with_state(s2);
                axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = rx.await;
                    })
                    .await
                    .unwrap();
            });
        });
        let addr = addr_rx.recv().unwrap();
        TestServer {
            addr,
            shared,
            _shutdown: tx,
            _thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Queues answers for a path (served in order; afterwards 200 `{}`).
    pub fn script(&self, path: &str, answers: Vec<Scripted>) {
        self.shared
            .scripts
            .lock()
            .unwrap()
            .entry(path.to_string())
            .or_default()
            .extend(answers);
    }

    pub fn token_calls(&self) -> usize {
        self.shared.token_calls.load(Ordering::SeqCst)
    }

    pub fn seen(&self, path: &str) -> Vec<Seen> {
        self.shared
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.path == path)
            .cloned()
            .collect()
    }

    pub fn settings(&self) -> abws::Settings {
        let mut s = abws::Settings::new(
            abws::Region::JP,
            abws::Credentials::RefreshToken {
                client_id: "client-1".into(),
                client_secret: "secret-1".into(),
                refresh_token: format!("Atzr|refresh-{}", self.addr.port()).into(),
            },
        );
        s.endpoint = Some(self.url());
        s.auth_endpoint = Some(self.url());
        s.user_email = Some("buyer@example.com".into());
        s
    }
}

async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let path = parts.uri.path().to_string();
    shared.seen.lock().unwrap().push(Seen {
        method: parts.method.to_string(),
        path: path.clone(),
        query: parts.uri.query().unwrap_or("").to_string(),
        headers: parts.headers.clone(),
        body: String::from_utf8_lossy(&body).to_string(),
    });
    let n = shared.counter.fetch_add(1, Ordering::SeqCst);
    if path == "/auth/O2/token" {
        let scripted = shared.token_script.lock().unwrap().pop_front();
        if let Some(s) = scripted {
            shared.token_calls.fetch_add(1, Ordering::SeqCst);
            return respond(s, n).await;
        }
        let delay = shared.token_delay_ms.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(delay as u64)).await;
        let calls = shared.token_calls.fetch_add(1, Ordering::SeqCst) + 1;
        let life = shared.token_lifetime_s.load(Ordering::SeqCst);
        let body = format!(
            r#"{{"access_token":"Atza|token-{calls}","token_type":"bearer","expires_in":{life}}}"#
        );
        return respond(Scripted::json(200, &body), n).await;
    }
    let scripted = shared
        .scripts
        .lock()
        .unwrap()
        .get_mut(&path)
        .and_then(|q| q.pop_front());
    respond(scripted.unwrap_or_else(|| Scripted::json(200, "{}")), n).await
}

async fn respond(s: Scripted, n: usize) -> Response {
    if !s.delay.is_zero() {
        tokio::time::sleep(s.delay).await;
    }
    let mut r = Response::builder().status(StatusCode::from_u16(s.status).unwrap());
    r = r.header("x-svc-RequestId", format!("req-{n}"));
    for (k, v) in &s.headers {
        r = r.header(k.as_str(), v.as_str());
    }
    r.body(Body::from(s.body)).unwrap()
}
