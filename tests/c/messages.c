/* Messages and fail-fast shared state, from C: an unknown outcome names its
 * request id once; a file written without a key says the key is missing; a client with
 * "shared_state_required": true is refused by abws_client_new when the shared state cannot
 * be used (a wrong password, an unreachable Redis), and abws_client_check_shared_state says
 * why for a client without it. ABWS_TEST_REDIS is a redis-server with a password
 * (scripts/test-c.sh). */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

static char order_json[4096];
static char settings_json[8192];

/* The test settings with `extra` (`,"key":value...`) added before the closing brace. */
static const char *settings_with(const char *extra) {
    const char *base = env_required("ABWS_TEST_SETTINGS");
    size_t len = strlen(base);
    return fmt(settings_json, sizeof settings_json, "%.*s%s}", (int)(len - 1), base, extra);
}

/* ABWS_TEST_REDIS (redis://:PASSWORD@127.0.0.1:PORT/0) with another password. */
static const char *redis_with_password(char *out, size_t cap, const char *password) {
    const char *url = env_required("ABWS_TEST_REDIS");
    const char *at = strchr(url, '@');
    if (at == NULL) {
        fprintf(stderr, "ABWS_TEST_REDIS has no password: %s\n", url);
        exit(1);
    }
    return fmt(out, cap, "redis://:%s%s", password, at);
}

static void request_id_once(void) {
    abws_client *client = test_client();
    one_unit_order(client, "c-msg-once", order_json, sizeof order_json);
    CHECK(sandbox_post("/_sandbox/faults", "{\"path\":\"placeOrder\",\"times\":1,\"action\":{\"status\":500}}") == 0,
          "the 500 is installed");
    char *result = NULL;
    abws_error *err = NULL;
    abws_status st = abws_ordering_place_order(client, order_json, &result, &err);
    CHECK(st == ABWS_STATUS_OUTCOME_UNKNOWN, "a 500 on placeOrder: status %u", (unsigned)st);
    if (st == ABWS_STATUS_OK) abws_string_free(result);
    const char *message = err ? abws_error_message(err) : "";
    const char *rid = err ? abws_error_request_id(err) : "";
    CHECK(rid[0] != '\0' && count_of(message, rid) == 1, "the request id %s once: %s", rid, message);
    CHECK(count_of(message, "request id") == 1, "\"request id\" once: %s", message);
    CHECK(count_of(message, "[placeOrder]") == 1, "the operation once: %s", message);
    abws_error_free(err);
    abws_client_free(client);
}

static void missing_key(void) {
    abws_client *client = test_client();
    abws_error *err = NULL;
    unsetenv("ABWS_DOCUMENT_KEY");
    abws_status st = abws_documents_download_to_file(
        client, "{\"report_document_id\":\"doc-1\",\"path\":\"/tmp/abws-c-messages.pdf\"}", NULL, &err);
    CHECK(st == ABWS_STATUS_VALIDATION, "no key: status %u", (unsigned)st);
    const char *message = err ? abws_error_message(err) : "";
    CHECK(strncmp(message, "missing key: a document written to a file is encrypted", 54) == 0,
          "the key is named missing: %s", message);
    CHECK(strstr(message, "is needed") == NULL, "no \"is needed\": %s", message);
    abws_error_free(err);
    abws_client_free(client);
}

static void shared_state_required(void) {
    char url[512], extra[1024];
    abws_client *client = NULL;
    abws_error *err = NULL;

    /* A wrong password: refused when the client is built, naming shared_state. */
    redis_with_password(url, sizeof url, "wrong-pw");
    fmt(extra, sizeof extra, ",\"shared_state\":\"%s\",\"shared_state_required\":true", url);
    abws_status st = abws_client_new(settings_with(extra), &client, &err);
    CHECK(st == ABWS_STATUS_VALIDATION && client == NULL, "wrong password: status %u", (unsigned)st);
    const char *message = err ? abws_error_message(err) : "";
    CHECK(strstr(message, "shared_state") && strstr(message, "password") && !strstr(message, "wrong-pw"),
          "names shared_state and the password, never quotes it: %s", message);
    abws_error_free(err);
    err = NULL;

    /* Not required: built; the check says what is wrong. */
    fmt(extra, sizeof extra, ",\"shared_state\":\"%s\"", url);
    st = abws_client_new(settings_with(extra), &client, &err);
    CHECK(st == ABWS_STATUS_OK, "built without the requirement: status %u", (unsigned)st);
    if (st != ABWS_STATUS_OK) report_error("abws_client_new", st, err);
    st = abws_client_check_shared_state(client, &err);
    CHECK(st == ABWS_STATUS_VALIDATION, "the check refuses the password: status %u", (unsigned)st);
    abws_error_free(err);
    err = NULL;
    abws_client_free(client);
    client = NULL;

    /* Unreachable: refused as a transport error. */
    fmt(extra, sizeof extra, ",\"shared_state\":\"redis://127.0.0.1:1/0\",\"shared_state_required\":true");
    st = abws_client_new(settings_with(extra), &client, &err);
    CHECK(st == ABWS_STATUS_TRANSPORT && client == NULL, "unreachable: status %u", (unsigned)st);
    message = err ? abws_error_message(err) : "";
    CHECK(strstr(message, "unreachable") != NULL, "says unreachable: %s", message);
    abws_error_free(err);
    err = NULL;

    /* The right password: built, and the check passes. */
    fmt(extra, sizeof extra, ",\"shared_state\":\"%s\",\"shared_state_required\":true",
        env_required("ABWS_TEST_REDIS"));
    st = abws_client_new(settings_with(extra), &client, &err);
    CHECK(st == ABWS_STATUS_OK, "the right password: status %u", (unsigned)st);
    if (st != ABWS_STATUS_OK) report_error("abws_client_new", st, err);
    CHECK(abws_client_check_shared_state(client, NULL) == ABWS_STATUS_OK, "the check passes");
    abws_client_free(client);
}

int main(void) {
    request_id_once();
    missing_key();
    shared_state_required();
    check_nothing_left();
    return test_summary("messages");
}
