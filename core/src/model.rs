//! The machinery every response model shares: unknown fields kept exactly, date-times
//! that keep their offsets, enums that keep unknown values, and the `model!` macro that
//! declares a wire object once (wire name, Rust name, type) and derives the rest.

use std::borrow::Cow;
use std::fmt;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Utc};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// A map key (or any string) borrowed from the input where possible.
pub struct Key<'de>(Cow<'de, str>);

impl<'de> Key<'de> {
    /// The key's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// The text when it is a slice of the input (it had no escape to undo).
    pub fn borrowed(&self) -> Option<&'de str> {
        match self.0 {
            Cow::Borrowed(s) => Some(s),
            Cow::Owned(_) => None,
        }
    }
    /// The key as an owned string (copied only if it was not already owned).
    pub fn into_string(self) -> String {
        self.0.into_owned()
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// Fields the library does not know (yet), kept as their exact JSON text, in order.
#[derive(Clone, Default)]
pub struct Extra(Vec<(String, Box<RawValue>)>);

impl Extra {
    /// No unknown field was received.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// How many unknown fields were received.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Appends an unknown field (the models' readers call it for each key they do not
    /// declare).
    pub fn push(&mut self, name: String, raw: Box<RawValue>) {
        self.0.push((name, raw));
    }
    /// The raw JSON text of an unknown field.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v.get())
    }
    /// Every unknown field: (wire name, raw JSON text).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.get()))
    }
    /// Every unknown field with its raw JSON value, in the order received (for writing
    /// them back unchanged).
    pub fn raw_entries(&self) -> &[(String, Box<RawValue>)] {
        &self.0
    }
}

impl PartialEq for Extra {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(&other.0)
                .all(|((a, x), (b, y))| a == b && x.get() == y.get())
    }
}

