/* The library loads from C, answers its version — the workspace's, from Cargo.toml, which
 * scripts/test-c.sh passes in ABWS_TEST_VERSION — and the header's version macros agree
 * with it (rustls-ffi once composed its version number from MINOR twice). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abws.h"

int main(void) {
    const char *v = abws_version();
    if (v == NULL || strlen(v) < 5 || strchr(v, '.') == NULL) {
        fprintf(stderr, "bad version string\n");
        return 1;
    }
    const char *want = getenv("ABWS_TEST_VERSION");
    if (want == NULL || strcmp(v, want) != 0) {
        fprintf(stderr, "library %s, workspace (Cargo.toml) %s\n", v, want ? want : "not given");
        return 1;
    }
    if (strcmp(v, ABWS_VERSION_STRING) != 0) {
        fprintf(stderr, "library %s, header %s\n", v, ABWS_VERSION_STRING);
        return 1;
    }
    char composed[64];
    snprintf(composed, sizeof composed, "%d.%d.%d", ABWS_VERSION_MAJOR, ABWS_VERSION_MINOR,
             ABWS_VERSION_PATCH);
    if (strncmp(v, composed, strlen(composed)) != 0) {
        fprintf(stderr, "macros compose %s, library says %s\n", composed, v);
        return 1;
    }
    long number = ABWS_VERSION_NUMBER;
    long expected = ABWS_VERSION_MAJOR * 10000L + ABWS_VERSION_MINOR * 100L + ABWS_VERSION_PATCH;
    if (number != expected) {
        fprintf(stderr, "ABWS_VERSION_NUMBER %ld, expected %ld\n", number, expected);
        return 1;
    }
    printf("abws %s (header %s, number %ld)\n", v, ABWS_VERSION_STRING, number);
    return 0;
}
