/* A deterministic mutation fuzzer for the trace reader (cli/read/)
 * and the commands built on it (report, dump, export), linked with all of
 * cli/ but main.c and built with AddressSanitizer and UBSan (tests/tests.mk).
 *
 *   fuzz_reader [-t SECONDS] [-d DIR] [-f FIRST] SEED ITERATIONS TRACE.cutap...
 *
 * Each iteration takes one of the seed traces, applies 1 to 8 mutations
 * (bit flips, interesting values in header, chunk, record, capture and
 * counter fields, truncation, appended garbage, duplicated chunks, filled
 * ranges), writes it to DIR/in/x.cutap and runs, in this process: tr_load,
 * report_print in every format and grouping, report_tree, `cutap dump` and `cutap export`
 * in every format. A crash or a sanitizer report ends the run (non-zero
 * status); so does an iteration that takes longer than SECONDS (a hang).
 * The input of the iteration that failed is left in DIR/last.cutap (and
 * DIR/last-2.cutap when the iteration loaded a second file with it), and
 * the iteration can be run again alone with -f ITERATION SEED 1 TRACES.
 *
 * The reader maps trace files; AddressSanitizer cannot see a read past
 * the end of a file that stays inside the mapping's last page. Linked with
 * -Wl,--wrap=mmap,--wrap=munmap (tests/tests.mk), the reader's read-only
 * mappings are heap copies of exactly the file's size here: such reads
 * are reported as heap overflows.
 *
 * Every iteration draws from its own generator, seeded from SEED and the
 * iteration number: a run is the same on every machine. The CLI prints a
 * message for every damaged file; its stderr goes to /dev/null, sanitizer
 * reports and this program's own lines to the original stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cutap_format.h"
#include "decode_tables.h"

/* Sanitizer hooks, absent when built without them. */
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/* --- the reader's mappings, as heap copies ----------------------------- */

void *__real_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t length);
void *__wrap_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t length);

static void **copies;
static size_t ncopies, cap_copies;

