//! Every operation's request, as the sandbox received it over loopback, conforms
//! to the JSON Schema of what the service declares (`abws::schema`, written to
//! docs/schemas/requests/ by `xtask gen`): body fields named, typed and required as
//! declared, no field the service does not declare, the declared query parameters and the
//! `x-svc-user-email` header only where it is declared. Each operation is called with its
//! description's example arguments (`abws_spec::Op::example`): valid for the client (so the
//! request is sent), not necessarily naming records the sandbox holds.

use abws::operations::{Operation, ALL};
use abws::schema::request_schema;
use abws::Region;
use serde_json::{json, Map, Value};

use crate::common;

/// The request as the schema sees it: method, path parameters (by the row's template),
/// query (each parameter once; repeated ones as a list, which no schema takes), headers and
/// the JSON body (`null` when none; text that is not JSON stays text, which fails).
fn instance(op: &Operation, received: &Value) -> Value {
    let mut path = Map::new();
    let got: Vec<&str> = received["path"].as_str().unwrap_or("").split('/').collect();
    for (template, seg) in op.path.split('/').zip(&got) {
        if let Some(name) = template.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
            path.insert(name.into(), json!(seg));
        }
    }
    let mut query = Map::new();
    for pair in received["query"].as_array().into_iter().flatten() {
        let (k, v) = (pair[0].as_str().unwrap_or(""), pair[1].clone());
        match query.get_mut(k) {
            Some(Value::Array(vs)) => vs.push(v),
            Some(first) => *first = json!([first.clone(), v]),
            None => {
                query.insert(k.into(), v);
            }
        }
    }
    let body = match received["body"].as_str() {
        None => Value::Null,
        Some(text) => serde_json::from_str(text).unwrap_or_else(|_| json!(text)),
    };
    // The access token is the transport's, not the schema's: kept out of failure messages.
    let mut headers = received["headers"].clone();
    if let Some(h) = headers.as_object_mut() {
        h.remove("x-svc-access-token");
    }
    json!({
        "method": received["method"],
        "path": path,
        "query": query,
        "headers": headers,
        "body": body,
    })
}

/// What the validator finds wrong with a request (empty: it conforms).
fn errors(op: &Operation, instance: &Value) -> Vec<String> {
    errors_by_part(op, instance)
        .into_iter()
        .flat_map(|(_, errs)| errs)
        .collect()
}

/// Drives every operation once through the public API (the operation by name, as the
/// bindings call it) and gives each one's request as the sandbox received it.
fn received_requests() -> Vec<(&'static Operation, Value)> {
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
    for op in ALL {
        // The answer does not matter (made-up ids may be unknown); the request must be sent.
        if let Err(e) = client.call_json(op.id, op.spec.example) {
            assert!(
                e.parameter().is_none(),
                "{}: refused before sending: {e}",
                op.id
            );
        }
    }
    let log = sb.counters()["received"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    ALL.iter()
        .map(|op| {
            let r = log
                .iter()
                .find(|r| r["operation"] == op.id)
                .unwrap_or_else(|| panic!("{}: the sandbox received no request", op.id));
            (*op, instance(op, r))
        })
        .collect()
}

#[test]
fn every_request_conforms_to_its_published_schema() {
    let wrong: Vec<String> = received_requests()
        .into_iter()
        .flat_map(|(op, inst)| {
            errors_by_part(op, &inst)
                .into_iter()
                .map(move |(part, errs)| format!("{} {part}: {}\n  {inst}", op.id, errs.join("; ")))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "requests that do not conform:\n{}",
        wrong.join("\n")
    );
}

/// The errors of a request by the part they are in (`body`, `query`, `headers`, ...).
fn errors_by_part(op: &Operation, instance: &Value) -> Vec<(String, Vec<String>)> {
    let validator = jsonschema::validator_for(&request_schema(op)).expect("a valid schema");
    let mut parts: Vec<(String, Vec<String>)> = vec![];
    for e in validator.iter_errors(instance) {
        let path = e.instance_path().to_string();
        let part = path.split('/').nth(1).unwrap_or("").to_string();
        let msg = format!("{e} at {path}");
        match parts.iter_mut().find(|(p, _)| *p == part) {
            Some((_, msgs)) => msgs.push(msg),
            None => parts.push((part, vec![msg])),
        }
    }
    parts
}

/// The schemas are strict: a body field renamed, missing, of another type, or invented
/// fails, as does a query parameter or header where none is declared.
#[test]
fn the_schemas_refuse_a_renamed_missing_mistyped_or_invented_field() {
    let requests = received_requests();
    let find = |id: &str| {
        requests
            .iter()
            .find(|(op, _)| op.id == id)
            .map(|(op, inst)| (*op, inst.clone()))
            .unwrap()
    };
    let (op, good) = find("modifyItems");
    assert_eq!(errors(op, &good), Vec::<String>::new(), "{good}");
    type Mutation = (&'static str, fn(&mut Value));
    let mutations: [Mutation; 7] = [
        ("renamed", |v| {
            let item = v["body"]["items"][0].as_object_mut().unwrap();
            let q = item.remove("itemId").unwrap();
            item.insert("item_id".into(), q);
        }),
        ("missing", |v| {
            v["body"]["items"][0]
                .as_object_mut()
                .unwrap()
                .remove("quantity");
        }),
        ("mistyped", |v| {
            v["body"]["items"][0]["quantity"] = json!("0")
        }),
        ("invented", |v| v["body"]["note"] = json!("x")),
        ("no body", |v| v["body"] = Value::Null),
        ("an undeclared query parameter", |v| {
            v["query"]["pageSize"] = json!("5")
        }),
        ("x-svc-user-email where none is declared", |v| {
            v["headers"]["x-svc-user-email"] = json!("buyer@example.com")
        }),
    ];
    for (what, mutate) in mutations {
        let mut bad = good.clone();
        mutate(&mut bad);
        assert!(!errors(op, &bad).is_empty(), "{what}: {bad}");
    }
    // A placeOrder Money amount as text (the order-level expectation, sent as a number),
    // and listCarts without its declared header.
    let (op, good) = find("placeOrder");
    let body_errors = |v: &Value| {
        errors_by_part(op, v)
            .into_iter()
            .filter(|(part, _)| part == "body")
            .flat_map(|(_, errs)| errs)
            .collect::<Vec<_>>()
    };
    let before = body_errors(&good).len();
    let mut bad = good.clone();
    bad["body"]["expectations"][0]["amount"]["amount"] = json!("12.3");
    assert_eq!(body_errors(&bad).len(), before + 1, "{bad}");
    let (op, good) = find("listCarts");
    assert_eq!(errors(op, &good), Vec::<String>::new(), "{good}");
    let mut bad = good.clone();
    bad["headers"]
        .as_object_mut()
        .unwrap()
        .remove("x-svc-user-email");
    assert!(!errors(op, &bad).is_empty(), "{bad}");
}
