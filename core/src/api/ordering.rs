//! Ordering 2022-10-30: placeOrder, with typed attributes and expectations, and the rules
//! that can be checked before sending (externalIds, e-invoicing line numbers, MLE pairs).
//!
//! Multi-legal-entity (MLE) groups: the legal entity is named by an `Auxiliary` attribute
//! whose key is the customer's agreed label and whose value is the entity's name, tax id
//! or custom field, e.g. `Attribute::auxiliary([("legalEntity", "Acme KK")])`. Several
//! pairs route the order to several entities.

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, FixedOffset};
use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::cart::PhysicalAddress;
use super::wire_datetime;
use crate::client::{Call, Client};
use crate::error::{Error, Result};
use crate::model::RawJson;
use crate::money::Money;
use crate::operation_row::Row;
use crate::{model, validate};

super::group_rows! {$
    ordering Ordering {
        /// Places an order (never resent after an ambiguous failure: that is OutcomeUnknown).
        PLACE_ORDER = PLACE_ORDER => place_order(PlaceOrderRequest) -> PlaceOrderResult;
    }
}

/// The longest order externalId, in characters (this and the next two: placeOrder's
/// published limits).
pub const MAX_EXTERNAL_ID_CHARS: usize = 255;
/// The longest line-item externalId, in characters.
pub const MAX_LINE_EXTERNAL_ID_CHARS: usize = 127;
/// The most line items an order may hold.
pub const MAX_LINE_ITEMS: usize = 50;

/// A shipping or billing address: a physical address, or a customer's external address id.
#[derive(Clone, Debug, PartialEq)]
pub enum AddressRef {
    /// A full address (sent as `PhysicalAddress`).
    Physical(PhysicalAddress),
    /// An address the customer keeps on the platform, by its id (sent as
    /// `ExternalAddress`), with an optional physical address alongside.
    External {
        /// The customer's address id.
        address_id: String,
        /// The address itself, when given.
        address: Option<PhysicalAddress>,
    },
}

/// One accounting segment of a Distribution attribute.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Segment {
    /// The segment's description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The segment's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The segment's type (`type` on the wire).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub segment_type: Option<String>,
}

/// An order or line-item attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    /// The product (ASIN) from product search or the cart.
    SelectedProductReference {
        /// The ASIN.
        id: String,
    },
    /// The buying option (offer id) from product search or the cart.
    SelectedBuyingOptionReference {
        /// The offer id.
        id: String,
    },
    /// Customer-defined key/value pairs: MLE legal entities, e-invoicing category and
    /// subCategory.
    Auxiliary {
        /// Label → value (sent as `{"value": ...}` objects).
        values: BTreeMap<String, String>,
    },
    /// Accounting distribution (e-invoicing).
    Distribution {
        /// The amount distributed (sent as a JSON number).
        charge: Money,
        /// The accounting's name.
        name: Option<String>,
        /// The accounting segments.
        segments: Vec<Segment>,
    },
    /// The region the order is placed in.
    Region {
        /// The region code.
        region: String,
    },
    /// Pay with the stored payment method.
    SelectedPaymentMethodReference,
    /// The buying group (its identifier), e.g. an e-invoicing or MLE group.
    BuyingGroupReference {
        /// The group's identifier.
        identifier: String,
    },
    /// The buyer, by e-mail.
    BuyerReference {
        /// The buyer's e-mail address.
        email: String,
    },
    /// The customer's purchase order number.
    PurchaseOrderNumber {
        /// The purchase order number.
        purchase_order_number: String,
    },
    /// Where to ship.
    ShippingAddress(AddressRef),
    /// Where to bill.
    BillingAddress(AddressRef),
    /// Any other attribute (TrialMode, a Distribution given as JSON, ...), sent as given
    /// but for the amounts of its money objects, which go out as JSON numbers.
    Other(RawJson),
}

