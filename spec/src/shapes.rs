//! Shapes several operations declare: regions, locales, money, addresses and the ordering
//! attributes and expectations.

use crate::{opt, req, Field, Shape};

/// A region code (the specification's Region and ProductRegion enums are two-letter codes).
pub(crate) const REGION: Shape = Shape::Pattern("^[A-Z]{2}$");
/// The integers of a query parameter.
pub(crate) const QINT: Shape = Shape::Pattern("^-?[0-9]+$");
/// getOffersByOfferIds' productRegion, as the service's request model lists it.
pub(crate) const PRODUCT_REGION: Shape = Shape::OneOf(&[
    "DE", "FR", "UK", "IT", "ES", "IN", "US", "CA", "MX", "JP", "AU",
]);
/// A locale "complying with java.util.Locale" (the service's request models).
pub(crate) const LOCALE: Shape = Shape::Pattern("^[a-zA-Z_-]+$");
pub(crate) const STRINGS: Shape = Shape::List {
    item: &Shape::Str,
    min: 0,
    max: None,
};

/// Money on the request wire: the amount a JSON number (the service's request models).
pub(crate) const MONEY: Shape = Shape::Object(&[
    req("amount", Shape::Number),
    req("currencyCode", Shape::Str),
]);

/// The cart model's PhysicalAddress (`addressType` required, `PhysicalAddress`, as the
/// service's cart model declares: docs/decisions/004-request-declarations.md).
pub(crate) const PHYSICAL_ADDRESS: &[Field] = &[
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
pub(crate) const ORDER_ADDRESS: Shape = Shape::Either(
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
pub(crate) const ATTRIBUTE: Shape = Shape::Tagged {
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
pub(crate) const SEGMENTS: Shape = Shape::List {
    item: &Shape::Object(&[
        opt("description", Shape::Str),
        opt("id", Shape::Str),
        opt("type", Shape::Str),
    ]),
    min: 0,
    max: None,
};

/// The ordering expectation kinds (the specification's "Ordering resources").
pub(crate) const EXPECTATION: Shape = Shape::Tagged {
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

pub(crate) const ATTRIBUTES: Shape = Shape::List {
    item: &ATTRIBUTE,
    min: 0,
    max: None,
};
pub(crate) const EXPECTATIONS: Shape = Shape::List {
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

/// The body of the two look-ups by id (getProductsByAsins, getOffersByOfferIds): the ids,
/// then the product search context (productRegion as the service's request model lists it).
macro_rules! lookup_body {
    ($ids:expr, $($rest:expr),* $(,)?) => {
        Some(&[
            $ids,
            req("productRegion", PRODUCT_REGION),
            req("locale", LOCALE),
            opt("shippingRegion", REGION),
            opt("shippingPostalCode", Shape::Str),
            $($rest),*
        ])
    };
}

/// The product search context of an example argument object, after its own keys.
macro_rules! product_example {
    ($own:literal) => {
        concat!(
            "{",
            $own,
            r#", "product_region": "jp", "locale": "ja_JP", "shipping_region": "JP",
            "shipping_postal_code": "153-0064", "group_tag": "grp-1"}"#
        )
    };
}

/// The cart operations' query (region required on every cart operation).
pub(crate) const CART_QUERY: &[Field] = &[req("region", REGION)];
