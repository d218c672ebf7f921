//! Cart 2025-04-30: a customer's carts, their items, and cost estimation.

use serde::{Deserialize, Serialize};

use super::client_region;
use crate::answer::Answer;
use crate::client::{Call, Client};
use crate::error::{Error, Result};
use crate::money::Money;
use crate::operation_row::Row;
use crate::paging::{Pager, TokenStyle};
use crate::{model, validate, Timestamp};

super::group_rows! {$
    cart Cart {
        /// One page of the buying user's carts.
        LIST_CARTS = LIST_CARTS => list_carts(ListCartsParams) -> CartsPage, pager iter_carts.cart_details_list;
        /// One cart.
        GET_CART = GET_CART => get_cart(GetCartParams) -> CartDetails;
        /// The items of a cart.
        GET_ITEMS = GET_ITEMS => get_items(GetItemsParams) -> CartItems;
        /// Adds items to a cart (never resent after an ambiguous failure).
        ADD_ITEMS = ADD_ITEMS => add_items(AddItemsParams) -> AddItemsResult;
        /// Sets the quantities of a cart's items (0 removes one).
        MODIFY_ITEMS = MODIFY_ITEMS => modify_items(ModifyItemsParams) -> ItemsResult;
        /// Empties a cart.
        DELETE_ITEMS = DELETE_ITEMS => delete_items(DeleteItemsParams) -> ();
        /// The estimated total cost of a cart's items shipped to an address.
        GET_ESTIMATED_TOTAL_PURCHASE_COST = GET_ESTIMATED_TOTAL_PURCHASE_COST => get_estimated_total_purchase_cost(GetEstimatedTotalPurchaseCostParams) -> CostEstimation;
    }
}

/// The listCarts page size the service uses when none is given.
pub const DEFAULT_PAGE_SIZE: i64 = 5;
/// The largest listCarts page size.
pub const MAX_PAGE_SIZE: i64 = 10;

model! {
    /// A cart attribute (SubTotal, ...).
    pub struct CartAttribute {
        "attributeType" attribute_type: String,
        "amount" amount: Money,
    }
}

model! {
    /// A cart summary.
    pub struct CartDetails {
        "id" id: String,
        "cartType" cart_type: String,
        "region" region: String,
        "attributes" attributes: Vec<Option<CartAttribute>>,
    }
}

model! {
    /// A page of listCarts.
    pub struct CartsPage {
        "cartDetailsList" cart_details_list: Vec<Option<CartDetails>>,
        "nextPageToken" next_page_token: String,
    }
}

crate::api::page!(CartsPage, cart_details_list -> CartDetails);

model! {
    /// An item in a cart, with its current price and availability.
    pub struct CartItem {
        "itemId" item_id: String,
        "productIdentifier" product_identifier: String,
        "buyingOptionIdentifier" buying_option_identifier: String,
        "quantity" quantity: i64,
        "isItemAvailable" is_item_available: bool,
        "price" price: Money,
        "taxExclusivePrice" tax_exclusive_price: Money,
        "addedToCartDate" added_to_cart_date: Timestamp,
        "modifiedDate" modified_date: Timestamp,
    }
}

model! {
    /// Why (part of) an item was not added (UnavailableQuantity, ...).
    pub struct RejectionArtifact {
        "quantity" quantity: i64,
        "rejectionArtifactType" rejection_artifact_type: String,
    }
}

model! {
    /// An item that could not be added or changed.
    pub struct RejectedCartItem {
        "id" id: String,
        "rejectionArtifacts" rejection_artifacts: Vec<Option<RejectionArtifact>>,
    }
}

model! {
    /// The items of a cart (getItems).
    pub struct CartItems {
        "items" items: Vec<Option<CartItem>>,
    }
}

model! {
    /// The whole cart after modifyItems, and what was rejected.
    pub struct ItemsResult {
        "items" items: Vec<Option<CartItem>>,
        "rejectedItems" rejected_items: Vec<Option<RejectedCartItem>>,
    }
}

model! {
    /// The whole cart after addItems, what was rejected, and the externalId sent for each
    /// item. `externalIds` is abws's, not the service's: the published model requires an
    /// externalId on every item, so abws makes one (a UUID) for each item given without,
    /// once per call (every retry of the call sends the same), and returns them here in the
    /// items' order (the caller's own as given).
    pub struct AddItemsResult {
        "items" items: Vec<Option<CartItem>>,
        "rejectedItems" rejected_items: Vec<Option<RejectedCartItem>>,
        "externalIds" external_ids: Vec<String>,
    }
}

