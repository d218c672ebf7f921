/* The error paths of a release's library, as a program on its platform meets them
 * (scripts/release-test.sh runs it there: natively, under wine or under qemu):
 *   1. a missing parameter: ABWS_STATUS_VALIDATION naming the parameter, before any request;
 *   2. a wrong client secret (ABWS_BAD_SETTINGS): the sandbox refuses the token request,
 *      ABWS_STATUS_AUTH;
 *   3. nothing listening (ABWS_DEAD_SETTINGS): ABWS_STATUS_TRANSPORT.
 * Prints one line per check and exits non-zero when one fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abws.h"

static int failures = 0;

static void expect(const char *what, abws_status got, abws_status want, abws_error *err,
                   const char *parameter) {
    const char *param = err ? abws_error_parameter(err) : NULL;
    int ok = got == want && err != NULL &&
             (parameter == NULL || (param != NULL && strcmp(param, parameter) == 0));
    printf("%s: %s: %s (%s)\n", ok ? "ok" : "FAILED", what, abws_status_name(got),
           err ? abws_error_message(err) : "no error");
    if (!ok) failures++;
    abws_error_free(err);
}

/* Lists one page with `settings` and returns the status of the first page. */
static abws_status first_page(const char *settings, const char *params, abws_error **err) {
    abws_client *client = NULL;
    abws_status st = abws_client_new(settings, &client, err);
    if (st != ABWS_STATUS_OK) return st;
    abws_pager *pager = NULL;
    st = abws_invoices_iter_invoices(client, params, &pager, err);
    if (st == ABWS_STATUS_OK) {
        char *page = NULL;
        st = abws_pager_next(pager, &page, err);
        abws_string_free(page);
        abws_pager_free(pager);
    }
    abws_client_free(client);
    return st;
}

int main(void) {
    const char *settings = getenv("ABWS_SETTINGS");
    const char *bad = getenv("ABWS_BAD_SETTINGS");
    const char *dead = getenv("ABWS_DEAD_SETTINGS");
    if (settings == NULL || bad == NULL || dead == NULL) {
        fprintf(stderr, "usage: ABWS_SETTINGS=... ABWS_BAD_SETTINGS=... ABWS_DEAD_SETTINGS=... errors\n");
        return 2;
    }
    const char *range = "{\"invoice_issue_start_date\":\"2026-01-01T00:00:00Z\","
                        "\"invoice_issue_end_date\":\"2026-01-31T23:59:59Z\"}";
    abws_error *err = NULL;
    abws_status st = first_page(settings, "{\"invoice_issue_start_date\":\"2026-01-01T00:00:00Z\"}", &err);
    expect("a missing end date", st, ABWS_STATUS_VALIDATION, err, "invoice_issue_end_date");
    err = NULL;
    st = first_page(bad, range, &err);
    expect("a wrong client secret", st, ABWS_STATUS_AUTH, err, NULL);
    err = NULL;
    st = first_page(dead, range, &err);
    expect("nothing listening", st, ABWS_STATUS_TRANSPORT, err, NULL);
    printf("%d of 3 error paths as expected (libabws %s)\n", 3 - failures, abws_version());
    return failures != 0;
}
