//! What the service declares each operation's request to be — its query parameters, the
//! `x-svc-*` headers, its body — and the JSON Schema of it, so that what the library sends
//! is checked against the service's own models and never a guess that nothing checks.
//!
//! The declarations are the operations' descriptions (`abws_spec`, spec/src/ops.rs): they
//! follow the specification and, where it says "not shown" or leaves a field's status open,
//! the service's published request models; where the specification and a model disagree,
//! the specification stands (docs/decisions/004-request-declarations.md, "Request schemas").
//! They are written apart from the handlers that build the requests on purpose: a schema
//! derived from the serializer would only check the serializer against itself. The row
//! supplies the rest (method, path parameters), and `xtask gen` writes every schema to
//! `docs/schemas/requests/<operationId>.json`.

use serde_json::{json, Map, Value};

pub use abws_spec::{Field, Shape};

use crate::operations::Operation;
use crate::wire::{HEADER_DATE, HEADER_USER_EMAIL};

/// What the service declares an operation's request to be: its description
/// (`abws_spec::Op`: `query`, `alone`, `user_email`, `date`, `body`).
pub type Request = abws_spec::Op;

/// Every operation's declared request, in table order.
pub use abws_spec::ALL as DECLARED;

impl Operation {
    /// What the service declares this operation's request to be.
    pub fn request(&self) -> &'static Request {
        self.spec
    }
}

/// The declared request of an operationId.
pub fn declared(id: &str) -> Option<&'static Request> {
    abws_spec::by_id(id)
}

/// The JSON Schema (2020-12) of an operation's request, as one object with the parts the
/// request schemas' test checks: `method`, `path` (the path parameters, decoded), `query` (each
/// parameter once, as text), `headers` (names in lower case) and `body` (the JSON body,
/// `null` when there is none).
pub fn request_schema(op: &Operation) -> Value {
    let r = op.request();
    let path: Vec<&str> = op
        .path
        .split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .collect();
    let path_schema = closed(
        path.iter()
            .map(|p| (p.to_string(), json!({"type": "string", "minLength": 1})))
            .collect(),
        path.iter().map(|p| p.to_string()).collect(),
    );
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("https://abws.invalid/schemas/requests/{}.json", op.id),
        "title": format!("{} request", op.id),
        "description": format!("{} {}: {}", op.method, op.path, op.doc),
        "type": "object",
        "required": ["method", "path", "query", "headers", "body"],
        "additionalProperties": false,
        "properties": {
            "method": {"const": op.method.as_str()},
            "path": path_schema,
            "query": query_schema(r),
            "headers": headers_schema(r),
            "body": match r.body {
                Some(fields) => object(fields),
                None => json!({"type": "null"}),
            },
        },
    })
}

fn query_schema(r: &Request) -> Value {
    let props: Map<String, Value> = r
        .query
        .iter()
        .map(|f| (f.name.to_string(), query_value(f.shape)))
        .collect();
    let required: Vec<String> = r
        .query
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name.to_string())
        .collect();
    match r.alone {
        None => closed(props, required),
        Some(alone) => json!({
            "oneOf": [
                closed(
                    std::iter::once((alone.to_string(), query_value(Shape::Str))).collect(),
                    vec![alone.to_string()],
                ),
                {
                    "allOf": [closed(props, required)],
                    "not": {"required": [alone]},
                },
            ]
        }),
    }
}

/// A query parameter's value: text, of the declared shape.
fn query_value(shape: Shape) -> Value {
    match shape {
        Shape::Bool => json!({"type": "string", "enum": ["true", "false"]}),
        Shape::Int { .. } => json!({"type": "string", "pattern": "^-?[0-9]+$"}),
        other => value(other),
    }
}

fn headers_schema(r: &Request) -> Value {
    let mut props = Map::new();
    let mut required = vec![];
    let mut absent = vec![];
    for (name, declared) in [(HEADER_USER_EMAIL, r.user_email), (HEADER_DATE, r.date)] {
        let name = name.to_ascii_lowercase();
        if declared {
            props.insert(name.clone(), json!({"type": "string", "minLength": 1}));
            required.push(name);
        } else if name == HEADER_USER_EMAIL {
            absent.push(json!({"not": {"required": [name]}}));
        }
    }
    // Other headers (the access token, content type, user agent) are the transport's.
    let mut s = json!({"type": "object", "properties": props, "required": required});
    if !absent.is_empty() {
        s["allOf"] = Value::Array(absent);
    }
    s
}

fn closed(props: Map<String, Value>, required: Vec<String>) -> Value {
    json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    })
}

fn object(fields: &[Field]) -> Value {
    closed(
        fields
            .iter()
            .map(|f| (f.name.to_string(), value(f.shape)))
            .collect(),
        fields
            .iter()
            .filter(|f| f.required)
            .map(|f| f.name.to_string())
            .collect(),
    )
}

fn value(shape: Shape) -> Value {
    match shape {
        Shape::Str => json!({"type": "string"}),
        Shape::Text { max } => json!({"type": "string", "minLength": 1, "maxLength": max}),
        Shape::Pattern(p) => json!({"type": "string", "pattern": p}),
        Shape::OneOf(values) => json!({"type": "string", "enum": values}),
        Shape::Int { min } => json!({"type": "integer", "minimum": min}),
        Shape::Number => json!({"type": "number"}),
        Shape::Bool => json!({"type": "boolean"}),
        Shape::DateTime => json!({
            "type": "string",
            "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$",
        }),
        Shape::List { item, min, max } => {
            let mut s = json!({"type": "array", "items": value(*item), "minItems": min});
            if let Some(max) = max {
                s["maxItems"] = json!(max);
            }
            s
        }
        Shape::Object(fields) => object(fields),
        Shape::Map(v) => json!({"type": "object", "additionalProperties": value(*v)}),
        Shape::Tagged { tag, kinds } => json!({
            "type": "object",
            "required": [tag],
            "properties": {
                tag: {"enum": kinds.iter().map(|(k, _)| *k).collect::<Vec<_>>()},
            },
            "allOf": kinds.iter().map(|(kind, fields)| {
                let mut all: Vec<Field> = vec![abws_spec::req(tag, Shape::OneOf(&[]))];
                all.extend_from_slice(fields);
                let mut then = object(&all);
                then["properties"][tag] = json!({"const": kind});
                json!({
                    "if": {"properties": {tag: {"const": kind}}, "required": [tag]},
                    "then": then,
                })
            }).collect::<Vec<_>>(),
        }),
        Shape::Either(a, b) => json!({"oneOf": [value(*a), value(*b)]}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operations::ALL;

    #[test]
    fn every_operation_declares_its_request_once_in_table_order() {
        let ids: Vec<&str> = DECLARED.iter().map(|r| r.id).collect();
        let table: Vec<&str> = ALL.iter().map(|o| o.id).collect();
        assert_eq!(ids, table);
        for op in ALL {
            let s = request_schema(op);
            assert_eq!(s["properties"]["method"]["const"], op.method.as_str());
        }
    }

    #[test]
    fn path_parameters_come_from_the_row() {
        let s = request_schema(&crate::operations::GET_PACKAGE_TRACKING_DETAILS);
        assert_eq!(
            s["properties"]["path"]["required"],
            json!(["orderId", "shipmentId", "packageId"])
        );
    }
}
