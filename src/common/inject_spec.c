/* Fault injection specs: see inject_spec.h. */
#include "inject_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_expr.h"

/* An unsigned decimal (or 0x hex) number of the whole of s[0..len) that
 * fits in 64 bits. It must start with a digit: strtoull would also take
 * leading blanks and a sign, and wrap "-1" to 2^64-1. */
static int num(const char *s, size_t len, uint64_t *v)
{
    char b[64];
    if (!len || len >= sizeof b)
        return -1;
    memcpy(b, s, len);
    b[len] = 0;
    if (b[0] < '0' || b[0] > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(b, &end, 0);
    if (errno || *end)
        return -1;
    *v = x;
    return 0;
}

/* A duration: a number with ns, us, ms, s (default s), up to a day. */
static int duration(const char *s, size_t len, uint64_t *ns)
{
    char b[64];
    if (!len || len >= sizeof b)
        return -1;
    memcpy(b, s, len);
    b[len] = 0;
    char *end;
    errno = 0;
    double v = strtod(b, &end);
    if (errno || end == b || v < 0 || v != v)
        return -1;
    double mul = !strcmp(end, "ns") ? 1 : !strcmp(end, "us") ? 1e3 : !strcmp(end, "ms") ? 1e6
               : (!strcmp(end, "s") || !*end) ? 1e9 : -1;
    if (mul < 0 || v * mul > 86400e9)
        return -1;
    *ns = (uint64_t)(v * mul + 0.5);
    return 0;
}

static int bad(char *why_buf, size_t why_size, const char *fmt, const char *part, size_t len)
{
    if (why_buf && why_size)
        snprintf(why_buf, why_size, fmt, (int)(len > 200 ? 200 : len), part);
    return -1;
}

int cutap_inject_parse(const char *s, size_t len, struct cutap_inject_spec *o, char *why_buf, size_t why_size)
{
    memset(o, 0, sizeof *o);
    const char *end = s + len, *colon = memchr(s, ':', len);
    size_t nl = colon ? (size_t)(colon - s) : len;
    if (!nl)
        return bad(why_buf, why_size, "no function names before '%.*s'", s, len);
    if (nl >= sizeof o->names)
        return bad(why_buf, why_size, "names too long: '%.*s'", s, nl);
    memcpy(o->names, s, nl);
    o->names[nl] = 0;
    const char *fwhy = NULL;
    if (cutap_filter_eval(o->names, NULL, 0, &fwhy) < 0) {
        if (why_buf && why_size)
            snprintf(why_buf, why_size, "names '%s': %s", o->names, fwhy ? fwhy : "invalid");
        return -1;
    }
    int have_delay = 0, have_when = 0, have_rank = 0;
    for (const char *p = colon ? colon + 1 : end; p < end;) {
        const char *q = memchr(p, ':', (size_t)(end - p));
        size_t pl = q ? (size_t)(q - p) : (size_t)(end - p);
        const char *eq = memchr(p, '=', pl);
        if (!eq)
            return bad(why_buf, why_size, "'%.*s': not KEY=VALUE", p, pl);
        size_t kl = (size_t)(eq - p), vl = pl - kl - 1;
        const char *v = eq + 1;
        if ((kl == 5 && !memcmp(p, "error", 5)) || (kl == 6 && !memcmp(p, "retval", 6))) {
            if (o->has_value)
                return bad(why_buf, why_size, "'%.*s': error= or retval= given twice", p, pl);
            o->has_value = 1;
            o->is_error = kl == 5;
            if (!vl)
                return bad(why_buf, why_size, "'%.*s': no value", p, pl);
            if ((v[0] >= '0' && v[0] <= '9') || v[0] == '-' || v[0] == '+') {
                /* A number (no status name starts so): all of it, in 64
                 * bits, a negative one as its two's complement (value_neg
                 * says which, for the command's check against the result
                 * type's range), never a name of digits and junk. */
                int neg = v[0] == '-';
                uint64_t x;
                if (num(v + neg, vl - (size_t)neg, &x) || (neg && x > (uint64_t)1 << 63))
                    return bad(why_buf, why_size, "'%.*s': not a number (decimal or 0x hex, 64 bits at most)", p, pl);
                o->value = neg ? 0 - x : x;
                o->value_neg = neg && x;
            } else {
                if (vl >= sizeof o->value_name)
                    return bad(why_buf, why_size, "'%.*s': name too long", p, pl);
                for (size_t i = 0; i < vl; i++)
                    if (!((v[i] >= 'A' && v[i] <= 'Z') || (v[i] >= 'a' && v[i] <= 'z') ||
                          (v[i] >= '0' && v[i] <= '9') || v[i] == '_'))
                        return bad(why_buf, why_size, "'%.*s': not a number nor a status name", p, pl);
                memcpy(o->value_name, v, vl);
                o->value_name[vl] = 0;
            }
        } else if (kl == 4 && !memcmp(p, "when", 4)) {
            if (have_when++)
                return bad(why_buf, why_size, "'%.*s': when= given twice", p, pl);
            const char *dots = NULL, *plus = memchr(v, '+', vl);
            for (size_t i = 0; i + 1 < vl; i++)
                if (v[i] == '.' && v[i + 1] == '.')
                    dots = v + i;
            uint64_t a = 0, b = 0;
            int ok;
            if (dots) {
                ok = !num(v, (size_t)(dots - v), &a) && !num(dots + 2, (size_t)(v + vl - dots - 2), &b) && b >= a;
                o->when = CUTAP_WHEN_RANGE;
            } else if (plus && plus == v + vl - 1) {
                ok = !num(v, vl - 1, &a);
                o->when = CUTAP_WHEN_FROM;
            } else if (plus) {
                ok = !num(v, (size_t)(plus - v), &a) && !num(plus + 1, (size_t)(v + vl - plus - 1), &b) && b > 0;
                o->when = CUTAP_WHEN_STEP;
            } else {
                ok = !num(v, vl, &a);
                o->when = CUTAP_WHEN_ONE;
            }
            if (!ok || !a)
                return bad(why_buf, why_size, "'%.*s': when= takes N, N+, N+S or N..M (calls counted from 1)", p, pl);
            o->n = a;
            o->m = b;
        } else if (kl == 4 && !memcmp(p, "rank", 4)) {
            if (have_rank++)
                return bad(why_buf, why_size, "'%.*s': rank= given twice", p, pl);
            for (const char *r = v; r < v + vl;) {
                const char *c = memchr(r, ',', (size_t)(v + vl - r));
                size_t rl = c ? (size_t)(c - r) : (size_t)(v + vl - r);
                uint64_t x;
                if (num(r, rl, &x) || x > 1000000000 || o->nranks >= CUTAP_INJECT_MAX_RANKS)
                    return bad(why_buf, why_size, "'%.*s': rank= takes ranks N[,N...] (at most 16)", p, pl);
                o->ranks[o->nranks++] = (int)x;
                r = c ? c + 1 : v + vl;
            }
            if (!o->nranks)
                return bad(why_buf, why_size, "'%.*s': no rank", p, pl);
        } else if (kl == 5 && !memcmp(p, "delay", 5)) {
            if (have_delay++)
                return bad(why_buf, why_size, "'%.*s': delay= given twice", p, pl);
            if (duration(v, vl, &o->delay_ns) || !o->delay_ns)
                return bad(why_buf, why_size, "'%.*s': delay= takes a duration (500ms, 2s, 10us; up to a day)", p, pl);
        } else {
            return bad(why_buf, why_size, "'%.*s': unknown key (error, retval, when, rank, delay)", p, pl);
        }
        p = q ? q + 1 : end;
    }
    if (!o->has_value && !o->delay_ns)
        return bad(why_buf, why_size, "'%.*s': says neither error=, retval= nor delay=", s, len);
    return 0;
}

int cutap_inject_when(const struct cutap_inject_spec *o, uint64_t k)
{
    switch (o->when) {
    case CUTAP_WHEN_ONE: return k == o->n;
    case CUTAP_WHEN_FROM: return k >= o->n;
    case CUTAP_WHEN_STEP: return k >= o->n && (k - o->n) % o->m == 0;
    case CUTAP_WHEN_RANGE: return k >= o->n && k <= o->m;
    default: return 1;
    }
}

int cutap_inject_format(const struct cutap_inject_spec *o, char *buf, size_t size)
{
    size_t n = 0;
#define ADD(...) (n += n < size ? (size_t)snprintf(buf + n, size - n, __VA_ARGS__) : 0)
    ADD("%s", o->names);
    if (o->has_value && o->value_neg)
        ADD(":%s=%lld", o->is_error ? "error" : "retval", (long long)o->value);
    else if (o->has_value)
        ADD(":%s=%llu", o->is_error ? "error" : "retval", (unsigned long long)o->value);
    if (o->when == CUTAP_WHEN_ONE)
        ADD(":when=%llu", (unsigned long long)o->n);
    else if (o->when == CUTAP_WHEN_FROM)
        ADD(":when=%llu+", (unsigned long long)o->n);
    else if (o->when == CUTAP_WHEN_STEP)
        ADD(":when=%llu+%llu", (unsigned long long)o->n, (unsigned long long)o->m);
    else if (o->when == CUTAP_WHEN_RANGE)
        ADD(":when=%llu..%llu", (unsigned long long)o->n, (unsigned long long)o->m);
    for (int i = 0; i < o->nranks; i++)
        ADD("%s%d", i ? "," : ":rank=", o->ranks[i]);
    if (o->delay_ns)
        ADD(":delay=%lluns", (unsigned long long)o->delay_ns);
#undef ADD
    return n < size ? (int)n : -1;
}

int cutap_stack_filter_split(const char *filter, char *expr, size_t size)
{
    int errors = 0;
    size_t n = 0;
    if (size)
        expr[0] = 0;
    for (const char *p = filter; *p;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l == 6 && !strncmp(p, "errors", 6))
            errors = 1;
        else if (l && n + l + 2 < size) {
            memcpy(expr + n, p, l);
            n += l;
            expr[n++] = ',';
        }
        p = c ? c + 1 : p + l;
    }
    if (n)
        expr[n - 1] = 0;
    return errors;
}
