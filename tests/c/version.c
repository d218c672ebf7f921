/* The library loads from C and answers its version. */
#include <stdio.h>
#include <string.h>

#include "abws.h"

int main(void) {
    const char *v = abws_version();
    if (v == NULL || strlen(v) < 5 || strchr(v, '.') == NULL) {
        fprintf(stderr, "bad version string\n");
        return 1;
    }
    printf("abws %s\n", v);
    return 0;
}
