/* Small helpers shared by the subcommands. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "filter_expr.h"
#include "cutap.h"
#include "generated/cutap_ids.h"

/* The layer numbers the library writes (cutap_layer_t); the runtime layer
 * is recorded by --runtime=cupti and the symbol wrappers alike. */
const char *layer_str(int layer)
{
    static const char *const names[] = CUTAP_LAYER_NAMES;
    if (layer == TR_LAYER_RANGE || layer == TR_LAYER_MARK)
        return layer == TR_LAYER_RANGE ? "range" : "mark";   /* the reader's NVTX entries (trace_read.h) */
    if (layer == TR_LAYER_OBJECT)
        return "object";
    if (layer >= 0 && layer < (int)(sizeof names / sizeof names[0]))
        return names[layer];
    const char *x = tr_layer_extra_name(layer);   /* named by a version 4 file */
    if (x)
        return x;
    /* A newer library's layer or a damaged file: "layer<N>", kept for the
     * life of the command (callers print it later, several per line), one
     * string per distinct number; past the table's size, a buffer of the
     * thread's is reused rather than allocating for every damaged record. */
    static struct {
        int layer;
        char s[20];
    } other[64];
    static unsigned nother;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;   /* dump formats on several threads */
    pthread_mutex_lock(&lock);
    unsigned i = 0;
    while (i < nother && other[i].layer != layer)
        i++;
    if (i == nother && nother < sizeof other / sizeof other[0]) {
        other[i].layer = layer;
        snprintf(other[i].s, sizeof other[i].s, "layer%d", layer);
        nother++;
    }
    pthread_mutex_unlock(&lock);
    if (i < nother)
        return other[i].s;   /* (entries are never rewritten: safe to read unlocked) */
    static _Thread_local char last[20];   /* the table full: this thread's last one, as before */
    snprintf(last, sizeof last, "layer%d", layer);
    return last;
}

/* Whether a finished call failed: its result is a status code (a typed
 * call of a layer whose functions return one, CUTAP_RF_NOSTATUS not set)
 * and not 0 (CUDA_SUCCESS, cudaSuccess, CUBLAS_STATUS_SUCCESS, ncclSuccess,
 * ...: every status enum names success 0). Statuses are 32 bits wide; the
 * rest of the return register is not the callee's. Export-table slots are
 * untyped; NVTX returns levels and ids, never a status. */
int call_is_error(const struct trace *tr, const struct tr_call *c)
{
    int layer = tr->names[c->name].layer;
    /* Untyped calls have no known result type, except those of a layer of
     * another major (CUTAP_META_LAYER): result types do not change between
     * majors, and the recorder marks the results that are no status. */
    int untyped_ok = (c->flags & CUTAP_RF_UNTYPED) && layer >= CUTAP_LAYER_RUNTIME && layer < CUTAP_LAYER_COUNT &&
                     (tr->procs[tr->threads[c->thread].proc].layer_flags[layer] & CUTAP_LAYER_OTHER_MAJOR);
    return c->t1 && (!(c->flags & CUTAP_RF_UNTYPED) || untyped_ok) && !(c->flags & CUTAP_RF_NOSTATUS) &&
           layer != CUTAP_LAYER_HIDDEN && layer != CUTAP_LAYER_NVTX && (uint32_t)tr_result(c) != 0;
}


/* Which bytes a run of plain text may hold: bit 0 in text_str (printable
 * ASCII but the backslash), bit 1 in json_str (nor the double quote). One
 * table load a byte instead of four comparisons (the exports spent a sixth
 * of their instructions scanning). */
#define PLAIN_TEXT 1
#define PLAIN_JSON 2
#define PL(c) (!TR_TEXT_PLAIN(c) ? 0 : (c) == '"' ? PLAIN_TEXT : PLAIN_TEXT | PLAIN_JSON)
#define PL4(c) PL(c), PL((c) + 1), PL((c) + 2), PL((c) + 3)
#define PL16(c) PL4(c), PL4((c) + 4), PL4((c) + 8), PL4((c) + 12)
#define PL64(c) PL16(c), PL16((c) + 16), PL16((c) + 32), PL16((c) + 48)
static const unsigned char plain[256] = {PL64(0), PL64(64), PL64(128), PL64(192)};

void json_str(FILE *f, const char *s)
{
    out_c('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        int n;
        /* a run of printable ASCII needing no escape: one write */
        const unsigned char *q = p;
        while (plain[*q] & PLAIN_JSON)
            q++;
        if (q > p) {
            out_mem(f, p, (size_t)(q - p));
            p = q - 1;
            continue;
        }
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p >= 0x80 && (n = tr_utf8_len(p))) {
            out_mem(f, p, (size_t)n);   /* UTF-8 (the decoder's → and …) as is */
            p += n - 1;
        } else {
            fprintf(f, "\\u%04x", *p);   /* other bytes one by one: traces hold raw C strings */
        }
    }
    out_c('"', f);
}

void json_str_or_null(FILE *f, const char *s)
{
    if (s)
        json_str(f, s);
    else
        fputs("null", f);
}

