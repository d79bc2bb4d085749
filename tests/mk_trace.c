/* Crafts trace files the recorder does not (yet) write, for the reader's
 * tests (the reader_* cases, tests/cases/reader/):
 *
 *   mk_trace v3 DIR          version 3, trace mode: loss fields (STOPPED,
 *                            ENOSPC, 95000 lost calls, 3 lost names), a
 *                            chunk passed to a second thread by a THREAD
 *                            meta whose run comes after that thread's own
 *                            chunk (later in the file)
 *   mk_trace v3counts DIR    version 3, counting mode: COUNTER_ENTRIES of
 *                            two threads (one entry without its magic),
 *                            lost_calls without STOPPED
 *   mk_trace hostile DIR     strings with terminal escapes and invalid
 *                            UTF-8 in host, exe, cmdline, thread and call
 *                            names, kernel names, captured strings
 *   mk_trace flags DIR       a call record whose flags byte is 0x80 (the
 *                            reader's own range flag) or 0xff
 *   mk_trace hugeids DIR N   N files of 12 KiB naming ids near 2^32
 *   mk_trace durations DIR N N calls of one id, durations 1000 .. 999 + N ns
 *   mk_trace sparse FILE     a 64 GiB sparse file: header, one chunk at
 *                            the start and one at the end, holes between
 *   mk_trace tidreuse DIR    two threads of one tid, one after the other,
 *                            each numbering its runs from 0
 *   mk_trace ncclranks DIR   two ranks (0 and 1) of 3 ncclAllReduce each,
 *                            rank 1 entering each 500 ns after rank 0,
 *                            each call holding an NVTX range of its own
 *                            name (NCCL 2.28 pushes one so), rank 1's
 *                            begun 200 us after its call; then a
 *                            cudaStreamSynchronize of 1 us holding a
 *                            range of its name too
 *   mk_trace phantom DIR     an NVTX range pushed inside a call and never
 *                            popped (NCCL 2.28's ncclCommInitRankConfig
 *                            does so), a call nested in it, later calls
 *                            of the thread outside the first
 *
 * Files are written with the struct layouts of include/cutap_format.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cutap_format.h"

#define CHUNK 4096u
#define SLOTS (CHUNK / CUTAP_SLOT)

static void die(const char *what)
{
    perror(what);
    exit(1);
}

struct file {
    unsigned char *buf;
    size_t size;   /* header + nchunks * CHUNK */
};

static struct file *new_file(unsigned nchunks, uint32_t flags, int pid)
{
    struct file *f = calloc(1, sizeof *f);
    f->size = CUTAP_HEADER_SIZE + (size_t)nchunks * CHUNK;
    f->buf = calloc(1, f->size);
    if (!f || !f->buf)
        die("calloc");
    struct cutap_file_header *h = (void *)f->buf;
    memcpy(h->magic, CUTAP_FILE_MAGIC, 8);
    h->version = CUTAP_FILE_VERSION;
    h->header_size = CUTAP_HEADER_SIZE;
    h->chunk_size = CHUNK;
    h->flags = flags;
    h->clock = CUTAP_CLOCK_NS;
    h->pid = pid;
    h->ppid = 1;
    h->rank = h->local_rank = -1;
    h->start_realtime_ns = 1700000000000000000ull;
    h->start_mono_ns = h->start_clock = 1000;
    h->calib_clock = h->calib_mono_ns = 2000;
    snprintf(h->host, sizeof h->host, "host");
    snprintf(h->exe, sizeof h->exe, "/bin/crafted");
    snprintf(h->cmdline, sizeof h->cmdline, "crafted");
    snprintf(h->cutap_version, sizeof h->cutap_version, "mk_trace");
    return f;
}

static struct cutap_file_header *hdr(struct file *f) { return (void *)f->buf; }

static unsigned char *chunk(struct file *f, unsigned ci, uint16_t type, int32_t tid, uint32_t seq, const char *tname)
{
    unsigned char *c = f->buf + CUTAP_HEADER_SIZE + (size_t)ci * CHUNK;
    struct cutap_chunk_header *ch = (void *)c;
    ch->type = type;
    ch->tid = tid;
    ch->seq = seq;
    ch->clock = ch->mono_ns = 1500;
    snprintf(ch->thread_name, sizeof ch->thread_name, "%s", tname);
    ch->magic = CUTAP_CHUNK_MAGIC;
    return c;
}

