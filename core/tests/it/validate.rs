//! Validation messages name the parameter and the rule.

use abws::validate;
use abws::{ErrorKind, Region};
use chrono::{TimeZone, Utc};

#[test]
fn date_ranges() {
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap();
    let d = |s: &str| validate::datetime("x", s).unwrap();
    let ok = validate::date_range(
        "start",
        d("2026-01-01T00:00:00Z"),
        "end",
        d("2026-11-01T00:00:00Z"),
        366,
        now,
    );
    assert!(ok.is_ok());
    let e = validate::date_range(
        "start",
        d("2026-02-01T00:00:00Z"),
        "end",
        d("2026-01-01T00:00:00Z"),
        366,
        now,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "invalid start: must not be after end");
    let e = validate::date_range(
        "start",
        d("2026-11-01T00:00:00Z"),
        "end",
        d("2026-12-01T00:00:00Z"),
        366,
        now,
    )
    .unwrap_err();
    assert_eq!(
        (e.parameter(), e.message()),
        (Some("end"), "must not be in the future")
    );
    let e = validate::date_range(
        "start",
        d("2024-01-01T00:00:00Z"),
        "end",
        d("2026-01-01T00:00:00Z"),
        366,
        now,
    )
    .unwrap_err();
    assert_eq!(e.message(), "must be at most 366 days after start");
    let e = validate::datetime("feedStartDate", "yesterday").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Validation);
    assert!(e
        .to_string()
        .starts_with("invalid feedStartDate: must be an ISO 8601 date-time"));
    // Offsets are kept.
    assert_eq!(
        d("2026-01-01T09:00:00+09:00").offset().local_minus_utc(),
        9 * 3600
    );
}

#[test]
fn counts_ranges_sets_and_forms() {
    assert_eq!(
        validate::count("orderLineItems", 26, 1, 25)
            .unwrap_err()
            .to_string(),
        "invalid orderLineItems: must hold 1 to 25 entries (got 26)"
    );
    assert_eq!(
        validate::int_range("pageSize", 11, 1, 10)
            .unwrap_err()
            .to_string(),
        "invalid pageSize: must be between 1 and 10 (got 11)"
    );
    assert!(validate::one_of("documentType", "Credit", &["Invoice", "Credits"]).is_err());
    assert!(validate::locale("locale", "en-US").is_ok());
    assert!(validate::locale("locale", "en_US").is_ok());
    assert!(validate::locale("locale", "english").is_err());
    assert!(validate::numeric("lineItems[0].externalId", "10").is_ok());
    for bad in ["", " 1", "1a", "1 "] {
        assert!(
            validate::numeric("lineItems[0].externalId", bad).is_err(),
            "{bad:?}"
        );
    }
    assert!(validate::email("user_email", "a@b.c").is_ok());
    assert!(validate::email("user_email", "a b@c").is_err());
    assert!(validate::non_empty("invoiceNumber", "  ").is_err());
    assert!(validate::length("externalId", &"x".repeat(256), 1, 255).is_err());
}

#[test]
fn regions() {
    assert_eq!(Region::parse("jp").unwrap(), Region::JP);
    assert_eq!(Region::parse("GB").unwrap(), Region::UK);
    let e = Region::parse("XX").unwrap_err();
    assert_eq!(e.parameter(), Some("region"));
    assert_eq!(Region::DE.group(), Region::IN.group());
    assert_ne!(Region::US.group(), Region::JP.group());
    assert_eq!(Region::ALL.len(), 11);
}

#[test]
fn consent_address() {
    let url = abws::auth::consent_url(
        "https://www.svc.co.jp",
        "st 1",
        "https://app.example/cb?x=1",
        "app-1",
    )
    .unwrap();
    assert_eq!(
        url,
        "https://www.svc.co.jp/b2b/abws/oauth?state=st+1&redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fx%3D1&applicationId=app-1"
    );
    assert_eq!(
        abws::auth::consent_url("https://x", "", "r", "a")
            .unwrap_err()
            .parameter(),
        Some("state")
    );
}

#[test]
fn refresh_margin_scales_with_lifetime() {
    use std::time::Duration;
    assert_eq!(
        abws::auth::refresh_margin(Duration::from_secs(3600)),
        Duration::from_secs(300)
    );
    assert_eq!(
        abws::auth::refresh_margin(Duration::from_secs(10)),
        Duration::from_secs(2)
    );
}

