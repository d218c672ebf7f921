//! What the service declares each operation's request to be — its query parameters, the
//! `x-svc-*` headers, its body — and the JSON Schema of it, so that what the library sends
//! is checked against the service's own models and never a guess that nothing checks.
//!
//! The declarations follow the specification and, where it says "not shown" or leaves a
//! field's status open, the service's published request models; where the specification
//! and a model disagree, the specification stands (docs/decisions/004-request-declarations.md, "Request schemas"). They
//! are written apart from the handlers that build the requests on purpose: a schema
//! derived from the serializer would only check the serializer against itself. The table
//! row supplies the rest (method, path parameters), and `xtask gen` writes every schema to
//! `docs/schemas/requests/<operationId>.json`.

use serde_json::{json, Map, Value};

use crate::operations::Operation;
use crate::wire::{HEADER_DATE, HEADER_USER_EMAIL};

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

const fn req(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        required: true,
    }
}

const fn opt(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        required: false,
    }
}

/// What the service declares an operation's request to be.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    /// The operationId.
    pub id: &'static str,
    /// The query parameters (no other is declared).
    pub query: &'static [Field],
    /// A query parameter that, when sent, is sent alone (getTransactions' page token).
    pub alone: Option<&'static str>,
    /// `x-svc-user-email` is declared (and required); where it is not, it is not sent
    /// (the service's models: no buyer's address where no operation asks for it).
    pub user_email: bool,
    /// `x-svc-date` is declared (and required).
    pub date: bool,
    /// The body's fields (`None`: the request has no body).
    pub body: Option<&'static [Field]>,
}

/// A region code (the specification's Region and ProductRegion enums are two-letter codes).
const REGION: Shape = Shape::Pattern("^[A-Z]{2}$");
/// The integers of a query parameter.
const QINT: Shape = Shape::Pattern("^-?[0-9]+$");
/// getOffersByOfferIds' productRegion, as the service's request model lists it.
const PRODUCT_REGION: Shape = Shape::OneOf(&[
    "DE", "FR", "UK", "IT", "ES", "IN", "US", "CA", "MX", "JP", "AU",
]);
/// A locale "complying with java.util.Locale" (the service's request models).
const LOCALE: Shape = Shape::Pattern("^[a-zA-Z_-]+$");
const STRINGS: Shape = Shape::List {
    item: &Shape::Str,
    min: 0,
    max: None,
};

/// Money on the request wire: the amount a JSON number (the service's request models).
const MONEY: Shape = Shape::Object(&[
    req("amount", Shape::Number),
    req("currencyCode", Shape::Str),
]);

/// The cart model's PhysicalAddress (`addressType` required, `PhysicalAddress`, as the
/// service's cart model declares: docs/decisions/004-request-declarations.md).
const PHYSICAL_ADDRESS: &[Field] = &[
    req("addressType", Shape::OneOf(&["PhysicalAddress"])),
    req("fullName", Shape::Str),
    opt("phoneNumber", Shape::Str),
    opt("companyName", Shape::Str),
    req("addressLine1", Shape::Str),
    opt("addressLine2", Shape::Str),
    req("city", Shape::Str),
    req("stateOrRegion", Shape::Str),
    req("postalCode", Shape::Str),
    req("countryCode", Shape::Str),
];

/// An ordering address: a PhysicalAddress, or an ExternalAddress id with one alongside.
const ORDER_ADDRESS: Shape = Shape::Either(
    &Shape::Object(PHYSICAL_ADDRESS),
    &Shape::Object(&[
        req("addressType", Shape::OneOf(&["ExternalAddress"])),
        req("addressId", Shape::Str),
        opt("address", Shape::Object(PHYSICAL_ADDRESS)),
    ]),
);

/// A reference object: its id field and its kind field of one value.
macro_rules! reference {
    ($id:literal, $kind:literal, $value:literal) => {
        Shape::Object(&[req($id, Shape::Str), req($kind, Shape::OneOf(&[$value]))])
    };
}

/// A kind of a tagged object with one field.
macro_rules! kind {
    ($kind:literal, $field:literal, $shape:expr) => {
        ($kind, &[req($field, $shape)])
    };
}

