/* LD_PRELOAD shim for reliability scenario E9 (a stand-in for libfaketime, which CI lacks):
 * shifts the wall clock (CLOCK_REALTIME*, gettimeofday, time) by an offset in seconds that is
 * re-read on every call from the file named by ABWS_WALLCLOCK_OFFSET_FILE, so the parent
 * process can jump the child's wall clock while it runs. Monotonic clocks are left untouched.
 * Built by the harness: cc -shared -fPIC -O2 -o shim.so wallclock_shim.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct wall_tv {
    time_t tv_sec;
    long tv_usec;
};

static long long offset_seconds(void) {
    const char *path = getenv("ABWS_WALLCLOCK_OFFSET_FILE");
    if (!path) return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[32];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    return strtoll(buf, NULL, 10);
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int r = real(id, ts);
    if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
        ts->tv_sec += offset_seconds();
    return r;
}

int gettimeofday(struct wall_tv *tv, void *tz) {
    static int (*real)(struct wall_tv *, void *);
    if (!real) real = (int (*)(struct wall_tv *, void *))dlsym(RTLD_NEXT, "gettimeofday");
    int r = real(tv, tz);
    if (r == 0 && tv) tv->tv_sec += offset_seconds();
    return r;
}

time_t time(time_t *out) {
    static time_t (*real)(time_t *);
    if (!real) real = (time_t (*)(time_t *))dlsym(RTLD_NEXT, "time");
    time_t t = real(NULL);
    if (t != (time_t)-1) t += offset_seconds();
    if (out) *out = t;
    return t;
}
