//! A borrowed, typed view of any result: what bindings walk to build their own objects
//! (Python instances with `Decimal` and `datetime`), without knowing each model.

use std::collections::BTreeMap;

use crate::model::{Extra, RawJson, Timestamp};
use crate::money::{Amount, Money};

/// One value of a result.
#[derive(Debug)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Str(&'a str),
    /// An exact decimal (with the form it had on the wire, and a negative zero's sign).
    Decimal(Amount),
    /// An amount with its currency (absent or empty currency kept apart).
    Money(&'a Money),
    DateTime(&'a Timestamp),
    List(Vec<Node<'a>>),
    /// A free-form string map (businessOrderInfo, productOverview).
    Map(Vec<(&'a str, Node<'a>)>),
    /// A declared model: its type name, declared fields and unknown fields.
    Object(Object<'a>),
    /// JSON kept as received (free-form objects, unknown variants).
    Raw(&'a str),
}

/// A model instance.
#[derive(Debug)]
pub struct Object<'a> {
    pub type_name: &'static str,
    /// (snake_case name, wire name, value) of every declared field, absent ones as Null.
    pub fields: Vec<(&'static str, &'static str, Node<'a>)>,
    /// Unknown fields: (wire name, raw JSON text).
    pub extra: &'a Extra,
    /// Declared fields that came as an explicit `null` (bit i: field i).
    pub nulls: crate::model::Nulls,
}

/// Anything that can be viewed as a `Node`.
pub trait ToNode {
    fn to_node(&self) -> Node<'_>;
}

impl ToNode for String {
    fn to_node(&self) -> Node<'_> {
        Node::Str(self)
    }
}
impl ToNode for str {
    fn to_node(&self) -> Node<'_> {
        Node::Str(self)
    }
}
impl ToNode for bool {
    fn to_node(&self) -> Node<'_> {
        Node::Bool(*self)
    }
}
impl ToNode for i64 {
    fn to_node(&self) -> Node<'_> {
        Node::Int(*self)
    }
}
impl ToNode for Amount {
    fn to_node(&self) -> Node<'_> {
        Node::Decimal(*self)
    }
}
impl ToNode for Money {
    fn to_node(&self) -> Node<'_> {
        Node::Money(self)
    }
}
impl ToNode for Timestamp {
    fn to_node(&self) -> Node<'_> {
        Node::DateTime(self)
    }
}
impl ToNode for RawJson {
    fn to_node(&self) -> Node<'_> {
        Node::Raw(self.get())
    }
}
impl ToNode for () {
    fn to_node(&self) -> Node<'_> {
        Node::Null
    }
}
impl<T: ToNode> ToNode for Option<T> {
    fn to_node(&self) -> Node<'_> {
        match self {
            Some(v) => v.to_node(),
            None => Node::Null,
        }
    }
}
impl<T: ToNode> ToNode for Vec<T> {
    fn to_node(&self) -> Node<'_> {
        Node::List(self.iter().map(ToNode::to_node).collect())
    }
}
impl<T: ToNode> ToNode for BTreeMap<String, T> {
    fn to_node(&self) -> Node<'_> {
        Node::Map(
            self.iter()
                .map(|(k, v)| (k.as_str(), v.to_node()))
                .collect(),
        )
    }
}
impl<T: ToNode + ?Sized> ToNode for &T {
    fn to_node(&self) -> Node<'_> {
        (**self).to_node()
    }
}
