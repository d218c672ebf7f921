/* Every operation the other tests do not already call, once, successfully, against the
 * sandbox: the params JSON reaches the core as meant and the result comes back in wire
 * form. Cart changes use the empty cart, which is emptied again at the end. */
#include "common.h"

static abws_client *client;

/* Runs an operation; returns its result (caller frees) or NULL after reporting. */
static char *call(const char *name,
                  abws_status (*fn)(const abws_client *, const char *, char **, abws_error **),
                  const char *params, const char *must_contain) {
    char *out = NULL;
    abws_error *err = NULL;
    abws_status st = fn(client, params, &out, &err);
    CHECK(st == ABWS_STATUS_OK, "%s(%s): %s", name, params, err ? abws_error_message(err) : "");
    abws_error_free(err);
    if (out && must_contain) {
        CHECK(strstr(out, must_contain) != NULL, "%s: no %s in %.300s", name, must_contain, out);
    }
    return out;
}

/* Runs an operation that must succeed, and frees its result. */
static void run(const char *name,
                abws_status (*fn)(const abws_client *, const char *, char **, abws_error **),
                const char *params, const char *must_contain) {
    abws_string_free(call(name, fn, params, must_contain));
}

/* Runs an operation that must succeed and copies ids out of its result: after the first
 * `from` (the whole result when NULL), the first text value of each key into its buffer,
 * given as (key, buffer, size) triples ending with NULL; "" where there is none. */
static void take_ids(const char *name,
                     abws_status (*fn)(const abws_client *, const char *, char **, abws_error **),
                     const char *params, const char *must_contain, const char *from, ...) {
    char *r = call(name, fn, params, must_contain);
    const char *at = r && from ? strstr(r, from) : r;
    va_list ap;
    va_start(ap, from);
    for (const char *key; (key = va_arg(ap, const char *)) != NULL;) {
        char *out = va_arg(ap, char *);
        size_t cap = va_arg(ap, size_t);
        out[0] = '\0';
        if (at) json_string_at(at, key, 0, out, cap);
    }
    va_end(ap);
    abws_string_free(r);
}

/* Walks a pager to its end; returns the number of pages. */
static int walk(const char *name,
                abws_status (*fn)(const abws_client *, const char *, abws_pager **, abws_error **),
                const char *params, const char *must_contain) {
    abws_pager *pager = NULL;
    abws_error *err = NULL;
    abws_status st = fn(client, params, &pager, &err);
    CHECK(st == ABWS_STATUS_OK, "%s: %s", name, err ? abws_error_message(err) : "");
    abws_error_free(err);
    int pages = 0;
    while (st == ABWS_STATUS_OK && pages < 50) {
        char *page = NULL;
        err = NULL;
        st = abws_pager_next(pager, &page, &err);
        CHECK(st == ABWS_STATUS_OK, "%s page %d: %s", name, pages + 1,
              err ? abws_error_message(err) : "");
        abws_error_free(err);
        if (page == NULL) break;
        if (pages == 0 && must_contain) {
            CHECK(strstr(page, must_contain) != NULL, "%s: no %s", name, must_contain);
        }
        pages++;
        abws_string_free(page);
    }
    abws_pager_free(pager);
    CHECK(pages >= 1, "%s: %d pages", name, pages);
    return pages;
}