model! {
    /// One charge of a cost estimation (PRINCIPAL/TAX × SUBTOTAL/SHIPPING).
    pub struct Charge {
        "type" r#type: String,
        "category" category: String,
        "amount" amount: Money,
    }
}

model! {
    /// Why an estimation was rejected (UnsupportedCartItems, ...).
    pub struct CostRejection {
        "cartItemIdentifiers" cart_item_identifiers: Vec<Option<String>>,
        "message" message: String,
        "rejectionArtifactType" rejection_artifact_type: String,
    }
}

model! {
    /// A cost estimation: charges, or (when rejected) rejection artifacts — a rejection is
    /// a value, not an error.
    pub struct CostEstimation {
        "charges" charges: Vec<Option<Charge>>,
        "rejectionArtifacts" rejection_artifacts: Vec<Option<CostRejection>>,
    }
}

impl CostEstimation {
    /// True when the estimation was rejected.
    pub fn is_rejected(&self) -> bool {
        self.rejection_artifacts
            .as_ref()
            .is_some_and(|r| !r.is_empty())
    }
}

/// An item to add: identifiers from product search, a quantity, and an externalId (made
/// by abws when not given).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct AddItem {
    /// The product (ASIN) from product search.
    #[serde(rename(serialize = "productIdentifier"), alias = "productIdentifier")]
    pub product_identifier: String,
    /// The buying option (offer id) from product search.
    #[serde(
        rename(serialize = "buyingOptionIdentifier"),
        alias = "buyingOptionIdentifier"
    )]
    pub buying_option_identifier: String,
    /// How many to add.
    pub quantity: i64,
    /// The caller's reference for the line (sent as `externalId`, which the service
    /// requires; when `None`, abws sends a UUID of its own, returned in
    /// `AddItemsResult.external_ids`), reported in an `OutcomeUnknown` error.
    #[serde(
        rename(serialize = "externalId"),
        alias = "externalId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub external_id: Option<String>,
}
crate::objects_only!(AddItem);

/// A quantity change: the new absolute quantity (0 removes the item).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct ModifyItem {
    /// The cart item to change (`itemId` from getItems).
    #[serde(rename(serialize = "itemId"), alias = "itemId")]
    pub item_id: String,
    /// The new quantity; 0 removes the item.
    pub quantity: i64,
}
crate::objects_only!(ModifyItem);

