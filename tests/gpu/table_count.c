/* Counts calls through the two export tables cutap can only observe,
 * without touching them: CUDART_INTERFACE (12 function slots) and
 * INTEGRITY_CHECK (2). The runtime checks their addresses, so wrapped
 * copies make every runtime call fail with error 103 (docs/HIDDEN_API.md);
 * this library leaves the tables, the code and the program alone and puts
 * hardware execute breakpoints, in counting mode, on the functions the
 * slots point to. No cutap involved.
 *
 *   TABLE_COUNT_OUT=FILE TABLE_COUNT_SLOTS=CUDART_INTERFACE#1,INTEGRITY_CHECK#2 \
 *   LD_PRELOAD=build/gpu/libtable_count.so ./app
 *
 * In its constructor it dlopens libcuda.so.1, asks cuGetExportTable for both
 * tables (the runtime does so before cuInit too), checks their size words
 * (word 0: 0x68 and 0x18; slot #1 is word 1, as cutap names slots), reads
 * the addresses of the slots named in TABLE_COUNT_SLOTS (at most 4: x86 has
 * 4 debug address registers; default CUDART_INTERFACE#1 to #4) and opens
 * one perf event per slot: PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X at the
 * function's address, user space only, counting (no sampling, no signal),
 * for this process's threads, those made later included (inherit,
 * inherit_thread: forked children do not inherit them; on kernels before
 * 5.13, which lack inherit_thread, they do, and their counts are added to
 * this process's when they exit).
 *
 * At exit (our destructor or atexit handler, whichever runs first; both run
 * after the program's and the CUDA libraries' exit handlers; or the
 * program's _exit/_Exit, which this library interposes) the process that
 * ran the constructor appends one line per slot to FILE:
 *     "<pid> <TABLE>#<slot> <count>"
 * A forked child never writes (the counts are its parent's). Everything
 * else is a note, "<pid> NOTE ...": each slot's address (object + offset,
 * and slots of the two tables with the same address), and why nothing is
 * counted: no libcuda, no cuGetExportTable, a table refused or of another
 * size, a bad slot name, or perf_event_open failing (with errno: EACCES or
 * EPERM where perf_event_paranoid or a container's seccomp forbids it,
 * ENOENT/EOPNOTSUPP where a VM offers no breakpoints, ENOSPC where the
 * debug registers are taken). After such a failure it does nothing else.
 * It never writes to the program's stdout or stderr and sends no signal.
 *
 * What a count is: executions of the instruction at the slot's address, by
 * any thread of the process, however it got there: through the table, or
 * by a direct call inside libcuda (tests/gpu/table_count.sh says more).
 *
 * Build: gcc -O2 -shared -fPIC -Wall -Wextra tests/gpu/table_count.c -o
 *        build/gpu/libtable_count.so -ldl      (tests/gpu/table_count.sh)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_SLOTS 4

struct table {
    const char *name;
    unsigned char uuid[16];   /* memory order */
    uint64_t size;            /* word 0 */
    unsigned nslots;          /* function slots after it: #1..#nslots */
};

static const struct table tables[] = {
    {"CUDART_INTERFACE",
     {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}, 0x68, 12},
    {"INTEGRITY_CHECK",
     {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}, 0x18, 2},
};
#define NTABLES (sizeof tables / sizeof tables[0])

static char out_path[4096];
static pid_t owner;
static int nfds;
static int fds[MAX_SLOTS];
static char slot_name[MAX_SLOTS][40];
static atomic_int written;
static void (*real_exit)(int);
static void (*real_Exit)(int);

/* --- lines, without stdio (also called from _exit) -------------------- */

struct buf {
    char s[4096];
    size_t n;
};

static void put(struct buf *b, const char *s)
{
    size_t k = strlen(s);
    if (k > sizeof b->s - 1 - b->n)
        k = sizeof b->s - 1 - b->n;
    memcpy(b->s + b->n, s, k);
    b->n += k;
}

static void put_u64(struct buf *b, uint64_t v, int hex)
{
    char t[24];
    int i = sizeof t;
    t[--i] = 0;
    do {
        t[--i] = "0123456789abcdef"[v % (hex ? 16 : 10)];
        v /= hex ? 16 : 10;
    } while (v);
    if (hex)
        put(b, "0x");
    put(b, t + i);
}

