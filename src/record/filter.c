/* CUTAP_FILTER / `cutap trace -e`: which calls to record.
 *
 *   EXPR  := TERM[,TERM…]
 *   TERM  := [!]GLOB | [!]layer=driver|hidden
 *
 * GLOB is a shell pattern on the exported name (cuMem*, cuLaunchKernel*,
 * CONTEXT_LOCAL_STORAGE#*). A call is recorded when some positive term
 * selects it (or there is none) and no negative term does. Evaluated once
 * per id (at start, and when an id is made), never per call: an id left
 * out costs only the pass-through. */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cutap_internal.h"
#include "record_internal.h"

static char *active;   /* the expression in force, for ids made later */

static int layer_of(const char *s, size_t n)
{
    if (n == 6 && !strncmp(s, "driver", 6))
        return CUTAP_LAYER_DRIVER;
    if (n == 6 && !strncmp(s, "hidden", 6))
        return CUTAP_LAYER_HIDDEN;
    return -1;
}

/* Returns 1 when it matches, 0 when not, -1 for an invalid expression. */
static int eval(const char *expr, const char *name, int layer)
{
    int any_pos = 0, pos = 0, neg = 0;
    const char *p = expr;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int not = n && *p == '!';
        const char *t = p + not;
        size_t tn = n - (size_t)not;
        int m;
        if (!tn)
            return -1;
        if (tn > 6 && !strncmp(t, "layer=", 6)) {
            int l = layer_of(t + 6, tn - 6);
            if (l < 0)
                return -1;
            m = l == layer;
        } else {
            char pat[256];
            if (tn >= sizeof pat)
                return -1;
            memcpy(pat, t, tn);
            pat[tn] = 0;
            m = name && !fnmatch(pat, name, 0);
        }
        if (not)
            neg |= m;
        else {
            any_pos = 1;
            pos |= m;
        }
        p = e ? e + 1 : p + n;
    }
    return (!any_pos || pos) && !neg;
}

int cutap_filter_match(const char *expr, const char *name, int layer)
{
    return !expr || !*expr ? 1 : eval(expr, name, layer) == 1;
}

static int want(const char *name, int layer)
{
    return eval(active, name, layer) == 1;
}

int cutap_filter_apply(int client, const char *expr)
{
    if (!expr || !*expr)
        return cutap_enable(client, CUTAP_ID_ALL, 1);
    if (eval(expr, "", CUTAP_LAYER_DRIVER) < 0) {
        cutap_warn("invalid filter '%s' (terms: GLOB, !GLOB, layer=driver|hidden); nothing is recorded", expr);
        return -1;
    }
    if (!(active = strdup(expr)))
        return -1;
    cutap_client_set_filter(client, want);   /* first: no id made meanwhile is missed */
    uint32_t n = cutap_call_count();
    for (uint32_t id = 0; id < n; id++)
        if (want(cutap_call_name(id), cutap_call_layer(id)))
            cutap_enable(client, id, 1);
    return 0;
}
