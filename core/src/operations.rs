//! The operations table: every operation of both specification documents, written once.
//! A row names the operation's description in `abws_spec` (operationId, method and path,
//! retry kind, usage plan, headers, roles, declared query and body: spec/src/ops.rs), the
//! API group, the snake_case name, its parameter struct, its result type and, for a
//! listing, its pager and the page field that holds the items. From this table come the async and blocking methods of every group, the dispatch by
//! name the bindings use, and (through `xtask gen`) the C, C++ and Python surfaces.
//! Decisions about operations live here and nowhere else (docs/decisions/ explains
//! each number).

use crate::ratelimit::Plan;
use crate::retry::OperationKind;

pub use crate::operation_row::{Header, Headers, Operation, PagerInfo};

/// Declares the table: one row per operation, grouped by API group (each group's rows are
/// written in its module, `api::<group>::rows!`, and gathered here by `gather!`). For each row it
/// makes the `Operation` static, the `Operation` trait impl of the parameter struct (the
/// handler is `api::<group>::<name>`, the pager `api::<group>::<pager>`), the methods of
/// the group in the async and the blocking client, and the entry of the dispatch by name.
macro_rules! operations {
    (
        $(
            $group:ident $Group:ident {
                $(
                    $(#[doc = $doc:literal])+
                    $STATIC:ident = $SPEC:ident => $name:ident($P:ty) -> $O:ty
                    $(, pager $pager:ident . $items:ident)? ;
                )*
            }
        )*
    ) => {
        $( $(
            $(#[doc = $doc])+
            pub static $STATIC: Operation = row(
                &abws_spec::$SPEC,
                (stringify!($group), stringify!($name)),
                (<$P as crate::describe::Describe>::ty, <$O as crate::describe::Describe>::ty),
                pager_info!($($pager . $items)?),
                first_line(concat!($($doc, "\n"),+)),
            );

            impl crate::operation_row::Row for $P {
                const ROW: &'static Operation = &$STATIC;
            }

            impl crate::operation::Operation for $P {
                type Output = $O;
                fn row() -> &'static Operation {
                    &$STATIC
                }
                async fn run(&self, client: &crate::Client) -> crate::Result<$O> {
                    crate::operation::Finish::<$O>::finish(crate::api::$group::$name(client, self).await?)
                }
                async fn reply(&self, client: &crate::Client) -> crate::Result<crate::operation::Reply> {
                    Ok(crate::operation::Finish::<$O>::reply(crate::api::$group::$name(client, self).await?))
                }
            }

            paged_impl!($group, $P, $O $(, $pager)?);

            impl crate::api::$group::$Group<'_> {
                $(#[doc = $doc])+
                pub async fn $name(&self, p: &$P) -> crate::Result<$O> {
                    self.client.call(p).await
                }
                $(
                    #[doc = concat!("Every page of `", stringify!($name), "` (an iterator of pages; `items()` for the items).")]
                    pub fn $pager(&self, p: &$P) -> crate::Result<crate::paging::Pager<$O>> {
                        self.client.pager(p)
                    }
                )?
            }

            impl crate::blocking::$Group<'_> {
                $(#[doc = $doc])+
                pub fn $name(&self, p: &$P) -> crate::Result<$O> {
                    self.client.call(p)
                }
                $(
                    #[doc = concat!("Every page of `", stringify!($name), "`, blocking (an iterator of pages; `items()` for the items).")]
                    pub fn $pager(&self, p: &$P) -> crate::Result<crate::blocking::Pager<$O>> {
                        self.client.pager(p)
                    }
                )?
            }
        )* )*

        /// Every operation, in the order of the specification documents.
        pub static ALL: &[&Operation] = &[ $( $( &$STATIC, )* )* ];

        /// The operation of a snake_case name or an operationId, for the bindings.
        pub fn dynamic(name: &str) -> Option<&'static dyn crate::operation::DynOperation> {
            $( $(
                if name == stringify!($name) || name == abws_spec::$SPEC.id {
                    return Some(&crate::operation::Typed::<$P>::NEW);
                }
            )* )*
            None
        }

        /// The listing of a pager name (`iter_invoices`), for the bindings.
        pub fn dynamic_pager(name: &str) -> Option<&'static dyn crate::operation::DynOperation> {
            $( $( $(
                if name == stringify!($pager) {
                    return Some(&crate::operation::Typed::<$P>::PAGED);
                }
            )? )* )*
            None
        }
    };
}

