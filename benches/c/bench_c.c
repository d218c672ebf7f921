/* B4 and B8 of docs/benchmarks.md, through the C API.
 *
 *   bench_c calls SETTINGS_JSON INVOICE_NUMBER N     -> {"calls":N,"seconds":S}
 *   bench_c download SETTINGS_JSON DOCUMENT_ID       -> {"bytes":B,"seconds":S,"base_kb":K,"peak_kb":P}
 *
 * `download` streams the document through a write callback that discards the bytes, and
 * reports the peak RSS (VmHWM) before and after. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abws.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The peak RSS of this process image (VmHWM, kB). Not getrusage's ru_maxrss: after
 * fork + exec that keeps the parent's peak, so a big parent would hide the download. */
static long peak_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kb = atol(line + 6);
            break;
        }
    }
    fclose(f);
    return kb;
}

static int discard(void *userdata, const uint8_t *data, size_t len) {
    (void)data;
    *(uint64_t *)userdata += len;
    return 0;
}

static int fail(abws_status st, abws_error *err) {
    fprintf(stderr, "abws: %s: %s\n", abws_status_name((int)st), err ? abws_error_message(err) : "");
    abws_error_free(err);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_c calls SETTINGS INVOICE N | bench_c download SETTINGS DOC_ID\n");
        return 2;
    }
    abws_client *client = NULL;
    abws_error *err = NULL;
    abws_status st = abws_client_new(argv[2], &client, &err);
    if (st != ABWS_STATUS_OK) return fail(st, err);

    if (strcmp(argv[1], "calls") == 0 && argc >= 5) {
        long n = atol(argv[4]);
        char params[256];
        snprintf(params, sizeof params, "{\"invoice_number\":\"%s\",\"region\":\"JP\"}", argv[3]);
        /* Warm-up (token, connection): at least 50 calls and 0.25 s, as benches/rust does. On
         * the benchmark VM a round trip runs up to 4x faster for ~60 ms after the machine has
         * idled, so a run timed at once would start in that spell (benches/analysis.md). */
        double w0 = now();
        for (int i = 0; i < 50 || now() - w0 < 0.25; i++) {
            char *json = NULL;
            st = abws_invoices_get_invoice_detail_by_invoice_number(client, params, &json, &err);
            if (st != ABWS_STATUS_OK) return fail(st, err);
            abws_string_free(json);
        }
        double t0 = now();
        for (long i = 0; i < n; i++) {
            char *json = NULL;
            st = abws_invoices_get_invoice_detail_by_invoice_number(client, params, &json, &err);
            if (st != ABWS_STATUS_OK) return fail(st, err);
            abws_string_free(json);
        }
        double t1 = now();
        printf("{\"calls\":%ld,\"seconds\":%.6f}\n", n, t1 - t0);
    } else if (strcmp(argv[1], "download") == 0) {
        char params[512];
        snprintf(params, sizeof params, "{\"report_document_id\":\"%s\"}", argv[3]);
        long base = peak_kb();
        uint64_t seen = 0, written = 0;
        double t0 = now();
        st = abws_documents_download(client, params, discard, &seen, &written, &err);
        double t1 = now();
        if (st != ABWS_STATUS_OK) return fail(st, err);
        printf("{\"bytes\":%llu,\"seconds\":%.6f,\"base_kb\":%ld,\"peak_kb\":%ld}\n",
               (unsigned long long)seen, t1 - t0, base, peak_kb());
    } else {
        fprintf(stderr, "unknown mode %s\n", argv[1]);
        return 2;
    }
    abws_client_free(client);
    return 0;
}
