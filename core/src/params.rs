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

/// Adds wire parameters to a call of an operation, each named by its parameter's
/// snake_case field and placed by the operation's description (`abws_spec::Op`: a `{name}`
/// of the path or a declared query parameter, matched by name when the crate compiles, so
/// no name is looked up per call and a name the description lacks does not compile).
/// Values go through [`ToWire`]; `None` leaves a parameter out. `field` alone takes the
/// local of that name, or `&src.field` after `P, src`.
///
/// `wire!(Call::new(P::ROW) => P { invoice_number = &p.invoice_number, region })`, or
/// `wire!(P, p { ... })` for a fresh call whose plain fields are `p`'s.
#[doc(hidden)]
#[macro_export]
macro_rules! wire {
    (@bind $src:tt $call:expr => $P:ty { $($field:ident $(= $value:expr)?),* }) => {{
        let mut call: $crate::client::Call = $call;
        $(
            $crate::params::ToWire::put(
                $crate::__wire_value!($src $field $(= $value)?),
                const {
                    $crate::params::Slot::of(
                        <$P as $crate::operation_row::Row>::ROW.spec,
                        stringify!($field),
                    )
                },
                &mut call,
            );
        )*
        call
    }};
    ($P:ty $(, $src:ident)? { $($field:ident $(= $value:expr)?),* $(,)? }) => {
        $crate::wire!(@bind [$($src)?] $crate::client::Call::new(<$P as $crate::operation_row::Row>::ROW) => $P { $($field $(= $value)?),* })
    };
    ($call:expr => $P:ty $(, $src:ident)? { $($field:ident $(= $value:expr)?),* $(,)? }) => {
        $crate::wire!(@bind [$($src)?] $call => $P { $($field $(= $value)?),* })
    };
}

