/* Misuses the API on purpose (reliability plan, section K): NULL for every pointer
 * parameter of every operation (their table is generated from the header), invalid
 * UTF-8, malformed and wrongly typed JSON for settings and params, unknown keys, double
 * free and use after free of every handle type and of strings, handles of the wrong
 * type, `*_free(NULL)`, and use after an error. Every case must give its status and a
 * message, never a crash; valgrind checks that nothing leaks or is touched wrongly. */
#include "common.h"

#include "ops_table.h" /* generated from abws.h by scripts/test-c.sh */

#define NOPS (sizeof OPS / sizeof OPS[0])
#define NPAGERS (sizeof PAGERS / sizeof PAGERS[0])

/* Checks a failure: status, and that the error names the parameter (when given). */
static void expect(const char *what, abws_status st, abws_error *err, abws_status want,
                   const char *parameter) {
    CHECK(st == want, "%s: status %u (%s), want %u (%s)", what, (unsigned)st,
          abws_status_name(st), (unsigned)want, abws_status_name(want));
    CHECK(err != NULL, "%s: an error object", what);
    if (err == NULL) return;
    CHECK(abws_error_status(err) == st, "%s: error status matches", what);
    const char *msg = abws_error_message(err);
    CHECK(msg != NULL && msg[0] != '\0', "%s: a message", what);
    if (parameter) {
        CHECK(strcmp(abws_error_parameter(err), parameter) == 0, "%s: parameter '%s', want '%s' (%s)",
              what, abws_error_parameter(err), parameter, msg);
        CHECK(strstr(msg, parameter) != NULL, "%s: message names %s: %s", what, parameter, msg);
    }
    CHECK(abws_error_free(err) == ABWS_STATUS_OK, "%s: error freed", what);
}

static void statuses(void) {
    const char *seen[32] = {0};
    for (unsigned i = 0; i <= ABWS_STATUS_CANCELLED; i++) {
        const char *name = abws_status_name(i);
        CHECK(name && strcmp(name, "unknown") != 0, "status %u has a name", i);
        for (unsigned k = 0; k < i; k++) CHECK(strcmp(seen[k], name) != 0, "names differ");
        seen[i] = name;
    }
    CHECK(strcmp(abws_status_name(ABWS_STATUS_CANCELLED + 1), "unknown") == 0, "unknown status");
    CHECK(strcmp(abws_status_name(0xFFFFFFFFu), "unknown") == 0, "out-of-range status");
    CHECK(ABWS_STATUS_OK == 0 && ABWS_STATUS_NULL_ARGUMENT == 1 && ABWS_STATUS_INTERNAL == 17 && ABWS_STATUS_CANCELLED == 18,
          "status numbers are fixed");
}

