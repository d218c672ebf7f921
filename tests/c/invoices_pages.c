/* Lists last month's invoices across pages, three ways: with the pager, by hand with
 * next_page_token, and line items of one invoice with their pager; every invoice of the
 * sandbox's data set appears exactly once, and no page is lost or repeated. */
#include "common.h"

#define MAX_INVOICES 512

static char expected[MAX_INVOICES][32];
static int expected_n = 0;

static void load_expected(void) {
    char *list = strdup(env_required("ABWS_TEST_PREV_INVOICES"));
    for (char *tok = strtok(list, ","); tok && expected_n < MAX_INVOICES; tok = strtok(NULL, ",")) {
        snprintf(expected[expected_n++], sizeof expected[0], "%s", tok);
    }
    free(list);
}

/* Counts, per expected invoice number, how often it appears as an invoiceNumber. */
static void check_listing(const char *label, const char *all_pages) {
    int total = count_of(all_pages, "\"invoiceNumber\":");
    CHECK(total == expected_n, "%s: %d invoices listed, %d expected", label, total, expected_n);
    for (int i = 0; i < expected_n; i++) {
        char needle[64];
        snprintf(needle, sizeof needle, "\"invoiceNumber\":\"%s\"", expected[i]);
        int n = count_of(all_pages, needle);
        CHECK(n == 1, "%s: %s listed %d times", label, expected[i], n);
    }
}

int main(void) {
    load_expected();
    CHECK(expected_n > 10, "the data set has %d invoices last month; need more than a page",
          expected_n);
    abws_client *client = test_client();
    const char *start = env_required("ABWS_TEST_PREV_START");
    const char *end = env_required("ABWS_TEST_PREV_END");
    char params[512];
    fmt(params, sizeof params,
        "{\"invoice_issue_start_date\":\"%s\",\"invoice_issue_end_date\":\"%s\",\"region\":\"JP\"}",
        start, end);

    /* 1. The pager. */
    abws_pager *pager = NULL;
    abws_error *err = NULL;
    abws_status st = abws_invoices_iter_invoices(client, params, &pager, &err);
    CHECK(st == ABWS_STATUS_OK, "iter_invoices: %s", err ? abws_error_message(err) : "");
    buffer all = {0};
    int pages = drain(pager, "abws_pager_next", &all);
    /* After the end, the pager keeps saying "complete". */
    char *after = (char *)"untouched";
    st = abws_pager_next(pager, &after, NULL);
    CHECK(st == ABWS_STATUS_OK && after == NULL, "pager after the end: status %u", (unsigned)st);
    CHECK(abws_pager_free(pager) == ABWS_STATUS_OK, "pager freed");
    CHECK(pages >= 2, "%d pages (10 invoices per page)", pages);
    check_listing("pager", all.data ? (const char *)all.data : "");
    printf("pager: %d pages\n", pages);
    buffer_free(&all);

    /* 2. By hand: getInvoices with next_page_token, same parameters each time. */
    buffer manual = {0};
    char token[256] = "";
    int manual_pages = 0;
    for (;;) {
        char p2[1024];
        if (token[0]) {
            fmt(p2, sizeof p2,
                "{\"invoice_issue_start_date\":\"%s\",\"invoice_issue_end_date\":\"%s\","
                "\"region\":\"JP\",\"next_page_token\":\"%s\"}",
                start, end, token);
        } else {
            fmt(p2, sizeof p2, "%s", params);
        }
        char *page = NULL;
        err = NULL;
        st = abws_invoices_get_invoices(client, p2, &page, &err);
        if (st != ABWS_STATUS_OK) {
            report_error("abws_invoices_get_invoices", st, err);
            CHECK(0, "get_invoices failed on page %d", manual_pages + 1);
            break;
        }
        manual_pages++;
        buffer_append(&manual, page, strlen(page));
        const char *found = json_string_at(page, "nextPageToken", 0, token, sizeof token);
        abws_string_free(page);
        if (found == NULL || token[0] == '\0') break;
        if (manual_pages > 100) {
            CHECK(0, "too many pages");
            break;
        }
    }
    CHECK(manual_pages == pages, "by hand %d pages, pager %d", manual_pages, pages);
    check_listing("next_page_token", manual.data ? (const char *)manual.data : "");
    buffer_free(&manual);

    /* 3. Line items of one invoice, through their pager, and one invoice in full. */
    char p3[256];
    fmt(p3, sizeof p3, "{\"invoice_number\":\"%s\"}", expected[0]);
    pager = NULL;
    err = NULL;
    st = abws_invoices_iter_invoice_line_items(client, p3, &pager, &err);
    CHECK(st == ABWS_STATUS_OK, "iter_invoice_line_items");
    report_error("iter_invoice_line_items", st, st ? err : NULL);
    buffer lines = {0};
    drain(pager, "line items page", &lines);
    int items = lines.data ? count_of((const char *)lines.data, "\"lineItemMetadata\":") : 0;
    buffer_free(&lines);
    abws_pager_free(pager);
    CHECK(items >= 1, "invoice %s has %d line items", expected[0], items);

    char *detail = NULL;
    err = NULL;
    fmt(p3, sizeof p3, "{\"invoice_number\":\"%s\",\"region\":\"JP\"}", expected[0]);
    st = abws_invoices_get_invoice_detail_by_invoice_number(client, p3, &detail, &err);
    CHECK(st == ABWS_STATUS_OK, "get_invoice_detail_by_invoice_number");
    if (st == ABWS_STATUS_OK) {
        char needle[64];
        snprintf(needle, sizeof needle, "\"%s\"", expected[0]);
        CHECK(strstr(detail, needle) != NULL, "the detail names its invoice");
        abws_string_free(detail);
    } else {
        report_error("detail", st, err);
    }

    /* An unknown invoice is a clear API error with status, code and request id. */
    err = NULL;
    char *none = NULL;
    st = abws_invoices_get_invoice_detail_by_invoice_number(
        client, "{\"invoice_number\":\"JPDOESNOTEXIST\",\"region\":\"JP\"}", &none, &err);
    CHECK(st == ABWS_STATUS_API, "unknown invoice: status %u", (unsigned)st);
    CHECK(none == NULL, "no result written on failure");
    CHECK(abws_error_http_status(err) == 404, "HTTP %u", abws_error_http_status(err));
    CHECK(abws_error_request_id(err) && abws_error_request_id(err)[0] != '\0', "request id");
    CHECK(strcmp(abws_error_kind(err), "api") == 0, "kind %s", abws_error_kind(err));
    abws_error_free(err);

    CHECK(abws_client_free(client) == ABWS_STATUS_OK, "client freed");
    return test_summary("invoices_pages");
}
