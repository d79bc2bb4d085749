/* A CUPTI client in the traced process, as nsys, the PyTorch profiler or a
 * referee is (issue #25): loaded with LD_PRELOAD, it subscribes to the
 * (fake) libcupti's runtime domain at load time and counts the reports it
 * gets. At exit it prints to stderr
 *   CLIENT entries E exits X uid_bad U names N
 * E/X: runtime-API entries and exits it got; U: reports whose contextUid
 * the driver's #4 had not filled (cutap must call the driver's #4 before
 * its #1); N: entries per function name, "name:count" sorted.
 * CLIENT_OFF_AT=K: after K entries the client disables the runtime domain
 * again (the driver's words go back to 0: later reports must not reach it). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_min.h"

typedef void (*cb_fn)(void *, int, uint32_t, const void *);

static _Atomic long entries, exits, uid_bad, off_at = -1;
static int (*enable_domain)(uint32_t, void *, int);
static void *sub;
#define NAMES 32
static struct { const char *name; _Atomic long n; } names[NAMES];

static void count_name(const char *n)
{
    for (int i = 0; i < NAMES && n; i++) {
        const char *cur = __atomic_load_n(&names[i].name, __ATOMIC_ACQUIRE);
        if (!cur) {
            const char *expected = NULL;
            if (!__atomic_compare_exchange_n(&names[i].name, &expected, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                cur = expected;
            else
                cur = n;
        }
        if (!strcmp(cur, n)) {
            names[i].n++;
            return;
        }
    }
}

static void callback(void *u, int domain, uint32_t cbid, const void *data)
{
    (void)u, (void)cbid;
    const struct cupti_min_cbdata *d = data;
    if (domain != 2 || !d)
        return;
    if (d->contextUid != 7)
        uid_bad++;
    if (d->callbackSite == 0) {
        long e = ++entries;
        count_name(d->functionName);
        if (e == off_at && enable_domain)
            enable_domain(0, sub, 2);
    } else {
        exits++;
    }
}

__attribute__((constructor)) static void client_start(void)
{
    const char *k = getenv("CLIENT_OFF_AT");
    if (k)
        off_at = atol(k);
    void *h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_GLOBAL);
    int (*subscribe)(void **, cb_fn, void *) = h ? (int (*)(void **, cb_fn, void *))dlsym(h, "cuptiSubscribe") : NULL;
    enable_domain = h ? (int (*)(uint32_t, void *, int))dlsym(h, "cuptiEnableDomain") : NULL;
    if (!subscribe || !enable_domain || subscribe(&sub, callback, NULL) || enable_domain(1, sub, 2))
        fprintf(stderr, "CLIENT cannot subscribe\n");
}

static int by_name(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    return strcmp(x, y);
}

__attribute__((destructor)) static void client_end(void)
{
    char line[NAMES][96];
    const char *p[NAMES];
    int n = 0;
    for (int i = 0; i < NAMES && names[i].name; i++, n++) {
        snprintf(line[n], sizeof line[n], "%s:%ld", names[i].name, (long)names[i].n);
        p[n] = line[n];
    }
    qsort(p, (size_t)n, sizeof *p, by_name);
    fprintf(stderr, "CLIENT entries %ld exits %ld uid_bad %ld names", (long)entries, (long)exits, (long)uid_bad);
    for (int i = 0; i < n; i++)
        fprintf(stderr, " %s", p[i]);
    fprintf(stderr, "\n");
}