impl Attribute {
    /// An Auxiliary attribute from key/value pairs.
    pub fn auxiliary<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Attribute {
        Attribute::Auxiliary {
            values: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    /// The wire name of the kind.
    pub fn attribute_type(&self) -> String {
        match self {
            Attribute::SelectedProductReference { .. } => "SelectedProductReference".into(),
            Attribute::SelectedBuyingOptionReference { .. } => {
                "SelectedBuyingOptionReference".into()
            }
            Attribute::Auxiliary { .. } => "Auxiliary".into(),
            Attribute::Distribution { .. } => "Distribution".into(),
            Attribute::Region { .. } => "Region".into(),
            Attribute::SelectedPaymentMethodReference => "SelectedPaymentMethodReference".into(),
            Attribute::BuyingGroupReference { .. } => "BuyingGroupReference".into(),
            Attribute::BuyerReference { .. } => "BuyerReference".into(),
            Attribute::PurchaseOrderNumber { .. } => "PurchaseOrderNumber".into(),
            Attribute::ShippingAddress(_) => "ShippingAddress".into(),
            Attribute::BillingAddress(_) => "BillingAddress".into(),
            Attribute::Other(raw) => peek_type(raw.get(), "attributeType"),
        }
    }
}

/// Request amounts go out as JSON numbers, whatever form the caller wrote them in.
fn number_form(m: &Money) -> Money {
    Money {
        currency_code: m.currency_code.clone(),
        amount: m
            .value()
            .map(|v| crate::money::Amount::new(v, crate::money::AmountForm::Number)),
        extra: m.extra.clone(),
        nulls: m.nulls,
    }
}

fn peek_type(json: &str, field: &str) -> String {
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json)
        .ok()
        .and_then(|m| m.get(field).and_then(|v| v.as_str()).map(str::to_string))
        .unwrap_or_default()
}

#[derive(Serialize)]
struct PhysicalOnWire<'a> {
    #[serde(rename = "addressType")]
    address_type: &'static str,
    #[serde(flatten)]
    address: &'a PhysicalAddress,
}

fn address_value(a: &AddressRef) -> serde_json::Value {
    match a {
        AddressRef::Physical(p) => serde_json::to_value(PhysicalOnWire {
            address_type: "PhysicalAddress",
            address: p,
        })
        .unwrap_or_default(),
        AddressRef::External {
            address_id,
            address,
        } => {
            let mut m = serde_json::Map::new();
            m.insert("addressType".into(), "ExternalAddress".into());
            m.insert("addressId".into(), address_id.clone().into());
            if let Some(p) = address {
                m.insert(
                    "address".into(),
                    serde_json::to_value(PhysicalOnWire {
                        address_type: "PhysicalAddress",
                        address: p,
                    })
                    .unwrap_or_default(),
                );
            }
            serde_json::Value::Object(m)
        }
    }
}

impl Serialize for Attribute {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde_json::json;
        if let Attribute::Other(raw) = self {
            return raw.serialize(s);
        }
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("attributeType", &self.attribute_type())?;
        match self {
            Attribute::SelectedProductReference { id } => m.serialize_entry(
                "productReference",
                &json!({"id": id, "productReferenceType": "ProductIdentifier"}),
            )?,
            Attribute::SelectedBuyingOptionReference { id } => m.serialize_entry(
                "buyingOptionReference",
                &json!({"id": id, "buyingOptionReferenceType": "BuyingOptionIdentifier"}),
            )?,
            Attribute::Auxiliary { values } => {
                let wrapped: BTreeMap<&String, serde_json::Value> = values
                    .iter()
                    .map(|(k, v)| (k, json!({ "value": v })))
                    .collect();
                m.serialize_entry("values", &wrapped)?
            }
            Attribute::Distribution {
                charge,
                name,
                segments,
            } => {
                #[derive(Serialize)]
                struct Charge<'a> {
                    amount: &'a Money,
                }
                #[derive(Serialize)]
                struct Accounting<'a> {
                    #[serde(skip_serializing_if = "Option::is_none")]
                    name: &'a Option<String>,
                    segments: &'a [Segment],
                }
                m.serialize_entry(
                    "charge",
                    &Charge {
                        amount: &number_form(charge),
                    },
                )?;
                m.serialize_entry("accounting", &Accounting { name, segments })?;
            }
            Attribute::Region { region } => m.serialize_entry("region", region)?,
            Attribute::SelectedPaymentMethodReference => m.serialize_entry(
                "paymentMethodReference",
                &json!({"paymentMethodReferenceType": "StoredPaymentMethod"}),
            )?,
            Attribute::BuyingGroupReference { identifier } => m.serialize_entry(
                "groupReference",
                &json!({"identifier": identifier, "groupReferenceType": "GroupIdentity"}),
            )?,
            Attribute::BuyerReference { email } => m.serialize_entry(
                "userReference",
                &json!({"emailAddress": email, "userReferenceType": "UserEmail"}),
            )?,
            Attribute::PurchaseOrderNumber {
                purchase_order_number,
            } => m.serialize_entry("purchaseOrderNumber", purchase_order_number)?,
            Attribute::ShippingAddress(a) | Attribute::BillingAddress(a) => {
                m.serialize_entry("address", &address_value(a))?
            }
            Attribute::Other(_) => {}
        }
        m.end()
    }
}

