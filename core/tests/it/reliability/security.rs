//! L. Security properties.

use std::sync::{Arc, Mutex};

use abws::api::cart::{GetEstimatedTotalPurchaseCostParams, ListCartsParams};
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule};
use serde_json::json;

use super::{figure, Figure};
use crate::common;
use crate::common::calls::{first_invoice, invoice_detail};
use crate::common::faults;

/// The environment variables that name a proxy.
const PROXY_VARS: [&str; 6] = [
    "http_proxy",
    "HTTP_PROXY",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
];

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    let logs = super::capture_logs();

    // L1: sentinel secrets never appear in logs, Debug/Display, errors.
    let sb = common::sandbox();
    let creds = sb.credentials();
    let client = common::client(&sb, Region::JP);
    let mut text = String::new();
    let number = first_invoice(&sb);
    sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", faults::status(503)).times(2));
    let ok = invoice_detail(&client, &number).unwrap();
    text.push_str(&format!("{ok:?}"));
    for e in [
        invoice_detail(&client, "NOPE").unwrap_err(),
        client
            .cart()
            .list_carts(&ListCartsParams {
                region: Some("ZZ".into()),
                page_size: None,
                page_token: None,
                ..Default::default()
            })
            .unwrap_err(),
    ] {
        text.push_str(&format!("{e} {e:?}"));
    }
    sb.expire_tokens();
    let _ = invoice_detail(&client, &number);
    let token = client
        .run(|c| async move { c.access_token().await })
        .unwrap();
    text.push_str(&format!(
        "{client:?} {:?} {:?} {token:?} {token}",
        client.settings(),
        client.credentials().unwrap()
    ));
    let code = common::consent::consent_code(&sb);
    let bad = common::consent::exchange(&sb, "wrong-secret", &code);
    if let Err(e) = bad {
        text.push_str(&format!("{e} {e:?}"));
    }
    sb.revoke();
    let revoked = common::client(&sb, Region::JP);
    if let Err(e) = invoice_detail(&revoked, &number) {
        text.push_str(&format!("{e} {e:?}"));
    }
    text.push_str(&logs.text());
    let sentinels = [
        creds.client_secret.as_str(),
        creds.refresh_token.as_str(),
        token.expose(),
        code.as_str(),
        creds.user_email.as_str(),
    ];
    let hits: usize = sentinels.iter().map(|s| text.matches(s).count()).sum();
    for (name, s) in [
        "client_secret",
        "refresh_token",
        "access_token",
        "code",
        "user_email",
    ]
    .iter()
    .zip(sentinels)
    {
        if text.contains(s) {
            let i = text.find(s).unwrap();
            eprintln!(
                "L1: {name} leaked near {:?}",
                &text[i.saturating_sub(80)..(i + 20).min(text.len())]
            );
        }
    }
    out.push(figure("L1", hits == 0 && logs.text().len() > 100, format!("occurrences of 5 sentinel secrets = {hits} in {} KB of logs (TRACE), Debug/Display and errors", text.len() / 1024)));

    // L2: redirects to a foreign listener are not followed, for every redirect status.
    let (sb, client) = common::sandbox_and_client();
    let mut named = 0;
    for status in [301u16, 302, 303, 307, 308] {
        sb.inject(
            FaultRule::new(
                "getInvoiceDetailByInvoiceNumber",
                FaultAction::Redirect {
                    status,
                    location: format!("{}/steal", sb.foreign_url()),
                },
            )
            .times(1),
        );
        if let Err(e) = invoice_detail(&client, "X") {
            if e.kind() == ErrorKind::Transport && e.to_string().contains("127.0.0.1") {
                named += 1;
            }
        }
    }
    let foreign = sb.counters()["headersSeen"]["foreign"]
        .as_array()
        .map_or(0, |a| a.len());
    out.push(figure("L2", foreign == 0 && named == 5, format!("token-bearing requests received by the foreign listener = {foreign} of 5 codes; {named}/5 errors name the target host")));

    // L3: bad certificates are refused and never retried.
    let (refused, connections) = tls_refusals();
    out.push(figure("L3", refused == 3 && connections == 3, format!("refused {refused}/3 (self-signed, expired, wrong host); TLS connections attempted = {connections} (no retry)")));
    // L4: plain http off loopback is refused before sending.
    let mut s = common::settings(&sb, Region::JP);
    s.endpoint = Some("http://192.0.2.10:8080".into());
    let refused = abws::blocking::Client::new(s).is_err();
    out.push(figure(
        "L4",
        refused,
        format!(
            "plaintext requests sent to a non-loopback http:// endpoint = {}",
            u8::from(!refused)
        ),
    ));

    // L5: errors carry status, code, message and request id; request bodies are not echoed.
    let body =
        json!({"errors":[{"code":"INVALID_REQUEST_PARAMETER","message":"bad","details":""}]});
    sb.inject(FaultRule::new("getEstimatedTotalPurchaseCost", faults::answer(400, body)).times(1));
    let cart = sb.dataset()["carts"][0]["id"].as_str().unwrap().to_string();
    let address = common::calls::address([
        "PII-MARKER Yamada",
        "PII-MARKER street 1",
        "Tokyo",
        "Tokyo",
        "100-0001",
        "JP",
    ]);
    let e = client
        .cart()
        .get_estimated_total_purchase_cost(&GetEstimatedTotalPurchaseCostParams {
            cart_id: cart.to_string(),
            region: Some("JP".into()),
            address: address.clone(),
        })
        .unwrap_err();
    let t = format!("{e} {e:?}");
    let complete = e.status() == Some(400)
        && e.code().is_some()
        && e.request_id().is_some()
        && t.contains("bad");
    out.push(figure(
        "L5",
        complete && !t.contains("PII-MARKER"),
        format!(
            "errors with status, code, message and request id: {complete}; PII markers = {}",
            t.matches("PII-MARKER").count()
        ),
    ));
    out.extend(net_hardening(&logs));
    out
}

