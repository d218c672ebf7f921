#![allow(dead_code)]
//! Shared helpers: a sandbox per test and a small authenticated client.

use std::io::Read;
use std::time::Duration;

use abws_sandbox::{Credentials, Sandbox, SandboxConfig};
use serde_json::Value;

pub struct T {
    pub sb: Sandbox,
    pub http: reqwest::Client,
    pub token: String,
    pub email: String,
}

pub fn fixed_today() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(2026, 3, 18).unwrap()
}

pub fn config() -> SandboxConfig {
    SandboxConfig {
        today: Some(fixed_today()),
        rate_limits: abws_sandbox::RateLimits::Off,
        ..SandboxConfig::default()
    }
}

pub async fn start() -> T {
    start_with(config()).await
}

pub async fn start_with(cfg: SandboxConfig) -> T {
    let sb = Sandbox::start(cfg).await.unwrap();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let c = sb.credentials();
    let token = refresh(&http, &sb, &c.refresh_token).await;
    T {
        email: c.user_email.clone(),
        sb,
        http,
        token,
    }
}

pub async fn refresh(http: &reqwest::Client, sb: &Sandbox, rt: &str) -> String {
    let r = token(http, sb, &refresh_form(&sb.credentials(), rt)).await;
    assert_eq!(r.status, 200);
    r.body["access_token"].as_str().unwrap().to_string()
}

/// The refresh-token grant's form: refresh token `rt` with the sandbox's client.
pub fn refresh_form<'a>(c: &'a Credentials, rt: &'a str) -> [(&'static str, &'a str); 4] {
    [
        ("grant_type", "refresh_token"),
        ("refresh_token", rt),
        ("client_id", &c.client_id),
        ("client_secret", &c.client_secret),
    ]
}

/// A POST of `form` to the token endpoint.
pub async fn token(http: &reqwest::Client, sb: &Sandbox, form: &[(&str, &str)]) -> R {
    let url = format!("{}/auth/O2/token", sb.auth_url());
    into_r(http.post(url).form(form).send().await.unwrap()).await
}

pub struct R {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub text: String,
}

impl R {
    pub fn code(&self) -> &str {
        self.body["errors"][0]["code"].as_str().unwrap_or("")
    }
    pub fn message(&self) -> &str {
        self.body["errors"][0]["message"].as_str().unwrap_or("")
    }
    /// Asserts a 400 of error `code` whose message names `needle`; `case` says which request.
    #[track_caller]
    pub fn assert_refused(&self, code: &str, needle: &str, case: &dyn std::fmt::Debug) {
        assert_eq!((self.status, self.code()), (400, code), "{case:?}");
        let message = self.message();
        assert!(message.contains(needle), "{case:?}: {message} / {needle}");
    }
    pub fn header(&self, k: &str) -> Option<&str> {
        self.headers.get(k).and_then(|v| v.to_str().ok())
    }
}

pub async fn into_r(r: reqwest::Response) -> R {
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let text = r.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    R {
        status,
        headers,
        body,
        text,
    }
}

