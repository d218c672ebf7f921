/* The month-end close from C: abws_close_month files the sandbox's previous
 * month into a fresh directory, its progress callback is called per phase (counted here),
 * its result is the CloseResult JSON (amounts as decimal text) and names the files it
 * wrote; a NULL callback is allowed; a key and a password, or a password for the close
 * sealed under a key, are refused; misuse (NULLs, bad JSON, a bad parameter) is a status
 * before any request; a signalled abws_cancel ends the cancellable twin at once. */
#include "common.h"

#include <sys/stat.h>

#define KEY "\"archive_key\":\"5555555555555555555555555555555555555555555555555555555555555555\""

typedef struct {
    int calls, plan, invoice_data, transactions, pdfs, outputs, other;
    char first[32], last[32];
    uint64_t data_done, data_total;
} counts;

static void count(void *user_data, const char *phase, uint64_t done, uint64_t total) {
    counts *c = user_data;
    if (c->calls++ == 0) snprintf(c->first, sizeof c->first, "%s", phase);
    snprintf(c->last, sizeof c->last, "%s", phase);
    if (strcmp(phase, "plan") == 0) c->plan++;
    else if (strcmp(phase, "invoice_data") == 0) {
        c->invoice_data++;
        c->data_done = done;
        c->data_total = total;
    } else if (strcmp(phase, "transactions") == 0) c->transactions++;
    else if (strcmp(phase, "pdfs") == 0) c->pdfs++;
    else if (strcmp(phase, "outputs") == 0) c->outputs++;
    else c->other++;
}

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* The status of a close that must fail before any request; the error's message must
 * name `what`. */
static void refused(abws_client *client, const char *params, abws_status want, const char *what) {
    char *json = NULL;
    abws_error *err = NULL;
    abws_status st = abws_close_month(client, params, NULL, NULL, &json, &err);
    CHECK(st == want, "%s: status %u, want %u", params, (unsigned)st, (unsigned)want);
    CHECK(json == NULL, "%s: no result on failure", params);
    const char *msg = err ? abws_error_message(err) : NULL;
    CHECK(msg && strstr(msg, what), "%s: message %s names %s", params, msg ? msg : "(none)", what);
    abws_error_free(err);
}