/// Reads an attribute in its wire form (as the spec documents it).
impl<'de> Deserialize<'de> for Attribute {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        let text = raw.get();
        let v: serde_json::Value = serde_json::from_str(text).map_err(de::Error::custom)?;
        let s = |p: &str| v.pointer(p).and_then(|x| x.as_str()).map(str::to_string);
        let need = |p: &str| s(p).ok_or_else(|| de::Error::custom(format!("attribute needs {p}")));
        let address = |key: &str| -> std::result::Result<AddressRef, D::Error> {
            let a = v
                .get(key)
                .ok_or_else(|| de::Error::custom("address attribute needs address"))?;
            if a.get("addressType").and_then(|t| t.as_str()) == Some("ExternalAddress") {
                Ok(AddressRef::External {
                    address_id: a
                        .get("addressId")
                        .and_then(|x| x.as_str())
                        .unwrap_or_default()
                        .to_string(),
                    address: a
                        .get("address")
                        .map(|p| serde_json::from_value(strip_type(p.clone())))
                        .transpose()
                        .map_err(de::Error::custom)?,
                })
            } else {
                Ok(AddressRef::Physical(
                    serde_json::from_value(strip_type(a.clone())).map_err(de::Error::custom)?,
                ))
            }
        };
        Ok(match s("/attributeType").as_deref().unwrap_or("") {
            "SelectedProductReference" => Attribute::SelectedProductReference {
                id: need("/productReference/id")?,
            },
            "SelectedBuyingOptionReference" => Attribute::SelectedBuyingOptionReference {
                id: need("/buyingOptionReference/id")?,
            },
            "Auxiliary" => {
                let mut values = BTreeMap::new();
                if let Some(obj) = v.get("values").and_then(|x| x.as_object()) {
                    for (k, val) in obj {
                        let text = val
                            .get("value")
                            .and_then(|x| x.as_str())
                            .or(val.as_str())
                            .ok_or_else(|| {
                                de::Error::custom(format!(
                                    "Auxiliary value of {k:?} must be {{\"value\": text}}"
                                ))
                            })?;
                        values.insert(k.clone(), text.to_string());
                    }
                }
                Attribute::Auxiliary { values }
            }
            "Region" => Attribute::Region {
                region: need("/region")?,
            },
            "SelectedPaymentMethodReference" => Attribute::SelectedPaymentMethodReference,
            "BuyingGroupReference" => Attribute::BuyingGroupReference {
                identifier: need("/groupReference/identifier")?,
            },
            "BuyerReference" => Attribute::BuyerReference {
                email: need("/userReference/emailAddress")?,
            },
            "PurchaseOrderNumber" => Attribute::PurchaseOrderNumber {
                purchase_order_number: need("/purchaseOrderNumber")?,
            },
            "ShippingAddress" => Attribute::ShippingAddress(address("address")?),
            "BillingAddress" => Attribute::BillingAddress(address("address")?),
            _ => Attribute::Other(RawJson::from_json(text).map_err(de::Error::custom)?),
        })
    }
}

fn strip_type(mut v: serde_json::Value) -> serde_json::Value {
    if let Some(m) = v.as_object_mut() {
        m.remove("addressType");
    }
    v
}

