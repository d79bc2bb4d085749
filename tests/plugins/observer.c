/* Test plugin built with -fvisibility=hidden (tests/tests.mk), as most
 * plugins are: its entry points are exported only through cutap.h's
 * declarations. An observer loaded after tests/plugins/apitest.c (which
 * skips one cuDeviceGetCount): it sees every cuDeviceGetCount, the skipped
 * one with CUTAP_CALL_SKIPPED set in pre and post, and tries to change
 * that call's result in both (which must not reach the caller: t_api
 * checks what it got). An exit hook prints one "observer:" line.
 * OBSERVER_FAIL=N: its init returns N. */
#include <stdio.h>
#include <stdlib.h>

#include "cutap.h"

CUTAP_PLUGIN_NEGOTIATE()

static int me = -1, inits;
static int pres, posts, skipped_pre, skipped_post;

static int pre(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    pres++;
    *scratch = 7;
    if (c->flags & CUTAP_CALL_SKIPPED) {
        skipped_pre++;
        c->result = 999;   /* void: the skipping client's result stands */
        return CUTAP_PROCEED;
    }
    return CUTAP_PROCEED;
}

static void post(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    posts += *scratch == 7;
    if (c->flags & CUTAP_CALL_SKIPPED) {
        skipped_post++;
        c->result = 998;   /* void too */
    }
}

static void at_exit(void *ctx)
{
    (void)ctx;
    printf("observer: inits=%d pre=%d post=%d skipped_pre=%d skipped_post=%d\n", inits, pres, posts, skipped_pre,
           skipped_post);
    fflush(stdout);
}

int cutap_plugin_init(unsigned api_version)
{
    inits++;
    const char *f = getenv("OBSERVER_FAIL");
    if (f && atoi(f))
        return atoi(f);
    if (api_version != CUTAP_API_VERSION || (me = cutap_register("observer", pre, post, NULL)) < 0)
        return 1;
    if (cutap_enable_name(me, "cuDeviceGetCount", 1) || cutap_on_exit(me, at_exit) || cutap_on_exit(-1, at_exit) != -1)
        return 2;
    return 0;
}