/// The ordering attribute kinds (the specification's "Ordering resources"). TrialMode is
/// the one the service's models publish and the specification does not list.
const ATTRIBUTE: Shape = Shape::Tagged {
    tag: "attributeType",
    kinds: &[
        kind!(
            "SelectedProductReference",
            "productReference",
            reference!("id", "productReferenceType", "ProductIdentifier")
        ),
        kind!(
            "SelectedBuyingOptionReference",
            "buyingOptionReference",
            reference!("id", "buyingOptionReferenceType", "BuyingOptionIdentifier")
        ),
        // The specification's `values` map of key to {value} stands over the model's.
        kind!(
            "Auxiliary",
            "values",
            Shape::Map(&Shape::Object(&[req("value", Shape::Str)]))
        ),
        (
            "Distribution",
            &[
                req("charge", Shape::Object(&[req("amount", MONEY)])),
                req(
                    "accounting",
                    Shape::Object(&[opt("name", Shape::Str), opt("segments", SEGMENTS)]),
                ),
            ],
        ),
        kind!("Region", "region", REGION),
        kind!(
            "SelectedPaymentMethodReference",
            "paymentMethodReference",
            Shape::Object(&[req(
                "paymentMethodReferenceType",
                Shape::OneOf(&["StoredPaymentMethod"])
            )])
        ),
        kind!(
            "BuyingGroupReference",
            "groupReference",
            reference!("identifier", "groupReferenceType", "GroupIdentity")
        ),
        kind!(
            "BuyerReference",
            "userReference",
            reference!("emailAddress", "userReferenceType", "UserEmail")
        ),
        kind!("PurchaseOrderNumber", "purchaseOrderNumber", Shape::Str),
        kind!("ShippingAddress", "address", ORDER_ADDRESS),
        kind!("BillingAddress", "address", ORDER_ADDRESS),
        ("TrialMode", &[]),
    ],
};

/// A Distribution's accounting segments.
const SEGMENTS: Shape = Shape::List {
    item: &Shape::Object(&[
        opt("description", Shape::Str),
        opt("id", Shape::Str),
        opt("type", Shape::Str),
    ]),
    min: 0,
    max: None,
};

/// The ordering expectation kinds (the specification's "Ordering resources").
const EXPECTATION: Shape = Shape::Tagged {
    tag: "expectationType",
    kinds: &[
        kind!("ExpectedUnitPrice", "amount", MONEY),
        (
            "ExpectedCharge",
            &[
                req("amount", MONEY),
                req("source", Shape::OneOf(&["SUBTOTAL", "TAX", "SHIPPING"])),
            ],
        ),
        kind!(
            "ExpectedDeliveryDate",
            "requestedDeliveryDate",
            Shape::DateTime
        ),
    ],
};

const ATTRIBUTES: Shape = Shape::List {
    item: &ATTRIBUTE,
    min: 0,
    max: None,
};
const EXPECTATIONS: Shape = Shape::List {
    item: &EXPECTATION,
    min: 0,
    max: None,
};

/// The query of every product search operation (the specification's "Product search").
macro_rules! product_query {
    ($($rest:expr),* $(,)?) => {
        &[
            req("productRegion", REGION),
            req("locale", LOCALE),
            opt("shippingRegion", REGION),
            opt("shippingPostalCode", Shape::Str),
            opt("groupTag", Shape::Str),
            $($rest),*
        ]
    };
}

const fn request(id: &'static str) -> Request {
    Request {
        id,
        query: &[],
        alone: None,
        user_email: false,
        date: false,
        body: None,
    }
}

/// The cart operations' query (region required on every cart operation).
const CART_QUERY: &[Field] = &[req("region", REGION)];

