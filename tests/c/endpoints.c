/* Endpoints are configuration through the C API: a client without an
 * API address is refused when built, naming the setting and its variable;
 * abws_client_from_env requires ABWS_REGION (naming it and the accepted codes) and then
 * lists invoices from the ABWS_* variables; a connect error names the host; a 403 names
 * the role the operation needs. */
#include "common.h"

/* Sets ABWS_<VAR> to the text value of `key` in the test settings. */
static void export_setting(const char *settings, const char *key, const char *var) {
    char value[1024] = "";
    CHECK(json_string_at(settings, key, 0, value, sizeof value) != NULL, "settings hold %s", key);
    setenv(var, value, 1);
}

/* abws_client_new and abws_client_from_env share their signature. */
typedef abws_status (*constructor)(const char *, abws_client **, abws_error **);

/* Builds a client with `make` from `json`, expecting a VALIDATION error whose message
 * holds `want` and `also`; frees whatever was made. */
static void refused(constructor make, const char *json, const char *want, const char *also) {
    abws_client *client = NULL;
    abws_error *err = NULL;
    abws_status st = make(json, &client, &err);
    const char *message = err ? abws_error_message(err) : "";
    CHECK(st == ABWS_STATUS_VALIDATION, "%s: status %u", want, (unsigned)st);
    CHECK(strstr(message, want) != NULL && strstr(message, also) != NULL,
          "the message names %s and %s: %s", want, also, message);
    abws_error_free(err);
    abws_client_free(client);
}

static void no_address_is_built_in(void) {
    refused(abws_client_new, "{\"region\":\"JP\",\"access_token\":\"Atza|t\"}",
            "invalid endpoint: is required", "ABWS_ENDPOINT");
    refused(abws_client_new,
            "{\"region\":\"JP\",\"client_id\":\"c\",\"client_secret\":\"s\",\"refresh_token\":\"r\","
            "\"endpoint\":\"http://127.0.0.1:9\"}",
            "invalid auth_endpoint", "ABWS_AUTH_ENDPOINT");
}

static void from_env(void) {
    const char *settings = env_required("ABWS_TEST_SETTINGS");
    char message[1024];
    CHECK(abws_client_from_env(NULL, NULL, NULL) == ABWS_STATUS_NULL_ARGUMENT, "NULL client");

    unsetenv("ABWS_REGION");
    export_setting(settings, "endpoint", "ABWS_ENDPOINT");
    export_setting(settings, "auth_endpoint", "ABWS_AUTH_ENDPOINT");
    export_setting(settings, "client_id", "ABWS_CLIENT_ID");
    export_setting(settings, "client_secret", "ABWS_CLIENT_SECRET");
    export_setting(settings, "refresh_token", "ABWS_REFRESH_TOKEN");
    setenv("ABWS_RATE_LIMITING", "false", 1);
    refused(abws_client_from_env, NULL, "invalid ABWS_REGION: is required",
            "AU CA DE ES FR IN IT JP MX UK US");
    /* A region override stands in for the variable; a bad override is named. */
    refused(abws_client_from_env, "{\"max_attempts\":0,\"region\":\"JP\"}", "invalid max_attempts",
            "between 1 and 10");

    abws_client *client = NULL;
    abws_error *err = NULL;
    setenv("ABWS_REGION", "JP", 1);
    abws_status st = abws_client_from_env(NULL, &client, &err);
    CHECK(st == ABWS_STATUS_OK, "from_env: status %u", (unsigned)st);
    if (st != ABWS_STATUS_OK) {
        report_error("abws_client_from_env", st, err);
        return;
    }
    char params[256];
    snprintf(params, sizeof params,
             "{\"invoice_issue_start_date\":\"%s\",\"invoice_issue_end_date\":\"%s\"}",
             env_required("ABWS_TEST_PREV_START"), env_required("ABWS_TEST_PREV_END"));
    char *page = NULL;
    st = abws_invoices_get_invoices(client, params, &page, &err);
    CHECK(st == ABWS_STATUS_OK, "get_invoices through a client of the environment: %u",
          (unsigned)st);
    if (st == ABWS_STATUS_OK) {
        CHECK(strstr(page, "\"invoiceNumber\"") != NULL, "an invoice is listed: %.200s", page);
        abws_string_free(page);
    } else {
        report_error("get_invoices", st, err);
    }

    /* A 403 (the sandbox answers one, through the real HTTP path) names the role. */
    CHECK(sandbox_post("/_sandbox/faults",
                       "{\"path\":\"getReport\",\"times\":1,\"action\":{\"status\":403}}") == 0,
          "the 403 is installed");
    char *report = NULL;
    err = NULL;
    st = abws_documents_get_report(client, "{\"report_id\":\"r-1\"}", &report, &err);
    CHECK(st == ABWS_STATUS_API && err && abws_error_http_status(err) == 403, "403: status %u",
          (unsigned)st);
    snprintf(message, sizeof message, "%s", err ? abws_error_message(err) : "");
    CHECK(strstr(message, "getReport needs the Business Purchase Reconciliation role") != NULL,
          "the message names the role: %s", message);
    abws_error_free(err);
    if (st == ABWS_STATUS_OK) abws_string_free(report);
    abws_client_free(client);
}

static void connect_error_names_the_host(void) {
    abws_client *client = NULL;
    abws_error *err = NULL;
    abws_status st = abws_client_new(
        "{\"region\":\"JP\",\"access_token\":\"Atza|t\",\"endpoint\":\"http://127.0.0.1:9/api\","
        "\"max_attempts\":1,\"rate_limiting\":false}",
        &client, &err);
    if (report_error("abws_client_new", st, err) != ABWS_STATUS_OK) {
        CHECK(0, "the client of a closed port is built");
        return;
    }
    char *report = NULL;
    err = NULL;
    st = abws_documents_get_report(client, "{\"report_id\":\"r-1\"}", &report, &err);
    CHECK(st == ABWS_STATUS_TRANSPORT, "refused: status %u", (unsigned)st);
    const char *message = err ? abws_error_message(err) : "";
    CHECK(strstr(message, "could not connect to http://127.0.0.1:9") != NULL &&
              strstr(message, "/api") == NULL,
          "the message names scheme, host and port only: %s", message);
    abws_error_free(err);
    if (st == ABWS_STATUS_OK) abws_string_free(report);
    abws_client_free(client);
}

int main(void) {
    no_address_is_built_in();
    from_env();
    connect_error_names_the_host();
    return test_summary("endpoints");
}