/// What the buyer expects; the order is rejected if it does not hold.
#[derive(Clone, Debug, PartialEq)]
pub enum Expectation {
    /// The unit price the buyer expects.
    ExpectedUnitPrice {
        /// The price (sent as a JSON number).
        amount: Money,
    },
    /// source: SUBTOTAL, TAX or SHIPPING.
    ExpectedCharge {
        /// The amount expected (sent as a JSON number).
        amount: Money,
        /// SUBTOTAL, TAX or SHIPPING.
        source: String,
    },
    /// The delivery date the buyer requests.
    ExpectedDeliveryDate {
        /// The requested date-time.
        requested_delivery_date: DateTime<FixedOffset>,
    },
    /// Any other expectation, sent as given but for the amounts of its money objects,
    /// which go out as JSON numbers.
    Other(RawJson),
}

impl Serialize for Expectation {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if let Expectation::Other(raw) = self {
            return raw.serialize(s);
        }
        let mut m = s.serialize_map(None)?;
        match self {
            Expectation::ExpectedUnitPrice { amount } => {
                m.serialize_entry("expectationType", "ExpectedUnitPrice")?;
                m.serialize_entry("amount", &number_form(amount))?;
            }
            Expectation::ExpectedCharge { amount, source } => {
                m.serialize_entry("expectationType", "ExpectedCharge")?;
                m.serialize_entry("amount", &number_form(amount))?;
                m.serialize_entry("source", source)?;
            }
            Expectation::ExpectedDeliveryDate {
                requested_delivery_date,
            } => {
                m.serialize_entry("expectationType", "ExpectedDeliveryDate")?;
                m.serialize_entry(
                    "requestedDeliveryDate",
                    &wire_datetime(*requested_delivery_date),
                )?;
            }
            Expectation::Other(_) => {}
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Expectation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        #[derive(Deserialize)]
        struct Wire {
            #[serde(rename = "expectationType", default)]
            kind: String,
            #[serde(default)]
            amount: Option<Money>,
            #[serde(default)]
            source: Option<String>,
            #[serde(rename = "requestedDeliveryDate", default)]
            date: Option<String>,
        }
        let w: Wire = serde_json::from_str(raw.get()).map_err(de::Error::custom)?;
        let amount = |w: &Wire| {
            w.amount
                .clone()
                .ok_or_else(|| de::Error::custom(format!("{} needs amount", w.kind)))
        };
        Ok(match w.kind.as_str() {
            "ExpectedUnitPrice" => Expectation::ExpectedUnitPrice {
                amount: amount(&w)?,
            },
            "ExpectedCharge" => Expectation::ExpectedCharge {
                amount: amount(&w)?,
                source: w
                    .source
                    .clone()
                    .ok_or_else(|| de::Error::custom("ExpectedCharge needs source"))?,
            },
            "ExpectedDeliveryDate" => Expectation::ExpectedDeliveryDate {
                requested_delivery_date: crate::Timestamp::parse(w.date.as_deref().unwrap_or(""))
                    .map_err(de::Error::custom)?
                    .value(),
            },
            _ => Expectation::Other(RawJson::from_json(raw.get()).map_err(de::Error::custom)?),
        })
    }
}

/// A line of an order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct LineItem {
    /// 1–127 characters, unique in the order; digits only for e-invoicing orders (it
    /// becomes the purchase order line number).
    #[serde(
        rename(serialize = "externalId", deserialize = "external_id"),
        alias = "externalId"
    )]
    pub external_id: String,
    /// How many to order.
    pub quantity: i64,
    /// The line's attributes (product, buying option, ...).
    #[serde(default)]
    pub attributes: Vec<Attribute>,
    /// What the buyer expects of the line (unit price, ...).
    #[serde(default)]
    pub expectations: Vec<Expectation>,
}
crate::objects_only!(LineItem);

impl LineItem {
    /// A line for a product and buying option from search or the cart.
    pub fn new(
        external_id: impl Into<String>,
        product_id: impl Into<String>,
        offer_id: impl Into<String>,
        quantity: i64,
    ) -> LineItem {
        LineItem {
            external_id: external_id.into(),
            quantity,
            attributes: vec![
                Attribute::SelectedProductReference {
                    id: product_id.into(),
                },
                Attribute::SelectedBuyingOptionReference {
                    id: offer_id.into(),
                },
            ],
            expectations: vec![],
        }
    }
    /// Adds an attribute to the line.
    pub fn attribute(mut self, a: Attribute) -> LineItem {
        self.attributes.push(a);
        self
    }
    /// Adds an expectation to the line.
    pub fn expect(mut self, e: Expectation) -> LineItem {
        self.expectations.push(e);
        self
    }
}