/// Every operation's declared request, in table order.
pub static DECLARED: &[Request] = &[
    Request {
        query: &[
            req("invoiceIssueStartDate", Shape::DateTime),
            req("invoiceIssueEndDate", Shape::DateTime),
            opt("region", REGION),
            opt("paymentMethodTypes", Shape::Str),
            opt("nextPageToken", Shape::Str),
        ],
        ..request("getInvoices")
    },
    Request {
        query: &[req("region", REGION)],
        ..request("getInvoiceDetailByInvoiceNumber")
    },
    Request {
        query: &[req("region", REGION), opt("nextPageToken", Shape::Str)],
        ..request("getInvoiceLineItemsByInvoiceNumber")
    },
    // Both dates required; the page token sent alone (the service's model).
    Request {
        query: &[
            req("feedStartDate", Shape::DateTime),
            req("feedEndDate", Shape::DateTime),
            opt("nextPageToken", Shape::Str),
        ],
        alone: Some("nextPageToken"),
        ..request("getTransactions")
    },
    Request {
        body: Some(&[req(
            "orderLineItems",
            Shape::List {
                item: &Shape::Object(&[
                    opt("orderId", Shape::Str),
                    opt("orderLineItemId", Shape::Str),
                    opt("shipmentId", Shape::Str),
                ]),
                min: 1,
                max: Some(25),
            },
        )]),
        ..request("getInvoiceDetailsByOrderLineItems")
    },
    Request {
        body: Some(&[
            req("reportType", Shape::OneOf(&["GET_AB_INVOICE_PDF"])),
            req(
                "marketplaceIds",
                Shape::List {
                    item: &Shape::Str,
                    min: 1,
                    max: None,
                },
            ),
            req(
                "reportOptions",
                Shape::Object(&[
                    opt("invoiceId", Shape::Str),
                    opt("orderId", Shape::Str),
                    opt("orderLineItemId", Shape::Str),
                    opt("shipmentId", Shape::Str),
                    opt("documentType", Shape::OneOf(&["Invoice", "Credits"])),
                ]),
            ),
        ]),
        ..request("createReport")
    },
    request("getReport"),
    request("getReportDocument"),
    // The specification stands: pageSize at most 10 (the service's model allows more).
    Request {
        query: &[
            req("region", REGION),
            opt("pageToken", Shape::Str),
            opt("pageSize", QINT),
        ],
        user_email: true,
        ..request("listCarts")
    },
    Request {
        query: CART_QUERY,
        ..request("getCart")
    },
    Request {
        query: CART_QUERY,
        ..request("getItems")
    },
    // Each item's externalId is required; 1 to 50 items (the service's model).
    Request {
        query: CART_QUERY,
        body: Some(&[req(
            "items",
            Shape::List {
                item: &Shape::Object(&[
                    req("productIdentifier", Shape::Str),
                    req("buyingOptionIdentifier", Shape::Str),
                    req("quantity", Shape::Int { min: 1 }),
                    req("externalId", Shape::Text { max: 255 }),
                ]),
                min: 1,
                max: Some(50),
            },
        )]),
        ..request("addItems")
    },
    // The seed stands: quantity 0 removes an item.
    Request {
        query: CART_QUERY,
        body: Some(&[req(
            "items",
            Shape::List {
                item: &Shape::Object(&[
                    req("itemId", Shape::Str),
                    req("quantity", Shape::Int { min: 0 }),
                ]),
                min: 1,
                max: None,
            },
        )]),
        ..request("modifyItems")
    },
    Request {
        query: CART_QUERY,
        ..request("deleteItems")
    },
    Request {
        query: CART_QUERY,
        body: Some(&[req("address", Shape::Object(PHYSICAL_ADDRESS))]),
        ..request("getEstimatedTotalPurchaseCost")
    },
    Request {
        query: product_query![
            opt("keywords", Shape::Str),
            opt("facets", Shape::Str),
            opt("pageNumber", QINT),
            opt("pageSize", QINT),
            opt("category", Shape::Str),
            opt("subCategory", Shape::Str),
            opt("availability", Shape::Str),
            opt("deliveryDay", Shape::Str),
            opt("eligibleForFreeShipping", Shape::Str),
            opt("primeEligible", Shape::Str),
            opt("upc", Shape::Str),
            opt("isbn", Shape::Str),
            opt("sku", Shape::Str),
            opt("ean", Shape::Str),
            opt("partNumber", Shape::Str),
            opt("oemPartNumber", Shape::Str),
            opt("searchRefinements", Shape::Str),
            opt("productFilters", Shape::Str),
            opt("inclusionsForProducts", Shape::Str),
            opt("inclusionsForOffers", Shape::Str),
            opt("sortKey", Shape::Str),
            opt("minPrice", QINT),
            opt("maxPrice", QINT),
        ],
        user_email: true,
        ..request("searchProductsRequest")
    },
    Request {
        query: product_query![
            opt("quantity", QINT),
            opt("facets", Shape::Str),
            opt("inclusionsForProducts", Shape::Str),
            opt("inclusionsForOffers", Shape::Str),
        ],
        user_email: true,
        ..request("productsRequest")
    },
    Request {
        query: product_query![
            opt("pageNumber", QINT),
            opt("pageSize", QINT),
            opt("filterIds", Shape::Str),
            opt("quantity", QINT),
            opt("inclusionsForOffers", Shape::Str),
        ],
        user_email: true,
        ..request("searchOffersRequest")
    },
    // The body is "not shown" in the specification nor in the service's models: the shape
    // docs/decisions/004-request-declarations.md records ("getProductsByAsins and getOffersByOfferIds bodies").
    Request {
        query: &[
            opt("inclusionsForProducts", Shape::Str),
            opt("inclusionsForOffers", Shape::Str),
            opt("groupTag", Shape::Str),
        ],
        user_email: true,
        body: Some(&[
            req(
                "productIds",
                Shape::List {
                    item: &Shape::Str,
                    min: 1,
                    max: Some(30),
                },
            ),
            req("productRegion", PRODUCT_REGION),
            req("locale", LOCALE),
            opt("shippingRegion", REGION),
            opt("shippingPostalCode", Shape::Str),
            opt("quantity", Shape::Int { min: 1 }),
            opt("facets", STRINGS),
        ]),
        ..request("getProductsByAsins")
    },
    // The service's own getOffersByOfferIdsRequest.
    Request {
        query: &[
            req("inclusionsForOffers", Shape::Str),
            opt("groupTag", Shape::Str),
        ],
        user_email: true,
        body: Some(&[
            req(
                "offersByOfferIdsRequest",
                Shape::List {
                    item: &Shape::Object(&[req("offerId", Shape::Str)]),
                    min: 1,
                    max: Some(30),
                },
            ),
            req("productRegion", PRODUCT_REGION),
            req("locale", LOCALE),
            opt("shippingRegion", REGION),
            opt("shippingPostalCode", Shape::Str),
        ]),
        ..request("getOffersByOfferIds")
    },
    // The specification and the service's model (externalId 1–255, lineItems 1–50, line
    // externalId 1–127, quantity ≥ 1); the order date in x-svc-date.
    Request {
        date: true,
        body: Some(&[
            req("externalId", Shape::Text { max: 255 }),
            req(
                "lineItems",
                Shape::List {
                    item: &Shape::Object(&[
                        req("externalId", Shape::Text { max: 127 }),
                        req("quantity", Shape::Int { min: 1 }),
                        opt("attributes", ATTRIBUTES),
                        opt("expectations", EXPECTATIONS),
                    ]),
                    min: 1,
                    max: Some(50),
                },
            ),
            req("attributes", ATTRIBUTES),
            req("expectations", EXPECTATIONS),
        ]),
        ..request("placeOrder")
    },
    Request {
        query: &[
            opt("includeLineItems", Shape::Bool),
            opt("includeShipments", Shape::Bool),
            opt("includeCharges", Shape::Bool),
        ],
        ..request("getOrdersByOrderId")
    },
    Request {
        query: &[
            req("orderStartDate", Shape::DateTime),
            req("orderEndDate", Shape::DateTime),
            opt("purchaseOrderNumbers", Shape::Str),
            opt("region", REGION),
            opt("orderIds", Shape::Str),
            opt("nextPageToken", Shape::Str),
        ],
        ..request("getShipmentLineItemReports")
    },
    Request {
        query: &[req("region", REGION), opt("locale", Shape::Str)],
        ..request("getPackageTrackingDetails")
    },
];

