"""A purchase from end to end: search → cart → estimate → order → order report →
package tracking. Runs against the embedded sandbox (orders there are not real).
"""

import sys
import uuid
from typing import Optional, TypeVar

import abws

T = TypeVar("T")


def need(value: Optional[T], what: str) -> T:
    """A field this flow cannot go on without. Every field of a result may be None (the
    service sends explicit nulls), so typed code says which ones it relies on."""
    if value is None:
        raise SystemExit(f"the service's answer has no {what}")
    return value

ADDRESS = {
    "full_name": "Hanako Yamada",
    "address_line1": "1-2-3 Marunouchi",
    "city": "Chiyoda-ku",
    "state_or_region": "Tokyo",
    "postal_code": "100-0005",
    "country_code": "JP",
}


def main() -> int:
    with abws.Sandbox(rate_limits="off") as sb:
        client = sb.client(region="JP", rate_limiting=False)

        # Search: products with an offer in stock.
        result = client.products.search_products_request(
            "JP", "ja-JP", keywords=["paper"], facets=["OFFERS"], availability="InStockOnly"
        )
        print(f"search: {result.matching_product_count} products match")
        product = offer = None
        for p in filter(None, result.products or []):  # a list may hold a null
            offers = (p.included_data_types.offers if p.included_data_types else None) or []
            if p.asin_type != "VARIATION_PARENT" and offers:
                product, offer = p, offers[0]
                break
        if product is None or offer is None:
            result = client.products.search_products_request("JP", "ja-JP", facets=["OFFERS"])
            product = next(p for p in filter(None, result.products or []) if p.asin_type != "VARIATION_PARENT" and p.included_data_types)
            offer = need(need(need(product.included_data_types, "offers").offers, "offers")[0], "offer")
        print(f"chose {product.asin}: {product.title} at {offer.price.value if offer.price else '?'}")

        # Cart: add, read back, estimate.
        cart_id = need(next(iter(client.cart.iter_carts())).id, "cart id")
        # No external_id given: abws makes one (the service requires it) and returns it.
        added = client.cart.add_items(cart_id, [{"product_identifier": product.asin, "buying_option_identifier": offer.offer_id, "quantity": 2}])
        print(f"added to {cart_id} as line {need(added.external_ids, 'external ids')[0]}")
        items = [it for it in need(client.cart.get_items(cart_id).items, "cart items") if it]
        estimate = client.cart.get_estimated_total_purchase_cost(cart_id, ADDRESS)
        if estimate.rejection_artifacts:
            print("estimate rejected:", [r.message for r in estimate.rejection_artifacts if r])
            return 1
        for c in filter(None, estimate.charges or []):  # a list may hold a null
            print(f"  {c.category} {c.type}: {c.amount}")

        # Order what the cart holds, at the price it shows.
        lines = []
        for n, it in enumerate(items, start=1):
            lines.append({
                "external_id": str(n),
                "quantity": it.quantity,
                "attributes": [
                    {"attributeType": "SelectedProductReference", "productReference": {"id": it.product_identifier, "productReferenceType": "ProductIdentifier"}},
                    {"attributeType": "SelectedBuyingOptionReference", "buyingOptionReference": {"id": it.buying_option_identifier, "buyingOptionReferenceType": "BuyingOptionIdentifier"}},
                ],
                "expectations": [{"expectationType": "ExpectedUnitPrice", "amount": need(it.price, "item price").to_dict()}],
            })
        external_id = f"PO-{uuid.uuid4().hex[:12]}"
        placed = client.ordering.place_order(
            external_id,
            lines,
            attributes=[
                {"attributeType": "Region", "region": "JP"},
                {"attributeType": "PurchaseOrderNumber", "purchaseOrderNumber": "PO-4711"},
                {"attributeType": "SelectedPaymentMethodReference", "paymentMethodReference": {"paymentMethodReferenceType": "StoredPaymentMethod"}},
            ],
        )
        order_id = need(
            next(a.identifier for a in placed.acceptance_artifacts or [] if a and a.acceptance_artifact_type == "OrderIdentifier"),
            "order identifier",
        )
        print(f"order {order_id} placed ({external_id})")
        client.cart.delete_items(cart_id)

        # The order report, then a package of an earlier, shipped order.
        report = client.reporting.get_orders_by_order_id(order_id, include_line_items=True)
        order = need(need(report.orders, "orders")[0], "order")
        print(f"report: {order.order_status or 'placed'}, net {order.order_net_total}")
        from datetime import datetime, timedelta, timezone

        now = datetime.now(timezone.utc)
        sli = next(
            s for s in client.reporting.iter_shipment_line_item_reports(now - timedelta(days=30), now) if s.packages
        )
        pkg = need(need(sli.packages, "packages")[0], "package")
        tracking = client.tracking.get_package_tracking_details(
            need(need(sli.order_metadata, "order metadata").order_id, "order id"),
            need(need(sli.shipment_metadata, "shipment metadata").shipment_id, "shipment id"),
            need(pkg.package_id, "package id"),
            locale="en-US",
        )
        print(f"package {pkg.tracking_id}: {tracking.tracking_status} — {tracking.localized_delivery_promise}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