/* Appends records at *slot of chunk c. A meta record's text: len bytes
 * (NUL-separated fields allowed), NUL-terminated. */
static void meta_n(unsigned char *c, unsigned *slot, uint8_t sub, uint32_t aux, uint64_t key, const char *text,
                   size_t len)
{
    unsigned nslots = len + 1 <= 40 ? 1 : 1 + (unsigned)((len + 1 - 40 + CUTAP_SLOT - 1) / CUTAP_SLOT);
    struct cutap_rec_meta *m = (void *)(c + (size_t)*slot * CUTAP_SLOT);
    m->sub = sub;
    m->nslots = (uint16_t)nslots;
    m->aux = aux;
    m->key = key;
    m->clock = 1500;
    memcpy(m->text, text, len);
    m->kind = CUTAP_REC_META;
    *slot += nslots;
}

static void meta(unsigned char *c, unsigned *slot, uint8_t sub, uint32_t aux, uint64_t key, const char *text)
{
    meta_n(c, slot, sub, aux, key, text, strlen(text));
}

static struct cutap_rec_call *call(unsigned char *c, unsigned *slot, uint32_t id, uint64_t t0, uint64_t t1,
                                   uint16_t depth, uint8_t flags)
{
    struct cutap_rec_call *r = (void *)(c + (size_t)*slot * CUTAP_SLOT);
    r->nslots = 1;
    r->id = id;
    r->t0 = t0;
    r->t1 = t1;
    r->depth = depth;
    r->flags = flags | (t1 ? CUTAP_RF_DONE : 0);
    r->kind = CUTAP_REC_CALL;
    *slot += 1;
    return r;
}

/* A call with one argument and its captured string (IN_STR). */
static void call_str(unsigned char *c, unsigned *slot, uint32_t id, uint64_t t0, uint64_t t1, const char *s)
{
    size_t len = strlen(s), room = (len + 7) / 8 * 8;
    size_t payload = 8 + sizeof(struct cutap_capture) + room;
    unsigned nslots = payload <= 24 ? 1 : 1 + (unsigned)((payload - 24 + CUTAP_SLOT - 1) / CUTAP_SLOT);
    struct cutap_rec_call *r = (void *)(c + (size_t)*slot * CUTAP_SLOT);
    r->nslots = (uint16_t)nslots;
    r->id = id;
    r->t0 = t0;
    r->t1 = t1;
    r->flags = CUTAP_RF_DONE;
    r->nargs = 1;
    r->ncap = 1;
    r->words[0] = 0x1000;
    unsigned char *p = (unsigned char *)r->words + 8;
    struct cutap_capture k = {(uint16_t)len, (uint16_t)room, 0, CUTAP_CAP_IN_STR, CUTAP_CAPS_OK, 0};
    memcpy(p, &k, sizeof k);
    memcpy(p + sizeof k, s, len);
    r->kind = CUTAP_REC_CALL;
    *slot += nslots;
}

static void write_file(struct file *f, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        die(path);
    if (write(fd, f->buf, f->size) != (ssize_t)f->size)
        die("write");
    close(fd);
    free(f->buf);
    free(f);
}

static void mk_v3(const char *dir)
{
    struct file *f = new_file(2, CUTAP_FILE_CLOSED | CUTAP_FILE_STOPPED, 1234);
    struct cutap_file_header *h = hdr(f);
    h->stop_errno = ENOSPC;
    h->stop_reason = CUTAP_STOP_SPACE;
    h->stop_clock = 5000;
    h->lost_calls = 95000;
    h->lost_names = 3;
    /* chunk 0: thread 100 (run 0), then passed to thread 200 as its run 1 */
    unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 100, 0, "main");
    unsigned s = 1;
    meta(c, &s, CUTAP_META_ID_NAME, 1, 0, "cuInit");
    meta(c, &s, CUTAP_META_ID_NAME, 2, 0, "cuCtxSynchronize");
    meta(c, &s, CUTAP_META_ID_NAME, 3, 0, "cuMemAlloc_v2");
    call(c, &s, 1, 1100, 1200, 0, 0);
    meta(c, &s, CUTAP_META_THREAD, 200, 1, "worker");
    /* thread 200's run 1: a child of its run 0's outer call, starting at
     * the same time (only run order puts the parent first) */
    call(c, &s, 3, 1300, 1350, 1, 0);
    call(c, &s, 2, 1500, 1600, 0, 0);
    /* chunk 1: thread 200's run 0 */
    c = chunk(f, 1, CUTAP_CHUNK_RECORDS, 200, 0, "worker");
    s = 1;
    call(c, &s, 2, 1300, 1400, 0, 0);
    write_file(f, dir, "host.1234.cutap");
}