impl Operation {
    /// What the service declares this operation's request to be.
    pub fn request(&self) -> &'static Request {
        declared(self.id).unwrap_or_else(|| {
            // Every row has one (a unit test walks the table).
            panic!("{}: no declared request in schema::DECLARED", self.id)
        })
    }
}

/// The declared request of an operationId.
pub fn declared(id: &str) -> Option<&'static Request> {
    DECLARED.iter().find(|r| r.id == id)
}

/// The JSON Schema (2020-12) of an operation's request, as one object with the parts the
/// request schemas' test checks: `method`, `path` (the path parameters, decoded), `query` (each
/// parameter once, as text), `headers` (names in lower case) and `body` (the JSON body,
/// `null` when there is none).
pub fn request_schema(op: &Operation) -> Value {
    let r = op.request();
    let path: Vec<&str> = op
        .path
        .split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .collect();
    let path_schema = closed(
        path.iter()
            .map(|p| (p.to_string(), json!({"type": "string", "minLength": 1})))
            .collect(),
        path.iter().map(|p| p.to_string()).collect(),
    );
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("https://abws.invalid/schemas/requests/{}.json", op.id),
        "title": format!("{} request", op.id),
        "description": format!("{} {}: {}", op.method, op.path, op.doc),
        "type": "object",
        "required": ["method", "path", "query", "headers", "body"],
        "additionalProperties": false,
        "properties": {
            "method": {"const": op.method.as_str()},
            "path": path_schema,
            "query": query_schema(r),
            "headers": headers_schema(r),
            "body": match r.body {
                Some(fields) => object(fields),
                None => json!({"type": "null"}),
            },
        },
    })
}

