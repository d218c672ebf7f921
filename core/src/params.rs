//! The arguments of an operation: the `params!` macro that declares a parameter struct
//! once (snake_case names, unknown keys refused, required or optional, its description
//! for the code generator), and the one reader every binding uses to turn an arguments
//! object into it, with errors that name the parameter's path and never echo a value.

use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

/// Declares the parameter struct of an operation (or a nested part of one). `req`
/// fields must be given; `opt` fields are `Option`s. Unknown keys are refused.
#[macro_export]
macro_rules! params {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            $( $(#[doc = $fdoc:literal])* $(#[serde($($sattr:tt)*)])* $req:ident $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields, remote = "Self")]
        pub struct $name {
            $(
                $(#[doc = $fdoc])*
                #[doc = ""]
                #[doc = concat!(
                    "The key `",
                    stringify!($field),
                    "` of the arguments object; ",
                    $crate::__param_needed!($req),
                    "."
                )]
                $(#[serde($($sattr)*)])*
                #[serde(skip_serializing_if = "crate::params::Absent::is_absent")]
                pub $field: $crate::__param_ty!($req $ty),
            )*
        }

        $crate::objects_only!($name);

        impl $crate::describe::Describe for $name {
            fn ty() -> $crate::describe::Ty {
                static INFO: $crate::describe::ParamsInfo = $crate::describe::ParamsInfo {
                    name: stringify!($name),
                    doc: concat!($( $doc, "\n", )* ""),
                    fields: &[
                        $( $crate::describe::ParamInfo {
                            name: $crate::describe::strip_raw(stringify!($field)),
                            ty: <$ty as $crate::describe::Describe>::ty,
                            required: $crate::__param_required!($req),
                            doc: concat!($( $fdoc, "\n", )* ""),
                        }, )*
                    ],
                };
                $crate::describe::Ty::Params(&INFO)
            }
        }
    };
}

/// Makes a struct derived with `#[serde(remote = "Self")]` read from a JSON object only.
/// serde's derived impls also fill a struct from a list, by position (`["A1", "L1"]` as an
/// order line item), which would let a misplaced value pass unseen; the reader refuses
/// that, everywhere an argument struct sits. Writing is the derived one.
#[doc(hidden)]
#[macro_export]
macro_rules! objects_only {
    ($name:ty) => {
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct Object;
                impl<'de> serde::de::Visitor<'de> for Object {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("an object")
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        map: A,
                    ) -> Result<$name, A::Error> {
                        // The inherent, derived reader (`remote = "Self"`), fed the map.
                        <$name>::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    }
                }
                d.deserialize_map(Object)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                <$name>::serialize(self, s)
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __param_ty {
    (req $ty:ty) => { $ty };
    (opt $ty:ty) => { Option<$ty> };
}

/// The second half of a parameter's generated doc line.
#[doc(hidden)]
#[macro_export]
macro_rules! __param_needed {
    (req) => {
        "required"
    };
    (opt) => {
        "optional (`None`: left out)"
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __param_required {
    (req) => {
        true
    };
    (opt) => {
        false
    };
}

/// Whether a parameter is left out when a parameter struct is written back as JSON.
pub trait Absent {
    /// The value is an `Option` that is `None` (a required parameter is never absent).
    fn is_absent(&self) -> bool;
}

impl<T> Absent for Option<T> {
    fn is_absent(&self) -> bool {
        self.is_none()
    }
}

impl<T: crate::describe::Describe> Absent for T {
    fn is_absent(&self) -> bool {
        false
    }
}

/// Reads an operation's arguments object (JSON text) into its parameter struct. A bad
/// key, a missing one or a wrong type is a validation error naming the parameter's path
/// (`items[3].shipment_id`) and the rule, raised before any request; values are never
/// quoted back (a secret may sit beside a typo).
pub fn read<T: DeserializeOwned>(args: &str) -> Result<T> {
    // serde would also fill a struct from a list, by position: refuse that here.
    if !args.trim_start().starts_with('{') {
        return Err(Error::validation(
            "arguments",
            "must be a JSON object ({} for none)",
        ));
    }
    let mut de = serde_json::Deserializer::from_str(args);
    let value = serde_path_to_error::deserialize(&mut de).map_err(path_error)?;
    de.end().map_err(|e| {
        Error::validation(
            "arguments",
            format!(
                "must be one JSON object ({})",
                strip_position(&e.to_string())
            ),
        )
    })?;
    Ok(value)
}

/// Reads arguments from a JSON value.
pub fn from_value<T: DeserializeOwned>(args: serde_json::Value) -> Result<T> {
    if !args.is_object() {
        return Err(Error::validation(
            "arguments",
            "must be a JSON object ({} for none)",
        ));
    }
    serde_path_to_error::deserialize(args).map_err(path_error)
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// serde's message in the caller's terms, without the value it quotes:
/// `invalid type: string "s3cr3t", expected i64` → `must be an integer (got a string)`.
fn without_values(msg: &str) -> String {
    // serde names what it received by kind and value (`integer `5``, `string "x"`,
    // `unknown variant `x``) and what it expected after the last ", expected": keep the
    // kind, drop the value, whatever quotes the value itself holds.
    for lead in ["invalid type: ", "invalid value: ", "unknown variant "] {
        if let Some(rest) = msg.strip_prefix(lead) {
            let (got, expected) = match rest
                .rfind(", expected ")
                .or_else(|| rest.rfind(", there are no variants"))
            {
                Some(i) => rest.split_at(i),
                None => (rest, ""),
            };
            let kind = got[..got.find(['"', '`']).unwrap_or(got.len())].trim_end();
            let expected = expected.strip_prefix(", expected ").unwrap_or("");
            return match lead {
                "invalid type: " => format!(
                    "must be {} (got {})",
                    expected_terms(expected),
                    kind_terms(kind)
                ),
                "invalid value: " => match range_of(expected) {
                    Some(range) => format!("is out of range: must be {range}"),
                    None => format!("must be {}", expected_terms(expected)),
                },
                _ if expected.is_empty() => "is not one of the accepted values".to_string(),
                _ => format!("must be {}", expected.replace('`', "")),
            };
        }
    }
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(start) = rest.find(['"', '`']) {
        let quote = rest.as_bytes()[start] as char;
        let Some(len) = rest[start + 1..].find(quote) else {
            break;
        };
        let quoted = &rest[start + 1..start + 1 + len];
        out.push_str(rest[..start].trim_end());
        // Backquoted text is a field or variant name of ours, not a value: keep it.
        if quote == '`' {
            out.push_str(&format!(" `{quoted}`"));
        }
        rest = &rest[start + 2 + len..];
    }
    out.push_str(rest);
    out.replace(" ,", ",")
}

/// What serde expected (a Rust type's name, or its own words), in the caller's terms.
fn expected_terms(expected: &str) -> &str {
    match expected {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "an integer",
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a non-negative integer",
        "f32" | "f64" => "a number",
        "a boolean" | "bool" => "true or false",
        "a sequence" => "a list",
        "a map" => "an object",
        "a borrowed string" | "a character" | "char" => "a string",
        "" => "another type",
        e if e.starts_with("struct ") || e.starts_with("tuple struct ") => "an object",
        e => e,
    }
}

/// What serde received (its `Unexpected` kinds), in the caller's terms.
fn kind_terms(kind: &str) -> &str {
    match kind {
        "boolean" => "a boolean",
        "integer" => "an integer",
        "floating point" => "a floating-point number",
        "string" | "character" => "a string",
        "unit value" | "unit" | "null" | "Option value" => "null",
        "sequence" => "a list",
        "map" => "an object",
        "byte array" => "bytes",
        _ => "another type",
    }
}

/// The range of an integer type, for a value out of it.
fn range_of(expected: &str) -> Option<&'static str> {
    Some(match expected {
        "i64" => "an integer from -9223372036854775808 to 9223372036854775807",
        "i32" => "an integer from -2147483648 to 2147483647",
        "u64" | "usize" => "an integer from 0 to 18446744073709551615",
        "u32" => "an integer from 0 to 4294967295",
        "u16" => "an integer from 0 to 65535",
        "u8" => "an integer from 0 to 255",
        _ => return None,
    })
}

fn path_error(e: serde_path_to_error::Error<serde_json::Error>) -> Error {
    let path = e.path().to_string();
    let inner = e.into_inner();
    if inner.is_syntax() || inner.is_eof() {
        return Error::validation(
            "arguments",
            format!(
                "are not valid JSON ({})",
                strip_position(&inner.to_string())
            ),
        );
    }
    let msg = strip_position(&inner.to_string());
    let here = if path.is_empty() || path == "." {
        String::new()
    } else {
        path
    };
    let join = |key: &str| {
        if here.is_empty() {
            key.to_string()
        } else if here.ends_with(key) {
            here.clone()
        } else {
            format!("{here}.{key}")
        }
    };
    for (lead, unknown) in [("unknown field `", true), ("missing field `", false)] {
        if let Some(rest) = msg.strip_prefix(lead) {
            if let Some(end) = rest.find('`') {
                let key = &rest[..end];
                let rule = if unknown {
                    let expected = rest[end + 1..].trim_start_matches(", ");
                    format!("is not a parameter of this operation ({expected})")
                } else {
                    "is required".to_string()
                };
                return Error::validation(join(key), rule);
            }
        }
    }
    let param = if here.is_empty() {
        "arguments".to_string()
    } else {
        here
    };
    Error::validation(param, without_values(&msg))
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::params! {
        /// A test struct.
        pub struct Inner {
            req shipment_id: String,
            opt quantity: i64,
        }
    }

    crate::params! {
        pub struct Outer {
            /// The region.
            opt region: String,
            req items: Vec<Inner>,
        }
    }

    fn param(args: &str) -> (String, String) {
        let e = read::<Outer>(args).unwrap_err();
        (e.parameter().unwrap_or("").to_string(), e.to_string())
    }

    #[test]
    fn errors_name_the_path_and_never_the_value() {
        let (p, _) =
            param(r#"{"items":[{"shipment_id":"a"},{"shipment_id":"b","quantity":"s3cr3t"}]}"#);
        assert_eq!(p, "items[1].quantity");
        let (_, m) = param(r#"{"items":[{"shipment_id":"b","quantity":"s3cr3t"}]}"#);
        assert!(!m.contains("s3cr3t"), "{m}");
        assert!(m.ends_with("must be an integer (got a string)"), "{m}");
        for value in ["987654321", "-1.5e3", "true"] {
            let (p, m) = param(&format!(r#"{{"items":[{{"shipment_id":{value}}}]}}"#));
            assert_eq!(p, "items[0].shipment_id");
            assert!(!m.contains(value), "{m}");
            assert!(m.contains("must be a string (got "), "{m}");
        }
        let (_, m) =
            param(r#"{"items":[{"shipment_id":"a","quantity":"x\"s3cr3t`, expected \""}]}"#);
        assert!(!m.contains("s3cr3t"), "{m}");
        assert!(m.ends_with("must be an integer (got a string)"), "{m}");
        let (p, m) = param(r#"{"items":[{"shipment_id":"a","quantity":true}]}"#);
        assert_eq!(p, "items[0].quantity");
        assert_eq!(
            m,
            "invalid items[0].quantity: must be an integer (got a boolean)"
        );
        let (_, m) = param(r#"{"items":[{"shipment_id":"a","quantity":5.5}]}"#);
        assert!(
            m.ends_with("must be an integer (got a floating-point number)"),
            "{m}"
        );
        let (_, m) = param(r#"{"items":[{"shipment_id":"a","quantity":99999999999999999999}]}"#);
        assert!(!m.contains("99999"), "{m}");
        let (_, m) = param(r#"{"items":{}}"#);
        assert!(m.ends_with("must be a list (got an object)"), "{m}");
        let (p, m) = param(r#"{"items":[{"quantity":1}]}"#);
        assert_eq!(p, "items[0].shipment_id");
        assert!(m.contains("is required"), "{m}");
        let (p, _) = param(r#"{"items":[],"colour":"red"}"#);
        assert_eq!(p, "colour");
        let (p, _) = param(r#"{"region":"JP"}"#);
        assert_eq!(p, "items");
        let (p, _) = param(r#"{"items":[{"shipment_id":null}]}"#);
        assert_eq!(p, "items[0].shipment_id");
        let (p, _) = param(r#"{"items":[] "#);
        assert_eq!(p, "arguments");
        let (p, m) = param(r#"[null, [{"shipment_id":"s3cr3t"}]]"#);
        assert_eq!(p, "arguments");
        assert!(!m.contains("s3cr3t"), "{m}");
        let ok: Outer = read(r#"{"items":[{"shipment_id":"a"}]}"#).unwrap();
        assert_eq!(ok.items[0].shipment_id, "a");
        assert_eq!(ok.region, None);
    }
}