static void entry(unsigned char *c, unsigned i, int32_t tid, uint32_t id, const char *tname, uint64_t calls,
                  uint64_t errors, uint64_t total, int with_magic)
{
    struct cutap_counter_entry *e = (void *)(c + CUTAP_SLOT + (size_t)i * 2 * CUTAP_SLOT);
    e->tid = tid;
    e->id = id;
    e->clock = e->mono_ns = 1500;
    snprintf(e->thread_name, sizeof e->thread_name, "%s", tname);
    e->c.calls = calls;
    e->c.errors = errors;
    e->c.total = total;
    e->c.min = total / calls;
    e->c.max = total / calls;
    e->c.timed = calls;
    if (with_magic)
        e->magic = CUTAP_ENTRY_MAGIC;
}

static void mk_v3counts(const char *dir)
{
    struct file *f = new_file(2, CUTAP_FILE_COUNTS | CUTAP_FILE_CLOSED, 4321);
    hdr(f)->lost_calls = 7;
    unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 10, 0, "main");
    unsigned s = 1;
    meta(c, &s, CUTAP_META_ID_NAME, 1, 0, "cuInit");
    meta(c, &s, CUTAP_META_ID_NAME, 2, 0, "cuMemAlloc_v2");
    c = chunk(f, 1, CUTAP_CHUNK_COUNTER_ENTRIES, 10, 0, "main");
    entry(c, 0, 10, 1, "main", 1, 0, 500, 1);
    entry(c, 1, 11, 2, "worker", 40, 2, 4000, 1);
    entry(c, 2, 10, 2, "main", 10, 0, 1000, 1);
    entry(c, 3, 12, 1, "ghost", 99, 99, 9900, 0);   /* no magic: not in */
    write_file(f, dir, "host.4321.cutap");
}

static void mk_hostile(const char *dir)
{
    struct file *f = new_file(1, CUTAP_FILE_CLOSED, 666);
    struct cutap_file_header *h = hdr(f);
    snprintf(h->host, sizeof h->host, "h\033]0;pwned\007ost");
    snprintf(h->exe, sizeof h->exe, "/bin/\033[2Jexe");
    snprintf(h->cmdline, sizeof h->cmdline, "cmd \033[31mred\xff\xfe");
    unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 66, 0, "\033]0;pwned\007");
    unsigned s = 1;
    meta(c, &s, CUTAP_META_ID_NAME, 1, 0, "cuInit\033[1m\xc3");
    meta(c, &s, CUTAP_META_ID_NAME, 2, 13, "nvtxRangePushA");   /* layer 12: NVTX */
    meta(c, &s, CUTAP_META_ID_NAME, 3, 13, "nvtxRangePop");
    meta(c, &s, CUTAP_META_FUNC_NAME, 0, 0xabc, "kern\033[5m\xe2\x82");
    call(c, &s, 1, 1100, 1200, 0, 0);
    meta(c, &s, CUTAP_META_ID_NAME, 4, 0, "cuLaunchKernel");
    struct cutap_rec_call *k = call(c, &s, 4, 1250, 1260, 0, 0);
    k->nslots = 2;   /* 11 argument words: the function handle first */
    k->nargs = 11;
    k->words[0] = 0xabc;
    s += 1;
    call_str(c, &s, 2, 1300, 1310, "range\033]0;pwned\007\x80\"q\\");
    call(c, &s, 3, 1400, 1410, 0, 0);
    write_file(f, dir, "host.666.cutap");
}

