/* CUTAP_FILTER / `cutap trace -e`: which calls to record (the language:
 * src/common/filter_expr.h). Evaluated once per id (at start, and when an
 * id is made), never per call: an id left out costs only the
 * pass-through. */
#include <stdlib.h>
#include <string.h>

#include "filter_expr.h"
#include "record_internal.h"

int cutap_filter_apply(int client, const char *expr)
{
    if (!expr || !*expr)
        return cutap_enable(client, CUTAP_ID_ALL, 1);
    const char *why = NULL;
    if (cutap_filter_eval(expr, "", CUTAP_LAYER_DRIVER, &why) < 0) {
        cutap_warn("invalid filter '%s': %s (terms: GLOB, !GLOB, layer=NAME); nothing is recorded", expr, why);
        return -1;
    }
    return cutap_enable_filter(client, expr);
}
