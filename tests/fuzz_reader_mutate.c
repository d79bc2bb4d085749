/* The generator of tests/fuzz_reader.c (fuzz_reader.h): seed traces
 * indexed (chunks, records, captures, counters, names), and mutations that
 * know the format: bit flips, interesting values in header, chunk, record,
 * capture and counter fields, truncation, appended garbage, duplicated
 * chunks, filled ranges, renamed ids. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cutap_format.h"
#include "decode_tables.h"
#include "fuzz_reader.h"

/* --- the generator ----------------------------------------------------- */

uint64_t fz_rng;

static uint64_t next(void)   /* xorshift64* */
{
    fz_rng ^= fz_rng >> 12;
    fz_rng ^= fz_rng << 25;
    fz_rng ^= fz_rng >> 27;
    return fz_rng * 0x2545f4914f6cdd1dull;
}

uint64_t fz_below(uint64_t n) { return n ? next() % n : 0; }
int fz_chance(unsigned one_in) { return fz_below(one_in) == 0; }

uint64_t fz_splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* --- fz_seeds and what they hold ------------------------------------------ */


static void push(struct offs *o, size_t x)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->v = realloc(o->v, o->cap * sizeof *o->v);
        if (!o->v) {
            perror("fuzz_reader");
            exit(2);
        }
    }
    o->v[o->n++] = x;
}


struct seed *fz_seeds;
size_t fz_nseeds;

uint32_t fz_rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Bytes per counter in a file of this header: 40 in version 1. */
static size_t counter_size(const uint8_t *data, size_t size)
{
    return size >= CUTAP_HEADER_SIZE && fz_rd32(data + offsetof(struct cutap_file_header, version)) == 1
               ? sizeof(struct cutap_counter_v1)
               : sizeof(struct cutap_counter);
}

/* Where the chunks, records, captures and counters of a seed are: the
 * mutations aim at them (most of a trace file is zeros). */
static void index_seed(struct seed *s)
{
    if (s->size < CUTAP_HEADER_SIZE)
        return;
    uint32_t cs = fz_rd32(s->data + offsetof(struct cutap_file_header, chunk_size));
    if (cs < 4096 || (cs & (cs - 1)) || cs > (64u << 20))
        return;
    s->chunk_size = cs;
    size_t slots = cs / CUTAP_SLOT;
    for (size_t c = CUTAP_HEADER_SIZE; c + cs <= s->size; c += cs) {
        const struct cutap_chunk_header *ch = (const void *)(s->data + c);
        if (!ch->magic)
            continue;
        push(&s->chunks, c);
        if (ch->type == CUTAP_CHUNK_COUNTERS) {
            size_t ks = counter_size(s->data, s->size);
            for (size_t i = 0; i < (cs - CUTAP_SLOT) / ks; i++) {
                uint64_t calls;
                memcpy(&calls, s->data + c + CUTAP_SLOT + i * ks, sizeof calls);
                if (calls)
                    push(&s->counters, c + CUTAP_SLOT + i * ks);
            }
            continue;
        }
        for (size_t i = 1; i < slots;) {
            const struct cutap_rec_call *r = (const void *)(s->data + c + i * CUTAP_SLOT);
            if (!r->kind || !r->nslots || r->nslots > slots - i)
                break;
            push(&s->recs, c + i * CUTAP_SLOT);
            if (r->kind == CUTAP_REC_META && ((const struct cutap_rec_meta *)r)->sub == CUTAP_META_ID_NAME)
                push(&s->names, c + i * CUTAP_SLOT);
            if (r->kind == CUTAP_REC_CALL) {
                size_t room = 24 + (size_t)CUTAP_SLOT * (r->nslots - 1u), off = (size_t)r->nargs * 8;
                for (unsigned k = 0; k < r->ncap && off + 8 <= room; k++) {
                    push(&s->caps, c + i * CUTAP_SLOT + offsetof(struct cutap_rec_call, words) + off);
                    struct cutap_capture h;
                    memcpy(&h, (const uint8_t *)r->words + off, sizeof h);
                    off += sizeof h + h.reserved;
                }
            }
            i += r->nslots;
        }
    }
}