/// L3: a TLS listener presenting a self-signed, an expired and a wrong-host certificate.
/// Returns (refused, tcp connections accepted) over the three.
pub fn tls_refusals() -> (usize, usize) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio_rustls::rustls;

    let _ = rustls::crypto::ring::default_provider().install_default();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mut refused = 0;
    let accepted = Arc::new(AtomicUsize::new(0));
    for case in ["self-signed", "expired", "wrong-host"] {
        let mut params = rcgen::CertificateParams::new(vec![if case == "wrong-host" {
            "elsewhere.invalid".to_string()
        } else {
            "127.0.0.1".to_string()
        }])
        .unwrap();
        if case == "expired" {
            params.not_before = rcgen::date_time_ymd(2020, 1, 1);
            params.not_after = rcgen::date_time_ymd(2021, 1, 1);
        }
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        let config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.der().clone()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
            )
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let count = accepted.clone();
        let server = rt.spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    break;
                };
                count.fetch_add(1, Ordering::SeqCst);
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let _ = acceptor.accept(tcp).await;
                });
            }
        });
        let mut s = abws::Settings::new(
            Region::JP,
            abws::Credentials::AccessToken("Atza|sentinel".into()),
        );
        s.endpoint = Some(format!("https://{addr}"));
        s.rate_limiting = false;
        let client = abws::blocking::Client::new(s).unwrap();
        if let Err(e) = invoice_detail(&client, "X") {
            if e.kind() == ErrorKind::Transport && e.attempts() <= 1 {
                refused += 1;
            }
        }
        server.abort();
    }
    (refused, accepted.load(Ordering::SeqCst))
}

// ---------------------------------------------------------------------------------------
// Proxies (L6), path parameters (L7), redaction (L8), document hosts (L9), server
// text (L10), localhost (L11).

fn net_hardening(logs: &super::LogCapture) -> Vec<Figure> {
    vec![
        l6_proxies(),
        l7_path_parameters(),
        l8_redaction(),
        l9_document_hosts(),
        l10_server_text(logs),
        l11_localhost(),
    ]
}

/// The value of ABWS_RELIABILITY_CHILD that runs `proxy_child` (L6).
pub const PROXY_CHILD: &str = "l6";
/// The value of ABWS_RELIABILITY_CHILD that runs `localhost_child` (L11).
pub const LOCALHOST_CHILD: &str = "l11";
const L6_SANDBOX: &str = "ABWS_L6_SANDBOX";
const L6_EXPLICIT: &str = "ABWS_L6_EXPLICIT_PROXY";
const L6_TOKEN: &str = "L6-TOKEN-SENTINEL";
const L6_PASSWORD: &str = "L6-PROXY-PASSWORD";
const L6_REMOTE: &str = "https://api.l6-proxy.invalid";

