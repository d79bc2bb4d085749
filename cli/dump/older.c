/* Decoding the calls of older CUDA majors (issue #28): which of the
 * generated sets (cli/generated/decode_older.c) holds the signature a call
 * was recorded with, by the soname its process bound the layer to or by
 * the parameters the trace describes. */
#include <stdio.h>
#include <string.h>

#include "dump_internal.h"

/* The older soname entry of a layer bound to soname (the last one asked
 * kept: a process binds each layer once), NULL: none. */
const struct dec_older *dec_older_of(int layer, const char *soname)
{
    static _Thread_local char last_so[64];
    static _Thread_local int last_layer = -1;
    static _Thread_local const struct dec_older *last;
    if (layer == last_layer && !strcmp(soname, last_so))
        return last;
    const struct dec_older *r = NULL;
    for (unsigned i = 0; i < dec_nolder && !r; i++)
        if (dec_older[i].layer == layer && !strcmp(dec_older[i].soname, soname))
            r = &dec_older[i];
    snprintf(last_so, sizeof last_so, "%s", soname);   /* longer ones: looked up again */
    last_layer = strlen(soname) < sizeof last_so ? layer : -1;
    last = r;
    return r;
}

/* Whether a signature as the file describes it ("k:name:type;...",
 * rec_name_id_slow) is fn's: the same parameter names and types. */
static int sig_matches(const struct dec_fn *fn, const char *sig)
{
    const char *p = sig;
    for (unsigned i = 0; i < fn->nargs; i++) {
        if (i && *p++ != ';')
            return 0;
        if (!p[0] || p[1] != ':')
            return 0;
        p += 2;
        size_t n = strlen(fn->args[i].name), t = strlen(fn->args[i].type);
        if (strncmp(p, fn->args[i].name, n) || p[n] != ':' || strncmp(p + n + 1, fn->args[i].type, t))
            return 0;
        p += n + 1 + t;
    }
    return !*p;
}

/* The variant of an older major whose signature the file gives name,
 * NULL: none (its set in *set). */
static const struct dec_fn *older_by_sig(const char *name, int layer, const char *sig, const struct dec_set **set)
{
    for (unsigned i = 0; i < dec_nolder; i++) {
        const struct dec_fn *v = dec_older[i].set && dec_older[i].layer == layer ? dec_find_fn(dec_older[i].set, name) : NULL;
        if (v && sig_matches(v, sig)) {
            *set = dec_older[i].set;
            return v;
        }
    }
    return NULL;
}

/* The signature of name n in set, the call's process binding its layer to
 * soname so (NULL: the pinned one, or not a layer); *rset: the set it is
 * in. A layer bound to an older major (CUTAP_META_LAYER): a function that
 * major declares otherwise is in its own set (the recorder typed it with
 * that signature); the others have the pinned one. A function the file
 * describes otherwise than the pinned headers (a static runtime of an
 * older major reporting by an older callback id): the variant of that
 * description. */
const struct dec_fn *dec_resolve(const struct tr_name *n, const char *sig, const struct dec_set *set,
                                 const char *so, const struct dec_set **rset)
{
    const struct dec_older *o = so ? dec_older_of(n->layer, so) : NULL;
    const struct dec_fn *fn = o && o->set ? dec_find_fn(o->set, n->name) : NULL;
    if (fn) {
        *rset = o->set;
        return fn;
    }
    *rset = set;
    fn = dec_find_fn(set, n->name);
    const struct dec_set *older;
    const struct dec_fn *v;
    if (fn && sig && set == &dec_layers && !sig_matches(fn, sig) && (v = older_by_sig(n->name, n->layer, sig, &older))) {
        *rset = older;
        return v;
    }
    return fn;
}
