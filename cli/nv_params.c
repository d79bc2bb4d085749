/* RM parameter blocks by field (issue #32; nv_params.h): finding the
 * CUTAP_META_PARAMS record behind a call, and showing it by the layouts
 * generated from the 580 headers.
 *
 * What is shown: the leaves of the layout (scalars, strings, unions) that
 * are not zero before or after the call, with their path (a.b[3].c); a
 * sub-object whose bytes are all zero both times is left out whole, so
 * a 70-entry list with 2 entries used shows 2. A leaf the driver changed
 * shows before→after. A union shows its bytes in hex (x'0102...'): which
 * member is meant depends on other fields the layout does not tie to it.
 * A char array is a string (up to its NUL). Leaves past the bytes copied
 * (a block cut at CUTAP_PARAMS_MAX) are not shown; the line says it was
 * cut. The file is never trusted: the record's sizes were checked when it
 * was found, every offset here against the bytes copied. */
#include <string.h>

#include "cli.h"
#include "nv_params.h"

int nvp_block_of(const struct trace *tr, const struct tr_call *c, struct nvp_block *b)
{
    if (tr->names[c->name].layer != CUTAP_LAYER_IOCTL || (c->rflags & TR_RF_RANGE))
        return 0;
    const struct tr_proc *p = &tr->procs[tr->threads[c->thread].proc];
    const uint8_t *r = (const uint8_t *)c->rec;
    size_t hs = p->h.header_size, cs = p->h.chunk_size;
    if (!p->map || r < p->map + hs || r >= p->map + p->size || cs < CUTAP_SLOT || hs > p->size)
        return 0;   /* not in the mapping: a follower's copy */
    size_t off = (size_t)(r - p->map), end = hs + ((off - hs) / cs + 1) * cs;
    if (end > p->size)
        end = p->size;
    size_t at = off + (size_t)c->rec->nslots * CUTAP_SLOT;
    if (at + CUTAP_SLOT > end)
        return 0;
    const struct cutap_rec_meta *m = (const void *)(p->map + at);
    size_t room = 40 + (size_t)CUTAP_SLOT * (m->nslots - 1u);   /* its text */
    if (m->kind != CUTAP_REC_META || m->sub != CUTAP_META_PARAMS || !m->nslots ||
        (end - at) / CUTAP_SLOT < m->nslots || m->aux != c->rec->id || m->key != c->rec->t0)
        return 0;
    memcpy(&b->h, m->text, sizeof b->h);
    if (b->h.len > CUTAP_PARAMS_MAX || b->h.len > b->h.size || sizeof b->h + 2 * (size_t)b->h.len > room)
        return 0;
    const uint8_t *bytes = (const uint8_t *)m->text + sizeof b->h;
    b->before = b->h.state & CUTAP_PARAMS_BEFORE ? bytes : NULL;
    b->after = b->h.state & CUTAP_PARAMS_AFTER ? bytes + b->h.len : NULL;
    return 1;
}

int nvp_type_of(unsigned kind, uint32_t what)
{
    const struct cutap_nvp_root *r = kind == CUTAP_PARAMS_CONTROL ? cutap_nvp_ctrls : cutap_nvp_classes;
    size_t lo = 0, hi = kind == CUTAP_PARAMS_CONTROL ? cutap_nvp_nctrls : kind == CUTAP_PARAMS_ALLOC ? cutap_nvp_nclasses : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].key < what)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < (kind == CUTAP_PARAMS_CONTROL ? cutap_nvp_nctrls : cutap_nvp_nclasses) && r[lo].key == what
               ? (int)r[lo].type
               : -1;
}

static const char *str_at(uint32_t off) { return off < cutap_nvp_strings_size ? cutap_nvp_strings + off : ""; }

/* --- values ------------------------------------------------------------- */

enum { OUT_TEXT, OUT_JSON, OUT_JSON_CHANGED };
struct walk {
    FILE *f;
    int mode;
    const uint8_t *b, *a;      /* before, after (either may be NULL) */
    size_t len;
    char path[256];
    size_t plen;
    unsigned shown;
};

static uint64_t le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    memcpy(&v, p, n < 8 ? n : 8);
    return v;
}

