//! The description of every operation of the service, written once: its operationId,
//! method and path, what it does to the service's state, its published usage plan, the
//! headers and roles it needs, its declared query and body, and one example argument
//! object. The client library (`abws`) builds its operation table over these rows, the
//! sandbox routes and paces requests by them, and `xtask gen` writes the request schemas,
//! the test arguments and the docs' tables from them.
//!
//! The crate has no dependency: it is data, so that the sandbox (the tests' oracle) and the
//! library can share it without the sandbox depending on the library
//! (docs/decisions/014-operation-table.md, "The description crate").

#[macro_use]
mod shapes;
mod ops;

pub use ops::*;

/// An HTTP method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// GET.
    Get,
    /// POST.
    Post,
    /// PATCH.
    Patch,
    /// DELETE.
    Delete,
}

impl Method {
    /// The method's name on the wire (`GET`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// What an operation does to the service's state, which decides what may be resent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// GET: no side effect.
    SafeRead,
    /// POST used as a query: no side effect.
    ReadPost,
    /// PATCH/DELETE that set absolute state.
    IdempotentWrite,
    /// A duplicate only creates a second job (createReport).
    BenignDuplicate,
    /// A resend may duplicate an order or a cart line.
    UnsafeWrite,
}

/// The shape of a declared value.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// Any string.
    Str,
    /// A string of at least one and at most `max` characters.
    Text {
        /// The most characters.
        max: u64,
    },
    /// A string matching a regular expression.
    Pattern(&'static str),
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// An integer of at least `min`.
    Int {
        /// The least value.
        min: i64,
    },
    /// A JSON number.
    Number,
    /// A boolean (in a query: `true` or `false`).
    Bool,
    /// An ISO 8601 date-time with its offset (`Z` or `±hh:mm`).
    DateTime,
    /// A list of `min` to `max` items of a shape.
    List {
        /// The items' shape.
        item: &'static Shape,
        /// The fewest items.
        min: u64,
        /// The most items (`None`: no limit declared).
        max: Option<u64>,
    },
    /// An object of exactly these fields (no other field is declared).
    Object(&'static [Field]),
    /// An object of any keys, each value of a shape.
    Map(&'static Shape),
    /// An object whose field `tag` names its kind; each kind has its own fields (the tag
    /// included).
    Tagged {
        /// The field that names the kind.
        tag: &'static str,
        /// Each kind's tag value and fields.
        kinds: &'static [(&'static str, &'static [Field])],
    },
    /// Either of two shapes.
    Either(&'static Shape, &'static Shape),
}

/// One declared field (or query parameter).
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The name on the wire.
    pub name: &'static str,
    /// Its shape.
    pub shape: Shape,
    /// A request without it may be refused.
    pub required: bool,
}

/// A required field.
pub const fn req(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        required: true,
    }
}

/// An optional field.
pub const fn opt(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        required: false,
    }
}

/// One operation of the service.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    /// The specification's operationId.
    pub id: &'static str,
    /// The HTTP method.
    pub method: Method,
    /// Path with `{name}` placeholders, version segment included.
    pub path: &'static str,
    /// What the operation does to the service's state.
    pub kind: Kind,
    /// The published usage plan: requests per second...
    pub rate: f64,
    /// ... and the burst.
    pub burst: u32,
    /// `x-svc-user-email` is declared (and required); where it is not, it is not sent.
    pub user_email: bool,
    /// `x-svc-date` is declared (and required).
    pub date: bool,
    /// The roles of the business account's app the operation needs (the specification's
    /// authentication sections); empty where it names none (invoices).
    pub roles: &'static [&'static str],
    /// The declared query parameters (no other is declared).
    pub query: &'static [Field],
    /// A query parameter that, when sent, is sent alone (getTransactions' page token).
    pub alone: Option<&'static str>,
    /// The body's fields (`None`: the request has no body).
    pub body: Option<&'static [Field]>,
    /// One argument object (JSON, the library's snake_case names) the client accepts and
    /// sends; it need not name records the sandbox holds.
    pub example: &'static str,
}

impl Op {
    /// The path's segments after the leading `/`; a `{name}` placeholder is a parameter.
    pub fn segments(&self) -> impl Iterator<Item = &'static str> {
        let path: &'static str = self.path;
        path.strip_prefix('/').unwrap_or(path).split('/')
    }

    /// The names of the path parameters, in order.
    pub fn path_params(&self) -> impl Iterator<Item = &'static str> {
        self.segments().filter_map(placeholder)
    }
}

/// The parameter name of a `{name}` path segment.
pub fn placeholder(segment: &str) -> Option<&str> {
    segment.strip_prefix('{')?.strip_suffix('}')
}

/// The operation of an operationId.
pub fn by_id(id: &str) -> Option<&'static Op> {
    ALL.iter().copied().find(|o| o.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_ids_are_unique_and_paths_versioned() {
        for (i, op) in ALL.iter().enumerate() {
            assert!(ALL[..i].iter().all(|o| o.id != op.id), "{} twice", op.id);
            assert!(op.path.starts_with('/'), "{}", op.id);
            assert!(op.segments().all(|s| !s.is_empty()), "{}", op.id);
            assert!(op.rate > 0.0 && op.burst > 0, "{}", op.id);
        }
    }

    #[test]
    fn no_two_rows_share_a_method_and_path() {
        for (i, a) in ALL.iter().enumerate() {
            for b in &ALL[..i] {
                let same = a.method == b.method
                    && a.segments().count() == b.segments().count()
                    && a.segments().zip(b.segments()).all(|(x, y)| {
                        x == y || placeholder(x).is_some() || placeholder(y).is_some()
                    });
                // productsRequest's `{productId}` and getProductsByAsins' literal differ by method.
                assert!(!same, "{} and {} are one route", a.id, b.id);
            }
        }
    }

    #[test]
    fn examples_are_json_objects() {
        for op in ALL {
            let t = op.example.trim();
            assert!(t.starts_with('{') && t.ends_with('}'), "{}", op.id);
        }
    }
}
