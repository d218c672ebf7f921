/* L11's resolver shim (LD_PRELOAD): `localhost` resolves to the comma-separated IP
 * literals in the file named by ABWS_SHIM_LOCALHOST_FILE, read at every lookup (so the
 * test can change the answer while the process runs); every other name resolves as usual.
 * Built with `cc -shared -fPIC` at test time by core/tests/it/reliability/security.rs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef int (*gai_fn)(const char *, const char *, const struct addrinfo *, struct addrinfo **);

static gai_fn real_gai(void) {
    static gai_fn real;
    if (!real) {
        real = (gai_fn)dlsym(RTLD_NEXT, "getaddrinfo");
    }
    return real;
}

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                struct addrinfo **res) {
    const char *file = getenv("ABWS_SHIM_LOCALHOST_FILE");
    if (!node || !file || strcasecmp(node, "localhost") != 0) {
        return real_gai()(node, service, hints, res);
    }
    char list[512] = {0};
    FILE *f = fopen(file, "r");
    if (!f) {
        return EAI_NONAME;
    }
    size_t n = fread(list, 1, sizeof list - 1, f);
    fclose(f);
    list[n] = 0;
    struct addrinfo numeric;
    memset(&numeric, 0, sizeof numeric);
    if (hints) {
        numeric = *hints;
    }
    numeric.ai_flags |= AI_NUMERICHOST;
    numeric.ai_flags &= ~AI_CANONNAME;
    struct addrinfo *head = NULL, **tail = &head;
    char *save = NULL;
    for (char *ip = strtok_r(list, ", \n", &save); ip; ip = strtok_r(NULL, ", \n", &save)) {
        struct addrinfo *one = NULL;
        struct addrinfo h = numeric;
        h.ai_family = AF_UNSPEC;
        if (real_gai()(ip, service, &h, &one) == 0 && one) {
            /* glibc frees each node of a list on its own, so lists can be chained. */
            *tail = one;
            while (*tail) {
                tail = &(*tail)->ai_next;
            }
        }
    }
    if (!head) {
        return EAI_NONAME;
    }
    *res = head;
    return 0;
}