#[test]
fn list_rules_read_in_the_callers_terms() {
    let e = validate::count("items", 0, 1, usize::MAX).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid items: must hold at least 1 entry (got 0)"
    );
    let e = validate::count("ids", 31, 0, 30).unwrap_err();
    assert_eq!(e.message(), "must hold at most 30 entries (got 31)");
    let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        validate::csv("keywords", Some(&list(&["paper", "pens"])), 0, usize::MAX).unwrap(),
        Some("paper,pens".into())
    );
    assert_eq!(validate::csv("keywords", None, 1, 5).unwrap(), None);
    assert_eq!(validate::csv("keywords", Some(&[]), 0, 5).unwrap(), None);
    let e = validate::csv("keywords", Some(&list(&["pens", "paper, A4"])), 0, 5).unwrap_err();
    assert_eq!(e.parameter(), Some("keywords[1]"));
    assert!(e.message().starts_with("must not contain a comma"), "{e}");
    assert!(!e.message().contains("A4"), "{e}");
    let e = validate::csv("keywords", Some(&list(&[" "])), 0, 5).unwrap_err();
    assert_eq!(e.parameter(), Some("keywords[0]"));
    let e = validate::csv("po", Some(&[]), 1, 30).unwrap_err();
    assert_eq!(e.parameter(), Some("po"));
}

fn token_settings(token: &str) -> abws::Settings {
    let mut s = abws::Settings::new(
        Region::JP,
        abws::Credentials::AccessToken(token.to_string().into()),
    );
    s.endpoint = Some("http://127.0.0.1:9".into());
    s
}

#[test]
fn settings_are_checked_when_the_client_is_built() {
    let refused = |s: abws::Settings| abws::blocking::Client::new(s).unwrap_err();
    for app in ["会計システム", "erp\r\nX-Evil: 1", "tab\there"] {
        let mut s = token_settings("AT-1");
        s.app_name = Some(app.into());
        let e = refused(s);
        assert_eq!(e.parameter(), Some("app_name"), "{e}");
        assert!(e.message().contains("printable ASCII"), "{e}");
    }
    for token in ["AT-SECRET\r\nX-Evil: 1", "AT-SECRET-é", "AT-SECRET 1"] {
        let e = refused(token_settings(token));
        assert_eq!(
            (e.kind(), e.parameter()),
            (ErrorKind::Validation, Some("access_token"))
        );
        assert!(!e.to_string().contains("AT-SECRET"), "{e}");
    }
    for n in [0, 1024, abws::config::MIN_RESPONSE_BYTES - 1] {
        let mut s = token_settings("AT-1");
        s.max_response_bytes = n;
        assert_eq!(refused(s).parameter(), Some("max_response_bytes"));
    }
    let mut s = token_settings("AT-1");
    s.max_response_bytes = abws::config::MIN_RESPONSE_BYTES;
    s.app_name = Some("MyErp/2.1 (accounting)".into());
    let client = abws::blocking::Client::new(s).unwrap();
    // Replaced credentials get the same rule, and the client keeps the old ones.
    let e = client
        .set_credentials(abws::Credentials::AccessToken(
            "AT-SECRET\nX: 1".to_string().into(),
        ))
        .unwrap_err();
    assert_eq!(e.parameter(), Some("access_token"));
    assert!(!e.to_string().contains("AT-SECRET"), "{e}");
    // The Rust library's user agent says Rust (the bindings name their language).
    assert!(client
        .settings()
        .user_agent()
        .starts_with("MyErp/2.1 (accounting) "));
    assert!(client.settings().user_agent().contains("(Language=Rust;"));
}

#[test]
fn a_download_path_that_names_no_file_is_an_argument_error() {
    // The endpoint answers nothing: an error other than validation would mean a request.
    let client = abws::blocking::Client::new(token_settings("AT-1")).unwrap();
    let key = abws::sealed::DocumentKey::from_bytes(&[7; 32]).unwrap();
    for path in ["", "dir/.."] {
        let e = client
            .documents()
            .download_to_path_plaintext("D-1", std::path::Path::new(path), None)
            .unwrap_err();
        assert_eq!(
            (e.kind(), e.parameter()),
            (ErrorKind::Validation, Some("path")),
            "{path:?}: {e}"
        );
    }
    let e = client
        .documents()
        .download_to_path("D-1", std::path::Path::new(""), &key, None)
        .unwrap_err();
    assert_eq!(e.parameter(), Some("path"), "{e}");
    let p = abws::api::documents::CreateReportParams::default();
    let wait = std::time::Duration::from_secs(1);
    let e = client
        .documents()
        .fetch_pdf_to_path(&p, wait, None, std::path::Path::new(""), &key, None)
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.parameter()),
        (ErrorKind::Validation, Some("path")),
        "{e}"
    );
}
