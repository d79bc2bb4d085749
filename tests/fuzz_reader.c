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
#include "fuzz_reader.h"

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

static unsigned long loaded, rejected, damaged, differed;

/* Issue #27: the scan's chunk summaries made on two threads
 * (cli/read/prescan.c; CUTAP_TEST_SCAN_WINDOW=1, set in main: a window of
 * one chunk) must load what the scan alone loads (CUTAP_THREADS=1):
 * calls, runs, threads, names, ids and problems. 0: the same. */
static int loads_differ(const char *path)
{
    struct trace a, b;
    const char *was = getenv("CUTAP_THREADS");
    char *keep = was ? strdup(was) : NULL;
    setenv("CUTAP_THREADS", "1", 1);
    int ra = tr_load(&a, path);
    setenv("CUTAP_THREADS", "2", 1);   /* (summaries even on one CPU) */
    int rb = tr_load(&b, path);
    if (keep)
        setenv("CUTAP_THREADS", keep, 1);
    else
        unsetenv("CUTAP_THREADS");
    free(keep);
    int d = ra != rb;
    if (!d && !ra) {
        d = a.nprocs != b.nprocs || a.ncalls != b.ncalls || a.nruns != b.nruns || a.nthreads != b.nthreads ||
            a.nnames != b.nnames || a.problems != b.problems || a.id_unknown != b.id_unknown ||
            a.ncounters != b.ncounters;
        for (size_t i = 0; !d && i < a.nruns; i++) {
            const struct tr_run *x = &a.runs[i], *y = &b.runs[i];
            d = x->off != y->off || x->end != y->end || x->runno != y->runno || x->seq0 != y->seq0 ||
                x->proc != y->proc || x->thread != y->thread || x->count != y->count;
        }
        for (size_t i = 0; !d && i < a.nthreads; i++)
            d = a.threads[i].proc != b.threads[i].proc || a.threads[i].tid != b.threads[i].tid ||
                a.threads[i].nrun != b.threads[i].nrun;
        for (size_t i = 0; !d && i < a.nnames; i++)
            d = strcmp(a.names[i].name, b.names[i].name) || a.names[i].layer != b.names[i].layer;
        for (size_t i = 0; !d && i < a.nprocs; i++) {
            const struct tr_proc *x = &a.procs[i], *y = &b.procs[i];
            d = x->nids != y->nids || x->call_layers != y->call_layers || x->idcap != y->idcap;
            for (size_t k = 0; !d && k < x->idcap; k++)
                d = x->idmap[k].id != y->idmap[k].id || x->idmap[k].name1 != y->idmap[k].name1 ||
                    x->idmap[k].used != y->idmap[k].used;
        }
    }
    if (!ra)
        tr_free(&a);
    if (!rb)
        tr_free(&b);
    return d;
}

static void run_one(const char *path, FILE *devnull)
{
    struct trace tr;
    if (loads_differ(path)) {
        differed++;
        fprintf(log_f, "fuzz: iteration %lu: the scan with chunk summaries loaded another trace than the scan alone\n",
                iter_now);
        abort();
    }
    if (tr_load(&tr, path) == 0) {
        loaded++;
        damaged += tr.problems > 0;
        for (int fmt = FMT_TEXT; fmt <= FMT_JSON; fmt++) {
            for (int by = BY_NONE; by <= BY_RANK; by++)
                report_print(&tr, devnull, fmt, by);
            report_tree(&tr, devnull, fmt);
            report_gpu(&tr, devnull, fmt, fz_below(2) ? 0 : 3);   /* (issue #31) */
            report_env(&tr, devnull, fmt, fz_below(2) ? 0 : 2);   /* (issue #32) */
        }
        tr_free(&tr);
    } else {
        rejected++;
    }
    /* dump, sometimes for one process or thread */
    char pid[32] = "";
    if (fz_len >= CUTAP_HEADER_SIZE)
        snprintf(pid, sizeof pid, "%d", (int)fz_rd32(fz_buf + offsetof(struct cutap_file_header, pid)));
    switch (fz_below(8)) {
    case 0:
        if (*pid) {
            run_cmd(cmd_dump, 4, (const char *const[]){"dump", "--pid", pid, path});
            break;
        }
        /* fall through */
    case 1: {
        uint32_t tid = 0;
        const struct cutap_chunk_header *ch = (const void *)(fz_buf + CUTAP_HEADER_SIZE);
        if (fz_len >= CUTAP_HEADER_SIZE + sizeof *ch)
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
    setenv("CUTAP_TEST_SCAN_WINDOW", "1", 1);   /* (chunk summaries on every file of two chunks or more) */
    base_seed = strtoull(argv[optind], NULL, 0);
    unsigned long iters = strtoul(argv[optind + 1], NULL, 0);
    fz_nseeds = (size_t)(argc - optind - 2);
    fz_seeds = calloc(fz_nseeds, sizeof *fz_seeds);
    for (size_t i = 0; i < fz_nseeds; i++)
        fz_load_seed(&fz_seeds[i], argv[optind + 2 + i]);

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
        fz_rng = fz_splitmix(base_seed ^ fz_splitmix(it + 1));
        if (!fz_rng)
            fz_rng = 1;
        const struct seed *s = &fz_seeds[fz_below(fz_nseeds)];
        fz_reserve(s->size);
        memcpy(fz_buf, s->data, s->size);
        fz_len = s->size;
        fz_mutate_some(s);
        /* The file alone, its directory, or its directory with a second
         * trace (another seed, as it is): several processes at once. */
        int with_y = fz_chance(8), as_dir = with_y || fz_chance(4);
        unlink(y_path);
        unlink(last2_path);
        write_file(x_path, fz_buf, fz_len);
        unlink(last_path);
        if (link(x_path, last_path))
            write_file(last_path, fz_buf, fz_len);
        if (with_y) {
            const struct seed *y = &fz_seeds[fz_below(fz_nseeds)];
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
        fprintf(log_f, " %s %lu", fz_mnames[m], fz_mcount[m]);
    fprintf(log_f, "; %lu iterations with two files; %lu loaded with problems; %.1f s, slowest iteration %lu: %.2f s\n",
            two, damaged, secs, slowest_it, slowest);
    fprintf(log_f, "fuzz: %lu iterations, %lu loaded, %lu rejected\n", iters, loaded, rejected);
    fclose(devnull);
    fz_free_seeds();
    free(copies);
    return 0;
}
