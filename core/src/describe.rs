//! What the code generator (`xtask gen`) and the bindings learn about a type without
//! knowing it: the shape of every result model and every parameter struct, walked from
//! the operations table. Nothing here runs on a call's path.

use std::collections::BTreeMap;

/// The shape of a value, as the bindings type it.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
    /// A string.
    Str,
    /// An integer.
    Int,
    /// A floating-point number.
    Float,
    /// A boolean.
    Bool,
    /// An exact decimal (`Decimal` in Python).
    Decimal,
    /// An amount with its currency (`abws.models.Money`).
    Money,
    /// A date-time received (an aware `datetime`).
    DateTime,
    /// A date-time argument: a date-time, a date, or ISO 8601 text.
    DateTimeArg,
    /// Any JSON value, kept as received.
    Raw,
    /// No value (an operation that answers with an empty body).
    Unit,
    /// A list of the given type.
    List(fn() -> Ty),
    /// A map with string keys, a value of the given type or `null` (a result's maps are
    /// `BTreeMap<String, Option<T>>`: one `null` value does not make the answer unreadable).
    Map(fn() -> Ty),
    /// A result model declared with `model!`.
    Model(&'static ModelInfo),
    /// A string enum of the wire (unknown values kept as `str`).
    Enum(&'static EnumInfo),
    /// One of several shapes, told apart by a field of the wire.
    OneOf(&'static OneOfInfo),
    /// A parameter struct declared with `params!`.
    Params(&'static ParamsInfo),
    /// A parameter object the bindings pass through as it is (a nested request body).
    Object(&'static str),
}

/// A result model.
#[derive(Debug)]
pub struct ModelInfo {
    /// The type's name.
    pub name: &'static str,
    /// The type's doc comment.
    pub doc: &'static str,
    /// Its declared fields, in wire order.
    pub fields: &'static [FieldInfo],
}

/// One declared field of a result model.
#[derive(Clone, Copy, Debug)]
pub struct FieldInfo {
    /// The name on the wire (camelCase).
    pub wire: &'static str,
    /// The Rust and Python name: the snake_case of the wire name.
    pub name: &'static str,
    /// The field's type.
    pub ty: fn() -> Ty,
    /// The value is a credential (a presigned address): the Rust `Debug` and the Python
    /// `repr` show it redacted (`secret::redact_sensitive`). Declared with `sensitive`
    /// before the wire name in `model!`: the one list both read.
    pub sensitive: bool,
}

impl PartialEq for FieldInfo {
    fn eq(&self, other: &Self) -> bool {
        self.wire == other.wire && self.name == other.name && self.sensitive == other.sensitive
    }
}

/// `model!`'s field marker: only `sensitive` is one (anything else fails to compile).
pub const fn field_marker(word: &str) -> bool {
    let (a, b) = (word.as_bytes(), b"sensitive");
    if a.len() != b.len() {
        panic!("model!: the only field marker is `sensitive`");
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            panic!("model!: the only field marker is `sensitive`");
        }
        i += 1;
    }
    true
}

/// The shapes of a one-of, and how the core tells which one a value is.
#[derive(Debug)]
pub struct OneOfInfo {
    /// The shapes.
    pub variants: &'static [fn() -> Ty],
    /// Which shape (an index into `variants`) the core reads a value as, from its raw
    /// JSON text; an error where the core refuses it.
    pub choose: fn(&str) -> Result<usize, String>,
    /// The field whose string names the shape (`artifactType`).
    pub tag: &'static str,
    /// `choose` for a reader that meets the tag as it parses: the shape of an object whose
    /// tag is this string (`None`: absent or `null`), given once as a plain string.
    pub by_tag: fn(Option<&str>) -> usize,
}

/// A string enum.
#[derive(Debug)]
pub struct EnumInfo {
    /// The type's name.
    pub name: &'static str,
    /// The wire values the library knows.
    pub known: &'static [&'static str],
}

/// A parameter struct: the arguments of an operation (or a nested part of them).
#[derive(Debug)]
pub struct ParamsInfo {
    /// The type's name.
    pub name: &'static str,
    /// The type's doc comment.
    pub doc: &'static str,
    /// Its parameters, in declaration order.
    pub fields: &'static [ParamInfo],
}

/// One parameter.
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    /// The snake_case name (the key of the arguments object).
    pub name: &'static str,
    /// The parameter's type.
    pub ty: fn() -> Ty,
    /// A call without it is refused.
    pub required: bool,
    /// The parameter's doc comment (may be empty).
    pub doc: &'static str,
}

/// A type the generator can describe.
pub trait Describe {
    /// The type's shape.
    fn ty() -> Ty;
}

/// `Describe` for types that are one `Ty` each. The leaf types of the model layer
/// (`Amount`, `Money`, `Timestamp`, `RawJson`) use it beside their definitions: this module
/// sits below them.
macro_rules! leaf {
    ($($t:ty => $v:ident),* $(,)?) => {
        $( impl $crate::describe::Describe for $t {
            fn ty() -> $crate::describe::Ty { $crate::describe::Ty::$v }
        } )*
    };
}
pub(crate) use leaf;

leaf! {
    String => Str,
    i64 => Int,
    u32 => Int,
    f64 => Float,
    bool => Bool,
    () => Unit,
}

impl<T: Describe> Describe for Vec<T> {
    fn ty() -> Ty {
        Ty::List(T::ty)
    }
}

/// A result's list: an element may be `null` (`None`), as the service sends declared
/// fields as `null` and a list's elements are values too: one `null` does not make the
/// answer unreadable, and it goes back as `null`.
impl<T: Describe> Describe for Vec<Option<T>> {
    fn ty() -> Ty {
        Ty::List(T::ty)
    }
}

impl<T: Describe> Describe for BTreeMap<String, Option<T>> {
    fn ty() -> Ty {
        Ty::Map(T::ty)
    }
}

/// `r#type` → `type`: the Python and wire-facing name of a raw identifier.
pub const fn strip_raw(name: &'static str) -> &'static str {
    match name.as_bytes() {
        [b'r', b'#', rest @ ..] => match std::str::from_utf8(rest) {
            Ok(s) => s,
            Err(_) => name,
        },
        _ => name,
    }
}

/// The position of a wire name among the fields (for the null mask of `model!`).
pub const fn field_index(fields: &[FieldInfo], wire: &str) -> usize {
    let mut i = 0;
    while i < fields.len() {
        if same_text(fields[i].wire, wire) {
            return i;
        }
        i += 1;
    }
    panic!("field_index: no such field")
}

/// The wire name of the field named `name` (for a listing's items: `api::page!`).
pub const fn wire_of(fields: &[FieldInfo], name: &str) -> &'static str {
    let mut i = 0;
    while i < fields.len() {
        if same_text(fields[i].name, name) {
            return fields[i].wire;
        }
        i += 1;
    }
    panic!("wire_of: no such field")
}

const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut j = 0;
    while j < a.len() && a[j] == b[j] {
        j += 1;
    }
    j == a.len()
}

