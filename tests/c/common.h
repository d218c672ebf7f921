/* Helpers shared by the C tests: settings from the environment (written by
 * scripts/test-c.sh from the sandbox's JSON line), checks that count failures, and a
 * tiny string search for ids in result JSON (the tests need no JSON library). */
#ifndef ABWS_TEST_COMMON_H
#define ABWS_TEST_COMMON_H

/* strdup, pthreads, nanosleep: POSIX, not in strict C11. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "abws.h"

static int test_failures = 0;
static int test_checks = 0;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        test_checks++;                                                         \
        if (!(cond)) {                                                         \
            test_failures++;                                                   \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
        }                                                                      \
    } while (0)

/* An environment variable the test script sets; exits when it is missing. */
static inline const char *env_required(const char *name) {
    const char *v = getenv(name);
    if (v == NULL || *v == '\0') {
        fprintf(stderr, "missing environment variable %s (run scripts/test-c.sh)\n", name);
        exit(2);
    }
    return v;
}

/* Prints and frees an error; returns its status. */
static inline abws_status report_error(const char *what, abws_status st, abws_error *err) {
    if (st != ABWS_STATUS_OK) {
        fprintf(stderr, "%s: status %u (%s): %s\n", what, (unsigned)st, abws_status_name(st),
                err ? abws_error_message(err) : "(no error object)");
    }
    abws_error_free(err);
    return st;
}

/* POSTs `body` to the sandbox's control address `path` (loopback http, one request). */
static inline int sandbox_post(const char *path, const char *body) {
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

/* A new client of `settings` (JSON); exits on failure. */
static inline abws_client *new_client(const char *settings) {
    abws_client *client = NULL;
    abws_error *err = NULL;
    abws_status st = abws_client_new(settings, &client, &err);
    if (st != ABWS_STATUS_OK) {
        report_error("abws_client_new", st, err);
        exit(1);
    }
    return client;
}

/* A new client from ABWS_TEST_SETTINGS; exits on failure. */
static inline abws_client *test_client(void) {
    return new_client(env_required("ABWS_TEST_SETTINGS"));
}

/* Copies the text value of the nth (0-based) occurrence of "key":"..." into out.
 * Returns the position after it, or NULL when there is no such occurrence. */
static inline const char *json_string_at(const char *json, const char *key, int nth, char *out,
                                  size_t cap) {
    char needle[128];
    snprintf(needle, sizeof needle, "\"%s\":", key);
    const char *p = json;
    for (int i = 0;;) {
        p = strstr(p, needle);
        if (p == NULL) return NULL;
        p += strlen(needle);
        while (*p == ' ') p++; /* json.dumps writes "key": "value" */
        if (*p != '"') continue; /* not a text value: not an occurrence */
        p++;
        if (i++ == nth) break;
    }
    size_t n = 0;
    while (*p && *p != '"') {
        if (*p == '\\' && p[1]) p++;
        if (n + 1 < cap) out[n++] = *p;
        p++;
    }
    out[n] = '\0';
    return p;
}

/* A product and its featured offer from product search: their ASIN (32 bytes) and offer
 * id (128 bytes); exits when the search fails or finds none. */
static inline void find_offer(const abws_client *client, char asin[32], char offer[128]) {
    char *found = NULL;
    abws_error *err = NULL;
    abws_status st = abws_products_search_products_request(
        client,
        "{\"product_region\":\"JP\",\"locale\":\"ja-JP\",\"keywords\":[\"cable\"],"
        "\"facets\":[\"OFFERS\"],\"page_size\":5}",
        &found, &err);
    if (st != ABWS_STATUS_OK) {
        report_error("search_products_request", st, err);
        exit(1);
    }
    asin[0] = offer[0] = '\0';
    json_string_at(found, "asin", 0, asin, 32);
    json_string_at(found, "offerId", 0, offer, 128);
    abws_string_free(found);
    if (!asin[0] || !offer[0]) {
        fprintf(stderr, "search found no product with an offer\n");
        exit(1);
    }
}

/* How often needle occurs in text. */
static inline int count_of(const char *text, const char *needle) {
    int n = 0;
    size_t len = strlen(needle);
    for (const char *p = strstr(text, needle); p; p = strstr(p + len, needle)) n++;
    return n;
}

/* A growable byte buffer. */
typedef struct {
    unsigned char *data;
    size_t len;
    size_t cap;
} buffer;

static inline int buffer_append(buffer *b, const void *data, size_t len) {
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1) cap *= 2;
        unsigned char *p = realloc(b->data, cap);
        if (p == NULL) return -1;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

static inline void buffer_free(buffer *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* Walks a pager to its end, appending every page to `out`; returns the page count. A page
 * that fails (`what` names the listing) fails the test and ends the walk. */
static inline int drain(abws_pager *pager, const char *what, buffer *out) {
    int pages = 0;
    for (;;) {
        char *page = NULL;
        abws_error *err = NULL;
        abws_status st = abws_pager_next(pager, &page, &err);
        if (st != ABWS_STATUS_OK) {
            report_error(what, st, err);
            CHECK(0, "%s failed on page %d", what, pages + 1);
            return pages;
        }
        if (page == NULL) return pages; /* the listing is complete */
        pages++;
        buffer_append(out, page, strlen(page));
        CHECK(abws_string_free(page) == ABWS_STATUS_OK, "page string freed once");
    }
}

/* Formats into a fixed buffer (params JSON built from ids). */
static inline const char *fmt(char *buf, size_t cap, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    vsnprintf(buf, cap, format, ap);
    va_end(ap);
    return buf;
}

/* The params of a place_order of one unit of the offer find_offer finds, as external id
 * "<prefix>-<process id>" (one of its own each run); written into out. */
static inline const char *one_unit_order(const abws_client *client, const char *prefix, char *out,
                                         size_t cap) {
    char asin[32], offer[128];
    find_offer(client, asin, offer);
    return fmt(out, cap,
               "{\"external_id\":\"%s-%ld\",\"line_items\":[{\"external_id\":\"1\","
               "\"quantity\":1,\"attributes\":["
               "{\"attributeType\":\"SelectedProductReference\",\"productReference\":{\"id\":\"%s\"}},"
               "{\"attributeType\":\"SelectedBuyingOptionReference\",\"buyingOptionReference\":"
               "{\"id\":\"%s\"}}],\"expectations\":[]}],\"attributes\":[],\"expectations\":[]}",
               prefix, (long)getpid(), asin, offer);
}

/* Every client, pager, error and string the test received has been freed: a forgotten
 * one stays reachable from the library's handle registry, so valgrind would not call
 * it lost; the library counts them instead. */
static inline void check_nothing_left(void) {
    size_t clients = 1, pagers = 1, errors = 1, strings = 1;
    CHECK(abws_live_objects(&clients, &pagers, &errors, &strings) == ABWS_STATUS_OK,
          "abws_live_objects");
    CHECK(clients == 0 && pagers == 0 && errors == 0 && strings == 0,
          "left unfreed: %zu clients, %zu pagers, %zu errors, %zu strings", clients, pagers,
          errors, strings);
}

static inline int test_summary(const char *name) {
    check_nothing_left();
    if (test_failures) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, test_failures, test_checks);
        return 1;
    }
    printf("%s: %d checks passed\n", name, test_checks);
    return 0;
}

#endif