int main(void) {
    abws_client *client = test_client();
    char month[8], dir[] = "/tmp/abws-close-XXXXXX", params[1024], path[1024];
    snprintf(month, sizeof month, "%.7s", env_required("ABWS_TEST_PREV_START"));
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char *json = NULL;
    abws_error *err = NULL;

    /* Misuse, before any request. */
    CHECK(abws_close_month(NULL, "{}", NULL, NULL, &json, &err) == ABWS_STATUS_NULL_ARGUMENT, "NULL client");
    abws_error_free(err);
    err = NULL;
    CHECK(abws_close_month(client, NULL, NULL, NULL, &json, NULL) == ABWS_STATUS_NULL_ARGUMENT, "NULL params");
    CHECK(abws_close_month(client, "{}", NULL, NULL, NULL, NULL) == ABWS_STATUS_NULL_ARGUMENT, "NULL result");
    refused(client, "{\"month\":", ABWS_STATUS_INVALID_JSON, "JSON");
    fmt(params, sizeof params, "{\"month\":\"%s\",\"outt\":\"%s/x\"}", month, dir);
    refused(client, params, ABWS_STATUS_VALIDATION, "outt");
    fmt(params, sizeof params, "{\"month\":\"2026-13\",\"out\":\"%s/x\",%s}", dir, KEY);
    refused(client, params, ABWS_STATUS_VALIDATION, "month");
    fmt(params, sizeof params, "{\"month\":\"%s\",\"out\":\"%s/x\",\"archive_key\":\"12\"}", month, dir);
    refused(client, params, ABWS_STATUS_VALIDATION, "archive_key");
    fmt(params, sizeof params, "{\"month\":\"%s\",\"out\":\"%s/x\",%s,\"archive_password\":\"pw\"}", month,
        dir, KEY);
    refused(client, params, ABWS_STATUS_VALIDATION, "and archive_password are both given");

    /* The whole close, its progress counted. */
    counts c = {0};
    fmt(params, sizeof params, "{\"month\":\"%s\",\"out\":\"%s/month-end\",\"poll_interval\":0.02,%s}",
        month, dir, KEY);
    abws_status st = abws_close_month(client, params, count, &c, &json, &err);
    CHECK(st == ABWS_STATUS_OK, "close: %u", (unsigned)st);
    report_error("abws_close_month", st, err);
    if (json) {
        int rows = count_of(json, "\"line_items\":");
        CHECK(strstr(json, "\"complete\":true") != NULL, "complete");
        CHECK(strstr(json, "\"net_total\":\"") != NULL, "net_total as decimal text");
        CHECK(strstr(json, "\"tax_by_rate\":{\"") != NULL, "tax_by_rate");
        CHECK(rows > 0, "ledger rows: %d", rows);
        CHECK(c.invoice_data == rows && c.data_done == (uint64_t)rows && c.data_total == (uint64_t)rows,
              "one invoice_data step per ledger row: %d steps, %llu of %llu, %d rows", c.invoice_data,
              (unsigned long long)c.data_done, (unsigned long long)c.data_total, rows);
        CHECK(strcmp(c.first, "plan") == 0 && strcmp(c.last, "outputs") == 0, "phases %s..%s", c.first,
              c.last);
        CHECK(c.transactions > 0 && c.pdfs > 0 && c.outputs > 0 && c.other == 0, "every phase reported");
        const char *keys[] = {"archive_path", "ledger_path", "exceptions_path"};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            CHECK(json_string_at(json, keys[i], 0, path, sizeof path) != NULL, "%s in the result", keys[i]);
            CHECK(strncmp(path, dir, strlen(dir)) == 0 && is_file(path), "%s: %s is a file in out", keys[i],
                  path);
        }
        abws_string_free(json);
    }

    /* The same close with a password instead of its key: refused before any request. */
    fmt(params, sizeof params, "{\"month\":\"%s\",\"out\":\"%s/month-end\",\"archive_password\":\"pw\"}",
        month, dir);
    refused(client, params, ABWS_STATUS_VALIDATION, "or close with `fresh`");

    /* No callback: allowed (the plan only, fast). */
    json = NULL;
    err = NULL;
    fmt(params, sizeof params, "{\"month\":\"%s\",\"out\":\"%s/plan\",\"plan_only\":true}", month, dir);
    st = abws_close_month(client, params, NULL, NULL, &json, &err);
    CHECK(st == ABWS_STATUS_OK, "plan only: %u", (unsigned)st);
    report_error("abws_close_month plan_only", st, err);
    CHECK(json && strstr(json, "\"complete\":false"), "plan only: not complete");
    abws_string_free(json);

    /* The cancellable twin: a signalled handle ends it before anything starts. */
    abws_cancel *cancel = NULL;
    CHECK(abws_cancel_new(&cancel, NULL) == ABWS_STATUS_OK, "cancel_new");
    CHECK(abws_cancel_signal(cancel) == ABWS_STATUS_OK, "signal");
    json = NULL;
    err = NULL;
    counts none = {0};
    fmt(params, sizeof params, "{\"month\":\"%s\",\"out\":\"%s/cancelled\",%s}", month, dir, KEY);
    st = abws_close_month_cancellable(client, params, cancel, count, &none, &json, &err);
    CHECK(st == ABWS_STATUS_CANCELLED && json == NULL, "cancelled: %u", (unsigned)st);
    CHECK(none.calls == 0, "a cancelled close reported %d steps", none.calls);
    abws_error_free(err);
    abws_cancel_free(cancel);

    char rm[128];
    fmt(rm, sizeof rm, "rm -rf '%s'", dir);
    CHECK(system(rm) == 0, "rm -rf %s", dir);
    abws_client_free(client);
    return test_summary("close_month");
}