/* One value of type t at p (t->size bytes, inside the block). */
static void put_value(FILE *f, int json, const struct cutap_nvp_type *t, const uint8_t *p)
{
    uint64_t v = le(p, t->size);
    switch (t->kind) {
    case CUTAP_NVP_S: {
        unsigned sh = t->size >= 8 ? 0 : 64 - 8 * t->size;
        text_i64(f, (int64_t)(v << sh) >> sh);
        return;
    }
    case CUTAP_NVP_BOOL:
        out_s(v == 1 ? "true" : v == 0 ? "false" : "", f);
        if (v > 1)
            text_u64(f, v);
        return;
    case CUTAP_NVP_FLOAT: {
        double d;
        if (t->size == 4) {
            float x;
            memcpy(&x, p, 4);
            d = x;
        } else {
            memcpy(&d, p, 8);
        }
        if (d != d || d - d != 0)
            out_s(json ? "null" : "nan", f);   /* JSON has no NaN or infinity */
        else
            fprintf(f, "%.9g", d);
        return;
    }
    case CUTAP_NVP_ENUM:
        for (uint32_t i = t->first; i < t->first + t->n && i < cutap_nvp_nenumerators; i++)
            if ((uint64_t)cutap_nvp_enumerators[i].value == v) {
                if (json)
                    json_str(f, str_at(cutap_nvp_enumerators[i].name));
                else
                    out_s(str_at(cutap_nvp_enumerators[i].name), f);
                return;
            }
        text_u64(f, v);
        return;
    case CUTAP_NVP_HANDLE:
    case CUTAP_NVP_PTR:
        if (json)
            out_c('"', f);
        text_hex(f, v);
        if (json)
            out_c('"', f);
        return;
    case CUTAP_NVP_UNION:
    case CUTAP_NVP_ARRAY: {   /* a union's bytes; a char array's string */
        char buf[4 * 256 + 8];
        const struct cutap_nvp_type *e = t->kind == CUTAP_NVP_ARRAY && t->first < cutap_nvp_ntypes ? &cutap_nvp_types[t->first] : NULL;
        if (e && e->kind == CUTAP_NVP_CHAR) {
            size_t n = t->size < 256 ? t->size : 256, k = strnlen((const char *)p, n);
            char s[257];
            memcpy(s, p, k);
            s[k] = 0;
            if (json) {
                json_str(f, s);
            } else {
                tr_escape(buf, sizeof buf, s);
                fprintf(f, "\"%s\"", buf);
            }
            return;
        }
        size_t n = t->size < 64 ? t->size : 64, k = 0;
        k += (size_t)snprintf(buf, sizeof buf, "%sx'", json ? "\"" : "");
        for (size_t i = 0; i < n; i++)
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%02x", p[i]);
        snprintf(buf + k, sizeof buf - k, "%s'%s", t->size > 64 ? "..." : "", json ? "\"" : "");
        out_s(buf, f);
        return;
    }
    default:   /* U, CHAR */
        if (json || v < 0x10000)
            text_u64(f, v);
        else
            text_hex(f, v);
    }
}

static int zero(const uint8_t *p, size_t off, size_t n)
{
    if (!p)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (p[off + i])
            return 0;
    return 1;
}

static void leaf(struct walk *w, const struct cutap_nvp_type *t, size_t off)
{
    const uint8_t *b = w->b ? w->b + off : NULL, *a = w->a ? w->a + off : NULL;
    int changed = b && a && memcmp(b, a, t->size);
    if (w->mode == OUT_JSON_CHANGED && !changed)
        return;
    FILE *f = w->f;
    if (w->mode == OUT_TEXT) {
        out_s(w->shown ? ", " : " ", f);
        out_mem(f, w->path, w->plen);
        out_c('=', f);
        put_value(f, 0, t, b ? b : a);
        if (changed) {
            out_s("\xe2\x86\x92", f);   /* → */
            put_value(f, 0, t, a);
        }
    } else {
        out_s(w->shown ? "," : "", f);
        out_c('"', f);
        out_mem(f, w->path, w->plen);   /* names and digits only: nothing to escape */
        out_s("\":", f);
        if (w->mode == OUT_JSON_CHANGED) {
            out_c('[', f);
            put_value(f, 1, t, b);
            out_c(',', f);
            put_value(f, 1, t, a);
            out_c(']', f);
        } else {
            put_value(f, 1, t, a ? a : b);
        }
    }
    w->shown++;
}

