//! A borrowed, typed view of any result: what bindings walk to build their own objects
//! (Python instances with `Decimal` and `datetime`), without knowing each model.
//!
//! Nothing is collected on the way: a list, a map or a model is viewed through a trait
//! object that hands out its values one by one, so walking a result allocates nothing
//! (a big page is ~100,000 models; a `Vec` of fields per model cost ~10 % of building
//! the Python objects, and as much again to free).

use std::collections::BTreeMap;

use crate::describe::FieldInfo;
use crate::model::{Extra, Nulls, RawJson, Timestamp};
use crate::money::{Amount, Money};

/// One value of a result.
#[derive(Clone, Copy)]
pub enum Node<'a> {
    /// An absent value or JSON `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string (also a wire enum's value).
    Str(&'a str),
    /// An exact decimal (with the form it had on the wire, and a negative zero's sign).
    Decimal(Amount),
    /// An amount with its currency (absent or empty currency kept apart).
    Money(&'a Money),
    /// A date-time with its offset and wire text.
    DateTime(&'a Timestamp),
    /// A list.
    List(&'a dyn Items),
    /// A free-form string map (businessOrderInfo, productOverview).
    Map(&'a dyn Entries),
    /// A declared model: its type, declared fields and unknown fields.
    Object(&'a dyn ObjectView),
    /// JSON kept as received (free-form objects, unknown variants).
    Raw(&'a str),
}

impl std::fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Node::Null => f.write_str("Null"),
            Node::Bool(v) => write!(f, "Bool({v})"),
            Node::Int(v) => write!(f, "Int({v})"),
            Node::Str(v) => write!(f, "Str({v:?})"),
            Node::Decimal(v) => write!(f, "Decimal({v})"),
            Node::Money(v) => write!(f, "Money({v})"),
            Node::DateTime(v) => write!(f, "DateTime({v})"),
            Node::List(v) => {
                let mut l = f.debug_list();
                v.each(&mut |n| {
                    l.entry(&n);
                });
                l.finish()
            }
            Node::Map(v) => {
                let mut m = f.debug_map();
                v.each(&mut |k, n| {
                    m.entry(&k, &n);
                });
                m.finish()
            }
            Node::Object(o) => {
                let mut s = f.debug_struct(o.type_name());
                let fields = o.fields();
                let mut i = 0;
                o.each_field(&mut |n| {
                    s.field(fields[i].name, &n);
                    i += 1;
                });
                s.finish()
            }
            Node::Raw(v) => write!(f, "Raw({v})"),
        }
    }
}

/// The items of a list, in order.
pub trait Items {
    /// How many items.
    fn len(&self) -> usize;
    /// True when there is no item.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Calls `f` with every item.
    fn each<'s>(&'s self, f: &mut dyn FnMut(Node<'s>));
}

/// The entries of a string map, in key order.
pub trait Entries {
    /// How many entries.
    fn len(&self) -> usize;
    /// True when there is no entry.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Calls `f` with every (key, value).
    fn each<'s>(&'s self, f: &mut dyn FnMut(&'s str, Node<'s>));
}

/// A model instance (implemented by `model!`).
pub trait ObjectView {
    /// The type's name as users see it.
    fn type_name(&self) -> &'static str;
    /// The declared fields, in the order `each_field` gives their values.
    fn fields(&self) -> &'static [FieldInfo];
    /// Calls `f` with the value of every declared field, absent ones as `Null`.
    fn each_field<'s>(&'s self, f: &mut dyn FnMut(Node<'s>));
    /// Unknown fields: (wire name, raw JSON text).
    fn extra(&self) -> &Extra;
    /// Declared fields that came as an explicit `null` (bit i: field i).
    fn nulls(&self) -> Nulls;
}

/// Anything that can be viewed as a `Node`.
pub trait ToNode {
    /// The value's view.
    fn to_node(&self) -> Node<'_>;
}

/// `ToNode` of the types whose view is one `Node` variant of the value itself (`$v`).
macro_rules! leaf_to_node {
    ($($ty:ty => |$v:ident| $node:expr;)+) => {
        $(
            impl ToNode for $ty {
                fn to_node(&self) -> Node<'_> {
                    let $v = self;
                    $node
                }
            }
        )+
    };
}

leaf_to_node! {
    String => |s| Node::Str(s);
    str => |s| Node::Str(s);
    bool => |b| Node::Bool(*b);
    i64 => |n| Node::Int(*n);
    Amount => |a| Node::Decimal(*a);
    Money => |m| Node::Money(m);
    Timestamp => |t| Node::DateTime(t);
    RawJson => |r| Node::Raw(r.get());
    () => |_unit| Node::Null;
}
impl<T: ToNode> ToNode for Option<T> {
    fn to_node(&self) -> Node<'_> {
        match self {
            Some(v) => v.to_node(),
            None => Node::Null,
        }
    }
}
impl<T: ToNode> Items for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn each<'s>(&'s self, f: &mut dyn FnMut(Node<'s>)) {
        for v in self {
            f(v.to_node());
        }
    }
}
impl<T: ToNode> ToNode for Vec<T> {
    fn to_node(&self) -> Node<'_> {
        Node::List(self)
    }
}
impl<T: ToNode> Entries for BTreeMap<String, T> {
    fn len(&self) -> usize {
        BTreeMap::len(self)
    }
    fn each<'s>(&'s self, f: &mut dyn FnMut(&'s str, Node<'s>)) {
        for (k, v) in self {
            f(k, v.to_node());
        }
    }
}
impl<T: ToNode> ToNode for BTreeMap<String, T> {
    fn to_node(&self) -> Node<'_> {
        Node::Map(self)
    }
}
impl<T: ToNode + ?Sized> ToNode for &T {
    fn to_node(&self) -> Node<'_> {
        (**self).to_node()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::reconciliation::TransactionsPage;