static void start_line(struct buf *b, int note)
{
    put_u64(b, (uint64_t)getpid(), 0);
    put(b, note ? " NOTE " : " ");
}

static void end_line(struct buf *b)
{
    put(b, "\n");
}

static void put_errno(struct buf *b, int e)
{
    const char *name = strerrorname_np(e);
    put(b, " errno=");
    put_u64(b, (uint64_t)e, 0);
    put(b, " (");
    put(b, name ? name : "?");
    put(b, ")");
}

/* One write with O_APPEND: lines of other processes never interleave. */
static void flush(struct buf *b)
{
    if (!b->n || !out_path[0])
        return;
    int fd = open(out_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t r = write(fd, b->s, b->n);
    (void)r;
    close(fd);
    b->n = 0;
}

static void note(const char *what, const char *more)
{
    struct buf b = {.n = 0};
    start_line(&b, 1);
    put(&b, what);
    if (more) {
        put(&b, " ");
        put(&b, more);
    }
    end_line(&b);
    flush(&b);
}

/* --- counting ---------------------------------------------------------- */

static long perf_open(uint64_t addr, int inherit_thread)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_BREAKPOINT;
    a.size = sizeof a;
    a.bp_type = HW_BREAKPOINT_X;
    a.bp_addr = addr;
    a.bp_len = sizeof(long);   /* x86 takes only this length for execute breakpoints */
    a.sample_period = 0;       /* counting: no samples, no overflow signal */
    a.inherit = 1;             /* threads made later */
    a.inherit_thread = (unsigned)inherit_thread;   /* ... but not forked children (5.13) */
    a.remove_on_exec = (unsigned)inherit_thread;   /* (5.13, like inherit_thread) */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return syscall(SYS_perf_event_open, &a, 0 /* this process */, -1 /* any CPU */, -1,
                   PERF_FLAG_FD_CLOEXEC);
}

static void write_counts(void)
{
    if (!nfds || getpid() != owner || atomic_exchange(&written, 1))
        return;
    struct buf b = {.n = 0};
    for (int i = 0; i < nfds; i++) {
        uint64_t v = 0;
        ssize_t r = read(fds[i], &v, sizeof v);
        int e = errno;
        start_line(&b, r != (ssize_t)sizeof v);
        put(&b, slot_name[i]);
        if (r == (ssize_t)sizeof v) {
            put(&b, " ");
            put_u64(&b, v, 0);
        } else {
            put(&b, " read failed");
            put_errno(&b, r < 0 ? e : 0);
        }
        end_line(&b);
    }
    flush(&b);
}

static void at_exit(void)
{
    write_counts();
}

__attribute__((destructor)) static void fini(void)
{
    write_counts();
}

/* os._exit (Python's multiprocessing workers, and programs that skip their
 * exit handlers) ends the process without destructors: the owner writes
 * here. Anyone else (a forked or vfork child) passes straight through. */