/// The wire name of the parameter `field` of the operation `P` (`wire_name!(P, page_token)`
/// is `"pageToken"`), found as `wire!` finds it: for a pager's token parameter.
#[doc(hidden)]
#[macro_export]
macro_rules! wire_name {
    ($P:ty, $field:ident) => {
        const {
            $crate::params::Slot::of(
                <$P as $crate::operation_row::Row>::ROW.spec,
                stringify!($field),
            )
            .name()
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __wire_value {
    ([] $field:ident) => {
        $field
    };
    ([$src:ident] $field:ident) => {
        &$src.$field
    };
    ([$($src:ident)?] $field:ident = $value:expr) => {
        $value
    };
}

/// Where a wire parameter goes: a path placeholder or a query parameter, by its wire name
/// (what `wire!` uses).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// The path's `{name}`.
    Path(&'static str),
    /// The query parameter `name`.
    Query(&'static str),
}

impl Slot {
    /// The parameter's wire name.
    pub const fn name(self) -> &'static str {
        match self {
            Slot::Path(name) | Slot::Query(name) => name,
        }
    }

    /// The slot of the snake_case parameter `field` in `op`'s description (its path's
    /// placeholders, then its declared query); fails to compile (a panic in a constant)
    /// when the description has none.
    pub const fn of(op: &'static abws_spec::Op, field: &str) -> Slot {
        let path = op.path.as_bytes();
        let mut i = 0;
        while i < path.len() {
            if path[i] == b'{' {
                let mut end = i + 1;
                while path[end] != b'}' {
                    end += 1;
                }
                let (_, tail) = path.split_at(i + 1);
                let (name, _) = tail.split_at(end - i - 1);
                if same_name(field.as_bytes(), name) {
                    match std::str::from_utf8(name) {
                        Ok(name) => return Slot::Path(name),
                        Err(_) => panic!("a path placeholder is ASCII"),
                    }
                }
                i = end;
            }
            i += 1;
        }
        let mut q = 0;
        while q < op.query.len() {
            if same_name(field.as_bytes(), op.query[q].name.as_bytes()) {
                return Slot::Query(op.query[q].name);
            }
            q += 1;
        }
        panic!("the operation's description has no such path or query parameter")
    }
}

/// Whether a snake_case field names a camelCase wire parameter (`invoice_number`,
/// `invoiceNumber`): the same letters, underscores aside, case aside.
#[doc(hidden)]
pub const fn same_name(snake: &[u8], wire: &[u8]) -> bool {
    let (mut i, mut j) = (0, 0);
    loop {
        while i < snake.len() && snake[i] == b'_' {
            i += 1;
        }
        if i == snake.len() || j == wire.len() {
            return i == snake.len() && j == wire.len();
        }
        if !snake[i].eq_ignore_ascii_case(&wire[j]) {
            return false;
        }
        i += 1;
        j += 1;
    }
}

/// A value as a wire parameter's text: strings as they are, numbers in decimal, `None`
/// left out.
#[doc(hidden)]
pub trait ToWire {
    /// The parameter's text, or `None` to leave it out.
    fn to_wire(self) -> Option<String>;

    /// Adds the parameter to `call` at `at` (unless it is left out).
    fn put(self, at: Slot, call: &mut crate::client::Call)
    where
        Self: Sized,
    {
        if let Some(v) = self.to_wire() {
            match at {
                Slot::Path(name) => call.path.push((name, v)),
                Slot::Query(name) => call.query.push((name, v)),
            }
        }
    }
}

impl ToWire for String {
    fn to_wire(self) -> Option<String> {
        Some(self)
    }
}

impl ToWire for &str {
    fn to_wire(self) -> Option<String> {
        Some(self.to_string())
    }
}

impl ToWire for &String {
    fn to_wire(self) -> Option<String> {
        Some(self.clone())
    }
}

impl ToWire for crate::config::Region {
    fn to_wire(self) -> Option<String> {
        Some(self.as_str().to_string())
    }
}

macro_rules! numbers_to_wire {
    ($($t:ty),*) => {$(
        impl ToWire for $t {
            fn to_wire(self) -> Option<String> {
                Some(self.to_string())
            }
        }
    )*};
}
numbers_to_wire!(i64, i32, u32, u64, f64);

impl<T: ToWire> ToWire for Option<T> {
    fn to_wire(self) -> Option<String> {
        self.and_then(ToWire::to_wire)
    }
}

impl<T: ToWire + Clone> ToWire for &Option<T> {
    fn to_wire(self) -> Option<String> {
        self.clone().and_then(ToWire::to_wire)
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

    /// Every wire parameter an operation's description declares (its path's placeholders
    /// and its query) is a field of its parameter struct by `same_name`, so `wire!` can
    /// place each field the handler names: a renamed field or wire name fails here.
    #[test]
    fn every_declared_wire_parameter_is_a_field_of_the_params() {
        for op in crate::operations::ALL {
            let crate::describe::Ty::Params(params) = (op.params)() else {
                panic!("{}: params are not a struct", op.id);
            };
            let placeholders = op
                .spec
                .path
                .split('{')
                .skip(1)
                .map(|s| &s[..s.find('}').unwrap()]);
            let wire: Vec<&str> = placeholders
                .chain(op.spec.query.iter().map(|q| q.name))
                .collect();
            for name in wire {
                let fields: Vec<&str> = params
                    .fields
                    .iter()
                    .map(|f| f.name)
                    .filter(|f| same_name(f.as_bytes(), name.as_bytes()))
                    .collect();
                assert_eq!(
                    fields.len(),
                    1,
                    "{}: {name} is matched by {fields:?}",
                    op.id
                );
                let at = Slot::of(op.spec, fields[0]);
                assert!(
                    at == Slot::Path(name) || at == Slot::Query(name),
                    "{}: {name} at {at:?}",
                    op.id
                );
            }
        }
    }

    #[test]
    fn snake_case_fields_name_camel_case_wire_parameters() {
        assert!(same_name(b"invoice_number", b"invoiceNumber"));
        assert!(same_name(b"upc", b"upc"));
        assert!(!same_name(b"invoice_numbers", b"invoiceNumber"));
        assert!(!same_name(b"invoice", b"invoiceNumber"));
        assert!(!same_name(b"region", b"productRegion"));
    }

    /// `wire!` puts each value at its description's place, in the order written, and
    /// leaves `None` out.
    #[test]
    fn wire_places_values_by_the_description() {
        use crate::api::tracking::GetPackageTrackingDetailsParams as P;
        let (order_id, locale) = ("O1", None::<String>);
        let call = crate::wire!(P {
            order_id,
            package_id = String::from("K1"),
            region = crate::config::Region::JP,
            locale,
        });
        assert_eq!(
            call.path,
            [("orderId", "O1".into()), ("packageId", "K1".into())]
        );
        assert_eq!(call.query, [("region", "JP".into())]);
        // After `P, p`, a plain field is `p`'s.
        let p = P {
            shipment_id: "S1".into(),
            locale: Some("ja-JP".into()),
            ..P::default()
        };
        let call = crate::wire!(P, p { shipment_id, region = None::<String>, locale });
        assert_eq!(call.path, [("shipmentId", "S1".into())]);
        assert_eq!(call.query, [("locale", "ja-JP".into())]);
    }

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
