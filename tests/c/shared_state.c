/* Resolving an OutcomeUnknown placeOrder with shared_state (a real redis-server, issue
 * 38): the order's answer is garbled (the order was placed), so place_order reports
 * OUTCOME_UNKNOWN with one request sent and a message naming the call that resolves it;
 * that call, place_order again with the same order from a second client of the account, is
 * let through the shared write ledger and answers the original order. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static char order_json[4096];
static char settings_json[8192];

/* POSTs `body` to the sandbox's control address `path` (loopback http, one request). */
static int sandbox_post(const char *path, const char *body) {
    const char *base = env_required("ABWS_TEST_BASE_URL"); /* http://127.0.0.1:PORT */
    const char *colon = strrchr(base, ':');
    if (colon == NULL) return -1;
    int port = atoi(colon + 1);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char request[2048];
    int n = snprintf(request, sizeof request,
                     "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                     path, strlen(body), body);
    int ok = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
             write(fd, request, (size_t)n) == n;
    char reply[512] = "";
    if (ok) ok = read(fd, reply, sizeof reply - 1) > 0 && strstr(reply, " 201 ") != NULL;
    close(fd);
    return ok ? 0 : -1;
}

static abws_client *shared_client(void) {
    const char *base = env_required("ABWS_TEST_SETTINGS");
    size_t len = strlen(base);
    /* The settings object with "shared_state" added before its closing brace. */
    snprintf(settings_json, sizeof settings_json, "%.*s,\"shared_state\":\"%s\"}",
             (int)(len - 1), base, env_required("ABWS_TEST_REDIS"));
    abws_client *client = NULL;
    abws_error *err = NULL;
    abws_status st = abws_client_new(settings_json, &client, &err);
    if (st != ABWS_STATUS_OK) {
        report_error("abws_client_new", st, err);
        exit(1);
    }
    return client;
}

int main(void) {
    abws_client *client = shared_client();
    char asin[32], offer[128];
    find_offer(client, asin, offer);
    abws_error *err = NULL;
    abws_status st;
    fmt(order_json, sizeof order_json,
        "{\"external_id\":\"c-fleet-unknown-%ld\",\"line_items\":[{\"external_id\":\"1\","
        "\"quantity\":1,\"attributes\":["
        "{\"attributeType\":\"SelectedProductReference\",\"productReference\":{\"id\":\"%s\"}},"
        "{\"attributeType\":\"SelectedBuyingOptionReference\",\"buyingOptionReference\":"
        "{\"id\":\"%s\"}}],\"expectations\":[]}],\"attributes\":[],\"expectations\":[]}",
        (long)getpid(), asin, offer);

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