/// A placeOrder request, in the spec's wire form.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct PlaceOrderRequest {
    /// Required: 1–255 characters, unique per order; kept identical across retries.
    #[serde(
        rename(serialize = "externalId", deserialize = "external_id"),
        alias = "externalId"
    )]
    pub external_id: String,
    /// The order's lines: 1 to `MAX_LINE_ITEMS`.
    #[serde(
        rename(serialize = "lineItems", deserialize = "line_items"),
        alias = "lineItems"
    )]
    pub line_items: Vec<LineItem>,
    /// Order-level attributes (addresses, payment method, buying group, ...).
    #[serde(default)]
    pub attributes: Vec<Attribute>,
    /// Order-level expectations (charges, delivery date).
    #[serde(default)]
    pub expectations: Vec<Expectation>,
    /// The buying group is enabled for e-invoicing: line externalIds must be numeric.
    /// Checked here, never sent.
    #[serde(skip_serializing, default)]
    pub e_invoicing: bool,
}
crate::objects_only!(PlaceOrderRequest);

impl PlaceOrderRequest {
    /// An empty order with its externalId.
    pub fn new(external_id: impl Into<String>) -> PlaceOrderRequest {
        PlaceOrderRequest {
            external_id: external_id.into(),
            ..Default::default()
        }
    }
    /// Adds a line.
    pub fn line(mut self, l: LineItem) -> PlaceOrderRequest {
        self.line_items.push(l);
        self
    }
    /// Adds an order-level attribute.
    pub fn attribute(mut self, a: Attribute) -> PlaceOrderRequest {
        self.attributes.push(a);
        self
    }
    /// Adds an order-level expectation.
    pub fn expect(mut self, e: Expectation) -> PlaceOrderRequest {
        self.expectations.push(e);
        self
    }
    /// Marks the buying group as e-invoicing enabled (line externalIds must then be
    /// numeric; checked by `check`).
    pub fn e_invoicing(mut self, on: bool) -> PlaceOrderRequest {
        self.e_invoicing = on;
        self
    }

    /// The order's attributes and expectations, then each line's, with the path prefix of
    /// their parameters (`""`, `"line_items[0]."`, ...).
    fn parts_mut(&mut self) -> Vec<(String, &mut Vec<Attribute>, &mut Vec<Expectation>)> {
        let mut parts = vec![(String::new(), &mut self.attributes, &mut self.expectations)];
        for (i, l) in self.line_items.iter_mut().enumerate() {
            parts.push((
                format!("line_items[{i}]."),
                &mut l.attributes,
                &mut l.expectations,
            ));
        }
        parts
    }