/* Type ti at off: its leaves, where not all zero both times. */
static void walk(struct walk *w, uint32_t ti, size_t off, unsigned depth)
{
    if (ti >= cutap_nvp_ntypes || depth > 24 || off >= w->len)
        return;
    const struct cutap_nvp_type *t = &cutap_nvp_types[ti];
    size_t n = t->size < w->len - off ? t->size : w->len - off;
    if (zero(w->b, off, n) && zero(w->a, off, n))
        return;
    size_t plen = w->plen;
    if (t->kind == CUTAP_NVP_STRUCT) {
        for (uint32_t i = t->first; i < t->first + t->n && i < cutap_nvp_nmembers; i++) {
            const struct cutap_nvp_member *m = &cutap_nvp_members[i];
            const char *name = str_at(m->name);
            size_t k = strlen(name);
            if (plen + k + 2 >= sizeof w->path)
                continue;
            if (*name) {   /* an anonymous member's fields stand for themselves */
                if (plen)
                    w->path[w->plen++] = '.';
                memcpy(w->path + w->plen, name, k);
                w->plen += k;
            }
            walk(w, m->type, off + m->off, depth + 1);
            w->plen = plen;
        }
        return;
    }
    if (t->kind == CUTAP_NVP_ARRAY && t->first < cutap_nvp_ntypes && cutap_nvp_types[t->first].kind != CUTAP_NVP_CHAR) {
        size_t es = cutap_nvp_types[t->first].size;
        for (uint32_t i = 0; es && i < t->n && off + (size_t)i * es < w->len; i++) {
            int k = snprintf(w->path + plen, sizeof w->path - plen, "[%u]", i);
            if (k < 0 || plen + (size_t)k >= sizeof w->path)
                return;
            w->plen = plen + (size_t)k;
            walk(w, t->first, off + (size_t)i * es, depth + 1);
        }
        w->plen = plen;
        return;
    }
    if (off + t->size <= w->len && t->size && t->size <= 4096)
        leaf(w, t, off);
}

static void put_hex(FILE *f, const uint8_t *p, size_t n)
{
    static const char dig[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out_c(dig[p[i] >> 4], f);
        out_c(dig[p[i] & 15], f);
    }
}

/* "RM_CONTROL" blocks' names: the struct, or the number */
static const char *block_name(const struct nvp_block *b, int *ti)
{
    *ti = nvp_type_of(b->h.kind, b->h.what);
    return *ti >= 0 ? str_at(cutap_nvp_types[*ti].name) : NULL;
}

void nvp_put_text(FILE *f, const struct nvp_block *b, const char *indent)
{
    int ti;
    const char *name = block_name(b, &ti);
    out_s(indent, f);
    out_s("params ", f);
    if (name && *name)
        out_s(name, f);
    else
        fprintf(f, "of %s 0x%x (no layout)", b->h.kind == CUTAP_PARAMS_ALLOC ? "class" : "command", b->h.what);
    fprintf(f, ", %u bytes", b->h.size);
    if (ti >= 0 && cutap_nvp_types[ti].size != b->h.size)
        fprintf(f, " (the struct: %u)", cutap_nvp_types[ti].size);
    if (b->h.state & CUTAP_PARAMS_CUT)
        fprintf(f, ", cut to %u", b->h.len);
    if (b->h.state & CUTAP_PARAMS_BEFORE_BAD)
        out_s(", not readable before the call", f);
    if (b->h.state & CUTAP_PARAMS_AFTER_BAD)
        out_s(", not readable after it", f);
    else if (!b->after)
        out_s(", not read after the call", f);
    out_c(':', f);
    if (ti >= 0) {
        struct walk w = {.f = f, .mode = OUT_TEXT, .b = b->before, .a = b->after, .len = b->h.len};
        walk(&w, (uint32_t)ti, 0, 0);
        if (!w.shown && (b->before || b->after))
            out_s(" (all zero)", f);
    } else if (b->before || b->after) {
        out_s(" x'", f);
        put_hex(f, b->before ? b->before : b->after, b->h.len);
        out_c('\'', f);
        if (b->before && b->after && memcmp(b->before, b->after, b->h.len)) {
            out_s("\xe2\x86\x92x'", f);
            put_hex(f, b->after, b->h.len);
            out_c('\'', f);
        }
    }
    out_c('\n', f);
}

void nvp_put_json(FILE *f, const struct nvp_block *b)
{
    int ti;
    const char *name = block_name(b, &ti);
    out_s("{\"struct\":", f);
    if (name && *name)
        json_str(f, name);
    else
        out_s("null", f);
    fprintf(f, ",\"size\":%u,\"len\":%u,\"cut\":%s,\"before\":%s,\"after\":%s", b->h.size, b->h.len,
            b->h.state & CUTAP_PARAMS_CUT ? "true" : "false", b->before ? "true" : "false",
            b->after ? "true" : "false");
    if (ti >= 0) {
        struct walk w = {.f = f, .mode = OUT_JSON, .b = b->before, .a = b->after, .len = b->h.len};
        out_s(",\"fields\":{", f);
        walk(&w, (uint32_t)ti, 0, 0);
        out_s("},\"changed\":{", f);
        w.mode = OUT_JSON_CHANGED;
        w.shown = 0;
        walk(&w, (uint32_t)ti, 0, 0);
        out_c('}', f);
    } else {
        for (int k = 0; k < 2; k++) {
            const uint8_t *p = k ? b->after : b->before;
            if (!p)
                continue;
            out_s(k ? ",\"hex_after\":\"" : ",\"hex_before\":\"", f);
            put_hex(f, p, b->h.len);
            out_c('"', f);
        }
    }
    out_c('}', f);
}
