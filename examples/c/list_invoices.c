/* A complete C program: list every invoice of a date range, page by page.
 *
 *   cc list_invoices.c $(pkg-config --cflags --libs abws) -o list_invoices
 *   ABWS_SETTINGS='{"region":"JP","client_id":"...","client_secret":"...",
 *                   "refresh_token":"...","endpoint":"https://...","auth_endpoint":"https://..."}' \
 *     ./list_invoices 2026-10-01 2026-10-31
 *
 * Every call returns an abws_status; on failure the optional abws_error tells why.
 * Every string the library returns is freed with abws_string_free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abws.h"

static int fail(const char *what, abws_status status, abws_error *err) {
    fprintf(stderr, "%s failed (%s): %s\n", what, abws_status_name(status),
            err ? abws_error_message(err) : "");
    abws_error_free(err);
    return 1;
}

int main(int argc, char **argv) {
    const char *settings = getenv("ABWS_SETTINGS");
    if (settings == NULL || argc < 3) {
        fprintf(stderr, "usage: ABWS_SETTINGS='{...}' %s START_DATE END_DATE\n", argv[0]);
        return 2;
    }
    abws_client *client = NULL;
    abws_error *err = NULL;
    abws_status st = abws_client_new(settings, &client, &err);
    if (st != ABWS_STATUS_OK) return fail("abws_client_new", st, err);

    char params[256];
    snprintf(params, sizeof params,
             "{\"invoice_issue_start_date\":\"%sT00:00:00Z\",\"invoice_issue_end_date\":\"%sT23:59:59Z\"}",
             argv[1], argv[2]);
    abws_pager *pager = NULL;
    st = abws_invoices_iter_invoices(client, params, &pager, &err);
    if (st != ABWS_STATUS_OK) {
        abws_client_free(client);
        return fail("abws_invoices_iter_invoices", st, err);
    }

    int pages = 0, invoices = 0;
    for (;;) {
        char *page = NULL;
        st = abws_pager_next(pager, &page, &err);
        if (st != ABWS_STATUS_OK) {
            abws_pager_free(pager);
            abws_client_free(client);
            return fail("abws_pager_next", st, err);
        }
        if (page == NULL) break; /* the listing is complete */
        pages++;
        /* A real program parses the JSON page; this one prints the invoice numbers. */
        const char *key = "\"invoiceNumber\":\"";
        for (const char *p = strstr(page, key); p; p = strstr(p, key)) {
            p += strlen(key);
            printf("%.*s\n", (int)strcspn(p, "\""), p);
            invoices++;
        }
        abws_string_free(page);
    }
    printf("%d invoices on %d pages (libabws %s)\n", invoices, pages, abws_version());
    abws_pager_free(pager);
    abws_client_free(client);
    return 0;
}
