/* The filter expression language (filter_expr.h). */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <string.h>

#include "cutap.h"
#include "filter_expr.h"

static int fail(const char **why, const char *what)
{
    if (why)
        *why = what;
    return -1;
}

int cutap_filter_eval(const char *expr, const char *name, int layer, const char **why)
{
    int any_pos = 0, pos = 0, neg = 0;
    if (!*expr)
        return fail(why, "empty filter");
    for (const char *p = expr;;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int not = n && *p == '!';
        const char *t = p + not;
        size_t tn = n - (size_t)not;
        int m;
        if (!tn)
            return fail(why, "empty term");
        if (tn >= 255)
            return fail(why, "term longer than 254 characters");
        if (tn >= 6 && !strncmp(t, "layer=", 6)) {
            if (tn == 12 && !strncmp(t + 6, "driver", 6))
                m = layer == CUTAP_LAYER_DRIVER;
            else if (tn == 12 && !strncmp(t + 6, "hidden", 6))
                m = layer == CUTAP_LAYER_HIDDEN;
            else
                return fail(why, "layer= takes driver or hidden");
        } else {
            char pat[256];
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
        if (!e)
            break;
        p = e + 1;
    }
    return (!any_pos || pos) && !neg;
}
