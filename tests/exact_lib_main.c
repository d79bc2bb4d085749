/* Exact pass-through of every function of the runtime and library layers
 * (cases generated in tests/generated/exact_lib_calls.c by
 * gen/lib_exact_test_generator.py), on the fake libraries
 * ($(BUILD)/fakelibs, tests/fake/fake_lib_core.c).
 *
 * For each layer: dlopen its fake by soname, RTLD_LOCAL; for each function:
 * dlsym it from that handle (with EXPECT_CUTAP=1 it must be cutap's
 * wrapper, not the fake's own function; without, the fake's own), call it,
 * and check that the fake saw exactly the argument words, exactly once,
 * on an aligned stack, and that the caller got exactly the fake's result.
 * Prints "CALL name" and "LAYER layer name" for every call (for the
 * runner's comparison with what cutap recorded) and "exact-lib: N checked,
 * M failed". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "exact_lib_internal.h"

static unsigned failed;
static int expect_cutap;
static const struct fake_lib_api *api;
static uint64_t count_before;

/* Pointer arguments: distinct addresses in zeroed memory that cutap may
 * read (strings, small structs) when it records the call. */
#define ARENA (4u << 20)
static unsigned char arena[ARENA] __attribute__((aligned(64)));

void *exact_lib_ptr(unsigned k) { return arena + (k * 64u) % (ARENA - 4096); }

__attribute__((format(printf, 2, 3))) static int fail(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "exact-lib: %s (%s): ", name, api->layer);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    failed++;
    return 1;
}

void *exact_lib_sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        fail(name, "dlsym found nothing");
        return NULL;
    }
    void *own = api->real_address(name);
    if (expect_cutap ? p == own : p != own) {
        if (expect_cutap)
            fail(name, "dlsym gave the fake's own function %p, not cutap's wrapper", p);
        else
            fail(name, "dlsym gave %p, not the fake's own function %p", p, own);
        return NULL;
    }
    return p;
}

uint64_t exact_lib_force(uint32_t id, uint64_t result)
{
    api->set_result(id, 1, result);
    count_before = api->count(id);
    return result;
}

int exact_lib_check(const char *name, uint32_t id, const uint64_t *want, unsigned n, uint64_t got, uint64_t forced,
                    int has_result)
{
    uint32_t lid;
    uint64_t args[FAKE_LIB_MAX_WORDS];
    unsigned ln = api->last(&lid, args);
    uint64_t calls = api->count(id) - count_before;
    api->set_result(id, 0, 0);
    printf("CALL %s\nLAYER %s %s\n", name, api->layer, name);
    if (calls != 1)
        return fail(name, "the library was called %llu times, want once", (unsigned long long)calls);
    if (lid != id || ln != n)
        return fail(name, "the library's last call is id %u with %u words, want id %u with %u", lid, ln, id, n);
    for (unsigned i = 0; i < n; i++)
        if (args[i] != want[i])
            return fail(name, "argument %u is 0x%llx, want 0x%llx", i, (unsigned long long)args[i],
                        (unsigned long long)want[i]);
    if (has_result && got != forced)
        return fail(name, "the caller got 0x%llx, the library returned 0x%llx", (unsigned long long)got,
                    (unsigned long long)forced);
    if (!api->last_stack_aligned())
        return fail(name, "the library ran on a misaligned stack");
    return 0;
}

int main(void)
{
    expect_cutap = getenv("EXPECT_CUTAP") && *getenv("EXPECT_CUTAP") == '1';
    unsigned checked = 0;
    for (unsigned l = 0; l < exact_lib_nlayers; l++) {
        const struct exact_lib_layer *L = &exact_lib_layers[l];
        void *h = dlopen(L->soname, RTLD_NOW | RTLD_LOCAL);
        fake_lib_api_fn get = h ? (fake_lib_api_fn)dlsym(h, "fake_lib_api") : NULL;
        if (!get) {
            fprintf(stderr, "exact-lib: %s: %s\n", L->soname, dlerror());
            return 2;
        }
        api = get();
        if (strcmp(api->layer, L->name) || api->n != L->ncases) {
            fprintf(stderr, "exact-lib: %s is the fake of %s with %u functions, want %s with %u\n", L->soname,
                    api->layer, api->n, L->name, L->ncases);
            return 2;
        }
        for (unsigned i = 0; i < L->ncases; i++, checked++)
            L->cases[i].run(h);
    }
    for (unsigned i = 0; i < ARENA; i++)
        if (arena[i]) {
            fprintf(stderr, "exact-lib: the argument arena was written at offset %u\n", i);
            failed++;
            break;
        }
    printf("exact-lib: %u checked, %u failed\n", checked, failed);
    return failed ? 1 : 0;
}