static void mk_phantom(const char *dir)
{
    struct file *f = new_file(1, CUTAP_FILE_CLOSED, 78);
    unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 8, 0, "main");
    unsigned s = 1;
    meta(c, &s, CUTAP_META_ID_NAME, 1, 0, "cuInit");
    meta(c, &s, CUTAP_META_ID_NAME, 2, 13, "nvtxRangePushA");
    meta(c, &s, CUTAP_META_ID_NAME, 3, 0, "cuCtxSetCurrent");
    meta(c, &s, CUTAP_META_ID_NAME, 4, 0, "cuCtxGetDevice");
    call(c, &s, 1, 1100, 1900, 0, 0);   /* the call the range is pushed in */
    struct cutap_rec_call *push = (void *)(c + (size_t)s * CUTAP_SLOT);
    call_str(c, &s, 2, 1200, 1210, "phantom");
    push->depth = 1;
    call(c, &s, 3, 1300, 1400, 2, 0);   /* inside the range */
    call(c, &s, 4, 2000, 2100, 0, 0);   /* after the first call returned */
    call(c, &s, 4, 2200, 2300, 0, 0);
    write_file(f, dir, "host.78.cutap");
}

static void mk_ncclranks(const char *dir)
{
    for (int rank = 0; rank < 2; rank++) {
        struct file *f = new_file(1, CUTAP_FILE_CLOSED, 500 + rank);
        hdr(f)->rank = hdr(f)->local_rank = rank;
        unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 500 + rank, 0, "main");
        unsigned s = 1;
        meta(c, &s, CUTAP_META_ID_NAME, 1, 6, "ncclAllReduce");   /* layer 6: NCCL */
        meta(c, &s, CUTAP_META_ID_NAME, 2, 13, "nvtxRangePushA");
        meta(c, &s, CUTAP_META_ID_NAME, 3, 13, "nvtxRangePop");
        meta(c, &s, CUTAP_META_ID_NAME, 4, 2, "cudaStreamSynchronize");   /* layer 2: the runtime */
        for (uint64_t i = 0; i < 3; i++) {
            uint64_t t0 = 10000 + i * 1000000 + (uint64_t)rank * 500, in = t0 + 100 + (uint64_t)rank * 200000;
            call(c, &s, 1, t0, in + 1000, 0, 0);
            struct cutap_rec_call *push = (void *)(c + (size_t)s * CUTAP_SLOT);
            call_str(c, &s, 2, in, in + 10, "ncclAllReduce");
            push->depth = 1;
            call(c, &s, 3, in + 900, in + 910, 1, 0);
        }
        uint64_t t = 5000000;
        call(c, &s, 4, t, t + 1000, 0, 0);
        struct cutap_rec_call *push = (void *)(c + (size_t)s * CUTAP_SLOT);
        call_str(c, &s, 2, t + 100, t + 110, "cudaStreamSynchronize");
        push->depth = 1;
        call(c, &s, 3, t + 800, t + 810, 1, 0);
        char name[64];
        snprintf(name, sizeof name, "host.%d.cutap", 500 + rank);
        write_file(f, dir, name);
    }
}

static void mk_flags(const char *dir)
{
    struct file *f = new_file(1, CUTAP_FILE_CLOSED, 77);
    unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 7, 0, "main");
    unsigned s = 1;
    meta(c, &s, CUTAP_META_ID_NAME, 1, 0, "cuInit");
    /* an NVTX range: the reader then has range entries of its own */
    meta(c, &s, CUTAP_META_ID_NAME, 2, 13, "nvtxRangePushA");
    meta(c, &s, CUTAP_META_ID_NAME, 3, 13, "nvtxRangePop");
    call_str(c, &s, 2, 1001, 1002, "r");
    call(c, &s, 3, 1003, 1004, 0, 0);
    /* the damaged records last in the file: a reader taking them for its
     * own range entries reads past the end of the mapping */
    while (s < SLOTS - 3)
        call(c, &s, 1, 1000 + 10 * s, 1005 + 10 * s, 0, 0);
    call(c, &s, 1, 2000, 0, 1, 0x80);
    call(c, &s, 1, 2100, 2200, 0, 0xff);
    call(c, &s, 1, 2300, 2400, 0, 0x80);
    write_file(f, dir, "host.77.cutap");
}

