//! Endpoints are configuration: no address is built in, so a client
//! without one is refused when built, naming the setting; `from_env` needs `ABWS_REGION`;
//! `use_sandbox` sends the same requests to `sandbox_endpoint`; a connect error names the
//! host; a 403 names the role of the operation (from the operations table).

use std::collections::BTreeMap;

use crate::common::{self, faults, received};

use abws::api::documents::GetReportParams;
use abws::{blocking, Credentials, ErrorKind, Region, Settings};
use abws_sandbox::FaultRule;
use serde_json::Value;

fn refused(settings: Settings) -> abws::Error {
    blocking::Client::new(settings).expect_err("the client is refused")
}

#[test]
fn a_client_without_an_address_is_refused_naming_the_setting() {
    let token = Credentials::AccessToken("Atza|t".into());
    let e = refused(Settings::new(Region::JP, token.clone()));
    assert_eq!(e.kind(), ErrorKind::Validation);
    assert_eq!(e.parameter(), Some("endpoint"));
    let text = e.to_string();
    assert!(
        text.starts_with("invalid endpoint: is required") && text.contains("ABWS_ENDPOINT"),
        "{text}"
    );

    // With use_sandbox the API address is sandbox_endpoint's: named when missing.
    let mut s = Settings::new(Region::JP, token.clone());
    s.endpoint = Some("https://api.example.com".into());
    s.use_sandbox = true;
    let e = refused(s);
    assert_eq!(e.parameter(), Some("sandbox_endpoint"), "{e}");
    assert!(e.to_string().contains("ABWS_SANDBOX_ENDPOINT"), "{e}");

    // A refresh token needs the authorization server.
    let mut s = Settings::new(
        Region::JP,
        Credentials::RefreshToken {
            client_id: "c".into(),
            client_secret: "s".into(),
            refresh_token: "r".into(),
        },
    );
    s.endpoint = Some("https://api.example.com".into());
    let e = refused(s);
    assert_eq!(e.parameter(), Some("auth_endpoint"), "{e}");
    assert!(e.to_string().contains("ABWS_AUTH_ENDPOINT"), "{e}");

    // A fixed access token needs only the API address.
    let mut s = Settings::new(Region::JP, token);
    s.endpoint = Some("https://api.example.com".into());
    blocking::Client::new(s).expect("an access token needs no authorization server");
}

/// The only test of this binary that touches `ABWS_*` variables.
#[test]
fn from_env_requires_abws_region_and_reads_the_addresses() {
    let sb = common::sandbox();
    let d = sb.describe();
    let c = &d["credentials"];
    let vars = [
        ("ABWS_ENDPOINT", sb.group_url("JP")),
        ("ABWS_AUTH_ENDPOINT", sb.auth_url()),
        (
            "ABWS_CLIENT_ID",
            c["client_id"].as_str().unwrap().to_string(),
        ),
        (
            "ABWS_CLIENT_SECRET",
            c["client_secret"].as_str().unwrap().to_string(),
        ),
        (
            "ABWS_REFRESH_TOKEN",
            c["refresh_token"].as_str().unwrap().to_string(),
        ),
        ("ABWS_RATE_LIMITING", "0".to_string()),
    ];
    std::env::remove_var("ABWS_REGION");
    for (k, v) in &vars {
        std::env::set_var(k, v);
    }
    let e = Settings::from_env().expect_err("no region");
    assert_eq!(e.parameter(), Some("ABWS_REGION"));
    assert!(
        e.to_string()
            .contains("is required: the region of calls, one of AU CA DE ES FR IN IT JP MX UK US"),
        "{e}"
    );

    std::env::set_var("ABWS_REGION", "JP");
    let s = Settings::from_env().expect("settings of the environment");
    for (k, _) in &vars {
        std::env::remove_var(k);
    }
    std::env::remove_var("ABWS_REGION");
    assert!(!s.rate_limiting);
    let client = blocking::Client::new(s).expect("client");
    let page = client
        .invoices()
        .get_invoices(&common::previous_month_invoices_params(&sb))
        .expect("a page");
    assert!(!page.invoices.unwrap_or_default().is_empty());
}

/// What identifies a request apart from its access token (each client has its own).
fn without_token(
    requests: Vec<(String, Value, Value)>,
) -> Vec<(String, BTreeMap<String, Value>, Value)> {
    requests
        .into_iter()
        .map(|(path, headers, body)| {
            let mut h: BTreeMap<String, Value> = headers
                .as_object()
                .expect("headers")
                .iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
                .collect();
            h.remove("x-svc-access-token");
            (path, h, body)
        })
        .collect()
}

#[test]
fn use_sandbox_sends_the_same_requests_to_the_sandbox_address() {
    let sb = common::sandbox();
    let params = common::previous_month_invoices_params(&sb);
    let direct = common::client(&sb, Region::JP);
    let first = direct.invoices().get_invoices(&params).expect("direct");
    let sent_direct = without_token(received(&sb, "/ab-invoice/"));
    sb.reset_counters();

    // The loopback sandbox plays the platform's regional sandbox; the API address is one
    // that cannot be reached, so an answer proves it was not used.
    let mut s = common::settings(&sb, Region::JP);
    s.sandbox_endpoint = s.endpoint.take();
    s.endpoint = Some("https://api.invalid".into());
    s.use_sandbox = true;
    let via_sandbox = blocking::Client::new(s).expect("client of the sandbox address");
    let second = via_sandbox
        .invoices()
        .get_invoices(&params)
        .expect("via sandbox");
    let sent_sandbox = without_token(received(&sb, "/ab-invoice/"));

    assert_eq!(sent_direct.len(), 1);
    assert_eq!(sent_direct, sent_sandbox);
    assert_eq!(first.invoices, second.invoices);
}

#[test]
fn a_connect_error_names_the_host() {
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut s = Settings::new(Region::JP, Credentials::AccessToken("Atza|t".into()));
    s.endpoint = Some(format!("http://127.0.0.1:{port}/some/base"));
    s.max_attempts = 1;
    s.rate_limiting = false;
    let client = blocking::Client::new(s).expect("client");
    let e = client
        .documents()
        .get_report(&GetReportParams {
            report_id: "r-1".into(),
        })
        .expect_err("refused");
    let text = e.to_string();
    assert_eq!(e.kind(), ErrorKind::Transport, "{text}");
    assert!(
        text.contains(&format!("could not connect to http://127.0.0.1:{port}:")),
        "{text}"
    );
    assert!(!text.contains("/some/base"), "{text}");
}

#[test]
fn a_403_names_the_role_the_operation_needs() {
    let (sb, client) = common::sandbox_and_client();
    let forbidden = || faults::status(403);
    sb.inject(FaultRule::new("getReport", forbidden()).times(1));
    let e = client
        .documents()
        .get_report(&GetReportParams {
            report_id: "r-1".into(),
        })
        .expect_err("403");
    assert_eq!(e.status(), Some(403));
    assert!(
        e.to_string()
            .contains("getReport needs the Business Purchase Reconciliation role"),
        "{e}"
    );
    // Two roles where the specification names two (cart), none where it names none (invoices).
    assert!(abws::operations::LIST_CARTS
        .role_hint()
        .contains("needs the Order Placement and Business Product Catalog roles"));
    sb.inject(FaultRule::new("getInvoices", forbidden()).times(1));
    let e = client
        .invoices()
        .get_invoices(&common::previous_month_invoices_params(&sb))
        .expect_err("403");
    assert!(
        e.to_string()
            .contains("the specification names no role for getInvoices"),
        "{e}"
    );
}
