/* CUTAP_FILTER / `cutap trace -e`: which calls to record (the language:
 * src/common/filter_expr.h). Evaluated once per id (at start, and when an
 * id is made), never per call: an id left out costs only the
 * pass-through. */
#include <stdlib.h>
#include <string.h>

#include "cutap_internal.h"
#include "filter_expr.h"
#include "record_internal.h"

static char *active;   /* the expression in force, for ids made later */

static int want(const char *name, int layer)
{
    return cutap_filter_eval(active, name, layer, NULL) == 1;
}

int cutap_filter_apply(int client, const char *expr)
{
    if (!expr || !*expr)
        return cutap_enable(client, CUTAP_ID_ALL, 1);
    const char *why = NULL;
    if (cutap_filter_eval(expr, "", CUTAP_LAYER_DRIVER, &why) < 0) {
        cutap_warn("invalid filter '%s': %s (terms: GLOB, !GLOB, layer=NAME); nothing is recorded", expr, why);
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