static void mk_hugeids(const char *dir, int n)
{
    for (int i = 0; i < n; i++) {
        struct file *f = new_file(2, CUTAP_FILE_CLOSED, 10000 + i);
        unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 7, 0, "main");
        unsigned s = 1;
        /* ids near the old limit (2^20) and far past it */
        meta(c, &s, CUTAP_META_ID_NAME, (1u << 20) - 1 - (unsigned)i, 0, "cuInit");
        meta(c, &s, CUTAP_META_ID_NAME, 0xfffffff0u - (unsigned)i, 0, "cuMemAlloc_v2");
        call(c, &s, (1u << 20) - 1 - (unsigned)i, 1100, 1200, 0, 0);
        call(c, &s, 0xfffffff0u - (unsigned)i, 1300, 1400, 0, 0);
        call(c, &s, 0xffffffffu, 1500, 1600, 0, 0);
        /* a counter chunk whose first id is huge */
        c = chunk(f, 1, CUTAP_CHUNK_COUNTERS, 7, 0, "main");
        ((struct cutap_chunk_header *)c)->first_id = 0xffff0000u;
        char name[64];
        snprintf(name, sizeof name, "host.%d.cutap", 10000 + i);
        write_file(f, dir, name);
    }
}

/* n calls of one id on one thread, durations 1000, 1001, ... ns (in
 * shuffled order), 63 a chunk */
static void mk_durations(const char *dir, unsigned n)
{
    unsigned per = SLOTS - 1, nchunks = (n + per - 1) / per + 1;
    struct file *f = new_file(nchunks, CUTAP_FILE_CLOSED, 99);
    unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 9, 0, "main");
    unsigned s = 1;
    meta(c, &s, CUTAP_META_ID_NAME, 1, 0, "cuCtxSynchronize");
    uint64_t t = 10000;
    for (unsigned i = 0, ci = 1; i < n; ci++) {
        c = chunk(f, ci, CUTAP_CHUNK_RECORDS, 9, ci, "main");
        for (s = 1; s < SLOTS && i < n; i++) {
            uint64_t d = 1000 + (uint64_t)i * 7919 % n;   /* a permutation of 0..n-1 (n not a multiple of 7919) */
            call(c, &s, 1, t, t + d, 0, 0);
            t += d + 10;
        }
    }
    write_file(f, dir, "host.99.cutap");
}

static void mk_sparse(const char *path)
{
    struct file *f = new_file(1, CUTAP_FILE_CLOSED, 88);
    unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 8, 0, "main");
    unsigned s = 1;
    meta(c, &s, CUTAP_META_ID_NAME, 1, 0, "cuInit");
    call(c, &s, 1, 1100, 1200, 0, 0);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        die(path);
    off_t size = 64ll << 30;
    if (write(fd, f->buf, f->size) != (ssize_t)f->size || ftruncate(fd, size))
        die("write");
    /* the last chunk: another thread's call */
    unsigned char last[CHUNK];
    memset(last, 0, sizeof last);
    struct file g = {last, sizeof last};
    (void)g;
    struct cutap_chunk_header *ch = (void *)last;
    ch->type = CUTAP_CHUNK_RECORDS;
    ch->tid = 9;
    snprintf(ch->thread_name, sizeof ch->thread_name, "last");
    ch->magic = CUTAP_CHUNK_MAGIC;
    s = 1;
    call(last, &s, 1, 1300, 1400, 0, 0);
    if (pwrite(fd, last, sizeof last, size - CHUNK) != (ssize_t)sizeof last)
        die("pwrite");
    close(fd);
    free(f->buf);
    free(f);
}

/* Format version 4: a file that describes its ids (name, layer name,
 * signature). cuFutureCall of a layer "futurelayer" this reader has never
 * heard of, with two described arguments; cuInit written with a layer
 * number (7) that is not the driver's, its name "driver" winning; a
 * runtime call with the runtime's name and number. */

