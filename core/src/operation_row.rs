//! A row of the operations table (`operations`): what the request path, the bindings and
//! the generators read of an operation. The rows themselves are declared in `operations`.

use http::Method;

use crate::describe::Ty;
use crate::ratelimit::Plan;
use crate::retry::OperationKind;

/// One operation of the service.
#[derive(Clone, Debug)]
pub struct Operation {
    /// The specification's operationId.
    pub id: &'static str,
    /// The API group (`invoices`, `reconciliation`, ...), as in the public API.
    pub group: &'static str,
    /// The method name in Rust, Python and C (`get_invoices`).
    pub name: &'static str,
    /// The HTTP method.
    pub method: Method,
    /// Path with `{name}` placeholders, version segment included.
    pub path: &'static str,
    /// What the operation does to the server's state: decides what may be retried.
    pub kind: OperationKind,
    /// Default usage plan until the server reports its own rate.
    pub plan: Plan,
    /// Headers the operation needs besides the access token.
    pub headers: Headers,
    /// The roles of the business account's app the operation needs (the
    /// specification's authentication sections); empty where it names none (invoices).
    pub roles: &'static [&'static str],
    /// The parameter struct's name and shape.
    pub params: fn() -> Ty,
    /// The result's shape.
    pub output: fn() -> Ty,
    /// For a listing: its pager.
    pub pager: Option<PagerInfo>,
    /// The service answers a resent write with a known externalId by the original result
    /// (placeOrder): the write ledger lets such a write be resent to resolve an unknown
    /// outcome.
    pub resend_safe: bool,
    /// One line on what it does (the first line of the row's doc comment).
    pub doc: &'static str,
    /// The operation's description, which the fields above repeat in the library's types:
    /// its declared query and body (`schema`), its example arguments.
    pub spec: &'static abws_spec::Op,
}

impl PartialEq for Operation {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Operation {
    /// `x-svc-user-email` is declared: sent (and required) on this operation, on no other.
    pub fn needs_user_email(&self) -> bool {
        self.headers.user_email
    }

    /// What a 403 that is not an expired token says about this operation: the role it
    /// needs (the specification's list), and who can grant it.
    pub fn role_hint(&self) -> String {
        match self.roles {
            [] => format!(
                "access denied: the specification names no role for {} (the {} API); check \
                 the roles the customer's consent granted to the application",
                self.id, self.group
            ),
            [role] => format!(
                "access denied: {} needs the {role} role; check that the application has it \
                 and that the customer's consent covers it",
                self.id
            ),
            roles => format!(
                "access denied: {} needs the {} roles; check that the application has them \
                 and that the customer's consent covers them",
                self.id,
                roles.join(" and ")
            ),
        }
    }
}

/// The pager of a listing: `iter_invoices` walks every page, yielding the items of the
/// page field `invoices`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PagerInfo {
    /// The pager's method name (`iter_invoices`).
    pub name: &'static str,
    /// The page's field (snake_case) that holds the items.
    pub items: &'static str,
}

/// A header an operation needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// `x-svc-user-email`: the buying user (from the call's `user_email`, else the
    /// client's).
    UserEmail,
    /// `x-svc-date`: the time the request is made (placeOrder).
    Date,
}

/// The headers of a row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Headers {
    /// `x-svc-user-email` is sent.
    pub user_email: bool,
    /// `x-svc-date` is sent.
    pub date: bool,
}

impl Headers {
    /// The headers of a list (usable in constants).
    pub const fn of(list: &[Header]) -> Headers {
        let mut h = Headers {
            user_email: false,
            date: false,
        };
        let mut i = 0;
        while i < list.len() {
            match list[i] {
                Header::UserEmail => h.user_email = true,
                Header::Date => h.date = true,
            }
            i += 1;
        }
        h
    }
}

/// The row of an operation's parameter struct (the table implements it for each): what the
/// operation's handler builds its calls with.
pub trait Row {
    /// The operation's row of the table.
    const ROW: &'static Operation;
}