    /// Every declared field is visited once, in `fields()` order, absent ones as `Null`.
    #[test]
    fn a_model_is_walked_field_by_field() {
        let page: TransactionsPage = serde_json::from_str(
            r#"{"transactions":[{"transactionId":"T1","buyer":null,"feedDate":"2026-07-06T11:23:00Z",
               "amount":{"amount":"1.50","currencyCode":"JPY"},"zz":1,
               "transactionLineItems":[{"itemQuantity":3,"businessOrderInfo":{"b":"2","a":"1"}}]}]}"#,
        )
        .unwrap();
        let Node::Object(p) = page.to_node() else {
            panic!("not an object")
        };
        assert_eq!(p.type_name(), "TransactionsPage");
        let mut seen = Vec::new();
        p.each_field(&mut |n| seen.push(n));
        assert_eq!(seen.len(), p.fields().len());
        let Node::List(items) = seen[0] else {
            panic!("transactions is not a list")
        };
        assert_eq!(items.len(), 1);
        assert!(matches!(seen[1], Node::Null));
        let mut tx = None;
        items.each(&mut |n| tx = Some(n));
        let Some(Node::Object(tx)) = tx else {
            panic!("no transaction")
        };
        let mut values = Vec::new();
        tx.each_field(&mut |n| values.push(n));
        let at = |wire: &str| tx.fields().iter().position(|f| f.wire == wire).unwrap();
        assert!(matches!(values[at("transactionId")], Node::Str("T1")));
        assert!(matches!(values[at("buyer")], Node::Null));
        assert!(tx.nulls().has(at("buyer")));
        assert!(!tx.nulls().has(at("payer")));
        assert!(matches!(values[at("amount")], Node::Money(m) if m.to_string() == "1.50 JPY"));
        assert!(
            matches!(values[at("feedDate")], Node::DateTime(t) if t.as_str() == "2026-07-06T11:23:00Z")
        );
        assert_eq!(tx.extra().get("zz"), Some("1"));
        let Node::List(lines) = values[at("transactionLineItems")] else {
            panic!("no lines")
        };
        let text = format!("{:?}", Node::List(lines));
        assert!(text.contains(r#"item_quantity: Int(3)"#), "{text}");
        assert!(
            text.contains(r#"business_order_info: {"a": Str("1"), "b": Str("2")}"#),
            "{text}"
        );
    }
}