static void mk_v4names(const char *dir)
{
    struct file *f = new_file(1, CUTAP_FILE_CLOSED, 4321);
    unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 400, 0, "main");
    unsigned s = 1;
    static const char fut[] = "cuFutureCall\0futurelayer\0p:ctx:CUcontext;i:count:int";
    static const char ini[] = "cuInit\0driver\0u:Flags:unsigned int";
    static const char rt[] = "cudaGetDevice\0runtime\0p:device:int *";
    meta_n(c, &s, CUTAP_META_ID_NAME, 1, 99, fut, sizeof fut - 1);
    meta_n(c, &s, CUTAP_META_ID_NAME, 2, 7, ini, sizeof ini - 1);
    meta_n(c, &s, CUTAP_META_ID_NAME, 3, 2, rt, sizeof rt - 1);
    struct cutap_rec_call *r = call(c, &s, 2, 1100, 1200, 0, 0);
    r->nargs = 1;
    r->words[0] = 0;
    r = call(c, &s, 1, 1300, 1400, 0, 0);
    r->nargs = 2;
    r->words[0] = 0xc0ffee;
    r->words[1] = (uint64_t)-5;
    r->result = 3;
    r = call(c, &s, 3, 1500, 1600, 0, 0);
    r->nargs = 1;
    r->words[0] = 0x7000;
    write_file(f, dir, "host.4321.cutap");
}

/* tidreuse: thread 300's runs 0 and 1 (chunks 0, 1), then, after it
 * exited, another thread that got tid 300 and numbered its runs from 0
 * again (chunks 2, 3): an outer call at 3000..3500 in its run 0, a call
 * inside it (depth 1) in its run 1. Read by tid alone, the runs
 * interleave (0, 0, 1, 1): out of time order, the inner call without its
 * parent. */
static void mk_tidreuse(const char *dir)
{
    struct file *f = new_file(4, CUTAP_FILE_CLOSED, 777);
    unsigned char *c = chunk(f, 0, CUTAP_CHUNK_RECORDS, 300, 0, "first");
    unsigned s = 1;
    meta(c, &s, CUTAP_META_ID_NAME, 1, 0, "cuInit");
    meta(c, &s, CUTAP_META_ID_NAME, 2, 0, "cuCtxSynchronize");
    meta(c, &s, CUTAP_META_ID_NAME, 3, 0, "cuLaunchKernel");
    meta(c, &s, CUTAP_META_ID_NAME, 4, 0, "cuCtxGetCurrent");
    call(c, &s, 1, 1100, 1200, 0, 0);
    c = chunk(f, 1, CUTAP_CHUNK_RECORDS, 300, 1, "first");
    s = 1;
    call(c, &s, 2, 2000, 2100, 0, 0);
    c = chunk(f, 2, CUTAP_CHUNK_RECORDS, 300, 0, "second");
    s = 1;
    call(c, &s, 3, 3000, 3500, 0, 0);
    c = chunk(f, 3, CUTAP_CHUNK_RECORDS, 300, 1, "second");
    s = 1;
    call(c, &s, 4, 3100, 3200, 1, 0);
    write_file(f, dir, "host.777.cutap");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mk_trace v3|v3counts|hostile|flags|hugeids|sparse|v4names|tidreuse DIR|FILE [N]\n");
        return 2;
    }
    const char *m = argv[1], *d = argv[2];
    if (!strcmp(m, "v3"))
        mk_v3(d);
    else if (!strcmp(m, "v3counts"))
        mk_v3counts(d);
    else if (!strcmp(m, "hostile"))
        mk_hostile(d);
    else if (!strcmp(m, "flags"))
        mk_flags(d);
    else if (!strcmp(m, "hugeids"))
        mk_hugeids(d, argc > 3 ? atoi(argv[3]) : 500);
    else if (!strcmp(m, "durations"))
        mk_durations(d, argc > 3 ? (unsigned)atoi(argv[3]) : 10000);
    else if (!strcmp(m, "sparse"))
        mk_sparse(d);
    else if (!strcmp(m, "v4names"))
        mk_v4names(d);
    else if (!strcmp(m, "ncclranks"))
        mk_ncclranks(d);
    else if (!strcmp(m, "phantom"))
        mk_phantom(d);
    else if (!strcmp(m, "tidreuse"))
        mk_tidreuse(d);
    else {
        fprintf(stderr, "mk_trace: unknown mode %s\n", m);
        return 2;
    }
    return 0;
}