void fz_load_seed(struct seed *s, const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st)) {
        fprintf(stderr, "fuzz_reader: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    s->path = path;
    s->size = (size_t)st.st_size;
    s->data = malloc(s->size ? s->size : 1);
    if (!s->data || fread(s->data, 1, s->size, f) != s->size) {
        fprintf(stderr, "fuzz_reader: %s: cannot read\n", path);
        exit(2);
    }
    fclose(f);
    index_seed(s);
}

/* --- mutations ---------------------------------------------------------- */

uint8_t *fz_buf;
size_t fz_len;
static size_t buf_cap;

void fz_reserve(size_t n)
{
    if (n <= buf_cap)
        return;
    buf_cap = n + n / 2;
    fz_buf = realloc(fz_buf, buf_cap);
    if (!fz_buf) {
        perror("fuzz_reader");
        exit(2);
    }
}

static uint64_t interesting(void)
{
    static const uint64_t v[] = {0, 1, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 0x80000000u, 0x7fffffffffffffffull,
                                 0xffffffffffffffffull, 0x8000000000000000ull};
    switch (fz_below(4)) {
    case 0: return fz_below(17);             /* small */
    case 1: return next();                /* anything */
    default: return v[fz_below(sizeof v / sizeof *v)];
    }
}

/* Writes a value of `width` bytes at `off` (when inside the file): an
 * interesting one, or the old one plus or minus a little. */
static void poke(size_t off, unsigned width)
{
    if (off + width > fz_len)
        return;
    uint64_t v = 0;
    if (fz_chance(4)) {
        memcpy(&v, fz_buf + off, 8 < fz_len - off ? 8 : fz_len - off);
        v += fz_chance(2) ? fz_below(4) + 1 : -(fz_below(4) + 1);
    } else {
        v = interesting();
    }
    memcpy(fz_buf + off, &v, width);
}

struct field {
    unsigned off, width;
};
#define F(type, member) {offsetof(type, member), sizeof(((type *)0)->member)}

static const struct field header_fields[] = {
    F(struct cutap_file_header, version),      F(struct cutap_file_header, header_size),
    F(struct cutap_file_header, chunk_size),   F(struct cutap_file_header, flags),
    F(struct cutap_file_header, clock),        F(struct cutap_file_header, pid),
    F(struct cutap_file_header, ppid),         F(struct cutap_file_header, rank),
    F(struct cutap_file_header, local_rank),   F(struct cutap_file_header, start_realtime_ns),
    F(struct cutap_file_header, start_mono_ns), F(struct cutap_file_header, start_clock),
    F(struct cutap_file_header, calib_clock),  F(struct cutap_file_header, calib_mono_ns),
    F(struct cutap_file_header, end_clock),    F(struct cutap_file_header, end_mono_ns),
    F(struct cutap_file_header, exit_code),
};
static const struct field chunk_fields[] = {
    F(struct cutap_chunk_header, magic),   F(struct cutap_chunk_header, type),
    F(struct cutap_chunk_header, tid),     F(struct cutap_chunk_header, seq),
    F(struct cutap_chunk_header, clock),   F(struct cutap_chunk_header, mono_ns),
    F(struct cutap_chunk_header, first_id),
};
static const struct field call_fields[] = {
    F(struct cutap_rec_call, kind),   F(struct cutap_rec_call, flags), F(struct cutap_rec_call, nslots),
    F(struct cutap_rec_call, id),     F(struct cutap_rec_call, t0),    F(struct cutap_rec_call, t1),
    F(struct cutap_rec_call, result), F(struct cutap_rec_call, depth), F(struct cutap_rec_call, nargs),
    F(struct cutap_rec_call, ncap),   {offsetof(struct cutap_rec_call, words), 8},
    {offsetof(struct cutap_rec_call, words) + 8, 8},
};
static const struct field meta_fields[] = {
    F(struct cutap_rec_meta, sub), F(struct cutap_rec_meta, aux), F(struct cutap_rec_meta, key),
};
static const struct field cap_fields[] = {
    F(struct cutap_capture, len),  F(struct cutap_capture, reserved), F(struct cutap_capture, arg),
    F(struct cutap_capture, kind), F(struct cutap_capture, state),
};
/* The first five are version 1's too, at the same offsets. */
static const struct field counter_fields[] = {
    F(struct cutap_counter, calls), F(struct cutap_counter, errors), F(struct cutap_counter, total),
    F(struct cutap_counter, min),   F(struct cutap_counter, max),    F(struct cutap_counter, timed),
    F(struct cutap_counter, sampled), F(struct cutap_counter, sampled_total),
};
#define PICK(a) (&(a)[fz_below(sizeof(a) / sizeof *(a))])

/* The chunk size the file says, if usable for aiming (else the seed's). */
static size_t chunk_size_of(const struct seed *s)
{
    if (fz_len >= CUTAP_HEADER_SIZE) {
        uint32_t cs = fz_rd32(fz_buf + offsetof(struct cutap_file_header, chunk_size));
        if (cs >= 4096 && !(cs & (cs - 1)) && cs <= (64u << 20))
            return cs;
    }
    return s->chunk_size ? s->chunk_size : 262144;
}

/* An offset of the list, or a made-up one of the same kind. */
static size_t pick(const struct offs *o, size_t fallback)
{
    return o->n && !fz_chance(8) ? o->v[fz_below(o->n)] : fallback;
}

static size_t some_chunk(const struct seed *s)
{
    size_t cs = chunk_size_of(s), n = fz_len > CUTAP_HEADER_SIZE ? (fz_len - CUTAP_HEADER_SIZE) / cs : 0;
    return pick(&s->chunks, CUTAP_HEADER_SIZE + fz_below(n + 1) * cs);
}

static size_t some_record(const struct seed *s)
{
    return pick(&s->recs, some_chunk(s) + CUTAP_SLOT * (1 + fz_below(chunk_size_of(s) / CUTAP_SLOT - 1)));
}

/* A string field or text with its terminating NUL overwritten (or, at
 * times, all zeros: an empty string, a header never written). */
static void fill_text(size_t off, size_t n)
{
    if (off >= fz_len)
        return;
    if (n > fz_len - off)
        n = fz_len - off;
    memset(fz_buf + off, fz_chance(6) ? 0 : fz_chance(2) ? 'A' : (int)(0x80 | fz_below(128)), n);
}

const char *const fz_mnames[M_N] = {"flip",   "header",    "chunk", "record", "capture", "counter",
                                        "truncate", "append", "dup-chunk", "fill", "rename"};
unsigned long fz_mcount[M_N];

void fz_mutate(const struct seed *s, int m)
{
    size_t cs = chunk_size_of(s);
    fz_mcount[m]++;
    switch (m) {
    case M_FLIP: {
        /* Anywhere, or near something that is there. */
        size_t n = 1 + fz_below(8);
        for (size_t i = 0; i < n && fz_len; i++) {
            size_t off;
            switch (fz_below(4)) {
            case 0: off = fz_below(fz_len); break;
            case 1: off = fz_below(sizeof(struct cutap_file_header)); break;
            case 2: off = some_record(s) + fz_below(3 * CUTAP_SLOT); break;
            default: off = some_chunk(s) + fz_below(CUTAP_SLOT); break;
            }
            if (off < fz_len)
                fz_buf[off] ^= (uint8_t)(1u << fz_below(8));
        }
        break;
    }
    case M_HEADER:
        if (fz_chance(6)) {
            static const struct field strs[] = {F(struct cutap_file_header, host), F(struct cutap_file_header, exe),
                                                F(struct cutap_file_header, cmdline),
                                                F(struct cutap_file_header, cutap_version),
                                                F(struct cutap_file_header, magic)};
            const struct field *f = PICK(strs);
            fill_text(f->off, f->width);
        } else {
            const struct field *f = PICK(header_fields);
            poke(f->off, f->width);
        }
        break;
    case M_CHUNK: {
        size_t c = some_chunk(s);
        if (fz_chance(8)) {
            fill_text(c + offsetof(struct cutap_chunk_header, thread_name), 16);
        } else {
            const struct field *f = PICK(chunk_fields);
            poke(c + f->off, f->width);
        }
        break;
    }
    case M_RECORD: {
        size_t r = some_record(s);
        if (r >= fz_len)
            break;
        if (fz_buf[r] == CUTAP_REC_META && fz_chance(2)) {
            if (fz_chance(3))
                fill_text(r + offsetof(struct cutap_rec_meta, text), 40 + fz_below(3) * CUTAP_SLOT);
            else {
                const struct field *f = fz_chance(4) ? &call_fields[0] + fz_below(3) : PICK(meta_fields);
                poke(r + f->off, f->width);
            }
        } else {
            const struct field *f = PICK(call_fields);
            poke(r + f->off, f->width);
        }
        break;
    }
    case M_CAPTURE: {
        size_t c = s->caps.n ? s->caps.v[fz_below(s->caps.n)] : some_record(s) + offsetof(struct cutap_rec_call, words);
        const struct field *f = PICK(cap_fields);
        poke(c + f->off, f->width);
        break;
    }
    case M_COUNTER: {
        size_t ks = counter_size(fz_buf, fz_len);
        size_t c = pick(&s->counters, some_chunk(s) + CUTAP_SLOT + ks * fz_below((cs - CUTAP_SLOT) / ks));
        const struct field *f = &counter_fields[fz_below(ks == sizeof(struct cutap_counter_v1) ? 5 : 8)];
        poke(c + f->off, f->width);
        break;
    }
    case M_TRUNCATE: {
        size_t n;
        switch (fz_below(4)) {
        case 0: n = fz_below(CUTAP_HEADER_SIZE + 1); break;   /* shorter than the header */
        case 1: n = CUTAP_HEADER_SIZE + fz_below(fz_len / cs + 1) * cs; break;   /* whole chunks */
        case 2: {
            size_t k = CUTAP_HEADER_SIZE + fz_below(fz_len / cs + 1) * cs;   /* a chunk boundary, give or take */
            n = k + fz_below(129) - 64;
            break;
        }
        default: n = fz_below(fz_len + 1); break;
        }
        if (n < fz_len)
            fz_len = n;
        break;
    }
    case M_APPEND: {
        size_t n = fz_below(4) ? 1 + fz_below(2 * CUTAP_SLOT) : 1 + fz_below(2 * cs);
        fz_reserve(fz_len + n);
        if (fz_chance(2)) {
            for (size_t i = 0; i < n; i++)
                fz_buf[fz_len + i] = (uint8_t)next();
        } else {
            memset(fz_buf + fz_len, fz_chance(2) ? 0 : 0xff, n);
        }
        fz_len += n;
        break;
    }
    case M_DUPCHUNK: {
        size_t from = some_chunk(s);
        if (from + cs > fz_len)
            break;
        size_t nch = (fz_len - CUTAP_HEADER_SIZE) / cs, to;
        if (fz_chance(2)) {
            to = CUTAP_HEADER_SIZE + nch * cs;   /* appended (after any partial chunk's start) */
            fz_reserve(to + cs);
            if (to > fz_len)
                memset(fz_buf + fz_len, 0, to - fz_len);
            fz_len = to + cs;
        } else {
            to = CUTAP_HEADER_SIZE + fz_below(nch) * cs;
        }
        memmove(fz_buf + to, fz_buf + from, cs);
        break;
    }
    case M_FILL: {
        /* A run of one byte value over records or counters. */
        size_t off = fz_chance(2) ? some_record(s) : some_chunk(s) + CUTAP_SLOT, n = 1 + fz_below(fz_chance(4) ? cs : 512);
        if (off >= fz_len)
            break;
        if (n > fz_len - off)
            n = fz_len - off;
        static const uint8_t v[] = {0, 1, 0x7f, 0x80, 0xff};
        memset(fz_buf + off, fz_chance(4) ? (int)(uint8_t)next() : v[fz_below(sizeof v)], n);
        break;
    }
    case M_RENAME: {
        /* Another entry point's name for an id (the driver's, or a
         * runtime or library function's with its layer), one with as
         * many parameters when there is one: the calls are then decoded
         * with that signature, captures and all (structs, enums, flags). */
        if (!s->names.n)
            break;
        size_t r = s->names.v[fz_below(s->names.n)];
        const struct cutap_rec_meta *m = (const void *)(s->data + r);
        size_t room = 40 + (size_t)CUTAP_SLOT * (m->nslots - 1u);
        if (r + CUTAP_SLOT * (size_t)m->nslots > fz_len)
            break;
        const struct dec_fn *cur = dec_find_fn(&dec_driver, m->text);
        if (!cur)
            cur = dec_find_fn(&dec_layers, m->text);
        const struct dec_fn *fn = NULL;
        for (int tries = 0; tries < 256 && !fn; tries++) {
            const struct dec_set *set = fz_chance(2) ? &dec_driver : &dec_layers;
            const struct dec_fn *f = &set->fns[fz_below(set->nfns)];
            if (strlen(f->name) < room && (!cur || f->nargs == cur->nargs || tries >= 192))
                fn = f;
        }
        if (fn) {
            memset(fz_buf + r + offsetof(struct cutap_rec_meta, text), 0, room);
            memcpy(fz_buf + r + offsetof(struct cutap_rec_meta, text), fn->name, strlen(fn->name));
            uint64_t key = fn->layer;   /* the layer goes with the name (or, at times, not) */
            if (!fz_chance(8))
                memcpy(fz_buf + r + offsetof(struct cutap_rec_meta, key), &key, sizeof key);
        }
        break;
    }
    }
}

/* 1 to 8 mutations of the copy of s in fz_buf. */
void fz_mutate_some(const struct seed *s)
{
    unsigned n = 1 + (unsigned)fz_below(8);
    for (unsigned k = 0; k < n; k++) {
        /* Structure-aware mutations are the most likely; truncation
         * and appending less so, or few files would stay whole. */
        static const unsigned char weights[M_N] = {6, 3, 3, 8, 4, 2, 1, 1, 1, 2, 3};
        unsigned total = 0, w;
        for (int m = 0; m < M_N; m++)
            total += weights[m];
        w = (unsigned)fz_below(total);
        int m = 0;
        while (w >= weights[m])
            w -= weights[m++];
        fz_mutate(s, m);
    }
}

void fz_free_seeds(void)
{
    for (size_t i = 0; i < fz_nseeds; i++) {
        free(fz_seeds[i].data);
        free(fz_seeds[i].chunks.v);
        free(fz_seeds[i].recs.v);
        free(fz_seeds[i].caps.v);
        free(fz_seeds[i].counters.v);
        free(fz_seeds[i].names.v);
    }
    free(fz_seeds);
    free(fz_buf);
}
