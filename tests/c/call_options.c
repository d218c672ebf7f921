/* Per-call options (abws_call_options, the *_with_options variants) and a listing resumed
 * from a saved cursor (abws_pager_next_token, abws_pager_start_at): a bad option is
 * refused naming it before any request; a timeout too short for any request ends the call
 * with ABWS_STATUS_TIMEOUT, while NULL or zeroed options keep the client's settings; the
 * pages after the first, resumed by a new pager of a new client from the first pager's
 * token, are exactly the pages the whole listing gives after its first. */
#include "common.h"

#include <math.h>

static void expect_refused(const abws_client *client, const char *params, abws_call_options o,
                           const char *name) {
    char *result = (char *)"untouched";
    abws_error *err = NULL;
    abws_status st = abws_reconciliation_get_transactions_with_options(client, params, &o, &result, &err);
    CHECK(st == ABWS_STATUS_VALIDATION, "%s: status %u", name, (unsigned)st);
    CHECK(result != NULL && strcmp(result, "untouched") == 0, "%s: result not written", name);
    CHECK(err != NULL && strstr(abws_error_message(err), name) != NULL, "%s: message %s", name,
          err ? abws_error_message(err) : "(none)");
    abws_error_free(err);
    abws_pager *pager = NULL;
    err = NULL;
    st = abws_reconciliation_iter_transactions_with_options(client, params, &o, &pager, &err);
    CHECK(st == ABWS_STATUS_VALIDATION && pager == NULL, "%s (pager): status %u", name, (unsigned)st);
    abws_error_free(err);
}

int main(void) {
    abws_client *client = test_client();
    char params[512];
    fmt(params, sizeof params, "{\"feed_start_date\":\"%s\",\"feed_end_date\":\"%s\"}",
        env_required("ABWS_TEST_PREV_START"), env_required("ABWS_TEST_PREV_END"));

    /* Bad options, named. */
    expect_refused(client, params, (abws_call_options){.timeout = -1.0}, "timeout");
    expect_refused(client, params, (abws_call_options){.timeout = NAN}, "timeout");
    expect_refused(client, params, (abws_call_options){.timeout = INFINITY}, "timeout");
    expect_refused(client, params, (abws_call_options){.max_attempts = 11}, "max_attempts");

    /* A microsecond for the whole call: over before any request is sent. */
    abws_call_options quick = {.timeout = 1e-6, .max_attempts = 1};
    char *result = NULL;
    abws_error *err = NULL;
    abws_status st = abws_reconciliation_get_transactions_with_options(client, params, &quick, &result, &err);
    CHECK(st == ABWS_STATUS_TIMEOUT, "a 1 us timeout: status %u", (unsigned)st);
    abws_error_free(err);
    /* NULL and zeroed options: the client's settings. */
    abws_call_options none = {0};
    err = NULL;
    st = abws_reconciliation_get_transactions_with_options(client, params, &none, &result, &err);
    CHECK(st == ABWS_STATUS_OK, "zeroed options: %s", err ? abws_error_message(err) : "");
    abws_string_free(result);
    err = NULL;
    st = abws_reconciliation_get_transactions_with_options(client, params, NULL, &result, &err);
    CHECK(st == ABWS_STATUS_OK, "NULL options: %s", err ? abws_error_message(err) : "");
    abws_string_free(result);

    /* The whole listing, then its first page and the cursor after it. */
    abws_pager *pager = NULL;
    abws_call_options patient = {.timeout = 60.0, .max_attempts = 2};
    CHECK(abws_reconciliation_iter_transactions_with_options(client, params, &patient, &pager, NULL) == ABWS_STATUS_OK,
          "iter_transactions_with_options");
    buffer all = {0};
    int all_pages = drain(pager, "abws_pager_next", &all);
    abws_pager_free(pager);
    CHECK(all_pages >= 2, "%d pages: need two", all_pages);

    CHECK(abws_reconciliation_iter_transactions(client, params, &pager, NULL) == ABWS_STATUS_OK,
          "iter_transactions");
    char *token = (char *)"untouched";
    CHECK(abws_pager_next_token(pager, &token, NULL) == ABWS_STATUS_OK && token == NULL,
          "no cursor before the first page");
    char *first = NULL;
    CHECK(abws_pager_next(pager, &first, NULL) == ABWS_STATUS_OK && first != NULL, "first page");
    CHECK(abws_pager_next_token(pager, &token, NULL) == ABWS_STATUS_OK && token != NULL,
          "a cursor after the first page");
    err = NULL;
    st = abws_pager_start_at(pager, token, &err);
    CHECK(st == ABWS_STATUS_VALIDATION && err && strstr(abws_error_message(err), "start_token"),
          "start_at after a page: status %u", (unsigned)st);
    abws_error_free(err);
    abws_pager_free(pager);
    abws_client_free(client);

    /* A new client resumes there. */
    client = test_client();
    CHECK(abws_reconciliation_iter_transactions(client, params, &pager, NULL) == ABWS_STATUS_OK,
          "iter_transactions (resumed)");
    CHECK(abws_pager_start_at(pager, token, NULL) == ABWS_STATUS_OK, "start_at");
    buffer rest = {0};
    buffer_append(&rest, first, strlen(first));
    int rest_pages = drain(pager, "abws_pager_next", &rest);
    abws_pager_free(pager);
    CHECK(rest_pages == all_pages - 1, "%d pages resumed of %d", rest_pages, all_pages);
    /* Page tokens differ between listings: the items are compared, in order. */
    int n = count_of((const char *)all.data, "\"transactionId\":");
    CHECK(n > 0 && count_of((const char *)rest.data, "\"transactionId\":") == n,
          "%d transactions in all", n);
    for (int i = 0; i < n; i++) {
        char a[128], b[128];
        const char *pa = json_string_at((const char *)all.data, "transactionId", i, a, sizeof a);
        const char *pb = json_string_at((const char *)rest.data, "transactionId", i, b, sizeof b);
        CHECK(pa && pb && strcmp(a, b) == 0, "transaction %d: %s, resumed %s", i, a, b);
    }
    printf("resumed: %d pages after the first, %d transactions in all\n", rest_pages, n);

    abws_string_free(first);
    abws_string_free(token);
    buffer_free(&all);
    buffer_free(&rest);
    abws_client_free(client);
    return test_summary("call_options");
}
