/* Downloads an invoice PDF through the write callback into memory (nothing touches
 * disk): transactions → order line item → createReport → wait → download. Also: a
 * callback that stops the download, the one-call fetch_pdf, a FATAL report and an
 * error document inside the archive, each with its own status; and into a file, which is
 * encrypted unless the plain PDF is asked for. */
#include "common.h"

#include <dirent.h>
#include <unistd.h>

static const char *specials;

static int is_special(const char *order_id) {
    char needle[64];
    snprintf(needle, sizeof needle, "%s", order_id);
    return strstr(specials, needle) != NULL;
}

/* The write callback: appends to the buffer passed as userdata. */
static int collect(void *userdata, const uint8_t *data, size_t len) {
    return buffer_append((buffer *)userdata, data, len) == 0 ? 0 : 1;
}

/* Stops after the first chunk. */
static int stop_early(void *userdata, const uint8_t *data, size_t len) {
    (void)data;
    *(size_t *)userdata += len;
    return 42;
}

/* Counts the chunks and their bytes. */
typedef struct {
    int calls;
    size_t bytes;
    size_t first;
} chunks;

static int count_chunks(void *userdata, const uint8_t *data, size_t len) {
    (void)data;
    chunks *c = userdata;
    if (c->calls++ == 0) c->first = len;
    c->bytes += len;
    return 0;
}

/* Calls the library from inside the callback: refused with RUNTIME and a message that
 * names the mistake; the download itself goes on. */
static abws_client *nested_client;
static abws_status nested_status;
static char nested_message[512];

static int call_inside(void *userdata, const uint8_t *data, size_t len) {
    (void)userdata;
    (void)data;
    (void)len;
    if (nested_message[0] != '\0') return 0;
    char *out = NULL;
    abws_error *err = NULL;
    nested_status = abws_invoices_get_invoice_detail_by_invoice_number(
        nested_client, "{\"invoice_number\":\"NOPE\"}", &out, &err);
    snprintf(nested_message, sizeof nested_message, "%s", err ? abws_error_message(err) : "(none)");
    abws_error_free(err);
    abws_string_free(out);
    return 0;
}

static int looks_like_pdf(const buffer *b) {
    return b->len > 100 && memcmp(b->data, "%PDF-", 5) == 0 &&
           strstr((const char *)b->data + b->len - 32, "%%EOF") != NULL;
}

/* The first line item of an order (getOrdersByOrderId). */
static int first_line_item(abws_client *client, const char *order_id, char *out, size_t cap) {
    char params[256];
    char *json = NULL;
    abws_error *err = NULL;
    fmt(params, sizeof params, "{\"order_id\":\"%s\",\"include_line_items\":true}", order_id);
    abws_status st = abws_reporting_get_orders_by_order_id(client, params, &json, &err);
    if (st != ABWS_STATUS_OK) return report_error("get_orders_by_order_id", st, err);
    const char *found = json_string_at(json, "orderLineItemId", 0, out, cap);
    abws_string_free(json);
    return found ? 0 : -1;
}

/* createReport + wait_for_report; returns the final status and the document id. */
static abws_status make_report(abws_client *client, const char *order_id, const char *line_item,
                               char *document_id, size_t cap, abws_error **err) {
    char params[512];
    char *json = NULL;
    fmt(params, sizeof params,
        "{\"report_options\":{\"order_id\":\"%s\",\"order_line_item_id\":\"%s\","
        "\"document_type\":\"Invoice\"}}",
        order_id, line_item);
    abws_status st = abws_documents_create_report(client, params, &json, err);
    if (st != ABWS_STATUS_OK) return st;
    char report_id[128] = "";
    json_string_at(json, "reportId", 0, report_id, sizeof report_id);
    abws_string_free(json);
    CHECK(report_id[0] != '\0', "createReport gave a reportId");
    fmt(params, sizeof params,
        "{\"report_id\":\"%s\",\"poll_interval\":0.2,\"timeout\":120}", report_id);
    json = NULL;
    st = abws_documents_wait_for_report(client, params, &json, err);
    if (st != ABWS_STATUS_OK) return st;
    CHECK(strstr(json, "\"processingStatus\":\"DONE\"") != NULL, "report DONE: %s", json);
    json_string_at(json, "reportDocumentId", 0, document_id, cap);
    abws_string_free(json);
    return ABWS_STATUS_OK;
}