impl fmt::Debug for Extra {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// An ISO 8601 date-time that keeps its offset and its exact wire text.
#[derive(Clone)]
pub struct Timestamp {
    value: DateTime<FixedOffset>,
    text: String,
}

impl Timestamp {
    /// Parses RFC 3339 (`2024-01-31T12:00:00+09:00`, `...Z`, fractional seconds); also
    /// a date-time without offset (`2024-01-31T12:00:00`, `2024-01-31T12:00`) and a bare
    /// date, both read as UTC.
    pub fn parse(text: &str) -> Result<Timestamp, String> {
        let t = text.trim();
        let value = DateTime::parse_from_rfc3339(t)
            .or_else(|_| {
                // ISO 8601 without an offset, with or without seconds.
                NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f")
                    .or_else(|_| NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M"))
                    .map(|n| Utc.from_utc_datetime(&n).fixed_offset())
            })
            .or_else(|_| {
                NaiveDate::parse_from_str(t, "%Y-%m-%d").map(|d| {
                    Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0).unwrap_or_default())
                        .fixed_offset()
                })
            })
            .map_err(|_| format!("{t:?} is not an ISO 8601 date-time"))?;
        Ok(Timestamp {
            value,
            text: t.to_string(),
        })
    }
    /// A timestamp written in RFC 3339 with `Z` for UTC.
    pub fn from_datetime(value: DateTime<FixedOffset>) -> Timestamp {
        let text = value.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
        Timestamp { value, text }
    }
    /// The instant, with the offset it was written in.
    pub fn value(&self) -> DateTime<FixedOffset> {
        self.value
    }
    /// The text as it came on the wire.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl PartialEq for Timestamp {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value && self.value.offset() == other.value.offset()
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({})", self.text)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Cow::<str>::deserialize(d)?;
        Timestamp::parse(&s).map_err(de::Error::custom)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

pub use crate::describe::FieldInfo;

/// Which declared fields came as an explicit JSON `null` (bit i: field i), so that the
/// wire form given back keeps them (`to_dict()`, serialization): absent stays absent,
/// `null` stays `null`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Nulls(u64);

impl Nulls {
    /// The fields a set can mark: 64 (`model!` refuses, at compile time, a model with more).
    pub const CAPACITY: usize = 64;
    /// Marks the field at `index` (in [`Model::FIELDS`]) as received as `null`; an index
    /// from [`Nulls::CAPACITY`] on is not recorded.
    pub fn set(&mut self, index: usize) {
        if index < Self::CAPACITY {
            self.0 |= 1 << index;
        }
    }
    /// The field at `index` (in [`Model::FIELDS`]) came as `null`.
    pub fn has(&self, index: usize) -> bool {
        index < Self::CAPACITY && self.0 & (1 << index) != 0
    }
    /// The raw bit set (bit i: field i).
    pub fn bits(&self) -> u64 {
        self.0
    }
}

/// A wire object declared with `model!`.
pub trait Model: Serialize + for<'de> Deserialize<'de> + Clone + fmt::Debug + PartialEq {
    /// The type's name as users see it.
    const NAME: &'static str;
    /// The declared fields, in wire order.
    const FIELDS: &'static [FieldInfo];
    /// Fields received that the library does not declare.
    fn extra(&self) -> &Extra;
    /// Declared fields that came as an explicit `null`.
    fn nulls(&self) -> Nulls;
    /// The field (by wire name) came as an explicit `null`.
    fn received_null(&self, wire: &str) -> bool {
        Self::FIELDS
            .iter()
            .position(|f| f.wire == wire)
            .is_some_and(|i| self.nulls().has(i))
    }
}

/// Declares a wire object: every field optional (absent and null both read as `None`;
/// which fields came as `null` is kept), unknown fields kept in `extra`, serialization
/// back to the exact wire form, and its description for the code generator. A wire name
/// that is a Rust keyword is written as a raw identifier (`"type" r#type`). A string field
/// that is a credential (a presigned address) is marked `sensitive` before its wire name
/// (`sensitive "url" url: String`): `Debug` and the Python repr show it redacted.
#[macro_export]
macro_rules! model {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* $($marker:ident)? $wire:literal $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, PartialEq, Default)]
        pub struct $name {
            $(
                $(#[$fmeta])*
                #[doc = ""]
                #[doc = concat!("The wire field `", $wire, "` (`None` when absent or `null`).")]
                pub $field: Option<$ty>,
            )*
            /// Fields received that this version does not know, kept exactly.
            pub extra: $crate::model::Extra,
            /// Declared fields that came as an explicit `null`.
            pub nulls: $crate::model::Nulls,
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let mut d = f.debug_struct(stringify!($name));
                $( $crate::__model_debug_field!(d, stringify!($field), &self.$field $(, $marker)?); )*
                d.field("extra", &self.extra).field("nulls", &self.nulls).finish()
            }
        }

        const _: () = assert!(
            [$( $wire ),*].len() <= $crate::model::Nulls::CAPACITY,
            "a model's nulls are a 64-bit set: at most 64 fields"
        );

        impl $crate::model::Model for $name {
            const NAME: &'static str = stringify!($name);
            const FIELDS: &'static [$crate::model::FieldInfo] = &[
                $( $crate::model::FieldInfo {
                    wire: $wire,
                    name: $crate::describe::strip_raw(stringify!($field)),
                    ty: <$ty as $crate::describe::Describe>::ty,
                    sensitive: false $( || $crate::describe::field_marker(stringify!($marker)) )?,
                }, )*
            ];
            fn extra(&self) -> &$crate::model::Extra {
                &self.extra
            }
            fn nulls(&self) -> $crate::model::Nulls {
                self.nulls
            }
        }

        impl $crate::describe::Describe for $name {
            fn ty() -> $crate::describe::Ty {
                static INFO: $crate::describe::ModelInfo = $crate::describe::ModelInfo {
                    name: stringify!($name),
                    doc: concat!($( $doc, "\n", )* ""),
                    fields: <$name as $crate::model::Model>::FIELDS,
                };
                $crate::describe::Ty::Model(&INFO)
            }
        }

        impl $crate::node::ObjectView for $name {
            fn type_name(&self) -> &'static str {
                stringify!($name)
            }
            fn fields(&self) -> &'static [$crate::model::FieldInfo] {
                <$name as $crate::model::Model>::FIELDS
            }
            fn each_field<'s>(&'s self, f: &mut dyn FnMut($crate::node::Node<'s>)) {
                $( f($crate::node::ToNode::to_node(&self.$field)); )*
            }
            fn extra(&self) -> &$crate::model::Extra {
                &self.extra
            }
            fn nulls(&self) -> $crate::model::Nulls {
                self.nulls
            }
        }

        impl $crate::node::ToNode for $name {
            fn to_node(&self) -> $crate::node::Node<'_> {
                $crate::node::Node::Object(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str(concat!("a ", stringify!($name), " object"))
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<$name, A::Error> {
                        let mut out = $name::default();
                        while let Some(key) = map.next_key::<$crate::model::Key>()? {
                            match key.as_str() {
                                $( $wire => {
                                    out.$field = map.next_value()?;
                                    if out.$field.is_none() {
                                        out.nulls.set(const {
                                            $crate::describe::field_index(
                                                <$name as $crate::model::Model>::FIELDS,
                                                $wire,
                                            )
                                        });
                                    }
                                } )*
                                _ => {
                                    let raw = map.next_value::<Box<serde_json::value::RawValue>>()?;
                                    out.extra.push(key.into_string(), raw);
                                }
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_map(V)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                $(
                    if let Some(v) = &self.$field {
                        m.serialize_entry($wire, v)?;
                    } else if self.nulls.has(const {
                        $crate::describe::field_index(<$name as $crate::model::Model>::FIELDS, $wire)
                    }) {
                        m.serialize_entry($wire, &())?;
                    }
                )*
                for (k, v) in self.extra.raw_entries() {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    };
}

/// One field of a model's `Debug`: as it is, or redacted when marked `sensitive`.
#[macro_export]
#[doc(hidden)]
macro_rules! __model_debug_field {
    ($d:ident, $name:expr, $value:expr) => {
        $d.field($crate::describe::strip_raw($name), $value)
    };
    ($d:ident, $name:expr, $value:expr, $marker:ident) => {
        $d.field(
            $crate::describe::strip_raw($name),
            &$crate::secret::Redacted($value),
        )
    };
}

/// Declares a string enum of the wire that keeps values it does not know.
#[macro_export]
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $( $variant:ident = $wire:literal ),* $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $(
                #[doc = concat!("`", $wire, "` on the wire.")]
                $variant,
            )*
            /// A value this version does not know, kept as sent.
            Other(String),
        }

        impl $name {
            /// The value as written on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $wire, )*
                    $name::Other(s) => s,
                }
            }
            /// Reads a wire value; unknown values become `Other`.
            pub fn from_wire(s: &str) -> $name {
                match s {
                    $( $wire => $name::$variant, )*
                    other => $name::Other(other.to_string()),
                }
            }
            /// The values this version knows.
            pub const KNOWN: &'static [&'static str] = &[$( $wire ),*];
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::node::ToNode for $name {
            fn to_node(&self) -> $crate::node::Node<'_> {
                $crate::node::Node::Str(self.as_str())
            }
        }

        impl $crate::describe::Describe for $name {
            fn ty() -> $crate::describe::Ty {
                static INFO: $crate::describe::EnumInfo = $crate::describe::EnumInfo {
                    name: stringify!($name),
                    known: $name::KNOWN,
                };
                $crate::describe::Ty::Enum(&INFO)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = std::borrow::Cow::<str>::deserialize(d)?;
                Ok($name::from_wire(&s))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

/// A JSON value kept exactly as received (objects the library does not model field by
/// field: free-form maps, nested fragments).
#[derive(Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }
    /// Parses the JSON text into a `serde_json::Value` (numbers may lose precision).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::from_str(self.0.get()).unwrap_or(serde_json::Value::Null)
    }
    /// Wraps JSON text (it must be valid JSON).
    pub fn from_json(text: &str) -> Result<RawJson, serde_json::Error> {
        RawValue::from_string(text.to_string()).map(RawJson)
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.get())
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(RawJson)
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

crate::describe::leaf! {
    Timestamp => DateTime,
    RawJson => Raw,
}

#[cfg(test)]
mod tests {
    use super::Nulls;

    // A set of nulls marks what fits and ignores the rest, never panicking (a public type).
    #[test]
    fn nulls_beyond_the_capacity_are_not_recorded() {
        let mut n = Nulls::default();
        n.set(0);
        n.set(63);
        n.set(64);
        n.set(usize::MAX);
        assert!(n.has(0) && n.has(63));
        assert!(!n.has(64) && !n.has(usize::MAX));
        assert_eq!(n.bits(), 1 | 1 << 63);
    }

    #[test]
    fn a_date_time_without_seconds_reads_as_utc() {
        let t = super::Timestamp::parse("2026-02-28T12:00").unwrap();
        assert_eq!(t.value().to_rfc3339(), "2026-02-28T12:00:00+00:00");
    }
}