impl T {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.sb.base_url(), path)
    }

    pub fn req(&self, m: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(m, self.url(path))
            .header("x-svc-access-token", &self.token)
            .header("x-svc-user-email", &self.email)
    }

    pub async fn get(&self, path: &str, q: &[(&str, &str)]) -> R {
        into_r(
            self.req(reqwest::Method::GET, path)
                .query(q)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    /// A GET that must answer 200.
    #[track_caller]
    pub fn get_ok<'a>(
        &'a self,
        path: &'a str,
        q: &'a [(&'a str, &'a str)],
    ) -> impl std::future::Future<Output = R> + 'a {
        let caller = std::panic::Location::caller();
        async move {
            let r = self.get(path, q).await;
            assert_eq!(r.status, 200, "{}: {}", caller, r.text);
            r
        }
    }

    /// Every page of a token-paged listing at `path`, each a 200: the first with `q`, each next
    /// one with `q` (none of it when `token_only`) and the page before's nextPageToken.
    pub async fn pages(&self, path: &str, q: &[(&str, &str)], token_only: bool) -> Vec<R> {
        let mut pages = vec![self.get_ok(path, q).await];
        while let Some(token) = pages[pages.len() - 1].body["nextPageToken"].as_str() {
            let token = token.to_string();
            let mut query = if token_only { vec![] } else { q.to_vec() };
            query.push(("nextPageToken", &token));
            pages.push(self.get_ok(path, &query).await);
        }
        pages
    }

    /// The nextPageToken of the first page of the listing at `path` with `q`.
    pub async fn next_token(&self, path: &str, q: &[(&str, &str)]) -> String {
        let r = self.get(path, q).await;
        r.body["nextPageToken"].as_str().unwrap().to_string()
    }

    /// Asserts that `token`, a page token of the listing at `path` with `q`, sent with
    /// `changed` in place of the parameter of that name, is refused (error `code`) as not
    /// matching.
    pub async fn assert_token_bound(
        &self,
        (path, q): (&str, &[(&str, &str)]),
        token: &str,
        changed: (&str, &str),
        code: &str,
    ) {
        let mut other: Vec<(&str, &str)> = q
            .iter()
            .map(|&(k, v)| if k == changed.0 { changed } else { (k, v) })
            .collect();
        other.push(("nextPageToken", token));
        let r = self.get(path, &other).await;
        r.assert_refused(code, "does not match", &other);
    }

    /// A GET with `headers` only (none of the test's access token and user e-mail).
    pub async fn get_with(&self, path: &str, q: &[(&str, &str)], headers: &[(&str, &str)]) -> R {
        let mut b = self.http.get(self.url(path)).query(q);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        into_r(b.send().await.unwrap()).await
    }

    /// A POST of `form` to the token endpoint.
    pub async fn token(&self, form: &[(&str, &str)]) -> R {
        token(&self.http, &self.sb, form).await
    }

    /// A GET from a client of its own: a connection the test's client never used.
    pub async fn get_on_a_new_connection(&self, path: &str, q: &[(&str, &str)]) -> R {
        let other = reqwest::Client::new();
        into_r(
            other
                .get(self.url(path))
                .query(q)
                .header("x-svc-access-token", &self.token)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    pub async fn send(
        &self,
        m: reqwest::Method,
        path: &str,
        q: &[(&str, &str)],
        body: &Value,
    ) -> R {
        into_r(self.req(m, path).query(q).json(body).send().await.unwrap()).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> R {
        self.send(reqwest::Method::POST, path, &[], body).await
    }

    pub async fn control(&self, m: reqwest::Method, path: &str, body: Option<Value>) -> R {
        let mut b = self.http.request(m, self.url(path));
        if let Some(v) = body {
            b = b.json(&v);
        }
        into_r(b.send().await.unwrap()).await
    }

    pub fn dataset(&self) -> Value {
        self.sb.dataset()
    }
}

/// getTransactions' path.
pub const TRANSACTIONS: &str = "/reconciliation/2021-01-08/transactions";

/// The query names of a date range: the transactions feed's, the orders' and the invoices'.
pub const FEED_DATES: (&str, &str) = ("feedStartDate", "feedEndDate");
pub const ORDER_DATES: (&str, &str) = ("orderStartDate", "orderEndDate");
pub const ISSUE_DATES: (&str, &str) = ("invoiceIssueStartDate", "invoiceIssueEndDate");

/// The query of a date range from `start` to `end`, under `names`.
pub fn dates<'a>(
    names: (&'static str, &'static str),
    start: &'a str,
    end: &'a str,
) -> [(&'static str, &'a str); 2] {
    [(names.0, start), (names.1, end)]
}

/// A day of the transactions feed: 1 March 2026.
pub const FEED_DAY: [(&str, &str); 2] = [
    (FEED_DATES.0, "2026-03-01T00:00:00Z"),
    (FEED_DATES.1, "2026-03-02T00:00:00Z"),
];

/// The products search's path.
pub const PRODUCT_SEARCH: &str = "/products/2020-08-26/products";

/// The first STANDARD product of a products search (at `path`, with `q`) whose first offer
/// has at least `min_stock` in stock.
pub async fn standard_product(t: &T, path: &str, q: &[(&str, &str)], min_stock: u64) -> Value {
    let r = t.get(path, q).await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.body["products"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["asinType"] == "STANDARD"
                && p["includedDataTypes"]["OFFERS"][0]["quantityInStock"]
                    .as_u64()
                    .unwrap_or(0)
                    >= min_stock
        })
        .unwrap()
        .clone()
}

/// A product's ASIN and the id of its first offer.
pub fn asin_and_offer(product: &Value) -> (String, String) {
    let offer = &product["includedDataTypes"]["OFFERS"][0]["offerId"];
    (
        product["asin"].as_str().unwrap().into(),
        offer.as_str().unwrap().into(),
    )
}

/// The query of a JP search for products in stock, with their offers.
pub const JP_IN_STOCK: [(&str, &str); 4] = [
    ("productRegion", "JP"),
    ("locale", "ja-JP"),
    ("facets", "OFFERS"),
    ("availability", "InStockOnly"),
];

/// The files of a report document (a gzip of a zip): (name, bytes).
pub fn unpack(gz: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut zipped = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut zipped)
        .unwrap();
    let mut a = zip::ZipArchive::new(std::io::Cursor::new(zipped)).unwrap();
    (0..a.len())
        .map(|i| {
            let mut f = a.by_index(i).unwrap();
            let mut b = Vec::new();
            f.read_to_end(&mut b).unwrap();
            (f.name().unwrap().to_string(), b)
        })
        .collect()
}

pub fn dec(v: &Value) -> rust_decimal::Decimal {
    use std::str::FromStr;
    match v {
        Value::String(s) if s.is_empty() => rust_decimal::Decimal::ZERO,
        Value::String(s) => rust_decimal::Decimal::from_str(s).unwrap(),
        Value::Number(n) => rust_decimal::Decimal::from_str(&n.to_string()).unwrap(),
        other => panic!("not an amount: {other}"),
    }
}