/* A string from the traced process in text output (tr_escape_one):
 * control characters (escape sequences start with one) and bytes that are
 * not UTF-8 as \xNN, the backslash as \\; UTF-8 as it is. */
void text_str(FILE *f, const char *s)
{
    char one[5];
    size_t used;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        /* a run of printable ASCII other than the backslash is written as
         * it is, at once (a name is one run: one write, not one a byte) */
        const unsigned char *q = p;
        while (plain[*q] & PLAIN_TEXT)
            q++;
        if (q > p) {
            out_mem(f, p, (size_t)(q - p));
            p = q;
            continue;
        }
        size_t n = tr_escape_one(p, one, &used);
        for (size_t k = 0; k < n; k++)   /* (rare: a byte a write) */
            out_c(one[k], f);
        p += used;
    }
}

/* RFC 4180 quoting, and characters escaped as in text output (a CSV file
 * is read in terminals too): a field with a comma, a quote or anything
 * escaped is quoted. */
void csv_str(FILE *f, const char *s)
{
    char one[5];
    size_t used, n;
    int plain = 1;
    for (const unsigned char *p = (const unsigned char *)s; *p && plain; p += used)
        plain = (n = tr_escape_one(p, one, &used)) == used && memcmp(one, p, n) == 0 && *p != ',' && *p != '"';
    if (plain) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p += used) {
        if (*p == '"') {
            fputs("\"\"", f);
            used = 1;
        } else
            fwrite(one, 1, tr_escape_one(p, one, &used), f);
    }
    fputc('"', f);
}


int cli_usage_error(const char *usage, const char *fmt, ...)
{
    /* the subcommand, from its usage's first words ("usage: cutap NAME ...") */
    char name[32] = "";
    const char *p = strncmp(usage, "usage: cutap ", 13) ? NULL : usage + 13;
    size_t n = p ? strcspn(p, " \n") : 0;
    if (n && n < sizeof name && *p != '[' && (*p < 'A' || *p > 'Z'))
        memcpy(name, p, n), name[n] = 0;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "cutap%s%s: ", *name ? " " : "", name);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    fprintf(stderr, "Try 'cutap%s%s --help' for more information.\n", *name ? " " : "", name);
    return 2;
}

int cli_parse_duration(const char *s, uint64_t *ns)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0 || v != v)
        return -1;
    double unit = !strcmp(end, "") || !strcmp(end, "s") ? 1e9 : !strcmp(end, "ms") ? 1e6 : !strcmp(end, "us") ? 1e3
                  : !strcmp(end, "ns") ? 1 : -1;
    if (unit < 0 || v * unit > 1.8e19)
        return -1;
    *ns = (uint64_t)(v * unit + 0.5);
    return 0;
}

int load_operand(int argc, char **argv, const char *usage, struct trace *tr)
{
    if (optind != argc - 1)
        return cli_usage_error(usage, optind == argc ? "no trace directory given" : "one trace directory, not %d operands",
                               argc - optind);
    if (tr_load(tr, argv[optind]))
        return 1;
    return cli_select_apply(tr) ? 1 : 0;
}

/* -e, --from, --to of report, dump and export. */
static const char *sel_filter;
static double sel_from = -1, sel_to = -1;

int cli_select_opt(int c, const char *arg, const char *cmd)
{
    if (c == 'e') {
        const char *why = NULL;
        if (cutap_filter_eval(arg, NULL, 0, &why) < 0) {
            fprintf(stderr, "cutap %s: -e '%s': %s\n", cmd, arg, why);
            return -1;
        }
        sel_filter = arg;
        return 0;
    }
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v >= 0) || v > 1e9) {
        fprintf(stderr, "cutap %s: --%s '%s': seconds from the start of the trace (e.g. 1.5)\n", cmd,
                c == CLI_OPT_FROM ? "from" : "to", arg);
        return -1;
    }
    *(c == CLI_OPT_FROM ? &sel_from : &sel_to) = v;
    if (sel_from >= 0 && sel_to >= 0 && sel_to < sel_from) {
        fprintf(stderr, "cutap %s: --to is before --from\n", cmd);
        return -1;
    }
    return 0;
}

int cli_select_apply(struct trace *tr)
{
    uint64_t from = sel_from >= 0 ? tr->origin_ns + (uint64_t)(sel_from * 1e9) : 0;
    uint64_t to = sel_to >= 0 ? tr->origin_ns + (uint64_t)(sel_to * 1e9) : UINT64_MAX;
    return tr_select(tr, sel_filter, from, to);
}

/* calloc that never returns NULL: out of memory ends the command. */
void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "cutap: out of memory\n");
        exit(1);
    }
    return p;
}

/* "exe [pid N] host H rank R": a process as the Perfetto exports name it. */
void proc_display_name(const struct cutap_file_header *h, char *name, size_t size)
{
    int n = snprintf(name, size, "%s [pid %d] host %s", h->exe[0] ? basename_of(h->exe) : "?", h->pid,
                     h->host[0] ? h->host : "?");
    if (h->rank >= 0 && n >= 0 && (size_t)n < size)
        snprintf(name + n, size - (size_t)n, " rank %d", h->rank);
}

const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}
