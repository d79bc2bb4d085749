/* Test plugin: for the first call of each runtime and library function
 * (cutap_enable_filter "layer=runtime"), prints on stderr what the plugin
 * API says of it while the call is made: "argnames NAME N P0:K0,P1:K1,..."
 * (cutap_call_nargs, cutap_call_arg's names and kinds), or "argnames NAME
 * untyped" for a call of CUTAP_CALL_UNTYPED (issue #28: the signature of
 * the major the layer is bound to). */
#include <stdio.h>
#include <string.h>

#include "cutap.h"

CUTAP_PLUGIN_NEGOTIATE()

static int me = -1;
static unsigned char seen[1 << 16];

static void post(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    (void)scratch;
    if (c->id < sizeof seen && seen[c->id]++)
        return;
    const char *name = cutap_call_name(c->id);
    if (c->flags & CUTAP_CALL_UNTYPED) {
        fprintf(stderr, "argnames %s untyped\n", name ? name : "?");
        return;
    }
    char line[2048];
    int n = cutap_call_nargs(c->id), len = snprintf(line, sizeof line, "argnames %s %d ", name ? name : "?", n);
    for (int i = 0; i < n && len < (int)sizeof line - 100; i++) {
        const cutap_arg_info_t *a = cutap_call_arg(c->id, (unsigned)i);
        len += snprintf(line + len, sizeof line - (size_t)len, "%s%s:%d", i ? "," : "", a ? a->name : "?",
                        a ? a->kind : -1);
    }
    fprintf(stderr, "%s%s\n", line, n ? "" : "-");
}

int cutap_plugin_init(unsigned api_version);
int cutap_plugin_init(unsigned api_version)
{
    if (api_version != CUTAP_API_VERSION || (me = cutap_register("argnames", NULL, post, NULL)) < 0)
        return 1;
    return cutap_enable_filter(me, "layer=runtime") ? 1 : 0;
}
