/* Refresh-token rotation through the C callback, against a sandbox that rotates refresh
 * tokens and issues two-second access tokens: every rotated token reaches the callback
 * with its user data, before it is used; a removed callback is not called; a second client
 * built from the original (consumed) token works, because the library sends the token's
 * successor instead of replaying it. */
#include "common.h"

#include <pthread.h>
#include <time.h>

typedef struct {
    pthread_mutex_t lock;
    int count;
    char first[512];
    char last[512];
} store;

static void persist(void *user_data, const char *refresh_token) {
    store *s = user_data;
    pthread_mutex_lock(&s->lock);
    if (s->count == 0) snprintf(s->first, sizeof s->first, "%s", refresh_token);
    snprintf(s->last, sizeof s->last, "%s", refresh_token);
    s->count++;
    pthread_mutex_unlock(&s->lock);
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* One call that needs a valid access token. */
static int call(abws_client *client) {
    char params[256];
    fmt(params, sizeof params,
        "{\"invoice_issue_start_date\":\"%s\",\"invoice_issue_end_date\":\"%s\",\"region\":\"JP\"}",
        env_required("ABWS_TEST_PREV_START"), env_required("ABWS_TEST_PREV_END"));
    char *json = NULL;
    abws_error *err = NULL;
    abws_status st = abws_invoices_get_invoices(client, params, &json, &err);
    if (st != ABWS_STATUS_OK) return report_error("get_invoices", st, err) == ABWS_STATUS_OK;
    abws_string_free(json);
    return 1;
}

static abws_client *rotating_client(void) {
    return new_client(env_required("ABWS_TEST_ROTATING_SETTINGS"));
}

int main(void) {
    store s = {.count = 0};
    pthread_mutex_init(&s.lock, NULL);
    abws_client *client = rotating_client();
    abws_error *err = NULL;
    CHECK(abws_client_set_refresh_token_callback(client, persist, &s, &err) == ABWS_STATUS_OK, "callback set");
    abws_error_free(err);

    int ok = call(client);
    sleep_ms(2100); /* past the access token's refresh margin: the next call refreshes */
    ok += call(client);
    CHECK(ok == 2, "%d of 2 calls worked", ok);
    CHECK(s.count == 2, "2 rotated tokens handed over, got %d", s.count);
    CHECK(strcmp(s.first, s.last) != 0 && strncmp(s.last, "Atzr|", 5) == 0, "a new token each time");

    /* Removed: not called again. */
    CHECK(abws_client_set_refresh_token_callback(client, NULL, NULL, NULL) == ABWS_STATUS_OK, "callback removed");
    sleep_ms(2100);
    CHECK(call(client), "a call after the removal");
    CHECK(s.count == 2, "no callback after the removal, got %d", s.count);

    /* A second client from the original settings: its token was consumed by the first
     * rotation; it sends the successor (and hands it to its own callback). */
    store s2 = {.count = 0};
    pthread_mutex_init(&s2.lock, NULL);
    abws_client *second = rotating_client();
    CHECK(abws_client_set_refresh_token_callback(second, persist, &s2, NULL) == ABWS_STATUS_OK, "second callback");
    int second_ok = call(second);
    CHECK(second_ok, "the second client works");
    CHECK(s2.count >= 1, "the second client's callback got the successor");

    int handed = s.count, second_handed = s2.count;
    CHECK(abws_client_free(second) == ABWS_STATUS_OK, "second client freed");

    /* A pager outlives its client: its refresh still hands the rotated token to the
     * callback, whose user_data must stay valid until the pager is freed (the documented
     * rule); a heap user_data, freed only after the pager, checked by valgrind. */
    store *heap = calloc(1, sizeof *heap);
    CHECK(heap != NULL, "calloc");
    pthread_mutex_init(&heap->lock, NULL);
    CHECK(abws_client_set_refresh_token_callback(client, persist, heap, NULL) == ABWS_STATUS_OK,
          "callback set again");
    abws_pager *pager = NULL;
    char *page = NULL;
    CHECK(abws_cart_iter_carts(client, "{\"page_size\":1}", &pager, NULL) == ABWS_STATUS_OK, "pager");
    err = NULL;
    CHECK(abws_pager_next(pager, &page, &err) == ABWS_STATUS_OK && page != NULL, "page 1");
    abws_string_free(page);
    page = NULL;
    abws_error_free(err);
    CHECK(abws_client_free(client) == ABWS_STATUS_OK, "client freed");
    int before_free = heap->count;
    sleep_ms(2100); /* the next page refreshes, with the pager's own reference */
    err = NULL;
    abws_status pst = abws_pager_next(pager, &page, &err);
    CHECK(pst == ABWS_STATUS_OK, "page 2 after abws_client_free: %u", (unsigned)pst);
    report_error("page 2", pst, err);
    abws_string_free(page);
    /* Two: `second` rotated the family since this client's last refresh, so the pager's refresh
     * first hands over the successor it takes from the process (its own token was consumed),
     * then the token the server rotates when it sends that successor. */
    CHECK(heap->count == before_free + 2, "the pager's refresh reached the callback after the client was freed (%d)",
          heap->count - before_free);
    CHECK(abws_pager_free(pager) == ABWS_STATUS_OK, "pager freed");
    pthread_mutex_destroy(&heap->lock);
    free(heap);
    pthread_mutex_destroy(&s.lock);
    pthread_mutex_destroy(&s2.lock);
    int rc = test_summary("rotation");
    /* The last line is the scorecard's K9 figure. */
    printf("rotation: %d/2 rotated refresh tokens reached the C callback with its user data, none after its "
           "removal; a second client built from the consumed token worked: %s (its callback got %d); "
           "%d checks, %d failed\n",
           handed, second_ok ? "yes" : "no", second_handed, test_checks, test_failures);
    return rc;
}