macro_rules! paged_impl {
    ($group:ident, $P:ty, $O:ty) => {
        impl crate::operation::MaybePaged for $P {
            fn dyn_pager(
                &self,
                _: &crate::Client,
            ) -> crate::Result<Box<dyn crate::operation::DynPager>> {
                Err(crate::Error::internal(format!(
                    "{} is not a listing",
                    <$P as crate::operation::Operation>::row().id
                )))
            }
        }
    };
    ($group:ident, $P:ty, $O:ty, $pager:ident) => {
        impl crate::operation::Paged for $P {
            fn pager(&self, client: &crate::Client) -> crate::Result<crate::paging::Pager<$O>> {
                crate::api::$group::$pager(client, self)
            }
        }
        impl crate::operation::MaybePaged for $P {
            fn dyn_pager(
                &self,
                client: &crate::Client,
            ) -> crate::Result<Box<dyn crate::operation::DynPager>> {
                Ok(Box::new(crate::operation::Paged::pager(self, client)?))
            }
        }
    };
}

macro_rules! pager_info {
    () => {
        None
    };
    ($pager:ident . $items:ident) => {
        Some(PagerInfo {
            name: stringify!($pager),
            items: stringify!($items),
        })
    };
}

/// A type's shape (`Describe::ty`).
type Shape = fn() -> crate::describe::Ty;

/// A row: the operation's description (`abws_spec`) and what the `operations!` row adds,
/// its group and method names, its params and output types, its pager and its doc line.
const fn row(
    spec: &'static abws_spec::Op,
    (group, name): (&'static str, &'static str),
    (params, output): (Shape, Shape),
    pager: Option<PagerInfo>,
    doc: &'static str,
) -> Operation {
    Operation {
        id: spec.id,
        group,
        name,
        method: method(spec.method),
        path: spec.path,
        kind: kind(spec.kind),
        plan: Plan::new(spec.rate, spec.burst),
        headers: Headers {
            user_email: spec.user_email,
            date: spec.date,
        },
        roles: spec.roles,
        params,
        output,
        pager,
        resend_safe: resend_safe(spec.id),
        doc,
        spec,
    }
}

const fn method(m: abws_spec::Method) -> http::Method {
    match m {
        abws_spec::Method::Get => http::Method::GET,
        abws_spec::Method::Post => http::Method::POST,
        abws_spec::Method::Patch => http::Method::PATCH,
        abws_spec::Method::Delete => http::Method::DELETE,
    }
}

const fn kind(k: abws_spec::Kind) -> OperationKind {
    match k {
        abws_spec::Kind::SafeRead => OperationKind::SafeRead,
        abws_spec::Kind::ReadPost => OperationKind::ReadPost,
        abws_spec::Kind::IdempotentWrite => OperationKind::IdempotentWrite,
        abws_spec::Kind::BenignDuplicate => OperationKind::BenignDuplicate,
        abws_spec::Kind::UnsafeWrite => OperationKind::UnsafeWrite,
    }
}