int main(void) {
    specials = env_required("ABWS_TEST_SPECIAL_ORDERS");
    abws_client *client = test_client();

    /* An ordinary order line item from last month's transactions. */
    char params[1024];
    fmt(params, sizeof params, "{\"feed_start_date\":\"%s\",\"feed_end_date\":\"%s\"}",
        env_required("ABWS_TEST_PREV_START"), env_required("ABWS_TEST_PREV_END"));
    char *tx = NULL;
    abws_error *err = NULL;
    abws_status st = abws_reconciliation_get_transactions(client, params, &tx, &err);
    if (st != ABWS_STATUS_OK) {
        report_error("get_transactions", st, err);
        return 1;
    }
    char order_id[64] = "", line_item[64] = "", shipment[64] = "";
    for (int i = 0; i < 50; i++) {
        const char *at = strstr(tx, "\"transactionType\":\"CHARGE\"");
        for (int k = 0; at && k < i; k++) at = strstr(at + 1, "\"transactionType\":\"CHARGE\"");
        if (at == NULL) break;
        json_string_at(at, "orderId", 0, order_id, sizeof order_id);
        json_string_at(at, "orderLineItemId", 0, line_item, sizeof line_item);
        json_string_at(at, "shipmentId", 0, shipment, sizeof shipment);
        if (!is_special(order_id)) break;
    }
    abws_string_free(tx);
    CHECK(order_id[0] && line_item[0], "a charged order line item last month");

    /* Report → document id → download into memory through the callback. */
    char document_id[256] = "";
    err = NULL;
    st = make_report(client, order_id, line_item, document_id, sizeof document_id, &err);
    CHECK(st == ABWS_STATUS_OK, "report for %s/%s", order_id, line_item);
    report_error("report", st, err);
    CHECK(document_id[0] != '\0', "a reportDocumentId");

    buffer pdf = {0};
    uint64_t written = 0;
    err = NULL;
    fmt(params, sizeof params, "{\"report_document_id\":\"%s\"}", document_id);
    st = abws_documents_download(client, params, collect, &pdf, &written, &err);
    CHECK(st == ABWS_STATUS_OK, "download");
    report_error("download", st, err);
    CHECK(looks_like_pdf(&pdf), "a PDF of %zu bytes", pdf.len);
    CHECK(written == pdf.len, "bytes_written %llu, received %zu", (unsigned long long)written,
          pdf.len);
    printf("downloaded %zu bytes for order %s\n", pdf.len, order_id);
    buffer_free(&pdf);

    /* How the download is chunked (fetch_pdf below must stream the same way). */
    chunks streamed = {0, 0, 0};
    st = abws_documents_download(client, params, count_chunks, &streamed, NULL, NULL);
    CHECK(st == ABWS_STATUS_OK && streamed.calls > 1, "download in %d chunks", streamed.calls);

    /* A library call from inside the write callback: RUNTIME, saying what was wrong. */
    nested_client = client;
    st = abws_documents_download(client, params, call_inside, NULL, NULL, NULL);
    CHECK(st == ABWS_STATUS_OK, "the download around the nested call: %u", (unsigned)st);
    CHECK(nested_status == ABWS_STATUS_RUNTIME, "nested call: status %u", (unsigned)nested_status);
    CHECK(strstr(nested_message, "inside a callback of the library") != NULL &&
              strstr(nested_message, "tokio") == NULL,
          "nested call message: %s", nested_message);

    /* bytes_written is optional. */
    st = abws_documents_download(client, params, collect, &pdf, NULL, NULL);
    CHECK(st == ABWS_STATUS_OK && looks_like_pdf(&pdf), "download without bytes_written");
    buffer_free(&pdf);

    /* Into a file: encrypted under a key, the plain PDF only on the explicit opt-in,
     * nothing at all without either. */
    {
        static const char *key = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
        char dir[] = "/tmp/abws-c-file-XXXXXX";
        CHECK(mkdtemp(dir) != NULL, "a temporary directory");
        char sealed[256], plain[256], head[8];
        snprintf(sealed, sizeof sealed, "%s/invoice.pdf.abws", dir);
        snprintf(plain, sizeof plain, "%s/invoice.pdf", dir);
        unsetenv("ABWS_DOCUMENT_KEY");
        err = NULL;
        fmt(params, sizeof params, "{\"report_document_id\":\"%s\",\"path\":\"%s\"}",
            document_id, sealed);
        st = abws_documents_download_to_file(client, params, &written, &err);
        CHECK(st == ABWS_STATUS_VALIDATION, "no key and no opt-in: status %u", (unsigned)st);
        CHECK(err && abws_error_parameter(err) && strcmp(abws_error_parameter(err), "key") == 0,
              "the error names key");
        abws_error_free(err);
        CHECK(access(sealed, F_OK) != 0, "no file without a key");
        fmt(params, sizeof params,
            "{\"report_document_id\":\"%s\",\"path\":\"%s\",\"key\":\"%s\"}", document_id,
            sealed, key);
        err = NULL;
        written = 0;
        st = abws_documents_download_to_file(client, params, &written, &err);
        CHECK(st == ABWS_STATUS_OK && written > 100, "download_to_file with a key");
        report_error("download_to_file", st, err);
        FILE *f = fopen(sealed, "rb");
        CHECK(f != NULL && fread(head, 1, 8, f) == 8 && memcmp(head, "ABWSENC1", 8) == 0,
              "the file is sealed");
        if (f) fclose(f);
        fmt(params, sizeof params,
            "{\"report_document_id\":\"%s\",\"path\":\"%s\",\"allow_plaintext\":true}",
            document_id, plain);
        err = NULL;
        uint64_t plain_size = 0;
        st = abws_documents_download_to_file(client, params, &plain_size, &err);
        CHECK(st == ABWS_STATUS_OK && plain_size == written, "download_to_file in clear");
        report_error("download_to_file in clear", st, err);
        f = fopen(plain, "rb");
        CHECK(f != NULL && fread(head, 1, 5, f) == 5 && memcmp(head, "%PDF-", 5) == 0,
              "the plain file is a PDF");
        if (f) fclose(f);
        remove(sealed);
        remove(plain);
        rmdir(dir);
        fmt(params, sizeof params, "{\"report_document_id\":\"%s\"}", document_id);
    }

    /* A callback that says stop: CALLBACK_ABORTED, bytes_written not written. */
    size_t seen = 0;
    uint64_t untouched = 777;
    err = NULL;
    st = abws_documents_download(client, params, stop_early, &seen, &untouched, &err);
    CHECK(st == ABWS_STATUS_CALLBACK_ABORTED, "stopped download: status %u", (unsigned)st);
    CHECK(untouched == 777, "bytes_written untouched on failure");
    CHECK(seen > 0, "the callback saw the first chunk");
    CHECK(err && strstr(abws_error_message(err), "42") != NULL, "the message gives the code");
    abws_error_free(err);

    /* create → wait → download in one call. */
    err = NULL;
    fmt(params, sizeof params,
        "{\"report_options\":{\"order_id\":\"%s\",\"order_line_item_id\":\"%s\","
        "\"shipment_id\":\"%s\",\"document_type\":\"Invoice\"},\"poll_interval\":0.2,"
        "\"timeout\":120}",
        order_id, line_item, shipment);
    written = 0;
    st = abws_documents_fetch_pdf(client, params, collect, &pdf, &written, &err);
    CHECK(st == ABWS_STATUS_OK, "fetch_pdf");
    report_error("fetch_pdf", st, err);
    CHECK(looks_like_pdf(&pdf) && written == pdf.len, "fetch_pdf gave a PDF");
    size_t pdf_len = pdf.len;
    buffer_free(&pdf);

    /* fetch_pdf streams: chunks as they arrive (as download), not the PDF in one call... */
    chunks fetched = {0, 0, 0};
    st = abws_documents_fetch_pdf(client, params, count_chunks, &fetched, NULL, NULL);
    CHECK(st == ABWS_STATUS_OK && fetched.calls == streamed.calls && fetched.bytes == pdf_len,
          "fetch_pdf in %d chunks (download: %d), %zu bytes", fetched.calls, streamed.calls,
          fetched.bytes);
    /* ... and a non-zero return stops it after that chunk. */
    seen = 0;
    untouched = 777;
    err = NULL;
    st = abws_documents_fetch_pdf(client, params, stop_early, &seen, &untouched, &err);
    CHECK(st == ABWS_STATUS_CALLBACK_ABORTED, "stopped fetch_pdf: status %u", (unsigned)st);
    CHECK(untouched == 777, "bytes_written untouched on failure");
    CHECK(seen == fetched.first && seen < pdf_len, "fetch_pdf stopped after its first chunk (%zu of %zu bytes)",
          seen, pdf_len);
    abws_error_free(err);

    /* create → wait → download into a sealed file, in one call: no key is refused before
     * any request (no file); with one, the file is the PDF sealed (header, then the PDF's
     * bytes and one 16-byte tag per 64 KiB segment), and nothing else is left beside it. */
    {
        static const char *key = "1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100";
        char dir[] = "/tmp/abws-c-fetch-XXXXXX";
        CHECK(mkdtemp(dir) != NULL, "a temporary directory");
        char sealed[256], head[8];
        snprintf(sealed, sizeof sealed, "%s/filed.pdf.abws", dir);
        unsetenv("ABWS_DOCUMENT_KEY");
        char to_file[1024];
        fmt(to_file, sizeof to_file,
            "{\"report_options\":{\"order_id\":\"%s\",\"order_line_item_id\":\"%s\","
            "\"document_type\":\"Invoice\"},\"poll_interval\":0.2,\"timeout\":120,"
            "\"path\":\"%s\"}",
            order_id, line_item, sealed);
        err = NULL;
        st = abws_documents_fetch_pdf_to_file(client, to_file, &written, &err);
        CHECK(st == ABWS_STATUS_VALIDATION, "fetch_pdf_to_file without a key: status %u", (unsigned)st);
        CHECK(err && abws_error_parameter(err) && strcmp(abws_error_parameter(err), "key") == 0,
              "the error names key");
        CHECK(err && strstr(abws_error_message(err), "ABWS_DOCUMENT_KEY") != NULL,
              "the message names ABWS_DOCUMENT_KEY: %s", err ? abws_error_message(err) : "");
        abws_error_free(err);
        CHECK(access(sealed, F_OK) != 0, "no file without a key");
        fmt(to_file, sizeof to_file,
            "{\"report_options\":{\"order_id\":\"%s\",\"order_line_item_id\":\"%s\","
            "\"document_type\":\"Invoice\"},\"poll_interval\":0.2,\"timeout\":120,"
            "\"path\":\"%s\",\"key\":\"%s\"}",
            order_id, line_item, sealed, key);
        err = NULL;
        written = 0;
        st = abws_documents_fetch_pdf_to_file(client, to_file, &written, &err);
        CHECK(st == ABWS_STATUS_OK && written == pdf_len, "fetch_pdf_to_file: %llu bytes of %zu",
              (unsigned long long)written, pdf_len);
        report_error("fetch_pdf_to_file", st, err);
        FILE *f = fopen(sealed, "rb");
        long size = -1;
        CHECK(f != NULL && fread(head, 1, 8, f) == 8 && memcmp(head, "ABWSENC1", 8) == 0,
              "the fetched file is sealed");
        if (f) {
            fseek(f, 0, SEEK_END);
            size = ftell(f);
            fclose(f);
        }
        long expected = 28 + (long)pdf_len + 16 * (long)((pdf_len + 65535) / 65536);
        CHECK(size == expected, "sealed size %ld, expected %ld", size, expected);
        int entries = 0;
        DIR *d = opendir(dir);
        for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) entries++;
        if (d) closedir(d);
        CHECK(entries == 1, "only the sealed file in the directory (%d entries)", entries);
        remove(sealed);
        rmdir(dir);
    }

    /* A FATAL report: REPORT_FAILED. */
    const char *fatal = env_required("ABWS_TEST_FATAL_ORDER");
    char fatal_line[64] = "";
    CHECK(first_line_item(client, fatal, fatal_line, sizeof fatal_line) == 0, "fatal order lines");
    err = NULL;
    st = make_report(client, fatal, fatal_line, document_id, sizeof document_id, &err);
    CHECK(st == ABWS_STATUS_REPORT_FAILED, "FATAL report: status %u", (unsigned)st);
    CHECK(err && strstr(abws_error_message(err), "FATAL") != NULL, "message names FATAL");
    abws_error_free(err);

    /* An error document inside the archive: DOCUMENT, and no byte reaches the callback. */
    const char *bad = env_required("ABWS_TEST_ERROR_DOC_ORDER");
    char bad_line[64] = "";
    CHECK(first_line_item(client, bad, bad_line, sizeof bad_line) == 0, "error-doc order lines");
    err = NULL;
    document_id[0] = '\0';
    st = make_report(client, bad, bad_line, document_id, sizeof document_id, &err);
    CHECK(st == ABWS_STATUS_OK, "error-document report ends DONE");
    report_error("error-document report", st, err);
    err = NULL;
    fmt(params, sizeof params, "{\"report_document_id\":\"%s\"}", document_id);
    st = abws_documents_download(client, params, collect, &pdf, NULL, &err);
    CHECK(st == ABWS_STATUS_DOCUMENT, "error document: status %u", (unsigned)st);
    CHECK(pdf.len == 0, "no bytes delivered for an error document (%zu)", pdf.len);
    if (err) printf("error document: %s\n", abws_error_message(err));
    abws_error_free(err);
    buffer_free(&pdf);

    abws_client_free(client);
    return test_summary("download_pdf");
}