static void settings_misuse(void) {
    abws_client *c = (abws_client *)0;
    abws_error *err = NULL;
    abws_status st;
    const char *good = env_required("ABWS_TEST_SETTINGS");

    st = abws_client_new(NULL, &c, &err);
    expect("client_new(NULL settings)", st, err, ABWS_STATUS_NULL_ARGUMENT, "settings_json");
    err = NULL;
    st = abws_client_new(good, NULL, &err);
    expect("client_new(NULL out)", st, err, ABWS_STATUS_NULL_ARGUMENT, "client");
    CHECK(abws_client_new(NULL, NULL, NULL) == ABWS_STATUS_NULL_ARGUMENT, "all NULL");

    struct {
        const char *settings;
        abws_status want;
        const char *parameter;
    } cases[] = {
        {"{\"region\":\"J\xff\xfe\"}", ABWS_STATUS_INVALID_UTF8, "settings_json"},
        {"{\"region\":", ABWS_STATUS_INVALID_JSON, "settings_json"},
        {"", ABWS_STATUS_INVALID_JSON, "settings_json"},
        {"[1,2]", ABWS_STATUS_VALIDATION, "settings_json"},
        {"{\"region\":\"JP\",\"access_token\":\"x\",\"colour\":\"red\"}", ABWS_STATUS_VALIDATION, "colour"},
        {"{\"region\":7,\"access_token\":\"x\"}", ABWS_STATUS_VALIDATION, "region"},
        {"{\"region\":\"XX\",\"access_token\":\"x\"}", ABWS_STATUS_VALIDATION, "region"},
        {"{\"access_token\":\"x\"}", ABWS_STATUS_VALIDATION, "region"},
        {"{\"region\":\"JP\",\"access_token\":\"x\",\"max_attempts\":\"3\"}", ABWS_STATUS_VALIDATION, "max_attempts"},
        {"{\"region\":\"JP\",\"access_token\":\"x\",\"max_attempts\":0}", ABWS_STATUS_VALIDATION, "max_attempts"},
        {"{\"region\":\"JP\",\"access_token\":\"x\",\"rate_limiting\":\"no\"}", ABWS_STATUS_VALIDATION, "rate_limiting"},
        {"{\"region\":\"JP\",\"access_token\":\"x\",\"attempt_timeout\":-1}", ABWS_STATUS_VALIDATION, "attempt_timeout"},
        {"{\"region\":\"JP\",\"access_token\":\"x\",\"endpoint\":\"http://example.com\"}", ABWS_STATUS_VALIDATION, "endpoint"},
        {"{\"region\":\"JP\",\"client_id\":\"a\",\"client_secret\":\"b\"}", ABWS_STATUS_VALIDATION, "refresh_token"},
        {"{\"region\":\"JP\",\"client_id\":\"a\",\"client_secret\":\"SENTINEL-SECRET\",\"refresh_token\":[\"SENTINEL-SECRET\"]}",
         ABWS_STATUS_VALIDATION, "refresh_token"},
        {"{\"region\":\"JP\",\"access_token\":\"SENTINEL-SECRET\\r\\nX-Evil: 1\"}", ABWS_STATUS_VALIDATION, "access_token"},
        {"{\"region\":\"JP\",\"access_token\":\"x\",\"app_name\":\"\\u4f1a\\u8a08\"}", ABWS_STATUS_VALIDATION, "app_name"},
        {"{\"region\":\"JP\",\"access_token\":\"x\",\"max_response_bytes\":0}", ABWS_STATUS_VALIDATION, "max_response_bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        c = (abws_client *)0;
        err = NULL;
        st = abws_client_new(cases[i].settings, &c, &err);
        CHECK(c == NULL, "settings case %zu: no client written on failure", i);
        if (err && strstr(abws_error_message(err), "SENTINEL") != NULL) {
            CHECK(0, "settings case %zu: a secret in the message", i);
        }
        char label[64];
        snprintf(label, sizeof label, "settings case %zu", i);
        expect(label, st, err, cases[i].want, cases[i].parameter);
    }

    /* err may be NULL: the status still tells. */
    CHECK(abws_client_new("{", &c, NULL) == ABWS_STATUS_INVALID_JSON, "no error object wanted");
}

static void operations_misuse(abws_client *client) {
    char *out;
    abws_error *err;
    abws_pager *pager;
    char label[160];
    CHECK(NOPS >= 26 && NPAGERS >= 7, "%zu operations, %zu pagers in the header", NOPS, NPAGERS);

    for (size_t i = 0; i < NOPS; i++) {
        const char *name = OPS[i].name;
        abws_status st;
        struct {
            const char *params;
            abws_status want;
            const char *parameter;
        } cases[] = {
            {"{\"definitely_not_a_key\":1}", ABWS_STATUS_VALIDATION, "definitely_not_a_key"},
            {"{\"x\":\"\xc3\x28\"}", ABWS_STATUS_INVALID_UTF8, "params_json"},
            {"{\"a\":", ABWS_STATUS_INVALID_JSON, "params_json"},
            {"{'a':1}", ABWS_STATUS_INVALID_JSON, "params_json"},
            {"[]", ABWS_STATUS_VALIDATION, "params_json"},
            {"\"text\"", ABWS_STATUS_VALIDATION, "params_json"},
            {"null", ABWS_STATUS_VALIDATION, "params_json"},
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            out = (char *)0;
            err = NULL;
            snprintf(label, sizeof label, "%s case %zu", name, k);
            st = OPS[i].fn(client, cases[k].params, &out, &err);
            CHECK(out == NULL, "%s: no result on failure", label);
            expect(label, st, err, cases[k].want, cases[k].parameter);
        }
        /* NULL for each pointer parameter; err NULL is allowed. */
        err = NULL;
        snprintf(label, sizeof label, "%s(NULL client)", name);
        st = OPS[i].fn(NULL, "{}", &out, &err);
        expect(label, st, err, ABWS_STATUS_NULL_ARGUMENT, "client");
        err = NULL;
        snprintf(label, sizeof label, "%s(NULL params)", name);
        st = OPS[i].fn(client, NULL, &out, &err);
        expect(label, st, err, ABWS_STATUS_NULL_ARGUMENT, "params_json");
        err = NULL;
        snprintf(label, sizeof label, "%s(NULL result)", name);
        st = OPS[i].fn(client, "{}", NULL, &err);
        expect(label, st, err, ABWS_STATUS_NULL_ARGUMENT, "result_json");
        CHECK(OPS[i].fn(NULL, NULL, NULL, NULL) == ABWS_STATUS_NULL_ARGUMENT, "%s all NULL", name);
        /* A handle that is not a client. */
        err = NULL;
        snprintf(label, sizeof label, "%s(bogus client)", name);
        st = OPS[i].fn((const abws_client *)&label, "{}", &out, &err);
        expect(label, st, err, ABWS_STATUS_INVALID_HANDLE, "client");
    }

    for (size_t i = 0; i < NPAGERS; i++) {
        const char *name = PAGERS[i].name;
        pager = (abws_pager *)0;
        err = NULL;
        snprintf(label, sizeof label, "%s(unknown key)", name);
        abws_status st = PAGERS[i].fn(client, "{\"definitely_not_a_key\":true}", &pager, &err);
        CHECK(pager == NULL, "%s: no pager on failure", name);
        expect(label, st, err, ABWS_STATUS_VALIDATION, "definitely_not_a_key");
        err = NULL;
        snprintf(label, sizeof label, "%s(NULL pager)", name);
        st = PAGERS[i].fn(client, "{}", NULL, &err);
        expect(label, st, err, ABWS_STATUS_NULL_ARGUMENT, "pager");
        err = NULL;
        snprintf(label, sizeof label, "%s(NULL client)", name);
        st = PAGERS[i].fn(NULL, "{}", &pager, &err);
        expect(label, st, err, ABWS_STATUS_NULL_ARGUMENT, "client");
        err = NULL;
        snprintf(label, sizeof label, "%s(bad JSON)", name);
        st = PAGERS[i].fn(client, "{,}", &pager, &err);
        expect(label, st, err, ABWS_STATUS_INVALID_JSON, "params_json");
    }

    /* Wrongly typed values, each named by its path. */
    struct {
        const char *params;
        const char *parameter;
    } typed[] = {
        {"{\"invoice_issue_start_date\":20260101}", "invoice_issue_start_date"},
        {"{\"invoice_issue_start_date\":\"2026-10-01\",\"invoice_issue_end_date\":\"2026-10-02\","
         "\"payment_method_types\":\"BCA\"}",
         "payment_method_types"},
        {"{\"invoice_issue_start_date\":\"yesterday\",\"invoice_issue_end_date\":\"2026-10-02\"}",
         "invoice_issue_start_date"},
    };
    for (size_t k = 0; k < sizeof typed / sizeof typed[0]; k++) {
        err = NULL;
        out = NULL;
        abws_status st = abws_invoices_get_invoices(client, typed[k].params, &out, &err);
        snprintf(label, sizeof label, "get_invoices typed case %zu", k);
        expect(label, st, err, ABWS_STATUS_VALIDATION, typed[k].parameter);
    }
    err = NULL;
    abws_status st = abws_ordering_place_order(
        client, "{\"external_id\":\"o-1\",\"line_items\":[{\"external_id\":\"1\",\"quantity\":\"two\"}]}",
        &out, &err);
    expect("place_order quantity as text", st, err, ABWS_STATUS_VALIDATION, "line_items[0].quantity");
    /* The wire's camelCase keys are accepted too; the path names the key as given. */
    err = NULL;
    st = abws_ordering_place_order(
        client, "{\"externalId\":\"o-1\",\"lineItems\":[{\"externalId\":\"1\",\"quantity\":\"two\"}]}",
        &out, &err);
    expect("place_order camelCase, quantity as text", st, err, ABWS_STATUS_VALIDATION, "lineItems[0].quantity");
    err = NULL;
    st = abws_ordering_place_order(client, "{\"line_items\":[]}", &out, &err);
    expect("place_order without external_id", st, err, ABWS_STATUS_VALIDATION, "external_id");
    /* Same JSON as Python: get_report takes report_id, product calls take flat keys. */
    err = NULL;
    st = abws_documents_get_report(client, "{\"id\":\"1\"}", &out, &err);
    expect("get_report with id", st, err, ABWS_STATUS_VALIDATION, "id");
    err = NULL;
    st = abws_documents_get_report(client, "{}", &out, &err);
    expect("get_report without report_id", st, err, ABWS_STATUS_VALIDATION, "report_id");
    err = NULL;
    st = abws_products_get_products_by_asins(client, "{\"product_region\":\"JP\",\"locale\":\"ja-JP\",\"ids\":[\"B0X\"]}", &out, &err);
    expect("get_products_by_asins with ids", st, err, ABWS_STATUS_VALIDATION, "ids");
    err = NULL;
    st = abws_reconciliation_get_invoice_details_by_order_line_items(
        client, "{\"order_line_items\":[{\"order_id\":\"A\",\"order_line_item_id\":5,\"shipment_id\":\"S\"}]}",
        &out, &err);
    expect("order line item id as number", st, err, ABWS_STATUS_VALIDATION,
           "order_line_items[0].order_line_item_id");
    err = NULL;
    st = abws_reconciliation_get_invoice_details_by_order_line_items(client, "{}", &out, &err);
    expect("missing order_line_items", st, err, ABWS_STATUS_VALIDATION, "order_line_items");
    err = NULL;
    st = abws_documents_wait_for_report(client, "{\"report_id\":\"1\",\"poll_interval\":\"soon\"}", &out, &err);
    expect("poll_interval as text", st, err, ABWS_STATUS_VALIDATION, "poll_interval");
    err = NULL;
    st = abws_products_search_products_request(client, "{\"product_region\":\"JP\",\"locale\":\"ja-JP\",\"colour\":1}", &out, &err);
    expect("flattened params: unknown key", st, err, ABWS_STATUS_VALIDATION, "colour");
}

static int write_nothing(void *userdata, const uint8_t *data, size_t len) {
    (void)userdata;
    (void)data;
    (void)len;
    return 0;
}

static void download_misuse(abws_client *client) {
    abws_error *err = NULL;
    uint64_t n = 5;
    abws_status st = abws_documents_download(client, "{\"report_document_id\":\"x\"}", NULL, NULL, &n, &err);
    expect("download(NULL write)", st, err, ABWS_STATUS_NULL_ARGUMENT, "write");
    err = NULL;
    st = abws_documents_download(NULL, "{}", write_nothing, NULL, &n, &err);
    expect("download(NULL client)", st, err, ABWS_STATUS_NULL_ARGUMENT, "client");
    err = NULL;
    st = abws_documents_download(client, NULL, write_nothing, NULL, &n, &err);
    expect("download(NULL params)", st, err, ABWS_STATUS_NULL_ARGUMENT, "params_json");
    err = NULL;
    st = abws_documents_download(client, "{\"report_document_id\":\"x\",\"extra\":1}", write_nothing, NULL, &n, &err);
    expect("download(unknown key)", st, err, ABWS_STATUS_VALIDATION, "extra");
    err = NULL;
    st = abws_documents_download(client, "{}", write_nothing, NULL, &n, &err);
    expect("download(no id)", st, err, ABWS_STATUS_VALIDATION, "report_document_id");
    err = NULL;
    st = abws_documents_fetch_pdf(client, "{\"report_options\":{\"order_id\":1}}", write_nothing, NULL, &n, &err);
    expect("fetch_pdf(order_id as number)", st, err, ABWS_STATUS_VALIDATION, "report_options.order_id");
    CHECK(n == 5, "bytes_written untouched on failure");
    err = NULL;
    st = abws_documents_download_to_file(NULL, "{}", &n, &err);
    expect("download_to_file(NULL client)", st, err, ABWS_STATUS_NULL_ARGUMENT, "client");
    err = NULL;
    st = abws_documents_download_to_file(client, NULL, &n, &err);
    expect("download_to_file(NULL params)", st, err, ABWS_STATUS_NULL_ARGUMENT, "params_json");
    err = NULL;
    st = abws_documents_download_to_file(client, "{\"report_document_id\":\"x\",\"path\":\"/tmp/x\",\"key\":\"secret-not-hex\"}", &n, &err);
    expect("download_to_file(bad key)", st, err, ABWS_STATUS_VALIDATION, "key");
    CHECK(n == 5, "bytes_written untouched on failure");
    err = NULL;
    st = abws_documents_download_to_file(client, "{\"report_document_id\":\"x\",\"path\":\"\",\"allow_plaintext\":true}", &n, &err);
    expect("download_to_file(empty path)", st, err, ABWS_STATUS_VALIDATION, "path");
}

static void handles_misuse(void) {
    abws_error *err = NULL;
    char *out = NULL;

    /* *_free(NULL) does nothing. */
    CHECK(abws_client_free(NULL) == ABWS_STATUS_OK, "client_free(NULL)");
    CHECK(abws_pager_free(NULL) == ABWS_STATUS_OK, "pager_free(NULL)");
    CHECK(abws_error_free(NULL) == ABWS_STATUS_OK, "error_free(NULL)");
    CHECK(abws_string_free(NULL) == ABWS_STATUS_OK, "string_free(NULL)");

    /* Client: double free, use after free. */
    abws_client *client = test_client();
    CHECK(abws_client_free(client) == ABWS_STATUS_OK, "first client free");
    CHECK(abws_client_free(client) == ABWS_STATUS_INVALID_HANDLE, "double client free");
    abws_status cb = abws_client_set_refresh_token_callback(client, NULL, NULL, &err);
    expect("refresh-token callback on a freed client", cb, err, ABWS_STATUS_INVALID_HANDLE, "client");
    err = NULL;
    cb = abws_client_set_refresh_token_callback(NULL, NULL, NULL, &err);
    expect("refresh-token callback on NULL", cb, err, ABWS_STATUS_NULL_ARGUMENT, "client");
    CHECK(abws_client_set_refresh_token_callback(NULL, NULL, NULL, NULL) == ABWS_STATUS_NULL_ARGUMENT,
          "refresh-token callback, no error object wanted");
    err = NULL;
    abws_status st = abws_invoices_get_invoice_detail_by_invoice_number(
        client, "{\"invoice_number\":\"X\"}", &out, &err);
    expect("use after client free", st, err, ABWS_STATUS_INVALID_HANDLE, "client");
    abws_pager *pager = NULL;
    err = NULL;
    st = abws_invoices_iter_invoice_line_items(client, "{\"invoice_number\":\"X\"}", &pager, &err);
    expect("pager from a freed client", st, err, ABWS_STATUS_INVALID_HANDLE, "client");

    /* Pager: outlives its client, sticky error, double free, use after free. */
    client = test_client();
    err = NULL;
    st = abws_invoices_iter_invoice_line_items(client, "{\"invoice_number\":\"JPNOSUCHINVOICE\"}", &pager, &err);
    CHECK(st == ABWS_STATUS_OK, "pager created");
    abws_error_free(err);
    CHECK(abws_client_free(client) == ABWS_STATUS_OK, "client freed before its pager");
    for (int round = 0; round < 2; round++) {
        err = NULL;
        out = NULL;
        st = abws_pager_next(pager, &out, &err);
        CHECK(st == ABWS_STATUS_API, "pager round %d: status %u (after an error, the same error)", round,
              (unsigned)st);
        CHECK(out == NULL, "no page on failure");
        CHECK(abws_error_http_status(err) == 404, "HTTP %u", abws_error_http_status(err));
        abws_error_free(err);
    }
    CHECK(abws_pager_free(pager) == ABWS_STATUS_OK, "first pager free");
    CHECK(abws_pager_free(pager) == ABWS_STATUS_INVALID_HANDLE, "double pager free");
    err = NULL;
    st = abws_pager_next(pager, &out, &err);
    expect("use after pager free", st, err, ABWS_STATUS_INVALID_HANDLE, "pager");
    err = NULL;
    st = abws_pager_next(NULL, &out, &err);
    expect("pager_next(NULL pager)", st, err, ABWS_STATUS_NULL_ARGUMENT, "pager");
    err = NULL;
    st = abws_pager_next(pager, NULL, &err);
    expect("pager_next(NULL out)", st, err, ABWS_STATUS_NULL_ARGUMENT, "page_json");

    /* Error: accessors on dead and NULL handles, double free, to_json misuse. */
    err = NULL;
    abws_client_new("{", &client, &err);
    CHECK(abws_error_free(err) == ABWS_STATUS_OK, "first error free");
    CHECK(abws_error_free(err) == ABWS_STATUS_INVALID_HANDLE, "double error free");
    CHECK(abws_error_status(err) == ABWS_STATUS_INVALID_HANDLE, "status of a freed error");
    CHECK(abws_error_message(err) == NULL, "message of a freed error is NULL");
    CHECK(abws_error_code(err) == NULL && abws_error_kind(err) == NULL, "texts of a freed error");
    CHECK(abws_error_http_status(err) == 0, "http status of a freed error");
    CHECK(abws_error_status(NULL) == ABWS_STATUS_NULL_ARGUMENT, "status of NULL");
    CHECK(abws_error_message(NULL) == NULL && abws_error_request_id(NULL) == NULL, "texts of NULL");
    CHECK(abws_error_parameter(NULL) == NULL && abws_error_details(NULL) == NULL, "texts of NULL");
    CHECK(abws_error_external_id(NULL) == NULL, "external id of NULL");
    CHECK(abws_error_to_json(NULL, &out) == ABWS_STATUS_NULL_ARGUMENT, "to_json(NULL)");
    CHECK(abws_error_to_json(err, &out) == ABWS_STATUS_INVALID_HANDLE, "to_json(freed)");
    abws_error *live = NULL;
    abws_client_new("{", &client, &live);
    CHECK(abws_error_to_json(live, NULL) == ABWS_STATUS_NULL_ARGUMENT, "to_json(NULL out)");
    out = NULL;
    CHECK(abws_error_to_json(live, &out) == ABWS_STATUS_OK && out && strstr(out, "\"kind\":\"invalid_json\""),
          "error JSON: %s", out ? out : "(none)");
    abws_string_free(out);

    /* Handles of the wrong type. */
    CHECK(abws_client_free((abws_client *)live) == ABWS_STATUS_INVALID_HANDLE, "an error freed as a client");
    CHECK(abws_pager_free((abws_pager *)live) == ABWS_STATUS_INVALID_HANDLE, "an error freed as a pager");
    CHECK(abws_error_status(live) == ABWS_STATUS_INVALID_JSON, "the error survived both");
    abws_error_free(live);

    /* Strings: double free, and strings the library did not allocate. */
    client = test_client();
    err = NULL;
    out = NULL;
    st = abws_invoices_get_invoices(client, "{\"invoice_issue_start_date\":\"2026-10-01T00:00:00Z\",\"invoice_issue_end_date\":\"2026-10-02T00:00:00Z\"}", &out, &err);
    CHECK(st == ABWS_STATUS_OK, "a result string");
    report_error("get_invoices", st, err);
    if (out) {
        out[0] = 'X'; /* the caller may write into it */
        CHECK(abws_string_free(out) == ABWS_STATUS_OK, "first string free");
        CHECK(abws_string_free(out) == ABWS_STATUS_INVALID_HANDLE, "double string free");
    }
    char stack_text[] = "not from the library";
    CHECK(abws_string_free(stack_text) == ABWS_STATUS_INVALID_HANDLE, "foreign string");
    char *heap = malloc(16);
    CHECK(abws_string_free(heap) == ABWS_STATUS_INVALID_HANDLE, "malloc'd string");
    free(heap);

    /* Use after an error: the client keeps working. */
    err = NULL;
    st = abws_invoices_get_invoices(client, "{\"nope\":1}", &out, &err);
    CHECK(st == ABWS_STATUS_VALIDATION, "an error first");
    abws_error_free(err);
    err = NULL;
    out = NULL;
    st = abws_invoices_get_invoices(client, "{\"invoice_issue_start_date\":\"2026-10-01T00:00:00Z\",\"invoice_issue_end_date\":\"2026-10-02T00:00:00Z\"}", &out, &err);
    CHECK(st == ABWS_STATUS_OK && out != NULL, "then a success on the same client");
    report_error("after an error", st, err);
    abws_string_free(out);
    abws_client_free(client);
}

int main(void) {
    statuses();
    settings_misuse();
    abws_client *client = test_client();
    operations_misuse(client);
    download_misuse(client);
    abws_client_free(client);
    handles_misuse();
    /* Create/free loops: nothing accumulates (valgrind counts what is left). */
    for (int i = 0; i < 50; i++) {
        abws_client *c = test_client();
        abws_error *err = NULL;
        abws_invoices_get_invoices(c, "{\"nope\":1}", NULL, &err);
        abws_error_free(err);
        abws_client_free(c);
    }
    return test_summary("misuse");
}
