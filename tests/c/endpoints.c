/* Endpoints are configuration (issue 40, item 1) through the C API: a client without an
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

/* The status of a failed construction; its message is copied to `message`. */
static abws_status refused(abws_status st, abws_client *client, abws_error *err, char *message,
                           size_t cap) {
    snprintf(message, cap, "%s", err ? abws_error_message(err) : "");
    abws_error_free(err);
    abws_client_free(client);
    return st;
}

static void no_address_is_built_in(void) {
    char message[1024];
    abws_client *client = NULL;
    abws_error *err = NULL;
    abws_status st = abws_client_new("{\"region\":\"JP\",\"access_token\":\"Atza|t\"}", &client, &err);
    st = refused(st, client, err, message, sizeof message);
    CHECK(st == ABWS_STATUS_VALIDATION, "no endpoint: status %u", (unsigned)st);
    CHECK(strstr(message, "invalid endpoint: is required") != NULL &&
              strstr(message, "ABWS_ENDPOINT") != NULL,
          "the message names the setting and its variable: %s", message);

    client = NULL;
    err = NULL;
    st = abws_client_new(
        "{\"region\":\"JP\",\"client_id\":\"c\",\"client_secret\":\"s\",\"refresh_token\":\"r\","
        "\"endpoint\":\"http://127.0.0.1:9\"}",
        &client, &err);
    st = refused(st, client, err, message, sizeof message);
    CHECK(st == ABWS_STATUS_VALIDATION, "no auth_endpoint: status %u", (unsigned)st);
    CHECK(strstr(message, "invalid auth_endpoint") != NULL &&
              strstr(message, "ABWS_AUTH_ENDPOINT") != NULL,
          "the message names auth_endpoint: %s", message);
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
    abws_client *client = NULL;
    abws_error *err = NULL;
    abws_status st = abws_client_from_env(NULL, &client, &err);
    st = refused(st, client, err, message, sizeof message);
    CHECK(st == ABWS_STATUS_VALIDATION, "no ABWS_REGION: status %u", (unsigned)st);
    CHECK(strstr(message, "invalid ABWS_REGION: is required") != NULL &&
              strstr(message, "AU CA DE ES FR IN IT JP MX UK US") != NULL,
          "the message names ABWS_REGION and the codes: %s", message);

    /* A region override stands in for the variable; a bad override is named. */
    client = NULL;
    err = NULL;
    st = abws_client_from_env("{\"max_attempts\":0,\"region\":\"JP\"}", &client, &err);
    st = refused(st, client, err, message, sizeof message);
    CHECK(st == ABWS_STATUS_VALIDATION && strstr(message, "max_attempts") != NULL,
          "an override is checked: %s", message);

    setenv("ABWS_REGION", "JP", 1);
    client = NULL;
    err = NULL;
    st = abws_client_from_env(NULL, &client, &err);
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
