/* The filter expression language (filter_expr.h). */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cutap.h"
#include "generated/cutap_ids.h"
#include "filter_expr.h"

static const char *const layer_names[] = CUTAP_LAYER_NAMES;
#define NLAYERS (sizeof layer_names / sizeof layer_names[0])

/* The layer named by the n bytes at s: a name of CUTAP_LAYER_NAMES, in any
 * case (the names differ in more than case: cublas, cublasLt); -1 if none. */
static int layer_of(const char *s, size_t n)
{
    for (size_t i = 0; i < NLAYERS; i++)
        if (strlen(layer_names[i]) == n && !strncasecmp(s, layer_names[i], n))
            return (int)i;
    return -1;
}

/* "layer= takes driver, hidden, runtime, ...", from the generated list so
 * that it names every layer. Built on the first invalid term: the library
 * checks its expression once, before any thread evaluates it (and a valid
 * expression never comes here), the command is single-threaded. */
static const char *layer_names_msg(void)
{
    static char msg[256];
    if (!msg[0]) {
        size_t len = (size_t)snprintf(msg, sizeof msg, "layer= takes");
        for (size_t i = 0; i < NLAYERS && len < sizeof msg; i++)
            len += (size_t)snprintf(msg + len, sizeof msg - len, "%s %s", i ? "," : "", layer_names[i]);
    }
    return msg;
}

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
            int l = layer_of(t + 6, tn - 6);
            if (l < 0)
                return fail(why, layer_names_msg());
            m = layer == l;
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