fn query_schema(r: &Request) -> Value {
    let props: Map<String, Value> = r
        .query
        .iter()
        .map(|f| (f.name.to_string(), query_value(f.shape)))
        .collect();
    let required: Vec<String> = r
        .query
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name.to_string())
        .collect();
    match r.alone {
        None => closed(props, required),
        Some(alone) => json!({
            "oneOf": [
                closed(
                    std::iter::once((alone.to_string(), query_value(Shape::Str))).collect(),
                    vec![alone.to_string()],
                ),
                {
                    "allOf": [closed(props, required)],
                    "not": {"required": [alone]},
                },
            ]
        }),
    }
}

/// A query parameter's value: text, of the declared shape.
fn query_value(shape: Shape) -> Value {
    match shape {
        Shape::Bool => json!({"type": "string", "enum": ["true", "false"]}),
        Shape::Int { .. } => json!({"type": "string", "pattern": "^-?[0-9]+$"}),
        other => value(other),
    }
}

fn headers_schema(r: &Request) -> Value {
    let mut props = Map::new();
    let mut required = vec![];
    let mut absent = vec![];
    for (name, declared) in [(HEADER_USER_EMAIL, r.user_email), (HEADER_DATE, r.date)] {
        let name = name.to_ascii_lowercase();
        if declared {
            props.insert(name.clone(), json!({"type": "string", "minLength": 1}));
            required.push(name);
        } else if name == HEADER_USER_EMAIL {
            absent.push(json!({"not": {"required": [name]}}));
        }
    }
    // Other headers (the access token, content type, user agent) are the transport's.
    let mut s = json!({"type": "object", "properties": props, "required": required});
    if !absent.is_empty() {
        s["allOf"] = Value::Array(absent);
    }
    s
}

fn closed(props: Map<String, Value>, required: Vec<String>) -> Value {
    json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    })
}

fn object(fields: &[Field]) -> Value {
    closed(
        fields
            .iter()
            .map(|f| (f.name.to_string(), value(f.shape)))
            .collect(),
        fields
            .iter()
            .filter(|f| f.required)
            .map(|f| f.name.to_string())
            .collect(),
    )
}

fn value(shape: Shape) -> Value {
    match shape {
        Shape::Str => json!({"type": "string"}),
        Shape::Text { max } => json!({"type": "string", "minLength": 1, "maxLength": max}),
        Shape::Pattern(p) => json!({"type": "string", "pattern": p}),
        Shape::OneOf(values) => json!({"type": "string", "enum": values}),
        Shape::Int { min } => json!({"type": "integer", "minimum": min}),
        Shape::Number => json!({"type": "number"}),
        Shape::Bool => json!({"type": "boolean"}),
        Shape::DateTime => json!({
            "type": "string",
            "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$",
        }),
        Shape::List { item, min, max } => {
            let mut s = json!({"type": "array", "items": value(*item), "minItems": min});
            if let Some(max) = max {
                s["maxItems"] = json!(max);
            }
            s
        }
        Shape::Object(fields) => object(fields),
        Shape::Map(v) => json!({"type": "object", "additionalProperties": value(*v)}),
        Shape::Tagged { tag, kinds } => json!({
            "type": "object",
            "required": [tag],
            "properties": {
                tag: {"enum": kinds.iter().map(|(k, _)| *k).collect::<Vec<_>>()},
            },
            "allOf": kinds.iter().map(|(kind, fields)| {
                let mut all: Vec<Field> = vec![req(tag, Shape::OneOf(&[]))];
                all.extend_from_slice(fields);
                let mut then = object(&all);
                then["properties"][tag] = json!({"const": kind});
                json!({
                    "if": {"properties": {tag: {"const": kind}}, "required": [tag]},
                    "then": then,
                })
            }).collect::<Vec<_>>(),
        }),
        Shape::Either(a, b) => json!({"oneOf": [value(*a), value(*b)]}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operations::ALL;

    #[test]
    fn every_operation_declares_its_request_once_in_table_order() {
        let ids: Vec<&str> = DECLARED.iter().map(|r| r.id).collect();
        let table: Vec<&str> = ALL.iter().map(|o| o.id).collect();
        assert_eq!(ids, table);
        for op in ALL {
            let s = request_schema(op);
            assert_eq!(s["properties"]["method"]["const"], op.method.as_str());
        }
    }

    #[test]
    fn path_parameters_come_from_the_row() {
        let s = request_schema(&crate::operations::GET_PACKAGE_TRACKING_DETAILS);
        assert_eq!(
            s["properties"]["path"]["required"],
            json!(["orderId", "shipmentId", "packageId"])
        );
    }
}
