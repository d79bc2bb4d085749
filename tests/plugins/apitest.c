/* Test plugin for the callback API, version 2 (loaded through
 * CUTAP_PLUGINS; ids asked for by name, never compiled in):
 *  - rewrites an argument: cuMemAlloc_v2 of 12345 bytes becomes 54321;
 *  - skips a call and supplies its result: cuDeviceGetCount -> 42, 0;
 *  - sees nesting: depth and parent of cuDriverGetVersion;
 *  - a second client, enabled by a filter, sees the call the first skipped,
 *    flagged in its pre and its post, and cannot change its result;
 *  - a third client, unregistered at once, sees nothing.
 * Reports what it saw on stderr at exit, one "apitest:" line. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cutap.h"

CUTAP_PLUGIN_NEGOTIATE()

static int me = -1, second = -1, third = -1;
static int second_pre, second_post, second_skipped, third_calls, inner_result = -1;
static uint32_t id_alloc, id_count, id_version, id_attr;
static int modified, skipped, posts, nested_depth = -1, post_result_ok = 1;
static const char *nested_parent = "none";

static int pre(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    *scratch = 0xabcdef;
    if (c->id == id_alloc && c->args[1] == 12345) {
        c->args[1] = 54321;
        modified++;
    } else if (c->id == id_count) {
        int *n = (int *)(uintptr_t)c->args[0];
        if (!n)
            return CUTAP_PROCEED;   /* let the driver reject NULL */
        *n = 42;
        c->result = 0;
        skipped++;
        return CUTAP_SKIP;
    } else if (c->id == id_version && c->depth > 0) {
        nested_depth = (int)c->depth;
        nested_parent = c->parent ? cutap_call_name(c->parent->id) : "null";
    }
    return CUTAP_PROCEED;
}

typedef int (*untyped_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, double, double);

static void post(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    posts++;
    /* An untyped call made inside the post callback of an untyped call:
     * the trampoline must keep the outer call's frame (return address). */
    if (c->id == id_attr) {
        untyped_fn f = (untyped_fn)dlsym(RTLD_DEFAULT, "cuMemGetAttribute_v2");
        inner_result = f ? f(7, 0, 0, 0, 0, 0, 0, 9, 1.0, 2.0) : -2;   /* fake: 7 ^ 9 */
    }
    if (!(c->flags & CUTAP_CALL_SKIPPED) && *scratch != 0xabcdef)
        post_result_ok = 0;   /* scratch must survive from pre to post */
}

/* A second client after the first: when the first skips a call, this one
 * sees its pre and its post, flagged skipped; what it returns and the
 * results it writes do not reach the caller. */
static void second_saw(cutap_call_t *c, int *count, uint64_t result)
{
    ++*count;
    if (c->flags & CUTAP_CALL_SKIPPED) {
        second_skipped++;
        c->result = result;   /* void: the first client's result stands */
    }
}
static int pre2(cutap_call_t *c, void *ctx, uint64_t *s)
{
    (void)ctx, (void)s;
    second_saw(c, &second_pre, 77);
    return c->flags & CUTAP_CALL_SKIPPED ? CUTAP_SKIP : CUTAP_PROCEED;   /* a second skip: void */
}
static void post2(cutap_call_t *c, void *ctx, uint64_t *s) { (void)ctx, (void)s; second_saw(c, &second_post, 78); }
static int pre3(cutap_call_t *c, void *ctx, uint64_t *s) { (void)c, (void)ctx, (void)s; third_calls++; return CUTAP_PROCEED; }

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "apitest: modified=%d skipped=%d nested_depth=%d parent=%s posts=%d scratch=%s inner=%d pairs=%s "
            "second=%d second_skipped=%d unregistered=%d\n",
            modified, skipped, nested_depth, nested_parent, posts, post_result_ok ? "ok" : "lost", inner_result,
            second_pre == second_post ? "ok" : "unpaired", second_pre, second_skipped, third_calls);
}

int cutap_plugin_init(unsigned api_version);
int cutap_plugin_init(unsigned api_version)
{
    if (api_version != CUTAP_API_VERSION)
        return 1;
    me = cutap_register("apitest", pre, post, NULL);
    if (me < 0)
        return 2;
    id_alloc = cutap_lookup("cuMemAlloc_v2");
    id_count = cutap_lookup("cuDeviceGetCount");
    id_version = cutap_lookup("cuDriverGetVersion");
    id_attr = cutap_lookup("cuMemGetAttribute");
    static const char *const watch[] = {"cuMemAlloc_v2", "cuDeviceGetCount", "cuDriverGetVersion",
                                        "cuProfilerStart", "cuMemGetAttribute", "cuMemGetAttribute_v2"};
    for (unsigned i = 0; i < sizeof watch / sizeof *watch; i++)
        if (cutap_enable_name(me, watch[i], 1))
            return 4;
    if (cutap_enable_name(me, "cuNoSuchFunction", 1) != -1 || cutap_layer_lookup("cublas") < 2 ||
        strcmp(cutap_layer_name(cutap_layer_lookup("CUBLAS")), "cublas"))
        return 5;
    if ((second = cutap_register("apitest2", pre2, post2, NULL)) < 0)
        return 3;
    if (cutap_enable_filter(second, "cuDeviceGetCount,layer=nvml") || cutap_enable_filter(second, "layer=bogus") != -1)
        return 6;
    if ((third = cutap_register("apitest3", pre3, NULL, NULL)) < 0 || cutap_enable(third, CUTAP_ID_ALL, 1) ||
        cutap_unregister(third) || cutap_enable(third, CUTAP_ID_ALL, 1) != -1 || cutap_unregister(third) != -1)
        return 7;
    return 0;
}