/// Whether the service answers a resent write with a known externalId by the original
/// result (placeOrder), so that resending it resolves an unknown outcome
/// (`Operation::resend_safe`).
const fn resend_safe(id: &str) -> bool {
    let (a, b) = (id.as_bytes(), "placeOrder".as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn first_line(doc: &'static str) -> &'static str {
    let b = doc.as_bytes();
    let mut start = 0;
    while start < b.len() && b[start] == b' ' {
        start += 1;
    }
    let mut end = start;
    while end < b.len() && b[end] != b'\n' {
        end += 1;
    }
    let (_, tail) = b.split_at(start);
    let (line, _) = tail.split_at(end - start);
    match std::str::from_utf8(line) {
        Ok(s) => s,
        Err(_) => "",
    }
}

use crate::api::cart::*;
use crate::api::documents::*;
use crate::api::invoices::*;
use crate::api::ordering::*;
use crate::api::products::*;
use crate::api::reconciliation::*;
use crate::api::reporting::*;
use crate::api::tracking::*;

/// Gathers the groups' rows, each declared beside its handlers by its module's `rows!`
/// (which hands them on), into one `operations!` table, in the specification's order.
macro_rules! gather {
    ([$($rows:tt)*] $($next:ident)::+ $(, $($rest:ident)::+)*) => {
        $($next)::+! { gather [$($rows)*] $($($rest)::+),* }
    };
    ([$($rows:tt)*]) => {
        operations! { $($rows)* }
    };
}

gather!([]
    crate::api::invoices::rows,
    crate::api::reconciliation::rows,
    crate::api::documents::rows,
    crate::api::cart::rows,
    crate::api::products::rows,
    crate::api::ordering::rows,
    crate::api::reporting::rows,
    crate::api::tracking::rows
);

impl crate::blocking::Client {
    /// Runs an operation by its name with JSON arguments (what the bindings call).
    pub fn call_json(
        &self,
        name: &str,
        args: &str,
    ) -> crate::Result<Box<dyn crate::operation::Output>> {
        let op = dynamic(name).ok_or_else(|| {
            crate::Error::validation(
                "name",
                format!("must name an operation, as getInvoices or get_invoices (got {name:?})"),
            )
        })?;
        let fut = op.call(&self.inner()?, args)?;
        crate::blocking::block_on(fut)?.into_output()
    }
}

/// Looks an operation up by its operationId.
pub fn by_id(id: &str) -> Option<&'static Operation> {
    ALL.iter().copied().find(|o| o.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::Ty;

    /// A `user_email` argument exists exactly where the row declares `x-svc-user-email`
    /// (the header is sent nowhere else, so an argument elsewhere would do nothing), and
    /// the rows that declare it are the specification's list: listCarts and the five product
    /// search operations.
    #[test]
    fn user_email_arguments_follow_the_declared_header() {
        let mut declared = vec![];
        for op in ALL {
            let Ty::Params(p) = (op.params)() else {
                continue;
            };
            let has_arg = p.fields.iter().any(|f| f.name == "user_email");
            assert_eq!(has_arg, op.needs_user_email(), "{}", op.id);
            if op.needs_user_email() {
                declared.push(op.id);
            }
        }
        assert_eq!(
            declared,
            [
                "listCarts",
                "searchProductsRequest",
                "productsRequest",
                "searchOffersRequest",
                "getProductsByAsins",
                "getOffersByOfferIds"
            ]
        );
    }

    /// Each row carries its description's values in the library's types (the sandbox reads
    /// the same description), and the table lists every description once, in its order.
    #[test]
    fn rows_carry_their_description() {
        let ids: Vec<&str> = ALL.iter().map(|o| o.id).collect();
        let described: Vec<&str> = abws_spec::ALL.iter().map(|o| o.id).collect();
        assert_eq!(ids, described);
        for op in ALL {
            let s = op.spec;
            assert_eq!(op.id, s.id);
            assert_eq!(op.method.as_str(), s.method.as_str(), "{}", op.id);
            assert_eq!(op.path, s.path, "{}", op.id);
            assert_eq!(
                format!("{:?}", op.kind),
                format!("{:?}", s.kind),
                "{}",
                op.id
            );
            assert_eq!(
                (op.plan.rate, op.plan.burst),
                (s.rate, s.burst),
                "{}",
                op.id
            );
            assert_eq!(
                (op.headers.user_email, op.headers.date),
                (s.user_email, s.date),
                "{}",
                op.id
            );
            assert_eq!(op.roles, s.roles, "{}", op.id);
        }
    }

    /// Only placeOrder is resent to resolve an unknown outcome (the service answers a known
    /// externalId with the original order); addItems, the other unsafe write, never is.
    #[test]
    fn only_place_order_is_resend_safe() {
        let resend: Vec<_> = ALL.iter().filter(|o| o.resend_safe).map(|o| o.id).collect();
        assert_eq!(resend, ["placeOrder"]);
    }
}
