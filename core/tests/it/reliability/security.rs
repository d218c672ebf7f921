//! L. Security properties.

use std::sync::Arc;

use abws::api::cart::{GetEstimatedTotalPurchaseCostParams, ListCartsParams};
use abws::api::invoices::GetInvoiceDetailByInvoiceNumberParams;
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule};
use serde_json::json;

use super::{figure, Figure};
use crate::common;

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    let logs = super::capture_logs();

    // L1: sentinel secrets never appear in logs, Debug/Display, errors.
    let sb = common::sandbox();
    let creds = sb.credentials();
    let client = common::client(&sb, Region::JP);
    let mut text = String::new();
    let number = sb.dataset()["previousMonthInvoices"][0]
        .as_str()
        .unwrap()
        .to_string();
    sb.inject(
        FaultRule::new(
            "getInvoiceDetailByInvoiceNumber",
            FaultAction::Status {
                status: 503,
                body: None,
                headers: Default::default(),
            },
        )
        .times(2),
    );
    let ok = client
        .invoices()
        .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: number.to_string(),
            region: Some("JP".into()),
        })
        .unwrap();
    text.push_str(&format!("{ok:?}"));
    for e in [
        client
            .invoices()
            .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
                invoice_number: "NOPE".into(),
                region: Some("JP".into()),
            })
            .unwrap_err(),
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
    let _ = client.invoices().get_invoice_detail_by_invoice_number(
        &GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: number.to_string(),
            region: Some("JP".into()),
        },
    );
    let token = client
        .run(|c| async move { c.access_token().await })
        .unwrap();
    text.push_str(&format!(
        "{client:?} {:?} {:?} {token:?} {token}",
        client.settings(),
        client.credentials().unwrap()
    ));
    let code = crate::auth::consent_code(&sb);
    let transport = abws::transport::Transport::new(&common::settings(&sb, Region::JP)).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let bad = rt.block_on(abws::auth::exchange_code(
        &transport,
        &sb.auth_url(),
        &creds.client_id,
        &"wrong-secret".into(),
        &code.clone().into(),
        &creds.redirect_uri,
    ));
    if let Err(e) = bad {
        text.push_str(&format!("{e} {e:?}"));
    }
    sb.revoke();
    let revoked = common::client(&sb, Region::JP);
    if let Err(e) = revoked.invoices().get_invoice_detail_by_invoice_number(
        &GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: number.to_string(),
            region: Some("JP".into()),
        },
    ) {
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
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
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
        if let Err(e) = client.invoices().get_invoice_detail_by_invoice_number(
            &GetInvoiceDetailByInvoiceNumberParams {
                invoice_number: "X".into(),
                region: Some("JP".into()),
            },
        ) {
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
    sb.inject(
        FaultRule::new(
            "getEstimatedTotalPurchaseCost",
            FaultAction::Status {
                status: 400,
                body: Some(body),
                headers: Default::default(),
            },
        )
        .times(1),
    );
    let cart = sb.dataset()["carts"][0]["id"].as_str().unwrap().to_string();
    let address = abws::api::cart::PhysicalAddress {
        full_name: Some("PII-MARKER Yamada".into()),
        address_line1: Some("PII-MARKER street 1".into()),
        city: Some("Tokyo".into()),
        state_or_region: Some("Tokyo".into()),
        postal_code: Some("100-0001".into()),
        country_code: Some("JP".into()),
        ..Default::default()
    };
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
        if let Err(e) = client.invoices().get_invoice_detail_by_invoice_number(
            &GetInvoiceDetailByInvoiceNumberParams {
                invoice_number: "X".into(),
                region: Some("JP".into()),
            },
        ) {
            if e.kind() == ErrorKind::Transport && e.attempts() <= 1 {
                refused += 1;
            }
        }
        server.abort();
    }
    (refused, accepted.load(Ordering::SeqCst))
}
