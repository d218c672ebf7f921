//! The JSON Schema of every operation's result as the library gives it back as JSON — the C
//! API's `*result_json`, Python's `to_dict()`: the service's wire form, camelCase, unknown
//! fields and `null`s kept. Derived from the one description of the results (the models
//! declared with `model!`, walked from the operations table through `describe`), so it
//! cannot drift from what the library reads; `xtask gen` writes one file per operation to
//! `docs/schemas/results/<operationId>.json`, which the C release ships.
//!
//! What it says, and what it leaves open on purpose:
//! - every declared field may be absent or `null` (the specification marks no result field
//!   required, and the library keeps a `null` received);
//! - an object may carry fields beyond the declared ones (kept, as received);
//! - an enum field is a string: the known values are listed, another value is kept;
//! - an amount is a JSON number with the service's digits, or the text the service sent.

use serde_json::{json, Map, Value};

use crate::describe::{ModelInfo, Ty};
use crate::operations::Operation;

/// The JSON Schema dialect of the files.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The schema of `op`'s result, models under `$defs`.
pub fn result_schema(op: &Operation) -> Value {
    let mut defs = Map::new();
    let root = schema_of((op.output)(), &mut defs);
    let mut out = Map::new();
    out.insert("$schema".into(), DIALECT.into());
    out.insert("title".into(), format!("{} result", op.id).into());
    out.insert(
        "description".into(),
        format!(
            "The result of {} ({}) in wire form, as the C API's result_json and Python's \
             to_dict() give it.",
            op.id, op.doc
        )
        .into(),
    );
    if let Value::Object(root) = root {
        out.extend(root);
    }
    if !defs.is_empty() {
        out.insert("$defs".into(), Value::Object(defs));
    }
    Value::Object(out)
}

/// `schema` or `null`.
fn nullable(schema: Value) -> Value {
    json!({"anyOf": [schema, {"type": "null"}]})
}

/// An amount: a JSON number (its digits exactly as the service sent them), or the text
/// the service sent in its place.
fn amount() -> Value {
    json!({"anyOf": [
        {"type": "number"},
        {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$"}
    ]})
}

fn schema_of(ty: Ty, defs: &mut Map<String, Value>) -> Value {
    match ty {
        Ty::Str => json!({"type": "string"}),
        Ty::Int => json!({"type": "integer"}),
        Ty::Float => json!({"type": "number"}),
        Ty::Bool => json!({"type": "boolean"}),
        Ty::Decimal => amount(),
        Ty::Money => {
            if !defs.contains_key("Money") {
                defs.insert(
                    "Money".into(),
                    json!({
                        "type": "object",
                        "description": "An amount with its currency; other fields the \
                            service sends (a formatted text) are kept.",
                        "properties": {
                            "amount": nullable(amount()),
                            "currencyCode": nullable(json!({"type": "string"})),
                        },
                    }),
                );
            }
            json!({"$ref": "#/$defs/Money"})
        }
        Ty::DateTime | Ty::DateTimeArg => json!({"type": "string", "format": "date-time"}),
        Ty::Raw | Ty::Params(_) | Ty::Object(_) => json!({}),
        Ty::Unit => json!({"type": "null"}),
        Ty::List(t) => json!({"type": "array", "items": nullable(schema_of(t(), defs))}),
        Ty::Map(t) => {
            json!({"type": "object", "additionalProperties": nullable(schema_of(t(), defs))})
        }
        Ty::Model(m) => {
            if !defs.contains_key(m.name) {
                // Placed first: a model that reaches itself refers to its entry.
                defs.insert(m.name.into(), Value::Null);
                let def = model(m, defs);
                defs.insert(m.name.into(), def);
            }
            json!({"$ref": format!("#/$defs/{}", m.name)})
        }
        Ty::Enum(e) => json!({
            "type": "string",
            "description": format!(
                "{}: the values the library knows are {}; another value is kept as sent.",
                e.name,
                e.known.join(", ")
            ),
            "examples": e.known,
        }),
        Ty::OneOf(o) => json!({
            "description": format!("One of several shapes, told apart by `{}`.", o.tag),
            "anyOf": o.variants.iter().map(|t| schema_of(t(), defs)).collect::<Vec<_>>(),
        }),
    }
}

fn model(m: &ModelInfo, defs: &mut Map<String, Value>) -> Value {
    let mut properties = Map::new();
    for f in m.fields {
        properties.insert(f.wire.into(), nullable(schema_of((f.ty)(), defs)));
    }
    let mut def = json!({
        "type": "object",
        "title": m.name,
        "properties": properties,
    });
    let doc = m.doc.split_whitespace().collect::<Vec<_>>().join(" ");
    if !doc.is_empty() {
        def["description"] = doc.into();
    }
    def
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operations::ALL;

    #[test]
    fn every_reference_resolves_and_every_model_is_declared_once() {
        for op in ALL.iter() {
            let s = result_schema(op);
            let text = s.to_string();
            let defs = s["$defs"].as_object().cloned().unwrap_or_default();
            for piece in text.split("\"#/$defs/").skip(1) {
                let name = &piece[..piece.find('"').unwrap()];
                assert!(defs.contains_key(name), "{}: {name} is not defined", op.id);
            }
            assert!(defs.values().all(|d| !d.is_null()), "{}", op.id);
        }
    }
}
