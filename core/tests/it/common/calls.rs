//! The calls the tests send most, each written once: the same request a test would write
//! out (region JP, the parameters named), so a test reads as what it checks.

use abws::api::cart::{
    AddItem, AddItemsParams, CartItem, CartItems, DeleteItemsParams, GetItemsParams,
    ListCartsParams, ModifyItem, ModifyItemsParams, PhysicalAddress,
};
use abws::api::invoices::{GetInvoiceDetailByInvoiceNumberParams, InvoiceDetail};
use abws::blocking::Client;
use abws_sandbox::Sandbox;

/// The first invoice number of the sandbox's previous month.
pub fn first_invoice(sb: &Sandbox) -> String {
    super::previous_month_invoices(sb)[0].clone()
}

/// getInvoiceDetailByInvoiceNumber of `number` in JP.
pub fn invoice_detail(client: &Client, number: &str) -> abws::Result<InvoiceDetail> {
    client
        .invoices()
        .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: number.to_string(),
            region: Some("JP".into()),
        })
}

/// listCarts in JP, first page.
pub fn jp_carts(client: &Client) -> abws::Result<abws::api::cart::CartsPage> {
    client.cart().list_carts(&ListCartsParams {
        region: Some("JP".into()),
        page_size: None,
        page_token: None,
        ..Default::default()
    })
}

/// getItems of a JP cart.
pub fn cart_items(client: &Client, cart: &str) -> abws::Result<CartItems> {
    client.cart().get_items(&GetItemsParams {
        cart_id: cart.to_string(),
        region: Some("JP".into()),
    })
}

/// modifyItems of a JP cart: sets one item's quantity (0 removes it).
pub fn set_quantity(
    client: &Client,
    cart: &str,
    item_id: &str,
    quantity: i64,
) -> abws::Result<abws::api::cart::ItemsResult> {
    client.cart().modify_items(&ModifyItemsParams {
        cart_id: cart.to_string(),
        region: Some("JP".into()),
        items: vec![ModifyItem {
            item_id: item_id.to_string(),
            quantity,
        }],
    })
}

/// deleteItems of a JP cart: empties it.
pub fn empty_cart(client: &Client, cart: &str) -> abws::Result<()> {
    client.cart().delete_items(&DeleteItemsParams {
        cart_id: cart.to_string(),
        region: Some("JP".into()),
    })
}

/// The invoice numbers of a whole listing (iter_invoices), in order.
pub fn listed_invoice_numbers(
    client: &Client,
    p: &abws::api::invoices::GetInvoicesParams,
) -> Vec<String> {
    client
        .invoices()
        .iter_invoices(p)
        .unwrap()
        .items()
        .map(|r| r.unwrap().invoice_metadata.unwrap().invoice_number.unwrap())
        .collect()
}

/// addItems of `quantity` of one offer (`asin`, `offer`) to a cart of `region`.
pub fn add_offer(
    client: &Client,
    cart: &str,
    region: &str,
    (asin, offer): (&str, &str),
    quantity: i64,
    external_id: Option<&str>,
) -> abws::Result<abws::api::cart::AddItemsResult> {
    client.cart().add_items(&AddItemsParams {
        cart_id: cart.to_string(),
        region: Some(region.into()),
        items: vec![AddItem {
            product_identifier: asin.to_string(),
            buying_option_identifier: offer.to_string(),
            quantity,
            external_id: external_id.map(String::from),
        }],
    })
}

/// The line of `offer` among a cart's items (an answer's `items`).
pub fn cart_line(items: Option<Vec<Option<CartItem>>>, offer: &str) -> CartItem {
    items
        .expect("the cart's items")
        .into_iter()
        .flatten()
        .find(|i| i.buying_option_identifier.as_deref() == Some(offer))
        .expect("a line of the offer")
}

/// A postal address of the lines [full name, line 1, city, state or region, postal code,
/// country code].
pub fn address(lines: [&str; 6]) -> PhysicalAddress {
    let [full_name, address_line1, city, state_or_region, postal_code, country_code] =
        lines.map(|l| Some(l.to_string()));
    PhysicalAddress {
        full_name,
        address_line1,
        city,
        state_or_region,
        postal_code,
        country_code,
        ..Default::default()
    }
}
