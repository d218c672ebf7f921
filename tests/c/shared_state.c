/* Resolving an OutcomeUnknown placeOrder with shared_state (a real redis-server, issue
 * 38): the order's answer is garbled (the order was placed), so place_order reports
 * OUTCOME_UNKNOWN with one request sent and a message naming the call that resolves it;
 * that call, place_order again with the same order from a second client of the account, is
 * let through the shared write ledger and answers the original order. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <unistd.h>

static char order_json[4096];
static char settings_json[8192];

static abws_client *shared_client(void) {
    const char *base = env_required("ABWS_TEST_SETTINGS");
    size_t len = strlen(base);
    /* The settings object with "shared_state" added before its closing brace. */
    snprintf(settings_json, sizeof settings_json, "%.*s,\"shared_state\":\"%s\"}",
             (int)(len - 1), base, env_required("ABWS_TEST_REDIS"));
    return new_client(settings_json);
}

int main(void) {
    abws_client *client = shared_client();
    abws_error *err = NULL;
    abws_status st;
    one_unit_order(client, "c-fleet-unknown", order_json, sizeof order_json);

    CHECK(sandbox_post("/_sandbox/faults",
                       "{\"path\":\"placeOrder\",\"times\":1,\"action\":{\"garbled\":true}}") == 0,
          "the garbled answer is installed");
    char *result = NULL;
    err = NULL;
    st = abws_ordering_place_order(client, order_json, &result, &err);
    CHECK(st == ABWS_STATUS_OUTCOME_UNKNOWN, "garbled answer: status %u", (unsigned)st);
    CHECK(result == NULL, "no result on failure");
    if (st == ABWS_STATUS_OK) abws_string_free(result);
    const char *message = err ? abws_error_message(err) : "";
    CHECK(strstr(message, "call place_order again with the same order") != NULL,
          "the message names the call: %s", message);
    char *json = NULL;
    CHECK(err && abws_error_to_json(err, &json) == ABWS_STATUS_OK &&
              strstr(json, "\"attempts\":1") != NULL,
          "one request was sent: %s", json ? json : "(none)");
    abws_string_free(json);
    abws_error_free(err);
    result = NULL;

    /* Another client of the account (another worker) resolves it with one call. */
    abws_client *other = shared_client();
    err = NULL;
    st = abws_ordering_place_order(other, order_json, &result, &err);
    CHECK(st == ABWS_STATUS_OK, "placed again: status %u", (unsigned)st);
    if (st != ABWS_STATUS_OK) report_error("place_order again", st, err);
    CHECK(result != NULL && strstr(result, "OrderIdentifier") != NULL, "the original order: %s",
          result ? result : "(none)");
    abws_string_free(result);
    abws_client_free(other);
    abws_client_free(client);
    check_nothing_left();
    return test_summary("shared_state");
}
