/* Download an invoice PDF into memory, the way an ERP plugin files it: find a shipped
 * order line of a date range, ask for its invoice document, and receive the bytes
 * through a write callback. Nothing touches the disk unless the plugin writes it.
 *
 *   cc download_invoice.c $(pkg-config --cflags --libs abws) -o download_invoice
 *   ABWS_SETTINGS='{"region":"JP",...}' ./download_invoice 2026-10-01 2026-10-31
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abws.h"

/* A growing in-memory buffer that the library writes into. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
} buffer;

static int write_to_buffer(void *userdata, const uint8_t *data, size_t len) {
    buffer *b = userdata;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64 * 1024;
        while (cap < b->len + len) cap *= 2;
        unsigned char *grown = realloc(b->data, cap);
        if (grown == NULL) return 1; /* non-zero stops the download */
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

/* Copies the string value of the first `"key":"` in `json` into out. */
static int find_string(const char *json, const char *key, char *out, size_t cap) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *p = strstr(json, pattern);
    if (p == NULL) return 0;
    p += strlen(pattern);
    size_t n = strcspn(p, "\"");
    if (n + 1 > cap) return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

static int fail(const char *what, abws_status status, abws_error *err) {
    fprintf(stderr, "%s failed (%s): %s [request id %s]\n", what, abws_status_name(status),
            err ? abws_error_message(err) : "", err && abws_error_request_id(err) ? abws_error_request_id(err) : "-");
    abws_error_free(err);
    return 1;
}

int main(int argc, char **argv) {
    const char *settings = getenv("ABWS_SETTINGS");
    if (settings == NULL || argc < 3) {
        fprintf(stderr, "usage: ABWS_SETTINGS='{...}' %s START_DATE END_DATE\n", argv[0]);
        return 2;
    }
    abws_client *client = NULL;
    abws_error *err = NULL;
    abws_status st = abws_client_new(settings, &client, &err);
    if (st != ABWS_STATUS_OK) return fail("abws_client_new", st, err);

    /* 1. A shipped line: the first CHARGE transaction's first line item. */
    char params[512];
    snprintf(params, sizeof params, "{\"feed_start_date\":\"%sT00:00:00Z\",\"feed_end_date\":\"%sT23:59:59Z\"}",
             argv[1], argv[2]);
    char *page = NULL;
    st = abws_reconciliation_get_transactions(client, params, &page, &err);
    if (st != ABWS_STATUS_OK) {
        abws_client_free(client);
        return fail("abws_reconciliation_get_transactions", st, err);
    }
    char order_id[128], line_id[128], invoice[128];
    const char *charge = strstr(page, "\"transactionType\":\"CHARGE\"");
    const char *from = charge ? charge : page;
    int found = find_string(from, "orderId", order_id, sizeof order_id) &&
                find_string(from, "orderLineItemId", line_id, sizeof line_id);
    if (!find_string(from, "invoiceNumber", invoice, sizeof invoice)) strcpy(invoice, "?");
    abws_string_free(page);
    if (!found) {
        fprintf(stderr, "no transaction in that range\n");
        abws_client_free(client);
        return 1;
    }

    /* 2. create report → wait → download, streamed into memory. */
    snprintf(params, sizeof params,
             "{\"report_options\":{\"order_id\":\"%s\",\"order_line_item_id\":\"%s\",\"document_type\":\"Invoice\"},"
             "\"poll_interval\":0.2,\"timeout\":120}",
             order_id, line_id);
    buffer pdf = {0};
    uint64_t written = 0;
    st = abws_documents_fetch_pdf(client, params, write_to_buffer, &pdf, &written, &err);
    if (st != ABWS_STATUS_OK) {
        free(pdf.data);
        abws_client_free(client);
        return fail("abws_documents_fetch_pdf", st, err);
    }
    int is_pdf = pdf.len > 5 && memcmp(pdf.data, "%PDF-", 5) == 0;
    printf("invoice %s of order %s: %llu bytes in memory, %s\n", invoice, order_id,
           (unsigned long long)written, is_pdf ? "a PDF" : "NOT a PDF");
    free(pdf.data);
    abws_client_free(client);
    return is_pdf ? 0 : 1;
}
