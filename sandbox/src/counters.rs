//! Counters: the oracles that tests read through `GET /_sandbox/counters`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use serde_json::{json, Value};

use crate::http::Req;

const MAX_LOG: usize = 2000;

#[derive(Default)]
struct Inner {
    requests: BTreeMap<String, BTreeMap<u16, u64>>,
    place_order_requests: BTreeMap<String, u64>,
    orders_created: BTreeMap<String, u64>,
    cart_mutations: BTreeMap<String, u64>,
    report_jobs_created: u64,
    report_jobs_per_invoice: BTreeMap<String, u64>,
    token_calls: BTreeMap<String, u64>,
    throttled: BTreeMap<String, u64>,
    connections: Vec<Value>,
    /// The ids of the connections that carried a request, per listener: not capped like the
    /// log, so a benchmark of 1,000 clients can count the connections they opened.
    connection_ids: BTreeMap<&'static str, BTreeSet<u64>>,
    headers_seen: BTreeMap<String, Vec<Value>>,
    /// Every API request as received: its operation, query, headers and body (the tests of
    /// the request schemas read it).
    received: Vec<Value>,
    page_token_mismatches: u64,
    page_token_expired: u64,
    access_token_rejected: BTreeMap<String, u64>,
    faults_fired: BTreeMap<String, u64>,
    document_downloads: u64,
}

/// A request's headers as a JSON object (names in lower case, as read).
fn headers_json(req: &Req) -> serde_json::Map<String, Value> {
    req.headers
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect()
}

/// One API request as received: the operation it was routed to, method, path, the query
/// pairs in order (percent-decoded), the headers (names in lower case) and the body as text
/// (`null` when empty).
fn received(label: &str, req: &Req) -> Value {
    let headers = headers_json(req);
    let body = if req.body.is_empty() {
        Value::Null
    } else {
        Value::String(String::from_utf8_lossy(&req.body).into_owned())
    };
    json!({"operation": label, "method": req.method, "path": req.path,
        "query": req.query, "headers": headers, "body": body})
}

/// The counters' methods that add one: `name(key) => map` to `key`'s count in a map,
/// `name => field` to a plain count.
macro_rules! tallies {
    ($($(#[$d:meta])* $name:ident($key:ident) => $map:ident,)* ; $($(#[$d2:meta])* $name2:ident => $field:ident,)*) => {
        impl Counters {
            $($(#[$d])* pub fn $name(&self, $key: &str) {
                self.with(|i| *i.$map.entry($key.into()).or_default() += 1)
            })*
            $($(#[$d2])* pub fn $name2(&self) {
                self.with(|i| i.$field += 1)
            })*
        }
    };
}

tallies! {
    place_order_request(external_id) => place_order_requests,
    order_created(external_id) => orders_created,
    cart_mutation(op) => cart_mutations,
    token_call(grant) => token_calls,
    throttled(bucket) => throttled,
    /// An API call refused for its access token: `missing`, `invalid` (unknown) or `expired`.
    access_token_rejected(reason) => access_token_rejected,
    fault_fired(kind) => faults_fired,
    ;
    page_token_mismatch => page_token_mismatches,
    page_token_expired => page_token_expired,
    document_download => document_downloads,
}

#[derive(Default)]
pub struct Counters {
    inner: Mutex<Inner>,
}

impl Counters {
    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g)
    }

    pub fn reset(&self) {
        self.with(|i| *i = Inner::default());
    }

    /// Connection id and headers of every request.
    pub fn seen(&self, listener: &'static str, label: &str, req: &Req) {
        self.with(|i| {
            i.connection_ids
                .entry(listener)
                .or_default()
                .insert(req.conn_id);
            if i.connections.len() < MAX_LOG {
                i.connections
                    .push(json!({"listener": listener, "operation": label,
                    "method": req.method, "path": req.path, "connection": req.conn_id}));
            }
            if listener == "api" && i.received.len() < MAX_LOG {
                i.received.push(received(label, req));
            }
            // Looked up before an entry is made: the key's String is made once per listener.
            if !i.headers_seen.contains_key(listener) {
                i.headers_seen.insert(listener.to_string(), Vec::new());
            }
            let Some(log) = i.headers_seen.get_mut(listener) else {
                return;
            };
            if log.len() < MAX_LOG {
                let headers = headers_json(req);
                let target = if req.raw_query.is_empty() {
                    req.path.clone()
                } else {
                    format!("{}?{}", req.path, req.raw_query)
                };
                let mut entry = json!({"method": req.method, "path": target,
                    "connection": req.conn_id, "headers": headers});
                // The body as received (what tests check the wire form against).
                if !req.body.is_empty() {
                    entry["body"] = Value::String(String::from_utf8_lossy(&req.body).into_owned());
                }
                log.push(entry);
            }
        })
    }

    pub fn status(&self, label: &str, status: u16) {
        self.with(|i| {
            *i.requests
                .entry(label.into())
                .or_default()
                .entry(status)
                .or_default() += 1
        })
    }

    /// A createReport accepted, with the invoice numbers its document holds.
    pub fn report_created(&self, invoices: &[String]) {
        self.with(|i| {
            i.report_jobs_created += 1;
            for n in invoices {
                *i.report_jobs_per_invoice.entry(n.clone()).or_default() += 1;
            }
        })
    }

    pub fn to_json(&self) -> Value {
        self.with(|i| {
            let requests: BTreeMap<&String, BTreeMap<String, u64>> = i
                .requests
                .iter()
                .map(|(k, m)| (k, m.iter().map(|(s, n)| (s.to_string(), *n)).collect()))
                .collect();
            let total_cart: u64 = i.cart_mutations.values().sum();
            json!({
                "requests": requests,
                "placeOrderRequests": i.place_order_requests,
                "ordersCreated": i.orders_created,
                "cartMutations": {"total": total_cart, "byOperation": i.cart_mutations},
                "reportJobsCreated": i.report_jobs_created,
                "reportJobsPerInvoice": i.report_jobs_per_invoice,
                "tokenCalls": i.token_calls,
                "throttled": i.throttled,
                "connections": i.connections,
                "connectionsUsed": i.connection_ids.iter().map(|(k, v)| (*k, v.len())).collect::<BTreeMap<_, _>>(),
                "headersSeen": i.headers_seen,
                "received": i.received,
                "pageTokenMismatches": i.page_token_mismatches,
                "pageTokenExpired": i.page_token_expired,
                "accessTokenRejected": i.access_token_rejected,
                "faultsFired": i.faults_fired,
                "documentDownloads": i.document_downloads,
            })
        })
    }
}