int main(void) {
    client = test_client();
    const char *start = env_required("ABWS_TEST_PREV_START");
    const char *end = env_required("ABWS_TEST_PREV_END");
    char p[2048];
    char *r;

    /* Invoices: one page of line items by hand. */
    char invoice[32];
    snprintf(invoice, sizeof invoice, "%.*s", (int)strcspn(env_required("ABWS_TEST_PREV_INVOICES"), ","),
             env_required("ABWS_TEST_PREV_INVOICES"));
    fmt(p, sizeof p, "{\"invoice_number\":\"%s\",\"region\":\"JP\"}", invoice);
    run("get_invoice_line_items_by_invoice_number",
        abws_invoices_get_invoice_line_items_by_invoice_number, p, "\"lineItems\":[");

    /* Reconciliation: transactions pager, invoice details of a line item, the batch helper. */
    fmt(p, sizeof p, "{\"feed_start_date\":\"%s\",\"feed_end_date\":\"%s\"}", start, end);
    walk("iter_transactions", abws_reconciliation_iter_transactions, p, "\"transactions\":[");
    const char *charge = "\"transactionType\":\"CHARGE\"";
    char order[64], line[64], shipment[64];
    take_ids("get_transactions", abws_reconciliation_get_transactions, p, charge, charge,
             "orderId", order, sizeof order, "orderLineItemId", line, sizeof line,
             "shipmentId", shipment, sizeof shipment, (char *)NULL);
    fmt(p, sizeof p,
        "{\"order_line_items\":[{\"order_id\":\"%s\",\"order_line_item_id\":\"%s\",\"shipment_id\":\"%s\"}]}",
        order, line, shipment);
    run("get_invoice_details_by_order_line_items",
        abws_reconciliation_get_invoice_details_by_order_line_items, p, "\"invoiceDetailsByOrderLineItems\":[");
    fmt(p, sizeof p,
        "{\"line_items\":[{\"orderId\":\"%s\",\"orderLineItemId\":\"%s\",\"shipmentId\":\"%s\"},"
        "{\"order_id\":\"%s\",\"order_line_item_id\":\"%s\",\"shipment_id\":\"%s\"}]}",
        order, line, shipment, order, line, shipment);
    r = call("invoice_details_for", abws_reconciliation_invoice_details_for, p, "\"invoiceDetails\":[");
    if (r) CHECK(count_of(r, "\"orderLineItem\":") == 2, "one answer per input: %.200s", r);
    abws_string_free(r);

    /* Documents: report status and document address by id. */
    fmt(p, sizeof p,
        "{\"report_options\":{\"order_id\":\"%s\",\"order_line_item_id\":\"%s\"},"
        "\"marketplace_ids\":[\"JP\"]}",
        order, line);
    char report[64];
    take_ids("create_report", abws_documents_create_report, p, "\"reportId\":\"", NULL,
             "reportId", report, sizeof report, (char *)NULL);
    fmt(p, sizeof p, "{\"report_id\":\"%s\"}", report);
    run("get_report", abws_documents_get_report, p, "\"processingStatus\":\"");
    fmt(p, sizeof p, "{\"report_id\":\"%s\",\"poll_interval\":0.2,\"timeout\":120}", report);
    char document[128];
    take_ids("wait_for_report", abws_documents_wait_for_report, p, "\"reportDocumentId\":\"", NULL,
             "reportDocumentId", document, sizeof document, (char *)NULL);
    fmt(p, sizeof p, "{\"report_document_id\":\"%s\"}", document);
    run("get_report_document", abws_documents_get_report_document, p, "\"url\":\"http");

    /* Reporting: shipment line items (page and pager); the order's shipments and packages. */
    fmt(p, sizeof p, "{\"order_start_date\":\"%s\",\"order_end_date\":\"%s\",\"region\":\"JP\"}", start, end);
    run("get_shipment_line_item_reports", abws_reporting_get_shipment_line_item_reports, p, "\"packages\"");
    walk("iter_shipment_line_item_reports", abws_reporting_iter_shipment_line_item_reports, p, "\"packages\"");
    fmt(p, sizeof p, "{\"order_id\":\"%s\",\"include_shipments\":true,\"include_charges\":true}", order);
    char ship[64], package[64];
    take_ids("get_orders_by_order_id", abws_reporting_get_orders_by_order_id, p, "\"shipments\":[", NULL,
             "shipmentId", ship, sizeof ship, "packageId", package, sizeof package, (char *)NULL);

    /* Tracking. */
    fmt(p, sizeof p,
        "{\"order_id\":\"%s\",\"shipment_id\":\"%s\",\"package_id\":\"%s\",\"region\":\"JP\"}",
        order, ship, package);
    run("get_package_tracking_details", abws_tracking_get_package_tracking_details, p, "\"packageTrackingEvents\":[");

    /* Products. */
    const char *ctx = "\"product_region\":\"JP\",\"locale\":\"ja-JP\"";
    fmt(p, sizeof p, "{%s,\"keywords\":[\"cable\"],\"facets\":[\"OFFERS\"],\"page_size\":2}", ctx);
    char asin[32], offer[128];
    take_ids("search_products_request", abws_products_search_products_request, p, "\"asin\":\"", NULL,
             "asin", asin, sizeof asin, "offerId", offer, sizeof offer, (char *)NULL);
    walk("iter_search_products", abws_products_iter_search_products, p, "\"products\":[");
    fmt(p, sizeof p, "{%s,\"product_id\":\"%s\"}", ctx, asin);
    run("products_request", abws_products_products_request, p, asin);
    run("search_offers_request", abws_products_search_offers_request, p, "\"offers\":[");
    walk("iter_search_offers", abws_products_iter_search_offers, p, "\"offers\":[");
    fmt(p, sizeof p, "{%s,\"product_ids\":[\"%s\"]}", ctx, asin);
    run("get_products_by_asins", abws_products_get_products_by_asins, p, "\"products\":[");
    fmt(p, sizeof p, "{%s,\"offer_ids\":[\"%s\"],\"inclusions_for_offers\":[\"ALL\"]}", ctx, offer);
    run("get_offers_by_offer_ids", abws_products_get_offers_by_offer_ids, p, "\"offers\":[");

    /* Cart: list, read, add, modify, estimate, empty (on the empty cart-0006). */
    run("list_carts", abws_cart_list_carts, "{\"page_size\":2}", "cart-0001");
    walk("iter_carts", abws_cart_iter_carts, "{\"page_size\":2}", "\"cartDetailsList\":[");
    run("get_cart", abws_cart_get_cart, "{\"cart_id\":\"cart-0001\"}", "cart-0001");
    fmt(p, sizeof p,
        "{\"cart_id\":\"cart-0006\",\"items\":[{\"product_identifier\":\"%s\","
        "\"buying_option_identifier\":\"%s\",\"quantity\":1,\"external_id\":\"c-add-1\"}]}",
        asin, offer);
    run("add_items", abws_cart_add_items, p, "\"externalIds\":[\"c-add-1\"]");
    /* Without an external_id: the service requires one, abws makes it (a UUID) and returns
     * it with the result. */
    fmt(p, sizeof p,
        "{\"cart_id\":\"cart-0006\",\"items\":[{\"product_identifier\":\"%s\","
        "\"buying_option_identifier\":\"%s\",\"quantity\":1}]}",
        asin, offer);
    r = call("add_items without external_id", abws_cart_add_items, p, "\"externalIds\":[\"");
    const char *made = r ? strstr(r, "\"externalIds\":[\"") : NULL;
    if (made) {
        made += strlen("\"externalIds\":[\"");
        CHECK(strcspn(made, "\"") == 36 && made[8] == '-' && made[36] == '"', "a UUID: %.40s", made);
    }
    abws_string_free(r);
    /* getOrdersByOrderId declares no x-svc-user-email: it takes no user_email. */
    fmt(p, sizeof p, "{\"order_id\":\"%s\",\"user_email\":\"buyer@sandbox-business.example\"}", order);
    {
        char *out = NULL;
        abws_error *err = NULL;
        abws_status st = abws_reporting_get_orders_by_order_id(client, p, &out, &err);
        CHECK(st == ABWS_STATUS_VALIDATION && out == NULL, "user_email refused: %d", (int)st);
        abws_string_free(out);
        abws_error_free(err);
    }
    char item[128];
    take_ids("get_items", abws_cart_get_items, "{\"cart_id\":\"cart-0006\"}", "\"itemId\":\"", NULL,
             "itemId", item, sizeof item, (char *)NULL);
    fmt(p, sizeof p, "{\"cart_id\":\"cart-0006\",\"items\":[{\"item_id\":\"%s\",\"quantity\":2}]}", item);
    run("modify_items", abws_cart_modify_items, p, "\"items\":[");
    run("get_estimated_total_purchase_cost", abws_cart_get_estimated_total_purchase_cost,
        "{\"cart_id\":\"cart-0006\",\"address\":{\"full_name\":\"Hanako Sato\","
        "\"address_line1\":\"1-2-3 Marunouchi\",\"city\":\"Chiyoda\",\"state_or_region\":\"Tokyo\","
        "\"postal_code\":\"100-0005\",\"country_code\":\"JP\"}}",
        "\"charges\":[");
    run("delete_items", abws_cart_delete_items, "{\"cart_id\":\"cart-0006\"}", "null");
    run("get_items after delete", abws_cart_get_items, "{\"cart_id\":\"cart-0006\"}", "\"items\":[]");

    abws_client_free(client);
    return test_summary("operations");
}
