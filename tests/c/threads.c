/* Eight threads share one client: each fetches invoice details, a transactions page,
 * walks its own line-item pager and makes a failing call, concurrently. Every result
 * must be the right one, every error its own. */
#include "common.h"

#include <pthread.h>

#define THREADS 8
#define ROUNDS 3

static abws_client *shared;
static char invoices[THREADS][32];

typedef struct {
    int index;
    int failures;
    int calls;
} job;

/* Counts a call of job `j`; a failed one (`what`) is reported and counted as a failure.
 * Returns whether it succeeded. */
static int counted(job *j, const char *what, abws_status st, abws_error *err) {
    j->calls++;
    if (st == ABWS_STATUS_OK) return 1;
    report_error(what, st, err);
    j->failures++;
    return 0;
}

static void *worker(void *arg) {
    job *j = arg;
    const char *number = invoices[j->index];
    char params[512];
    for (int round = 0; round < ROUNDS; round++) {
        /* One invoice in full: the answer names this thread's invoice. */
        char *json = NULL;
        abws_error *err = NULL;
        fmt(params, sizeof params, "{\"invoice_number\":\"%s\",\"region\":\"JP\"}", number);
        abws_status st = abws_invoices_get_invoice_detail_by_invoice_number(shared, params, &json, &err);
        if (counted(j, "detail", st, err)) {
            char needle[64];
            snprintf(needle, sizeof needle, "\"invoiceNumber\":\"%s\"", number);
            if (strstr(json, needle) == NULL) {
                fprintf(stderr, "thread %d got another invoice\n", j->index);
                j->failures++;
            }
            abws_string_free(json);
        }

        /* A page of transactions. */
        json = NULL;
        err = NULL;
        fmt(params, sizeof params, "{\"feed_start_date\":\"%s\",\"feed_end_date\":\"%s\"}",
            env_required("ABWS_TEST_PREV_START"), env_required("ABWS_TEST_PREV_END"));
        st = abws_reconciliation_get_transactions(shared, params, &json, &err);
        if (counted(j, "transactions", st, err)) {
            if (strstr(json, "\"transactions\":[") == NULL) j->failures++;
            abws_string_free(json);
        }

        /* This thread's own pager over the invoice's line items. */
        abws_pager *pager = NULL;
        err = NULL;
        fmt(params, sizeof params, "{\"invoice_number\":\"%s\"}", number);
        st = abws_invoices_iter_invoice_line_items(shared, params, &pager, &err);
        if (counted(j, "iter_invoice_line_items", st, err)) {
            int lines = 0;
            for (;;) {
                char *page = NULL;
                err = NULL;
                st = abws_pager_next(pager, &page, &err);
                if (!counted(j, "pager_next", st, err)) break;
                if (page == NULL) break;
                lines += count_of(page, "\"lineItemMetadata\":");
                abws_string_free(page);
            }
            if (lines == 0) j->failures++;
            abws_pager_free(pager);
        }

        /* A failing call: its own error, naming this thread's bad key. */
        char key[32];
        snprintf(key, sizeof key, "bad_key_%d", j->index);
        fmt(params, sizeof params, "{\"invoice_number\":\"%s\",\"%s\":1}", number, key);
        json = NULL;
        err = NULL;
        st = abws_invoices_get_invoice_detail_by_invoice_number(shared, params, &json, &err);
        j->calls++;
        if (st != ABWS_STATUS_VALIDATION || json != NULL ||
            strcmp(abws_error_parameter(err), key) != 0) {
            fprintf(stderr, "thread %d: wrong error (status %u)\n", j->index, (unsigned)st);
            j->failures++;
        }
        abws_error_free(err);
    }
    return NULL;
}

int main(void) {
    char *list = strdup(env_required("ABWS_TEST_PREV_INVOICES"));
    int n = 0;
    for (char *tok = strtok(list, ","); tok && n < THREADS; tok = strtok(NULL, ",")) {
        snprintf(invoices[n++], sizeof invoices[0], "%s", tok);
    }
    free(list);
    CHECK(n == THREADS, "%d invoices for %d threads", n, THREADS);

    shared = test_client();
    pthread_t threads[THREADS];
    job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (job){.index = i};
        CHECK(pthread_create(&threads[i], NULL, worker, &jobs[i]) == 0, "thread %d started", i);
    }
    int calls = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(jobs[i].failures == 0, "thread %d: %d failures", i, jobs[i].failures);
        calls += jobs[i].calls;
    }
    printf("%d threads made %d calls on one client\n", THREADS, calls);
    CHECK(abws_client_free(shared) == ABWS_STATUS_OK, "client freed");
    return test_summary("threads");
}
