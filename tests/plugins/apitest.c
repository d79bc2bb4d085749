/* Test plugin for the callback API (loaded through CUTAP_PLUGINS):
 *  - rewrites an argument: cuMemAlloc_v2 of 12345 bytes becomes 54321;
 *  - skips a call and supplies its result: cuDeviceGetCount -> 42, 0;
 *  - sees nesting: depth and parent of cuDriverGetVersion.
 * Reports what it saw on stderr at exit, one "apitest:" line. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cutap.h"

static int me = -1, second = -1;
static int second_pre, second_post, inner_result = -1;
static int modified, skipped, posts, nested_depth = -1, post_result_ok = 1;
static const char *nested_parent = "none";

static int pre(cutap_call_t *c, void *ctx)
{
    (void)ctx;
    c->scratch[me] = 0xabcdef;
    if (c->id == CUTAP_ID_cuMemAlloc_v2 && c->args[1] == 12345) {
        c->args[1] = 54321;
        modified++;
    } else if (c->id == CUTAP_ID_cuDeviceGetCount) {
        int *n = (int *)(uintptr_t)c->args[0];
        if (!n)
            return CUTAP_PROCEED;   /* let the driver reject NULL */
        *n = 42;
        c->result = 0;
        skipped++;
        return CUTAP_SKIP;
    } else if (c->id == CUTAP_ID_cuDriverGetVersion && c->depth > 0) {
        nested_depth = (int)c->depth;
        nested_parent = c->parent ? cutap_call_name(c->parent->id) : "null";
    }
    return CUTAP_PROCEED;
}

typedef int (*untyped_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, double, double);

static void post(cutap_call_t *c, void *ctx)
{
    (void)ctx;
    posts++;
    /* An untyped call made inside the post callback of an untyped call:
     * the trampoline must keep the outer call's frame (return address). */
    if (c->id == CUTAP_ID_cuMemGetAttribute) {
        untyped_fn f = (untyped_fn)dlsym(RTLD_DEFAULT, "cuMemGetAttribute_v2");
        inner_result = f ? f(7, 0, 0, 0, 0, 0, 0, 9, 1.0, 2.0) : -2;   /* fake: 7 ^ 9 */
    }
    if (!(c->flags & CUTAP_CALL_SKIPPED) && c->scratch[me] != 0xabcdef)
        post_result_ok = 0;   /* scratch must survive from pre to post */
}

/* A second client after the first: when the first skips a call, this one
 * sees neither pre nor post of it. */
static int pre2(cutap_call_t *c, void *ctx) { (void)c, (void)ctx; second_pre++; return CUTAP_PROCEED; }
static void post2(cutap_call_t *c, void *ctx) { (void)c, (void)ctx; second_post++; }

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "apitest: modified=%d skipped=%d nested_depth=%d parent=%s posts=%d scratch=%s inner=%d pairs=%s\n",
            modified, skipped, nested_depth, nested_parent, posts, post_result_ok ? "ok" : "lost", inner_result,
            second_pre == second_post ? "ok" : "unpaired");
}

int cutap_plugin_init(unsigned api_version);
int cutap_plugin_init(unsigned api_version)
{
    if (api_version != CUTAP_API_VERSION)
        return 1;
    me = cutap_register("apitest", pre, post, NULL);
    if (me < 0)
        return 2;
    cutap_enable(me, CUTAP_ID_cuMemAlloc_v2, 1);
    cutap_enable(me, CUTAP_ID_cuDeviceGetCount, 1);
    cutap_enable(me, CUTAP_ID_cuDriverGetVersion, 1);
    cutap_enable(me, CUTAP_ID_cuProfilerStart, 1);
    cutap_enable(me, CUTAP_ID_cuMemGetAttribute, 1);
    cutap_enable(me, CUTAP_ID_cuMemGetAttribute_v2, 1);
    if ((second = cutap_register("apitest2", pre2, post2, NULL)) < 0)
        return 3;
    cutap_enable(second, CUTAP_ID_cuDeviceGetCount, 1);
    return 0;
}
