/* Exact pass-through of every typed driver export (cases generated in
 * tests/generated/exact_calls.c). Run with cutap preloaded, once with no
 * client (fast path) and once with CUTAP_LOG (slow path through the
 * argument words). Prints "exact: N checked, M failed". */
#include <stdio.h>
#include <stdlib.h>

#include "exact_internal.h"

static unsigned failed, missing;

int exact_missing(const char *name)
{
    fprintf(stderr, "exact: %s: dlsym found nothing\n", name);
    missing++;
    return 1;
}

/* A different, non-zero result for each entry point: errors must reach
 * the caller unchanged. */
int exact_forced_result(uint32_t id)
{
    int r = 100 + (int)(id % 900);
    fake_set_result(id, r);
    return r;
}

int exact_check(const char *name, uint32_t id, const uint64_t *want, unsigned n, int got, int forced)
{
    uint32_t lid;
    uint64_t args[16];
    unsigned ln = fake_last(&lid, args);
    fake_set_result(id, 0);
    int bad = 0;
    if (lid != id || ln != n) {
        fprintf(stderr, "exact: %s: driver saw call %u with %u args, want %u with %u\n", name, lid, ln, id, n);
        bad = 1;
    }
    for (unsigned i = 0; !bad && i < n; i++)
        if (args[i] != want[i]) {
            fprintf(stderr, "exact: %s: argument %u is 0x%llx, want 0x%llx\n", name, i,
                    (unsigned long long)args[i], (unsigned long long)want[i]);
            bad = 1;
        }
    if (got != forced) {
        fprintf(stderr, "exact: %s: caller got %d, driver returned %d\n", name, got, forced);
        bad = 1;
    }
    if (!fake_last_stack_aligned()) {
        fprintf(stderr, "exact: %s: driver ran with a misaligned stack\n", name);
        bad = 1;
    }
    failed += (unsigned)bad;
    return bad;
}

int main(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "exact: %s\n", dlerror());
        return 2;
    }
    unsigned checked = 0;
    for (unsigned i = 0; i < exact_ncases; i++) {
        exact_cases[i].run(h);
        checked++;
    }
    printf("exact: %u checked, %u failed\n", checked, failed + missing);
    return failed + missing ? 1 : 0;
}