void *__wrap_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t off)
{
    if (addr || prot != PROT_READ || !(flags & MAP_PRIVATE) || fd < 0 || !length)
        return __real_mmap(addr, length, prot, flags, fd, off);
    void *p = NULL;
    if (posix_memalign(&p, 64, length)) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    size_t got = 0;
    while (got < length) {
        ssize_t n = pread(fd, (char *)p + got, length - got, off + (off_t)got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    memset((char *)p + got, 0, length - got);
    if (ncopies == cap_copies) {
        cap_copies = cap_copies ? 2 * cap_copies : 16;
        copies = realloc(copies, cap_copies * sizeof *copies);
        if (!copies)
            abort();
    }
    copies[ncopies++] = p;
    return p;
}

int __wrap_munmap(void *addr, size_t length)
{
    for (size_t i = 0; i < ncopies; i++)
        if (copies[i] == addr) {
            copies[i] = copies[--ncopies];
            free(addr);
            return 0;
        }
    return __real_munmap(addr, length);
}

/* --- the generator ----------------------------------------------------- */

static uint64_t rng;

static uint64_t next(void)   /* xorshift64* */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1dull;
}

static uint64_t below(uint64_t n) { return n ? next() % n : 0; }
static int chance(unsigned one_in) { return below(one_in) == 0; }

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* --- seeds and what they hold ------------------------------------------ */

struct offs {
    size_t *v, n, cap;
};

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

struct seed {
    const char *path;
    uint8_t *data;
    size_t size;
    uint32_t chunk_size;      /* 0 when the header does not give a valid one */
    struct offs chunks;       /* chunks with a magic */
    struct offs recs;         /* records (calls and metas) */
    struct offs caps;         /* capture headers */
    struct offs counters;     /* counters with calls */
    struct offs names;        /* ID_NAME meta records */
};

static struct seed *seeds;
static size_t nseeds;

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Bytes per counter in a file of this header: 40 in version 1. */
static size_t counter_size(const uint8_t *data, size_t size)
{
    return size >= CUTAP_HEADER_SIZE && rd32(data + offsetof(struct cutap_file_header, version)) == 1
               ? sizeof(struct cutap_counter_v1)
               : sizeof(struct cutap_counter);
}

/* Where the chunks, records, captures and counters of a seed are: the
 * mutations aim at them (most of a trace file is zeros). */
static void index_seed(struct seed *s)
{
    if (s->size < CUTAP_HEADER_SIZE)
        return;
    uint32_t cs = rd32(s->data + offsetof(struct cutap_file_header, chunk_size));
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

static void load_seed(struct seed *s, const char *path)
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

static uint8_t *buf;
static size_t len, buf_cap;

static void reserve(size_t n)
{
    if (n <= buf_cap)
        return;
    buf_cap = n + n / 2;
    buf = realloc(buf, buf_cap);
    if (!buf) {
        perror("fuzz_reader");
        exit(2);
    }
}

static uint64_t interesting(void)
{
    static const uint64_t v[] = {0, 1, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 0x80000000u, 0x7fffffffffffffffull,
                                 0xffffffffffffffffull, 0x8000000000000000ull};
    switch (below(4)) {
    case 0: return below(17);             /* small */
    case 1: return next();                /* anything */
    default: return v[below(sizeof v / sizeof *v)];
    }
}

/* Writes a value of `width` bytes at `off` (when inside the file): an
 * interesting one, or the old one plus or minus a little. */
static void poke(size_t off, unsigned width)
{
    if (off + width > len)
        return;
    uint64_t v = 0;
    if (chance(4)) {
        memcpy(&v, buf + off, 8 < len - off ? 8 : len - off);
        v += chance(2) ? below(4) + 1 : -(below(4) + 1);
    } else {
        v = interesting();
    }
    memcpy(buf + off, &v, width);
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
#define PICK(a) (&(a)[below(sizeof(a) / sizeof *(a))])

/* The chunk size the file says, if usable for aiming (else the seed's). */
static size_t chunk_size_of(const struct seed *s)
{
    if (len >= CUTAP_HEADER_SIZE) {
        uint32_t cs = rd32(buf + offsetof(struct cutap_file_header, chunk_size));
        if (cs >= 4096 && !(cs & (cs - 1)) && cs <= (64u << 20))
            return cs;
    }
    return s->chunk_size ? s->chunk_size : 262144;
}

/* An offset of the list, or a made-up one of the same kind. */
static size_t pick(const struct offs *o, size_t fallback)
{
    return o->n && !chance(8) ? o->v[below(o->n)] : fallback;
}

static size_t some_chunk(const struct seed *s)
{
    size_t cs = chunk_size_of(s), n = len > CUTAP_HEADER_SIZE ? (len - CUTAP_HEADER_SIZE) / cs : 0;
    return pick(&s->chunks, CUTAP_HEADER_SIZE + below(n + 1) * cs);
}

static size_t some_record(const struct seed *s)
{
    return pick(&s->recs, some_chunk(s) + CUTAP_SLOT * (1 + below(chunk_size_of(s) / CUTAP_SLOT - 1)));
}

/* A string field or text with its terminating NUL overwritten (or, at
 * times, all zeros: an empty string, a header never written). */
static void fill_text(size_t off, size_t n)
{
    if (off >= len)
        return;
    if (n > len - off)
        n = len - off;
    memset(buf + off, chance(6) ? 0 : chance(2) ? 'A' : (int)(0x80 | below(128)), n);
}

enum {
    M_FLIP, M_HEADER, M_CHUNK, M_RECORD, M_CAPTURE, M_COUNTER, M_TRUNCATE, M_APPEND, M_DUPCHUNK, M_FILL, M_RENAME,
    M_N
};
static const char *const mnames[M_N] = {"flip",   "header",    "chunk", "record", "capture", "counter",
                                        "truncate", "append", "dup-chunk", "fill", "rename"};
static unsigned long mcount[M_N];

static void mutate(const struct seed *s, int m)
{
    size_t cs = chunk_size_of(s);
    mcount[m]++;
    switch (m) {
    case M_FLIP: {
        /* Anywhere, or near something that is there. */
        size_t n = 1 + below(8);
        for (size_t i = 0; i < n && len; i++) {
            size_t off;
            switch (below(4)) {
            case 0: off = below(len); break;
            case 1: off = below(sizeof(struct cutap_file_header)); break;
            case 2: off = some_record(s) + below(3 * CUTAP_SLOT); break;
            default: off = some_chunk(s) + below(CUTAP_SLOT); break;
            }
            if (off < len)
                buf[off] ^= (uint8_t)(1u << below(8));
        }
        break;
    }
    case M_HEADER:
        if (chance(6)) {
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
        if (chance(8)) {
            fill_text(c + offsetof(struct cutap_chunk_header, thread_name), 16);
        } else {
            const struct field *f = PICK(chunk_fields);
            poke(c + f->off, f->width);
        }
        break;
    }
    case M_RECORD: {
        size_t r = some_record(s);
        if (r >= len)
            break;
        if (buf[r] == CUTAP_REC_META && chance(2)) {
            if (chance(3))
                fill_text(r + offsetof(struct cutap_rec_meta, text), 40 + below(3) * CUTAP_SLOT);
            else {
                const struct field *f = chance(4) ? &call_fields[0] + below(3) : PICK(meta_fields);
                poke(r + f->off, f->width);
            }
        } else {
            const struct field *f = PICK(call_fields);
            poke(r + f->off, f->width);
        }
        break;
    }
    case M_CAPTURE: {
        size_t c = s->caps.n ? s->caps.v[below(s->caps.n)] : some_record(s) + offsetof(struct cutap_rec_call, words);
        const struct field *f = PICK(cap_fields);
        poke(c + f->off, f->width);
        break;
    }
    case M_COUNTER: {
        size_t ks = counter_size(buf, len);
        size_t c = pick(&s->counters, some_chunk(s) + CUTAP_SLOT + ks * below((cs - CUTAP_SLOT) / ks));
        const struct field *f = &counter_fields[below(ks == sizeof(struct cutap_counter_v1) ? 5 : 8)];
        poke(c + f->off, f->width);
        break;
    }
    case M_TRUNCATE: {
        size_t n;
        switch (below(4)) {
        case 0: n = below(CUTAP_HEADER_SIZE + 1); break;   /* shorter than the header */
        case 1: n = CUTAP_HEADER_SIZE + below(len / cs + 1) * cs; break;   /* whole chunks */
        case 2: {
            size_t k = CUTAP_HEADER_SIZE + below(len / cs + 1) * cs;   /* a chunk boundary, give or take */
            n = k + below(129) - 64;
            break;
        }
        default: n = below(len + 1); break;
        }
        if (n < len)
            len = n;
        break;
    }
    case M_APPEND: {
        size_t n = below(4) ? 1 + below(2 * CUTAP_SLOT) : 1 + below(2 * cs);
        reserve(len + n);
        if (chance(2)) {
            for (size_t i = 0; i < n; i++)
                buf[len + i] = (uint8_t)next();
        } else {
            memset(buf + len, chance(2) ? 0 : 0xff, n);
        }
        len += n;
        break;
    }
    case M_DUPCHUNK: {
        size_t from = some_chunk(s);
        if (from + cs > len)
            break;
        size_t nch = (len - CUTAP_HEADER_SIZE) / cs, to;
        if (chance(2)) {
            to = CUTAP_HEADER_SIZE + nch * cs;   /* appended (after any partial chunk's start) */
            reserve(to + cs);
            if (to > len)
                memset(buf + len, 0, to - len);
            len = to + cs;
        } else {
            to = CUTAP_HEADER_SIZE + below(nch) * cs;
        }
        memmove(buf + to, buf + from, cs);
        break;
    }
    case M_FILL: {
        /* A run of one byte value over records or counters. */
        size_t off = chance(2) ? some_record(s) : some_chunk(s) + CUTAP_SLOT, n = 1 + below(chance(4) ? cs : 512);
        if (off >= len)
            break;
        if (n > len - off)
            n = len - off;
        static const uint8_t v[] = {0, 1, 0x7f, 0x80, 0xff};
        memset(buf + off, chance(4) ? (int)(uint8_t)next() : v[below(sizeof v)], n);
        break;
    }
    case M_RENAME: {
        /* Another entry point's name for an id (the driver's, or a
         * runtime or library function's with its layer), one with as
         * many parameters when there is one: the calls are then decoded
         * with that signature, captures and all (structs, enums, flags). */
        if (!s->names.n)
            break;
        size_t r = s->names.v[below(s->names.n)];
        const struct cutap_rec_meta *m = (const void *)(s->data + r);
        size_t room = 40 + (size_t)CUTAP_SLOT * (m->nslots - 1u);
        if (r + CUTAP_SLOT * (size_t)m->nslots > len)
            break;
        const struct dec_fn *cur = dec_find_fn(&dec_driver, m->text);
        if (!cur)
            cur = dec_find_fn(&dec_layers, m->text);
        const struct dec_fn *fn = NULL;
        for (int tries = 0; tries < 256 && !fn; tries++) {
            const struct dec_set *set = chance(2) ? &dec_driver : &dec_layers;
            const struct dec_fn *f = &set->fns[below(set->nfns)];
            if (strlen(f->name) < room && (!cur || f->nargs == cur->nargs || tries >= 192))
                fn = f;
        }
        if (fn) {
            memset(buf + r + offsetof(struct cutap_rec_meta, text), 0, room);
            memcpy(buf + r + offsetof(struct cutap_rec_meta, text), fn->name, strlen(fn->name));
            uint64_t key = fn->layer;   /* the layer goes with the name (or, at times, not) */
            if (!chance(8))
                memcpy(buf + r + offsetof(struct cutap_rec_meta, key), &key, sizeof key);
        }
        break;
    }
    }
}

/* --- running the commands ------------------------------------------------ */

static char dir[4096], in_dir[4200], x_path[4300], y_path[4300], last_path[4300], last2_path[4300];
static FILE *log_f;              /* the original stderr */
static unsigned long iter_now;
static uint64_t base_seed;
static unsigned timeout_s = 20;

static void say_where(const char *what)
{
    char msg[9000];
    int n = snprintf(msg, sizeof msg,
                     "fuzz: %s at iteration %lu (seed %llu); its input is %s (rerun: -f %lu %llu 1 SEEDS...)\n", what,
                     iter_now, (unsigned long long)base_seed, last_path, iter_now, (unsigned long long)base_seed);
    if (n > 0)
        (void)!write(fileno(log_f), msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

static void on_alarm(int sig)
{
    (void)sig;
    char what[64];
    snprintf(what, sizeof what, "hang (more than %u s)", timeout_s);
    say_where(what);
    abort();
}

static void on_death(void) { say_where("sanitizer report"); }

static void on_crash(int sig)
{
    say_where(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : "SIGABRT");
    signal(sig, SIG_DFL);
    raise(sig);
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    unlink(path);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f)) {
        fprintf(log_f, "fuzz_reader: cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
}

/* cmd_dump and cmd_export parse with getopt and may permute argv: they get
 * writable copies. */
static int run_cmd(int (*fn)(int, char **), int argc, const char *const *args)
{
    char *argv[16];
    for (int i = 0; i < argc; i++)
        argv[i] = strdup(args[i]);
    argv[argc] = NULL;
    optind = 0;   /* glibc: a full reset of getopt's state */
    int rc = fn(argc, argv);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    return rc;
}

static unsigned long loaded, rejected, damaged;

static void run_one(const char *path, FILE *devnull)
{
    struct trace tr;
    if (tr_load(&tr, path) == 0) {
        loaded++;
        damaged += tr.problems > 0;
        for (int fmt = FMT_TEXT; fmt <= FMT_JSON; fmt++) {
            for (int by = BY_NONE; by <= BY_RANK; by++)
                report_print(&tr, devnull, fmt, by);
            report_tree(&tr, devnull, fmt);
        }
        tr_free(&tr);
    } else {
        rejected++;
    }
    /* dump, sometimes for one process or thread */
    char pid[32] = "";
    if (len >= CUTAP_HEADER_SIZE)
        snprintf(pid, sizeof pid, "%d", (int)rd32(buf + offsetof(struct cutap_file_header, pid)));
    switch (below(8)) {
    case 0:
        if (*pid) {
            run_cmd(cmd_dump, 4, (const char *const[]){"dump", "--pid", pid, path});
            break;
        }
        /* fall through */
    case 1: {
        uint32_t tid = 0;
        const struct cutap_chunk_header *ch = (const void *)(buf + CUTAP_HEADER_SIZE);
        if (len >= CUTAP_HEADER_SIZE + sizeof *ch)
            tid = (uint32_t)ch->tid;
        char t[32];
        snprintf(t, sizeof t, "%u", tid);
        run_cmd(cmd_dump, 4, (const char *const[]){"dump", "--tid", t, path});
        break;
    }
    case 2: run_cmd(cmd_dump, 3, (const char *const[]){"dump", "--no-demangle", path}); break;
    default: run_cmd(cmd_dump, 2, (const char *const[]){"dump", path}); break;
    }
    fflush(stdout);
    static const char *const formats[] = {"jsonl", "perfetto", "sqlite", "perfetto-proto"};
    for (size_t i = 0; i < 4; i++) {
        char out[4400];
        snprintf(out, sizeof out, "%s/out.%s", dir, formats[i]);
        run_cmd(cmd_export, 7, (const char *const[]){"export", "--format", formats[i], "-o", out, "--force", path});
        unlink(out);
    }
}

static const char usage[] = "usage: fuzz_reader [-t SECONDS] [-d DIR] [-f FIRST] SEED ITERATIONS TRACE.cutap...\n";

int main(int argc, char **argv)
{
    const char *dir_opt = NULL;
    unsigned long first = 0;
    int o;
    while ((o = getopt(argc, argv, "t:d:f:")) != -1) {
        if (o == 't')
            timeout_s = (unsigned)strtoul(optarg, NULL, 10);
        else if (o == 'd')
            dir_opt = optarg;
        else if (o == 'f')
            first = strtoul(optarg, NULL, 10);
        else {
            fputs(usage, stderr);
            return 2;
        }
    }
    if (argc - optind < 3) {
        fputs(usage, stderr);
        return 2;
    }
    base_seed = strtoull(argv[optind], NULL, 0);
    unsigned long iters = strtoul(argv[optind + 1], NULL, 0);
    nseeds = (size_t)(argc - optind - 2);
    seeds = calloc(nseeds, sizeof *seeds);
    for (size_t i = 0; i < nseeds; i++)
        load_seed(&seeds[i], argv[optind + 2 + i]);

    if (dir_opt) {
        snprintf(dir, sizeof dir, "%s", dir_opt);
        mkdir(dir, 0700);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/fuzz_reader.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            perror("fuzz_reader: mkdtemp");
            return 2;
        }
    }
    snprintf(in_dir, sizeof in_dir, "%s/in", dir);
    mkdir(in_dir, 0700);
    snprintf(x_path, sizeof x_path, "%s/x.cutap", in_dir);
    snprintf(y_path, sizeof y_path, "%s/y.cutap", in_dir);
    snprintf(last_path, sizeof last_path, "%s/last.cutap", dir);
    snprintf(last2_path, sizeof last2_path, "%s/last-2.cutap", dir);

    /* Our lines and sanitizer reports to the original stderr; the CLI's
     * messages (one per damaged file) and its stdout to /dev/null. */
    int keep = dup(2);
    log_f = keep >= 0 ? fdopen(keep, "w") : NULL;
    if (!log_f || !freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) {
        perror("fuzz_reader");
        return 2;
    }
    setvbuf(log_f, NULL, _IOLBF, 0);
    if (__sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)keep);
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(on_death);
    else {
        signal(SIGSEGV, on_crash);
        signal(SIGBUS, on_crash);
        signal(SIGFPE, on_crash);
        signal(SIGABRT, on_crash);
    }
    signal(SIGALRM, on_alarm);
    FILE *devnull = fopen("/dev/null", "w");
    if (!devnull) {
        perror("fuzz_reader: /dev/null");
        return 2;
    }

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long two = 0, slowest_it = first;
    double slowest = 0;
    for (unsigned long it = first; it < first + iters; it++) {
        iter_now = it;
        rng = splitmix(base_seed ^ splitmix(it + 1));
        if (!rng)
            rng = 1;
        const struct seed *s = &seeds[below(nseeds)];
        reserve(s->size);
        memcpy(buf, s->data, s->size);
        len = s->size;
        unsigned n = 1 + (unsigned)below(8);
        for (unsigned k = 0; k < n; k++) {
            /* Structure-aware mutations are the most likely; truncation
             * and appending less so, or few files would stay whole. */
            static const unsigned char weights[M_N] = {6, 3, 3, 8, 4, 2, 1, 1, 1, 2, 3};
            unsigned total = 0, w;
            for (int m = 0; m < M_N; m++)
                total += weights[m];
            w = (unsigned)below(total);
            int m = 0;
            while (w >= weights[m])
                w -= weights[m++];
            mutate(s, m);
        }
        /* The file alone, its directory, or its directory with a second
         * trace (another seed, as it is): several processes at once. */
        int with_y = chance(8), as_dir = with_y || chance(4);
        unlink(y_path);
        unlink(last2_path);
        write_file(x_path, buf, len);
        unlink(last_path);
        if (link(x_path, last_path))
            write_file(last_path, buf, len);
        if (with_y) {
            const struct seed *y = &seeds[below(nseeds)];
            write_file(y_path, y->data, y->size);
            if (link(y_path, last2_path))
                write_file(last2_path, y->data, y->size);
            two++;
        }
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        alarm(timeout_s);
        run_one(as_dir ? in_dir : x_path, devnull);
        alarm(0);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double d = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        if (d > slowest) {
            slowest = d;
            slowest_it = it;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    unlink(x_path);
    unlink(y_path);
    unlink(last_path);
    unlink(last2_path);
    rmdir(in_dir);
    if (!dir_opt)
        rmdir(dir);
    fprintf(log_f, "fuzz: mutations:");
    for (int m = 0; m < M_N; m++)
        fprintf(log_f, " %s %lu", mnames[m], mcount[m]);
    fprintf(log_f, "; %lu iterations with two files; %lu loaded with problems; %.1f s, slowest iteration %lu: %.2f s\n",
            two, damaged, secs, slowest_it, slowest);
    fprintf(log_f, "fuzz: %lu iterations, %lu loaded, %lu rejected\n", iters, loaded, rejected);
    fclose(devnull);
    for (size_t i = 0; i < nseeds; i++) {
        free(seeds[i].data);
        free(seeds[i].chunks.v);
        free(seeds[i].recs.v);
        free(seeds[i].caps.v);
        free(seeds[i].counters.v);
        free(seeds[i].names.v);
    }
    free(seeds);
    free(buf);
    free(copies);
    return 0;
}