__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
    if (owner && getpid() == owner)
        write_counts();
    if (real_exit)
        real_exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status)
{
    if (owner && getpid() == owner)
        write_counts();
    if (real_Exit)
        real_Exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

/* --- setup ------------------------------------------------------------- */

typedef int (*get_export_table_fn)(const void **table, const void *uuid);

/* "<object>+0x<offset>" of an address. */
static void put_where(struct buf *b, const void *p)
{
    Dl_info di;
    if (dladdr(p, &di) && di.dli_fname && di.dli_fbase) {
        const char *base = strrchr(di.dli_fname, '/');
        put(b, base ? base + 1 : di.dli_fname);
        put(b, "+");
        put_u64(b, (uint64_t)((uintptr_t)p - (uintptr_t)di.dli_fbase), 1);
    } else {
        put_u64(b, (uint64_t)(uintptr_t)p, 1);
    }
}

__attribute__((constructor)) static void init(void)
{
    *(void **)&real_exit = dlsym(RTLD_NEXT, "_exit");
    *(void **)&real_Exit = dlsym(RTLD_NEXT, "_Exit");
    const char *out = getenv("TABLE_COUNT_OUT");
    if (!out || !*out || strlen(out) >= sizeof out_path)
        return;
    memcpy(out_path, out, strlen(out) + 1);
    owner = getpid();

    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        note("no libcuda:", dlerror());
        return;
    }
    get_export_table_fn get;
    *(void **)&get = dlsym(h, "cuGetExportTable");
    if (!get) {
        note("no cuGetExportTable in libcuda.so.1", NULL);
        return;
    }
    const uint64_t *tab[NTABLES];
    for (unsigned t = 0; t < NTABLES; t++) {
        const void *p = NULL;
        int rc = get(&p, tables[t].uuid);
        tab[t] = p;
        struct buf b = {.n = 0};
        if (rc || !p) {
            start_line(&b, 1);
            put(&b, "cuGetExportTable ");
            put(&b, tables[t].name);
            put(&b, " failed: CUresult ");
            put_u64(&b, (uint64_t)(unsigned)rc, 0);
            end_line(&b);
            tab[t] = NULL;
        } else if (tab[t][0] != tables[t].size) {
            start_line(&b, 1);
            put(&b, tables[t].name);
            put(&b, " size word ");
            put_u64(&b, tab[t][0], 1);
            put(&b, ", not ");
            put_u64(&b, tables[t].size, 1);
            put(&b, ": not counted");
            end_line(&b);
            tab[t] = NULL;
        }
        flush(&b);
    }

    /* The slots asked for: "TABLE#N,..." */
    const char *list = getenv("TABLE_COUNT_SLOTS");
    if (!list || !*list)
        list = "CUDART_INTERFACE#1,CUDART_INTERFACE#2,CUDART_INTERFACE#3,CUDART_INTERFACE#4";
    uint64_t addr[MAX_SLOTS];
    int n = 0;
    struct buf b = {.n = 0};
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ", ");
        char tok[64];
        if (k && k < sizeof tok) {
            memcpy(tok, p, k);
            tok[k] = 0;
            char *hash = strchr(tok, '#'), *end = NULL;
            long slot = hash ? strtol(hash + 1, &end, 10) : 0;
            unsigned t = NTABLES;
            if (hash && end != hash + 1 && !*end) {
                *hash = 0;
                for (t = 0; t < NTABLES && strcmp(tables[t].name, tok); t++)
                    ;
                *hash = '#';
            }
            start_line(&b, 1);
            if (t == NTABLES || slot < 1 || slot > (long)tables[t].nslots) {
                put(&b, "bad slot name ");
                put(&b, tok);
                put(&b, ": not counted");
            } else if (!tab[t]) {
                put(&b, tok);
                put(&b, ": no table, not counted");
            } else if (!tab[t][slot]) {
                put(&b, tok);
                put(&b, ": NULL, not counted");
            } else if (n == MAX_SLOTS) {
                put(&b, tok);
                put(&b, ": more than 4 slots asked for, not counted");
            } else {
                addr[n] = tab[t][slot];
                memcpy(slot_name[n], tok, k + 1);
                put(&b, "slot ");
                put(&b, tok);
                put(&b, " at ");
                put_where(&b, (const void *)(uintptr_t)addr[n]);
                for (unsigned u = 0; u < NTABLES; u++)      /* the same function in another slot */
                    for (unsigned s = 1; tab[u] && s <= tables[u].nslots; s++)
                        if (tab[u][s] == addr[n] && !(u == t && s == (unsigned)slot)) {
                            put(&b, " same as ");
                            put(&b, tables[u].name);
                            put(&b, "#");
                            put_u64(&b, s, 0);
                        }
                n++;
            }
            end_line(&b);
        }
        p += k;
        p += strspn(p, ", ");
    }
    flush(&b);
    if (!n)
        return;

    int inherit_thread = 1;
    for (int i = 0; i < n; i++) {
        long fd = perf_open(addr[i], inherit_thread);
        if (fd < 0 && errno == EINVAL && inherit_thread && i == 0) {
            inherit_thread = 0;          /* a kernel before 5.13 */
            fd = perf_open(addr[i], 0);
        }
        if (fd < 0) {
            int e = errno;
            for (int j = 0; j < i; j++)
                close(fds[j]);
            start_line(&b, 1);
            put(&b, "perf_event_open ");
            put(&b, slot_name[i]);
            put(&b, " failed");
            put_errno(&b, e);
            put(&b, ": nothing counted");
            end_line(&b);
            flush(&b);
            return;
        }
        fds[i] = (int)fd;
    }
    nfds = n;
    start_line(&b, 1);
    put(&b, inherit_thread ? "counting: this process's threads (inherit_thread)"
                           : "counting: this process's threads and forked children (no inherit_thread: kernel < 5.13)");
    end_line(&b);
    flush(&b);
    atexit(at_exit);
}