/// A tiny HTTP proxy of ours on loopback: it records the head of every request it receives
/// (a CONNECT for a tunnel, or a whole plain request with its headers if a client sent one
/// in clear), then refuses it with 403.
#[derive(Clone)]
struct ProxyRecorder {
    url: String,
    heads: Arc<Mutex<Vec<String>>>,
}

impl ProxyRecorder {
    fn start() -> ProxyRecorder {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let heads = Arc::new(Mutex::new(vec![]));
        let seen = heads.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                seen.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&head).into_owned());
                let _ = stream.write_all(
                    b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
        });
        ProxyRecorder { url, heads }
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

/// Runs the test binary's `reliability::child` with `env`, answering each line it prints
/// (after `snapshot` saw it) so that it goes on with its next phase.
fn run_child(
    which: &str,
    env: &[(&str, String)],
    mut on_line: impl FnMut(&str),
) -> Result<(), String> {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(super::CHILD_ARGS)
        .env("ABWS_RELIABILITY_CHILD", which)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    for var in PROXY_VARS.iter().chain(&["no_proxy", "NO_PROXY"]) {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the child: {e}"))?;
    let mut stdin = child.stdin.take().unwrap();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let Ok(line) = line else { break };
        if let Some(rest) = line.strip_prefix(&format!("{} ", which.to_uppercase())) {
            on_line(rest);
            let _ = writeln!(stdin, "go");
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the child failed: {status}"))
    }
}

/// Prints one phase's result for the parent and waits until it has looked at its proxies.
fn child_says(which: &str, what: serde_json::Value) {
    println!("{} {what}", which.to_uppercase());
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
}

/// L6, in a child whose environment names a proxy in every variable.
pub fn proxy_child() {
    let d: serde_json::Value = serde_json::from_str(&std::env::var(L6_SANDBOX).unwrap()).unwrap();
    let explicit = std::env::var(L6_EXPLICIT).unwrap();
    let number = d["invoice"].as_str().unwrap().to_string();
    let detail = |c: &abws::blocking::Client| invoice_detail(c, &number);
    let remote = |proxy: Option<&str>| {
        let mut s =
            abws::Settings::new(Region::JP, abws::Credentials::AccessToken(L6_TOKEN.into()));
        s.endpoint = Some(L6_REMOTE.into());
        s.proxy = proxy.map(Into::into);
        s.max_attempts = 1;
        s.timeouts.connect = std::time::Duration::from_secs(2);
        s.timeouts.operation = std::time::Duration::from_secs(5);
        s
    };
    if std::env::var("no_proxy").is_ok() {
        let e = abws::blocking::Client::new(remote(None)).and_then(|c| detail(&c));
        child_says(
            PROXY_CHILD,
            json!({"phase": "no_proxy", "failed": e.is_err()}),
        );
        return;
    }
    // Loopback API and loopback token endpoint (a refresh is needed first): direct.
    let plain = common::settings_from(&d, Region::JP);
    let ok_env = abws::blocking::Client::new(plain.clone()).and_then(|c| detail(&c));
    let mut with_explicit = plain;
    with_explicit.proxy = Some(explicit.as_str().into());
    let ok_explicit = abws::blocking::Client::new(with_explicit).and_then(|c| detail(&c));
    child_says(
        PROXY_CHILD,
        json!({"phase": "loopback", "ok": [ok_env.is_ok(), ok_explicit.is_ok()]}),
    );
    // A remote https address: through the environment's proxy, as a tunnel.
    let e = abws::blocking::Client::new(remote(None)).and_then(|c| detail(&c));
    child_says(PROXY_CHILD, json!({"phase": "env", "failed": e.is_err()}));
    // The explicit setting wins over the environment; its password shows nowhere.
    let s = remote(Some(&explicit));
    let client = abws::blocking::Client::new(s.clone()).unwrap();
    let e = detail(&client).unwrap_err();
    let text = format!(
        "{e} {e:?} {s:?} {client:?} {:?}",
        abws::transport::Transport::new(&s).unwrap()
    );
    let bad = {
        let mut b = s.clone();
        b.proxy = Some(format!("socks5://user:{L6_PASSWORD}@127.0.0.1:1").into());
        abws::blocking::Client::new(b).map(|_| ()).unwrap_err()
    };
    let text = format!("{text} {bad} {bad:?}");
    child_says(
        PROXY_CHILD,
        json!({
            "phase": "explicit",
            "failed": true,
            "password_hits": text.matches(L6_PASSWORD).count(),
            "bad_names_proxy": bad.parameter() == Some("proxy"),
        }),
    );
}

fn l6_proxies() -> Figure {
    let sb = common::sandbox();
    let env_proxy = ProxyRecorder::start();
    let explicit = ProxyRecorder::start();
    let explicit_url = explicit
        .url
        .replace("http://", &format!("http://l6user:{L6_PASSWORD}@"));
    let mut described = sb.describe();
    described["invoice"] = json!(common::calls::first_invoice(&sb));
    let mut env: Vec<(&str, String)> = vec![
        (L6_SANDBOX, described.to_string()),
        (L6_EXPLICIT, explicit_url),
    ];
    for var in PROXY_VARS {
        env.push((var, env_proxy.url.clone()));
    }
    let mut phases: Vec<(String, serde_json::Value, usize, usize)> = vec![];
    let mut record = |line: &str| {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
        phases.push((
            v["phase"].as_str().unwrap_or("").to_string(),
            v,
            env_proxy.heads().len(),
            explicit.heads().len(),
        ));
    };
    let r1 = run_child(PROXY_CHILD, &env, &mut record);
    let mut env2: Vec<(&str, String)> = vec![
        (L6_SANDBOX, described.to_string()),
        (L6_EXPLICIT, String::new()),
        ("HTTPS_PROXY", env_proxy.url.clone()),
        ("no_proxy", ".l6-proxy.invalid".into()),
    ];
    env2.push(("NO_PROXY", ".l6-proxy.invalid".into()));
    let r2 = run_child(PROXY_CHILD, &env2, &mut record);
    if let Err(e) = r1.and(r2) {
        return figure("L6", false, format!("not measured: {e}"));
    }
    let at = |name: &str| phases.iter().find(|p| p.0 == name).cloned();
    let (Some(lo), Some(en), Some(ex), Some(np)) =
        (at("loopback"), at("env"), at("explicit"), at("no_proxy"))
    else {
        return figure("L6", false, format!("phases missing: {phases:?}"));
    };
    let env_heads = env_proxy.heads();
    let explicit_heads = explicit.heads();
    let loopback_via_proxy = lo.2 + lo.3;
    let loopback_ok = lo.1["ok"] == json!([true, true]);
    let tunnels = &env_heads[lo.2..en.2];
    let tunnelled = !tunnels.is_empty()
        && tunnels
            .iter()
            .all(|h| h.starts_with("CONNECT api.l6-proxy.invalid:443 "));
    let explicit_tunnels = &explicit_heads[lo.3..ex.3];
    let basic = format!(
        "basic {}",
        base64_encode(format!("l6user:{L6_PASSWORD}").as_bytes())
    );
    let explicit_ok = !explicit_tunnels.is_empty()
        && explicit_tunnels.iter().all(|h| {
            h.starts_with("CONNECT api.l6-proxy.invalid:443 ")
                && h.to_ascii_lowercase().contains(&basic.to_ascii_lowercase())
        })
        && ex.2 == en.2;
    let no_proxy_ok = np.2 == ex.2 && np.1["failed"] == json!(true);
    let token_seen: usize = env_heads
        .iter()
        .chain(&explicit_heads)
        .map(|h| h.matches(L6_TOKEN).count())
        .sum();
    let password_hits = ex.1["password_hits"].as_u64().unwrap_or(99);
    let pass = loopback_via_proxy == 0
        && loopback_ok
        && tunnelled
        && explicit_ok
        && no_proxy_ok
        && token_seen == 0
        && password_hits == 0
        && ex.1["bad_names_proxy"] == json!(true);
    figure(
        "L6",
        pass,
        format!(
            "loopback requests through a proxy = {loopback_via_proxy} (HTTP_PROXY, HTTPS_PROXY and \
             ALL_PROXY set; API call and token refresh ok: {loopback_ok}); remote https through \
             HTTPS_PROXY: {} CONNECT tunnel(s) to api.l6-proxy.invalid:443, token bytes seen by \
             the proxy = {token_seen}; NO_PROXY honoured: {no_proxy_ok}; explicit proxy setting \
             overrides the environment: {explicit_ok} ({} tunnel(s) with its credentials, 0 to the \
             environment's); proxy password in Debug and errors = {password_hits}",
            tunnels.len(),
            explicit_tunnels.len()
        ),
    )
}

fn base64_encode(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn snake(name: &str) -> String {
    name.chars()
        .enumerate()
        .flat_map(|(i, c)| {
            let lower = c.to_ascii_lowercase();
            (i > 0 && c.is_ascii_uppercase())
                .then_some('_')
                .into_iter()
                .chain(std::iter::once(lower))
        })
        .collect()
}

fn l7_path_parameters() -> Figure {
    use abws::api::documents::{GetReportDocumentParams, GetReportParams};
    use abws::client::Call;
    let (sb, client) = common::sandbox_and_client();
    let inner = client.inner().unwrap();
    let bad = [
        ".",
        "..",
        "",
        "  ",
        "a\u{0}b",
        "line\nbreak",
        "tab\there",
        "\u{7f}",
    ];
    let (mut cases, mut refused, mut ops) = (0, 0, 0);
    for op in abws::operations::ALL {
        let names: Vec<&'static str> = op
            .path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect();
        if !names.is_empty() {
            ops += 1;
        }
        for target in &names {
            for v in bad {
                let mut call = Call::new(op);
                for n in &names {
                    call = call.path(n, if n == target { v } else { "X-1" });
                }
                cases += 1;
                if let Err(e) = inner.url(&call) {
                    if e.kind() == ErrorKind::Validation
                        && e.parameter() == Some(snake(target).as_str())
                    {
                        refused += 1;
                    }
                }
            }
        }
    }
    // End to end through typed calls: nothing reaches the server.
    let before = common::all_requests(&sb);
    let mut e2e = 0;
    for v in [".", ".."] {
        let r = client.call(&GetReportParams {
            report_id: v.into(),
        });
        e2e += usize::from(r.is_err_and(|e| e.parameter() == Some("report_id")));
        let r = client.call(&GetReportDocumentParams {
            report_document_id: v.into(),
        });
        e2e += usize::from(r.is_err_and(|e| e.parameter() == Some("report_document_id")));
        let r = invoice_detail(&client, v);
        e2e += usize::from(r.is_err_and(|e| e.parameter() == Some("invoice_number")));
    }
    let sent = common::all_requests(&sb) - before;
    figure(
        "L7",
        refused == cases && e2e == 6 && sent == 0,
        format!(
            "{refused}/{cases} bad path values refused with a ValidationError naming the parameter \
             ({ops} operations with path parameters × `.`, `..`, empty, blank, NUL, newline, tab, \
             DEL); typed calls get_report(\"..\") and the like: {e2e}/6 refused; requests sent = {sent}"
        ),
    )
}

fn l8_redaction() -> Figure {
    use abws::api::documents::GetReportDocumentParams;
    use abws::transport::{HttpRequest, HttpResponse, Transport};
    let sb = common::sandbox_with(|c| c.time_scale = 120.0);
    let creds = sb.credentials();
    let client = common::client(&sb, Region::JP);
    let (_, doc) = common::ready_document(&sb, &client);
    let rd = client
        .call(&GetReportDocumentParams {
            report_document_id: doc,
        })
        .unwrap();
    let url = rd.url.clone().unwrap();
    let query = url::Url::parse(&url).unwrap().query().unwrap().to_string();
    let signature = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("X-Sbx-Signature="))
        .unwrap_or(&query)
        .to_string();
    let token = client
        .run(|c| async move { c.access_token().await })
        .unwrap();
    let mut texts: Vec<(&str, String)> = vec![("ReportDocument", format!("{rd:?}"))];
    let req = HttpRequest {
        method: http::Method::POST,
        url: reqwest::Url::parse(&url).unwrap(),
        headers: vec![(
            http::HeaderName::from_static("x-svc-access-token"),
            http::HeaderValue::from_str(token.expose()).unwrap(),
        )],
        body: Some((
            bytes::Bytes::from(format!(
                "grant_type=refresh_token&refresh_token={}&client_secret={}",
                creds.refresh_token, creds.client_secret
            )),
            "application/x-www-form-urlencoded",
        )),
    };
    texts.push(("HttpRequest", format!("{req:?}")));
    let resp = HttpResponse {
        status: 200,
        headers: http::HeaderMap::new(),
        body: bytes::Bytes::from(format!(
            r#"{{"access_token":"{}","refresh_token":"{}"}}"#,
            token.expose(),
            creds.refresh_token
        )),
    };
    texts.push(("HttpResponse", format!("{resp:?}")));
    let transport = client.inner().unwrap().transport().clone();
    let opened = {
        let url = url.clone();
        abws::blocking::block_on(async move {
            transport
                .open_document(&url, std::time::Duration::from_secs(10), 1 << 20)
                .await
                .map_err(|f| f.error)
        })
    };
    if let Ok(body) = &opened {
        texts.push(("DocumentBody", format!("{body:?}")));
    }
    let mut s = common::settings(&sb, Region::JP);
    s.proxy = Some("http://l8user:L8-PROXY-PASSWORD@127.0.0.1:9".into());
    texts.push(("Settings", format!("{s:?}")));
    texts.push(("Transport", format!("{:?}", Transport::new(&s).unwrap())));
    texts.push((
        "Client",
        format!("{:?}", abws::blocking::Client::new(s).unwrap()),
    ));
    let call = abws::client::Call {
        user_email: Some(creds.user_email.clone()),
        ..abws::client::Call::new(&abws::operations::GET_REPORT_DOCUMENT)
    }
    .path("reportDocumentId", "D-1")
    .json(&json!({"refresh_token": creds.refresh_token}))
    .unwrap();
    texts.push(("Call", format!("{call:?}")));
    let markers = [
        signature.as_str(),
        token.expose(),
        creds.refresh_token.as_str(),
        creds.client_secret.as_str(),
        "L8-PROXY-PASSWORD",
        creds.user_email.as_str(),
    ];
    let mut hits = 0;
    for (what, text) in &texts {
        for m in markers {
            if !m.is_empty() && text.contains(m) {
                eprintln!("L8: {what} shows a secret: {text}");
                hits += 1;
            }
        }
    }
    let host_kept = texts[0].1.contains("/documents/");
    figure(
        "L8",
        hits == 0 && opened.is_ok() && host_kept && texts.len() == 8,
        format!(
            "secret markers (presigned signature, access token, refresh token, client secret, \
             proxy password, user e-mail) in the Debug of {} types = {hits}; the presigned \
             address keeps its host and path: {host_kept} (Python reprs: tests/python)",
            texts.len()
        ),
    )
}

fn l9_document_hosts() -> Figure {
    use abws::api::documents::check_document_address as check;
    let remote = abws::Endpoints {
        api: "https://api.example.com".into(),
        auth: Some("https://auth.example.com".into()),
        consent: Some("https://consent.example.com".into()),
    };
    let sb = common::sandbox_with(|c| c.time_scale = 120.0);
    let client = common::client(&sb, Region::JP);
    let local = client.inner().unwrap().endpoints().clone();
    let docs = sb.documents_url();
    let cases: Vec<(&str, String, &abws::Endpoints, bool)> = vec![
        (
            "https document host",
            "https://docs.example.net/d.gz?sig=1".into(),
            &remote,
            true,
        ),
        (
            "http loopback, remote API",
            "http://127.0.0.1:9/d?sig=1".into(),
            &remote,
            false,
        ),
        (
            "http remote host",
            "http://docs.example.net/d?sig=1".into(),
            &remote,
            false,
        ),
        (
            "the API host",
            "https://api.example.com/d?sig=1".into(),
            &remote,
            false,
        ),
        (
            "the API host, other port",
            "https://API.example.com:8443/d".into(),
            &remote,
            false,
        ),
        (
            "the auth host",
            "https://auth.example.com/d?sig=1".into(),
            &remote,
            false,
        ),
        ("ftp", "ftp://docs.example.net/d".into(), &remote, false),
        ("not a URL", "docs.example.net/d".into(), &remote, false),
        (
            "sandbox document host",
            format!("{docs}/documents/x?sig=1"),
            &local,
            true,
        ),
        (
            "sandbox API listener",
            format!("{}/documents/x?sig=1", sb.base_url()),
            &local,
            false,
        ),
        (
            "http off loopback, loopback API",
            "http://192.0.2.1/d?sig=1".into(),
            &local,
            false,
        ),
    ];
    let mut right = 0;
    for (what, url, ep, ok) in &cases {
        let r = check(url, ep);
        if r.is_ok() == *ok
            && r.as_ref()
                .err()
                .is_none_or(|e| e.kind() == ErrorKind::Document && !e.to_string().contains("sig=1"))
        {
            right += 1;
        } else {
            eprintln!("L9: {what}: {r:?}");
        }
    }
    // End to end: getReportDocument names the API listener, then a non-loopback http host.
    let mut refused = 0;
    let before = common::all_requests(&sb);
    let tokens = common::requests(&sb, "token");
    for url in [
        format!("{}/reports/2021-09-30/reports/R-1?sig=1", sb.base_url()),
        "http://192.0.2.1/d?sig=1".to_string(),
    ] {
        sb.inject(
            FaultRule::new(
                "getReportDocument",
                faults::answer(200, json!({"reportDocumentId": "D-L9", "url": url})),
            )
            .times(1),
        );
        if client
            .documents()
            .download("D-L9")
            .is_err_and(|e| e.kind() == ErrorKind::Document)
        {
            refused += 1;
        }
    }
    // Besides the two getReportDocument answers, only token refreshes (the fast clock).
    let other = common::all_requests(&sb) - before - 2 - (common::requests(&sb, "token") - tokens);
    let (_, doc) = common::ready_document(&sb, &client);
    let still = client.documents().download(&doc).is_ok();
    figure(
        "L9",
        right == cases.len() && refused == 2 && other == 0 && still,
        format!(
            "{right}/{} document addresses judged right (https only; http only on loopback when \
             the API is loopback; the API and auth hosts refused); end to end {refused}/2 refused \
             with DocumentError, requests sent to them = {other}; sandbox downloads still work: {still}",
            cases.len()
        ),
    )
}

fn l10_server_text(logs: &super::LogCapture) -> Figure {
    let log_start = logs.text().len();
    let sb = common::sandbox_with(|c| c.time_scale = 120.0);
    let client = common::client(&sb, Region::JP);
    let nasty = |n: usize| {
        format!(
            "\u{1b}[31mRED\u{1b}[0m\r\nX-Injected: yes\u{202e}txt.exe\u{0}{}",
            "A".repeat(n)
        )
    };
    let mut errors: Vec<abws::Error> = vec![];
    // The error envelope: message, code and details of a 1 MiB body.
    sb.inject(
        FaultRule::new(
            "getInvoiceDetailByInvoiceNumber",
            faults::answer(
                400,
                json!({"errors": [{
                    "code": nasty(10_000),
                    "message": nasty(1 << 20),
                    "details": nasty(100_000),
                }]}),
            ),
        )
        .times(1),
    );
    errors.extend(invoice_detail(&client, "X").err());
    // The token endpoint's error_description.
    sb.inject(
        FaultRule::new(
            "/auth/O2/token",
            faults::answer(
                400,
                json!({"error": "invalid_grant", "error_description": nasty(200_000)}),
            ),
        )
        .times(1),
    );
    let fresh = common::client(&sb, Region::JP);
    errors.extend(invoice_detail(&fresh, "X").err());
    // An archive's error document with a 1 MiB errorMessage.
    let (_, doc) = common::ready_document(&sb, &client);
    let error_doc = json!({
        "errorMessage": nasty((1 << 20) - 4096),
        "errorCode": "CLIENT_ERROR",
        "inputParams": {"note": nasty(50)},
    })
    .to_string();
    let archive = crate::testdata::zip_of(&[("error.json", error_doc.as_bytes())]);
    sb.inject(faults::on_documents(FaultAction::Bytes(archive)).times(1));
    errors.extend(client.documents().download(&doc).err());
    let texts: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    let longest = texts.iter().map(String::len).max().unwrap_or(0);
    let noted = texts.iter().filter(|t| t.contains("bytes in all")).count();
    // Control and bidi characters in a text.
    let unsafe_chars = |t: &str| {
        t.chars()
            .filter(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(c))
            .count()
    };
    let controls: usize = texts.iter().map(|t| unsafe_chars(t)).sum();
    let log_text = logs.text()[log_start..].to_string();
    let log_controls: usize = log_text.lines().map(unsafe_chars).sum();
    let longest_log = log_text.lines().map(str::len).max().unwrap_or(0);
    figure(
        "L10",
        errors.len() == 3
            && noted == 3
            && controls == 0
            && log_controls == 0
            && longest < 8 * 1024
            && longest_log < 8 * 1024,
        format!(
            "{noted}/3 server texts (a 1 MiB error envelope, a token endpoint's \
             error_description, an archive's 1 MiB errorMessage) cut at 2 KiB with their full \
             length noted; longest error {longest} bytes, longest log line {longest_log} bytes; \
             control and bidi characters in errors = {controls}, in logs = {log_controls}"
        ),
    )
}

/// L11: `localhost` trusted only when it resolves to loopback only. A re-executed child runs
/// under `resolver_shim.c` (LD_PRELOAD), which answers `localhost` lookups with the
/// addresses the parent chooses.
fn l11_localhost() -> Figure {
    let dir = std::env::temp_dir().join(format!("abws-l11-{}", std::process::id()));
    let r = l11_measure(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    r.unwrap_or_else(|e| figure("L11", false, format!("not measured: {e}")))
}

fn l11_measure(dir: &std::path::Path) -> Result<Figure, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let so = super::shim::build("resolver", "resolver", dir)?;
    let sb = common::sandbox();
    let port = url::Url::parse(&sb.base_url())
        .unwrap()
        .port()
        .ok_or("the sandbox has no port")?;
    let mut described = sb.describe();
    described["invoice"] = json!(common::calls::first_invoice(&sb));
    // (what localhost resolves to, what it resolves to after the first lookup, expected)
    let cases = [
        ("127.0.0.1", "", true),
        ("192.0.2.1,127.0.0.1", "", false),
        ("192.0.2.1", "", false),
        ("::1,127.0.0.1", "", true),
        ("127.0.0.1", "192.0.2.1", true),
    ];
    let mut right = 0;
    let mut notes = vec![];
    let answers = dir.join("localhost");
    for (first, later, expect) in cases {
        std::fs::write(&answers, first).map_err(|e| e.to_string())?;
        let before = common::all_requests(&sb);
        let mut result = serde_json::Value::Null;
        run_child(
            LOCALHOST_CHILD,
            &[
                ("LD_PRELOAD", so.display().to_string()),
                ("ABWS_SHIM_LOCALHOST_FILE", answers.display().to_string()),
                ("ABWS_SHIM_LOCALHOST_LATER", later.to_string()),
                ("ABWS_L11_PORT", port.to_string()),
                (L6_SANDBOX, described.to_string()),
            ],
            |line| result = serde_json::from_str(line).unwrap_or_default(),
        )?;
        let sent = common::all_requests(&sb) - before;
        let accepted = result["accepted"] == json!(true);
        let ok = result["ok"] == json!(true);
        let shimmed = result["resolved"].as_array().is_some_and(|a| !a.is_empty());
        let good = shimmed
            && accepted == expect
            && ok == expect
            && (expect || (sent == 0 && result["names_endpoint"] == json!(true)));
        right += usize::from(good);
        notes.push(format!(
            "{first}{}: {}",
            if later.is_empty() {
                String::new()
            } else {
                format!(" then {later}")
            },
            if accepted { "accepted" } else { "refused" }
        ));
    }
    Ok(figure(
        "L11",
        right == cases.len(),
        format!(
            "http://localhost judged by what it resolves to: {right}/{} cases right ({}); \
             requests sent when refused = 0; after a lookup turns non-loopback the pinned \
             loopback addresses are used",
            cases.len(),
            notes.join("; ")
        ),
    ))
}

/// L11, in a child whose `localhost` the resolver shim answers.
pub fn localhost_child() {
    let d: serde_json::Value = serde_json::from_str(&std::env::var(L6_SANDBOX).unwrap()).unwrap();
    let port = std::env::var("ABWS_L11_PORT").unwrap();
    let resolved: Vec<String> = {
        use std::net::ToSocketAddrs;
        ("localhost", 0)
            .to_socket_addrs()
            .map(|a| a.map(|a| a.ip().to_string()).collect())
            .unwrap_or_default()
    };
    let mut s = common::settings_from(&d, Region::JP);
    s.endpoint = Some(format!("http://localhost:{port}"));
    s.auth_endpoint = Some(format!("http://localhost:{port}"));
    s.timeouts.connect = std::time::Duration::from_secs(1);
    s.timeouts.operation = std::time::Duration::from_secs(4);
    let built = abws::blocking::Client::new(s);
    // A lookup that changes after the check (DNS rebinding): the client must keep to the
    // addresses it checked.
    let later = std::env::var("ABWS_SHIM_LOCALHOST_LATER").unwrap_or_default();
    if !later.is_empty() {
        let file = std::env::var("ABWS_SHIM_LOCALHOST_FILE").unwrap();
        std::fs::write(format!("{file}.tmp"), &later).unwrap();
        std::fs::rename(format!("{file}.tmp"), file).unwrap();
    }
    let names_endpoint = built
        .as_ref()
        .err()
        .is_some_and(|e| e.parameter() == Some("endpoint"));
    let ok = built
        .as_ref()
        .is_ok_and(|c| invoice_detail(c, d["invoice"].as_str().unwrap()).is_ok());
    child_says(
        LOCALHOST_CHILD,
        json!({
            "resolved": resolved,
            "accepted": built.is_ok(),
            "names_endpoint": names_endpoint,
            "ok": ok,
        }),
    );
}