    /// The rules that can be checked before sending.
    pub fn check(&self) -> Result<()> {
        validate::length("external_id", &self.external_id, 1, MAX_EXTERNAL_ID_CHARS)?;
        validate::count("line_items", self.line_items.len(), 1, MAX_LINE_ITEMS)?;
        let mut seen = HashSet::new();
        for (i, l) in self.line_items.iter().enumerate() {
            let p = format!("line_items[{i}].external_id");
            validate::length(&p, &l.external_id, 1, MAX_LINE_EXTERNAL_ID_CHARS)?;
            if self.e_invoicing {
                validate::numeric(&p, &l.external_id)?;
            }
            if !seen.insert(l.external_id.as_str()) {
                return Err(Error::validation(
                    p,
                    format!(
                        "{:?} is used by another line; line externalIds must be unique in an order",
                        l.external_id
                    ),
                ));
            }
            validate::int_range(
                &format!("line_items[{i}].quantity"),
                l.quantity,
                1,
                i64::from(i32::MAX),
            )?;
            check_attributes(&format!("line_items[{i}].attributes"), &l.attributes)?;
        }
        check_attributes("attributes", &self.attributes)?;
        let mut values = HashSet::new();
        for a in self
            .attributes
            .iter()
            .chain(self.line_items.iter().flat_map(|l| l.attributes.iter()))
        {
            if let Attribute::Auxiliary { values: pairs } = a {
                for (k, v) in pairs {
                    if !values.insert((k.as_str(), v.as_str())) {
                        return Err(Error::validation(
                            "attributes",
                            format!("the Auxiliary pair {k:?}={v:?} is given twice"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

fn check_attributes(param: &str, attrs: &[Attribute]) -> Result<()> {
    for (i, a) in attrs.iter().enumerate() {
        let p = format!("{param}[{i}]");
        match a {
            Attribute::SelectedProductReference { id }
            | Attribute::SelectedBuyingOptionReference { id } => {
                validate::non_empty(&format!("{p}.id"), id)?
            }
            Attribute::Auxiliary { values } => {
                validate::count(&format!("{p}.values"), values.len(), 1, usize::MAX)?;
                for (k, v) in values {
                    validate::non_empty(&format!("{p}.values key"), k)?;
                    validate::non_empty(&format!("{p}.values[{k}]"), v)?;
                }
            }
            Attribute::BuyingGroupReference { identifier } => {
                validate::non_empty(&format!("{p}.identifier"), identifier)?
            }
            Attribute::BuyerReference { email } => validate::email(&format!("{p}.email"), email)?,
            Attribute::PurchaseOrderNumber {
                purchase_order_number,
            } => validate::non_empty(&format!("{p}.purchase_order_number"), purchase_order_number)?,
            Attribute::Region { region } => {
                crate::normalize::region(&format!("{p}.region"), region)?;
            }
            Attribute::ShippingAddress(AddressRef::External { address_id, .. })
            | Attribute::BillingAddress(AddressRef::External { address_id, .. }) => {
                validate::non_empty(&format!("{p}.address_id"), address_id)?
            }
            _ => {}
        }
    }
    Ok(())
}

model! {
    /// An acceptance or rejection artifact (DeliveryTimeRange, UnitPrice, Charge,
    /// OrderIdentifier, LineItemIdentifier, UnavailableQuantity, RejectionMessage, ...):
    /// every field any kind uses, the others kept in `extra`.
    pub struct Artifact {
        "acceptanceArtifactType" acceptance_artifact_type: String,
        "rejectionArtifactType" rejection_artifact_type: String,
        "lowerBoundary" lower_boundary: crate::Timestamp,
        "upperBoundary" upper_boundary: crate::Timestamp,
        "amount" amount: Money,
        "unitPrice" unit_price: Money,
        "category" category: String,
        "type" r#type: String,
        "identifier" identifier: String,
        "quantity" quantity: i64,
        "message" message: String,
        "code" code: String,
    }
}

model! {
    /// Accepted units of a line.
    pub struct AcceptedItem {
        "acceptedItemType" accepted_item_type: String,
        "quantity" quantity: i64,
        "artifacts" artifacts: Vec<Option<Artifact>>,
    }
}

model! {
    /// Rejected units of a line.
    pub struct RejectedItem {
        "quantity" quantity: i64,
        "artifacts" artifacts: Vec<Option<Artifact>>,
    }
}

model! {
    /// The outcome of one line.
    pub struct LineItemResult {
        "externalId" external_id: String,
        "acceptedItems" accepted_items: Vec<Option<AcceptedItem>>,
        "rejectedItems" rejected_items: Vec<Option<RejectedItem>>,
    }
}

model! {
    /// The body of placeOrder.
    pub struct PlaceOrderResult {
        "lineItems" line_items: Vec<Option<LineItemResult>>,
        "acceptanceArtifacts" acceptance_artifacts: Vec<Option<Artifact>>,
        "rejectionArtifacts" rejection_artifacts: Vec<Option<Artifact>>,
    }
}

impl PlaceOrderResult {
    /// The platform's order id (the OrderIdentifier acceptance artifact).
    pub fn order_id(&self) -> Option<&str> {
        self.acceptance_artifacts
            .iter()
            .flatten()
            .flatten()
            .find_map(|a| match a.acceptance_artifact_type.as_deref() {
                Some("OrderIdentifier") => a.identifier.as_deref(),
                _ => None,
            })
    }
    /// True when the whole order was rejected, or any line has rejected units.
    pub fn has_rejections(&self) -> bool {
        self.rejection_artifacts
            .as_ref()
            .is_some_and(|r| !r.is_empty())
            || self
                .line_items
                .iter()
                .flatten()
                .flatten()
                .any(|l| l.rejected_items.as_ref().is_some_and(|r| !r.is_empty()))
    }
}

/// The order's top-level fields for the bindings' generated signatures; lines, attributes
/// and expectations are objects read by their own serde rules (`LineItem`, `Attribute`,
/// `Expectation`), described as string-keyed maps.
impl crate::describe::Describe for PlaceOrderRequest {
    fn ty() -> crate::describe::Ty {
        use crate::describe::{ParamInfo, ParamsInfo, Ty};
        static INFO: ParamsInfo = ParamsInfo {
            name: "PlaceOrderRequest",
            doc: "The order, snake_case keys (the wire's camelCase `externalId` and `lineItems` \
                  are accepted too); attributes and expectations in the specification's wire \
                  form (`{\"attributeType\": ...}`, `{\"expectationType\": ...}`).\n",
            fields: &[
                ParamInfo {
                    name: "external_id",
                    ty: || Ty::Str,
                    required: true,
                    doc: "1-255 characters, unique per order; kept identical across retries.\n",
                },
                ParamInfo {
                    name: "line_items",
                    ty: || Ty::List(|| Ty::Map(|| Ty::Raw)),
                    required: true,
                    doc: "The lines: `external_id` (1-127 characters, unique in the order; \
                          digits only for e-invoicing; `externalId` accepted), `quantity`, \
                          `attributes`, `expectations`.\n",
                },
                ParamInfo {
                    name: "attributes",
                    ty: || Ty::List(|| Ty::Map(|| Ty::Raw)),
                    required: false,
                    doc: "Order attributes in the wire form (`{\"attributeType\": ...}`).\n",
                },
                ParamInfo {
                    name: "expectations",
                    ty: || Ty::List(|| Ty::Map(|| Ty::Raw)),
                    required: false,
                    doc: "Order expectations in the wire form (`{\"expectationType\": ...}`).\n",
                },
                ParamInfo {
                    name: "e_invoicing",
                    ty: || Ty::Bool,
                    required: false,
                    doc: "true when the buying group is enabled for e-invoicing: line \
                          external_ids must then be numeric (checked before sending, never \
                          sent).\n",
                },
            ],
        };
        Ty::Params(&INFO)
    }
}

/// The ordering operation. Get one with `Client::ordering`.
pub struct Ordering<'a> {
    pub(crate) client: &'a Client,
}

impl Client {
    /// Ordering 2022-10-30.
    pub fn ordering(&self) -> Ordering<'_> {
        Ordering { client: self }
    }
}

/// `raw` with its money amounts as JSON numbers (`money::amounts_as_numbers`).
fn money_as_numbers(raw: &mut RawJson, param: &str) -> Result<()> {
    if let Some(text) = crate::money::amounts_as_numbers(raw.get(), param)? {
        *raw = RawJson::from_json(&text).map_err(|e| Error::internal(format!("{param}: {e}")))?;
    }
    Ok(())
}

/// placeOrder. Resent (with the same externalId) only when it surely did not reach the
/// server or was refused before processing; an ambiguous failure is an `OutcomeUnknown`
/// error carrying the externalId, never a resend.
pub(crate) async fn place_order(c: &Client, order: &PlaceOrderRequest) -> Result<PlaceOrderResult> {
    order.check()?;
    // Region attributes in the spec's form, and served by the client's address.
    let mut order = order.clone();
    let settings = c.current_settings();
    for (at, attrs, exps) in order.parts_mut() {
        for (j, a) in attrs.iter_mut().enumerate() {
            match a {
                Attribute::Region { region } => {
                    *region = super::region_arg(
                        &format!("{at}attributes[{j}].region"),
                        region,
                        &settings,
                    )?
                    .as_str()
                    .to_string();
                }
                // Kinds passed through as given still send their money as numbers.
                Attribute::Other(raw) => money_as_numbers(raw, &format!("{at}attributes[{j}]"))?,
                _ => {}
            }
        }
        for (j, e) in exps.iter_mut().enumerate() {
            if let Expectation::Other(raw) = e {
                money_as_numbers(raw, &format!("{at}expectations[{j}]"))?;
            }
        }
    }
    let order = &order;
    let mut call = Call::new(PlaceOrderRequest::ROW).json(order)?;
    call.external_id = Some(order.external_id.clone());
    c.execute_json(&call).await
}