/// A struct of optional text fields read by their snake_case names (the wire's camelCase
/// accepted too) and written in camelCase, absent ones left out: `"wireName" field` (a
/// field without a wire name is written as it is named).
macro_rules! optional_text_fields {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident { $( $(#[doc = $fdoc:literal])* $($wire:literal)? $field:ident, )* }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(remote = "Self", deny_unknown_fields, default)]
        pub struct $name {
            $(
                $(#[doc = $fdoc])*
                #[serde($(rename(serialize = $wire), alias = $wire,)? skip_serializing_if = "Option::is_none")]
                pub $field: Option<String>,
            )*
        }
    };
}

optional_text_fields! {
    /// A delivery address for cost estimation. `address_type` is PhysicalAddress; it is sent
    /// even when not given, as the published cart model requires it (docs/decisions/004-request-declarations.md).
    pub struct PhysicalAddress {
        /// `PhysicalAddress` (the only type; sent as that when not given).
        "addressType" address_type,
        /// The recipient's name (required by the estimation).
        "fullName" full_name,
        /// The recipient's phone number.
        "phoneNumber" phone_number,
        /// The company name.
        "companyName" company_name,
        /// The first address line (required by the estimation).
        "addressLine1" address_line1,
        /// The second address line.
        "addressLine2" address_line2,
        /// The city (required by the estimation).
        city,
        /// The state or region (required by the estimation).
        "stateOrRegion" state_or_region,
        /// The postal code (required by the estimation).
        "postalCode" postal_code,
        /// The country code (required by the estimation).
        "countryCode" country_code,
    }
}
crate::objects_only!(PhysicalAddress);

impl PhysicalAddress {
    /// The fields the estimation requires: fullName, addressLine1, city, stateOrRegion,
    /// postalCode, countryCode.
    pub fn check(&self, param: &str) -> Result<()> {
        for (name, v) in [
            ("full_name", &self.full_name),
            ("address_line1", &self.address_line1),
            ("city", &self.city),
            ("state_or_region", &self.state_or_region),
            ("postal_code", &self.postal_code),
            ("country_code", &self.country_code),
        ] {
            match v {
                Some(v) if !v.trim().is_empty() => {}
                _ => return Err(Error::validation(format!("{param}.{name}"), "is required")),
            }
        }
        Ok(())
    }

    /// The address as sent: checked, its type PhysicalAddress (the default) and its country
    /// code upper-cased (`normalize`).
    pub fn normalized(&self, param: &str) -> Result<PhysicalAddress> {
        self.check(param)?;
        let mut a = self.clone();
        a.address_type = Some(crate::normalize::physical_address_type(
            &format!("{param}.address_type"),
            self.address_type.as_deref(),
        )?);
        if let Some(c) = &self.country_code {
            a.country_code = Some(crate::normalize::country_code(
                &format!("{param}.country_code"),
                c,
            )?);
        }
        Ok(a)
    }
}

crate::describe::opaque!(AddItem, ModifyItem, PhysicalAddress);

crate::params! {
    /// The arguments of listCarts.
    pub struct ListCartsParams {
        /// The carts' region (default: the client's).
        opt region: String,
        /// 1 to 10 carts a page (the service's default: 5).
        opt page_size: i64,
        /// Resume from this page token.
        opt page_token: String,
        /// The buying user (x-svc-user-email; default: the client's).
        opt user_email: String,
    }
}

/// The arguments of the operations on one cart.
macro_rules! cart_params {
    ($( $(#[doc = $doc:literal])* $name:ident { $($rest:tt)* } )*) => { $(
        crate::params! {
            $(#[doc = $doc])*
            pub struct $name {
                /// The cart.
                req cart_id: String,
                /// The cart's region (default: the client's).
                opt region: String,
                $($rest)*
            }
        }
    )* };
}

cart_params! {
    /// The arguments of getCart.
    GetCartParams {}
    /// The arguments of getItems.
    GetItemsParams {}
    /// The arguments of addItems.
    AddItemsParams {
        /// The items to add: product_identifier, buying_option_identifier, quantity,
        /// external_id.
        req items: Vec<AddItem>,
    }
    /// The arguments of modifyItems.
    ModifyItemsParams {
        /// The new absolute quantities: item_id, quantity (0 removes the item).
        req items: Vec<ModifyItem>,
    }
    /// The arguments of deleteItems.
    DeleteItemsParams {}
    /// The arguments of getEstimatedTotalPurchaseCost.
    GetEstimatedTotalPurchaseCostParams {
        /// The delivery address.
        req address: PhysicalAddress,
    }
}

/// The cart operations. Get one with `Client::cart`.
pub struct Cart<'a> {
    pub(crate) client: &'a Client,
}

impl Client {
    /// Cart 2025-04-30.
    pub fn cart(&self) -> Cart<'_> {
        Cart { client: self }
    }
}

/// A call of the cart operation `P` on one cart.
fn cart_call<P: Row>(c: &Client, cart_id: &str, region: &Option<String>) -> Result<Call> {
    validate::non_empty("cart_id", cart_id)?;
    let region = client_region(c, region)?;
    Ok(crate::wire!(P { cart_id, region }))
}

fn list_call(c: &Client, p: &ListCartsParams) -> Result<Call> {
    let region = client_region(c, &p.region)?;
    if let Some(n) = p.page_size {
        validate::int_range("page_size", n, 1, MAX_PAGE_SIZE)?;
    }
    let mut call = crate::wire!(ListCartsParams {
        region,
        page_size = p.page_size,
    });
    call.user_email = p.user_email.clone();
    Ok(call)
}

/// listCarts: a page of the user's carts (x-svc-user-email required).
pub(crate) async fn list_carts(c: &Client, p: &ListCartsParams) -> Result<Answer<CartsPage>> {
    let call = crate::wire!(list_call(c, p)? => ListCartsParams { page_token = &p.page_token });
    let resp = c.execute(&call).await?;
    Ok(Answer::new(resp, ListCartsParams::ROW.id))
}

/// Every page of listCarts.
pub(crate) fn iter_carts(c: &Client, p: &ListCartsParams) -> Result<Pager<CartsPage>> {
    Ok(Pager::new(
        c.clone(),
        list_call(c, p)?,
        TokenStyle::WithParams(crate::wire_name!(ListCartsParams, page_token)),
        p.page_token.clone(),
    ))
}

/// getCart: a cart summary with its subtotal.
pub(crate) async fn get_cart(c: &Client, p: &GetCartParams) -> Result<Answer<CartDetails>> {
    let resp = c
        .execute(&cart_call::<GetCartParams>(c, &p.cart_id, &p.region)?)
        .await?;
    Ok(Answer::new(resp, GetCartParams::ROW.id))
}

/// getItems: the items of a cart with current price and availability.
pub(crate) async fn get_items(c: &Client, p: &GetItemsParams) -> Result<Answer<CartItems>> {
    let resp = c
        .execute(&cart_call::<GetItemsParams>(c, &p.cart_id, &p.region)?)
        .await?;
    Ok(Answer::new(resp, GetItemsParams::ROW.id))
}

/// addItems: adds items. Not resent after an ambiguous failure (it could add the
/// quantity twice): that is an `OutcomeUnknown` error; read the cart with getItems and
/// converge with modifyItems.
pub(crate) async fn add_items(c: &Client, p: &AddItemsParams) -> Result<AddItemsResult> {
    let items = &p.items;
    validate::count("items", items.len(), 1, usize::MAX)?;
    for (i, it) in items.iter().enumerate() {
        validate::non_empty(
            &format!("items[{i}].product_identifier"),
            &it.product_identifier,
        )?;
        validate::non_empty(
            &format!("items[{i}].buying_option_identifier"),
            &it.buying_option_identifier,
        )?;
        validate::int_range(
            &format!("items[{i}].quantity"),
            it.quantity,
            1,
            i64::from(i32::MAX),
        )?;
        if let Some(x) = &it.external_id {
            validate::non_empty(&format!("items[{i}].external_id"), x)?;
        }
    }
    // Made here, once per call: every attempt of `execute` sends this same body.
    let items: Vec<AddItem> = items
        .iter()
        .map(|it| AddItem {
            external_id: Some(it.external_id.clone().unwrap_or_else(new_external_id)),
            ..it.clone()
        })
        .collect();
    let ids: Vec<String> = items.iter().filter_map(|i| i.external_id.clone()).collect();
    #[derive(Serialize)]
    struct Body<'a> {
        items: &'a [AddItem],
    }
    let mut call =
        cart_call::<AddItemsParams>(c, &p.cart_id, &p.region)?.json(&Body { items: &items })?;
    call.external_id = Some(ids.join(","));
    call.external_ids = ids.clone();
    let mut result: AddItemsResult = c.execute_json(&call).await?;
    result.external_ids = Some(ids);
    Ok(result)
}

/// A new externalId for an item given without one: a random (version 4) UUID, unique
/// without coordination between calls, threads or processes.
fn new_external_id() -> String {
    let b = (rand::random::<u128>() & !(0xf << 76) & !(0x3 << 62)) | (0x4 << 76) | (0x2 << 62);
    let h = format!("{b:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// modifyItems: sets absolute quantities (0 removes); idempotent, retried safely.
pub(crate) async fn modify_items(c: &Client, p: &ModifyItemsParams) -> Result<Answer<ItemsResult>> {
    let items = &p.items;
    validate::count("items", items.len(), 1, usize::MAX)?;
    for (i, it) in items.iter().enumerate() {
        validate::non_empty(&format!("items[{i}].item_id"), &it.item_id)?;
        validate::int_range(
            &format!("items[{i}].quantity"),
            it.quantity,
            0,
            i64::from(i32::MAX),
        )?;
    }
    #[derive(Serialize)]
    struct Body<'a> {
        items: &'a [ModifyItem],
    }
    let call = cart_call::<ModifyItemsParams>(c, &p.cart_id, &p.region)?.json(&Body { items })?;
    let resp = c.execute(&call).await?;
    Ok(Answer::new(resp, ModifyItemsParams::ROW.id))
}

/// deleteItems: empties the cart (after an order).
pub(crate) async fn delete_items(c: &Client, p: &DeleteItemsParams) -> Result<()> {
    c.execute(&cart_call::<DeleteItemsParams>(c, &p.cart_id, &p.region)?)
        .await?;
    Ok(())
}

/// getEstimatedTotalPurchaseCost: principal, shipping and tax for a delivery address, or
/// the rejection artifacts (a value, not an error).
pub(crate) async fn get_estimated_total_purchase_cost(
    c: &Client,
    p: &GetEstimatedTotalPurchaseCostParams,
) -> Result<Answer<CostEstimation>> {
    let address = p.address.normalized("address")?;
    #[derive(Serialize)]
    struct Body<'a> {
        address: &'a PhysicalAddress,
    }
    let call = cart_call::<GetEstimatedTotalPurchaseCostParams>(c, &p.cart_id, &p.region)?
        .json(&Body { address: &address })?;
    let resp = c.execute(&call).await?;
    Ok(Answer::new(
        resp,
        GetEstimatedTotalPurchaseCostParams::ROW.id,
    ))
}