/// Every model and parameter struct reachable from a type, each once, in the order met.
#[derive(Default)]
pub struct Reachable {
    /// The result models.
    pub models: Vec<&'static ModelInfo>,
    /// The parameter structs.
    pub params: Vec<&'static ParamsInfo>,
    /// The string enums.
    pub enums: Vec<&'static EnumInfo>,
}

impl Reachable {
    /// Adds what `ty` reaches and has not been met yet.
    pub fn walk(&mut self, ty: Ty) {
        match ty {
            Ty::List(t) | Ty::Map(t) => self.walk(t()),
            Ty::OneOf(o) => o.variants.iter().for_each(|t| self.walk(t())),
            Ty::Model(m)
                if !self
                    .models
                    .iter()
                    .any(|x| std::ptr::eq(*x, m) || x.name == m.name) =>
            {
                self.models.push(m);
                m.fields.iter().for_each(|f| self.walk((f.ty)()));
            }
            Ty::Params(p) if !self.params.iter().any(|x| x.name == p.name) => {
                self.params.push(p);
                p.fields.iter().for_each(|f| self.walk((f.ty)()));
            }
            Ty::Enum(e) if !self.enums.iter().any(|x| x.name == e.name) => {
                self.enums.push(e);
            }
            _ => {}
        }
    }
}

/// Parameter types the bindings pass through as objects (nested request parts with their
/// own serde rules): `Ty::Object(name)`.
#[macro_export]
#[doc(hidden)]
macro_rules! __opaque_params {
    ($($t:ident),* $(,)?) => {
        $( impl $crate::describe::Describe for $t {
            fn ty() -> $crate::describe::Ty {
                $crate::describe::Ty::Object(stringify!($t))
            }
        } )*
    };
}
pub use __opaque_params as opaque;
