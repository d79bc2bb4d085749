/* cutap export: a trace directory as Chrome/Perfetto JSON, Perfetto
 * protobuf, JSON lines, an SQLite database or a directory of Parquet files.
 *
 *   cutap export --format perfetto|sqlite|jsonl|parquet -o FILE [--force] DIR
 *
 * The output is written to FILE.tmp.<pid> and moved to FILE only when
 * complete, so an export that fails (or is interrupted) leaves no half
 * file. An existing FILE is never replaced without --force; with --force
 * it is replaced by a rename, so a symbolic link at FILE is replaced, never
 * followed. The file is created with mode 0600.
 *
 * Times are nanoseconds relative to the trace origin (the earliest process
 * start, struct trace.origin_ns) unless said otherwise.
 *
 * Parquet (parquet.c) makes a directory, OUT.tmp.<pid> renamed to OUT.
 *
 * One file per format in this folder (perfetto.c, jsonl.c, sqlite.c,
 * proto.c, parquet.c), their shared helpers in common.c (export_internal.h); this
 * file is the command and the output file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_internal.h"

#define USAGE_LINE "usage: cutap export --format perfetto|perfetto-proto|sqlite|jsonl|parquet -o FILE [--force] [--text] [-e FILTER] [--from S] [--to S] DIR\n"
#define TRY_LINE "Try 'cutap export --help' for more information.\n"
static const char usage[] =
    USAGE_LINE
    "  perfetto  Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing)\n"
    "  perfetto-proto  Perfetto's native protobuf trace (ui.perfetto.dev): about 40 bytes\n"
    "            a call against the JSON's 700, for long traces; no argument words\n"
    "  sqlite    SQLite database (tables processes, threads, strings, calls,\n"
    "            counters, gpu, env; view calls_named)\n"
    "  jsonl     one JSON object per line: calls in time order, then counters and env lookups\n"
    "  parquet   a directory of Parquet files, one per process and table (calls, processes,\n"
    "            threads, names, counters, gpu, env), for DuckDB, Spark, Dask, Polars; needs\n"
    "            libduckdb.so (or CUTAP_DUCKDB_LIB naming it)\n"
    "  -o, --output FILE   the file (parquet: the directory) to write (made 0600, never through a symbolic link)\n"
    "  --force             replace FILE if it exists (parquet: only an earlier Parquet export)\n"
    "  --text              parquet: also each call's status and arguments decoded as text (slower)\n"
    CLI_SELECT_HELP
    "examples:\n"
    "  cutap export --format perfetto -o run1.json run1     # open in ui.perfetto.dev\n"
    "  cutap export --format perfetto-proto -o run1.pftrace run1   # a long run\n"
    "  cutap export --format jsonl -o mem.jsonl -e 'cuMem*,cudaMalloc*,cudaFree' run1\n"
    "  cutap export --format sqlite -o window.db --from 30 --to 31 run1\n"
    "  cutap export --format parquet -o run1.pq run1   # then: duckdb -c \"SELECT ... FROM 'run1.pq/calls/*.parquet'\"\n";

enum { EXP_PERFETTO, EXP_SQLITE, EXP_JSONL, EXP_PERFETTO_PROTO, EXP_PARQUET };

/* --- the output file ------------------------------------------------ */

/* The temporary, removed if a signal ends the export, or an exit
 * (out of memory on a formatting thread) while it is being written. */
static char tmp_path[4096];
static volatile sig_atomic_t tmp_live;

static void tmp_at_exit(void)
{
    if (tmp_live)
        unlink(tmp_path);
}

static void on_signal(int sig)
{
    unlink(tmp_path);   /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction saved[sizeof caught / sizeof caught[0]];

/* Installed once the temporary exists, restored before returning. A
 * signal the caller ignores (nohup, background jobs) stays ignored. */
static void catch_signals(int on)
{
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
        if (!on) {
            sigaction(caught[i], &saved[i], NULL);
            continue;
        }
        sigaction(caught[i], NULL, &saved[i]);
        if (saved[i].sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(caught[i], &sa, NULL);
    }
}

/* Moves the finished temporary to its name. Without --force, link() is the
 * atomic "create if absent": a file that appeared since the check is still
 * not replaced. Filesystems without hard links fall back to check and
 * rename. */
static int publish(const char *tmp, const char *out, int force)
{
    if (!force) {
        if (!link(tmp, out)) {
            unlink(tmp);
            return 0;
        }
        if (errno == EEXIST) {
            fprintf(stderr, "cutap export: %s exists (use --force to replace it)\n", out);
            return -1;
        }
        struct stat st;
        if (!lstat(out, &st)) {
            fprintf(stderr, "cutap export: %s exists (use --force to replace it)\n", out);
            return -1;
        }
    }
    if (rename(tmp, out)) {
        fprintf(stderr, "cutap export: cannot write %s: %s\n", out, strerror(errno));
        return -1;
    }
    return 0;
}

/* The name made durable too: the directory holding it synced (helper-35).
 * A file system that cannot sync a directory (EINVAL, EROFS) is left as it
 * is; another failure is said (the file is published: a warning). Also the
 * Parquet export's (parquet.c). */
void export_sync_dir_of(const char *out)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", out);
    const char *dir = dirname(buf);   /* ("x": ".", "/x": "/") */
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        if (fsync(fd) && errno != EINVAL && errno != EROFS)
            fprintf(stderr, "cutap export: warning: %s written, but its directory %s could not be synced: %s\n", out,
                    dir, strerror(errno));
        close(fd);
    }
}

/* The output file's stream: stdio's buffer over write(2), with the disk
 * kept busy while the rest is formatted (issue #27). Each 8 MiB written
 * is started back to the disk at once (sync_file_range WRITE: it starts,
 * it does not wait), and a thread of its own makes it durable
 * (fdatasync) while the writers go on, so that the fsync before the file
 * is published waits for the last few MiB only: on the development VM an
 * fsync cost 1.1 to 1.5 ms a MiB written (0.11 to 0.15 s for the 98 MiB
 * of a perfetto-proto export of 3 M calls, a third of its time), whether
 * the data had been started back or not; with the thread, under 1 ms.
 * An error of that thread's fdatasync is the export's (the kernel reports
 * a write-back error once: the final fsync might not see it). Where the
 * thread cannot be made, only the starting is done. */
#define WRITE_BEHIND (8 << 20)
struct out_file {
    int fd;
    off_t at, started;     /* bytes written; started back to disk up to here (the writer's) */
    int werr;              /* the first write's errno (the writers are workers: the reading
                              thread's errno is not theirs) */
    pthread_mutex_t lock;  /* (guards what follows) */
    pthread_cond_t more;
    off_t written;         /* bytes written, as the syncer sees them */
    int stop, err, syncer; /* err: its fdatasync's errno; syncer: the thread runs */
    pthread_t thread;
};

static void *out_syncer(void *arg)
{
    struct out_file *o = arg;
    off_t synced = 0;
    pthread_mutex_lock(&o->lock);
    for (;;) {
        while (!o->stop && o->written - synced < WRITE_BEHIND)
            pthread_cond_wait(&o->more, &o->lock);
        if (o->stop)
            break;
        off_t to = o->written;
        pthread_mutex_unlock(&o->lock);
        int r = fdatasync(o->fd), e = errno;
        pthread_mutex_lock(&o->lock);
        if (r) {
            o->err = e;
            break;
        }
        synced = to;
    }
    pthread_mutex_unlock(&o->lock);
    return NULL;
}

static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
    struct out_file *o = cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(o->fd, buf + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (!o->werr)
                o->werr = k < 0 ? errno : EIO;
            return (ssize_t)done;   /* short: the stream's error (never -1: fopencookie(3)) */
        }
        done += (size_t)k;
    }
    o->at += (off_t)n;
    if (o->at - o->started >= WRITE_BEHIND) {
        int e = errno;
        sync_file_range(o->fd, o->started, o->at - o->started, SYNC_FILE_RANGE_WRITE);
        errno = e;
        o->started = o->at;
        if (o->syncer) {
            pthread_mutex_lock(&o->lock);
            o->written = o->at;
            int failed = o->err;   /* the syncer's: the rest would be formatted for nothing */
            pthread_cond_signal(&o->more);
            pthread_mutex_unlock(&o->lock);
            if (failed) {
                if (!o->werr)
                    o->werr = failed;
                errno = failed;
                return 0;   /* the stream's error (a negative count made glibc 2.36's fwrite
                               of more than its buffer copy past the buffer: a crash, seen
                               with the syncer's error) */
            }
        }
    }
    return (ssize_t)n;
}

static FILE *out_open(struct out_file *o, int fd)
{
    memset(o, 0, sizeof *o);
    o->fd = fd;
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->more, NULL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* (signals stay the command's: catch_signals) */
    o->syncer = !pthread_create(&o->thread, NULL, out_syncer, o);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    cookie_io_functions_t io = {.write = out_write};
    return fopencookie(o, "w", io);
}

/* The syncer stopped (its fdatasync's error in errno: -1), before the
 * final fsync. */
static int out_stop(struct out_file *o)
{
    if (!o->syncer)
        return 0;
    pthread_mutex_lock(&o->lock);
    o->stop = 1;
    pthread_cond_signal(&o->more);
    pthread_mutex_unlock(&o->lock);
    pthread_join(o->thread, NULL);
    o->syncer = 0;
    if (!o->err)
        return 0;
    errno = o->err;
    return -1;
}

static int export_to(const struct trace *tr, int format, const char *out, int force)
{
    if ((size_t)snprintf(tmp_path, sizeof tmp_path, "%s.tmp.%d", out, (int)getpid()) >= sizeof tmp_path) {
        fprintf(stderr, "cutap export: output path too long\n");
        return -1;
    }
    /* O_EXCL (and O_NOFOLLOW): never write through a link or into someone
     * else's file; 0600: the output holds the traced processes' data,
     * like the trace (publish() moves this very file to its name). */
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "cutap export: cannot create %s: %s\n", tmp_path, strerror(errno));
        return -1;
    }
    static int at_exit_set;
    if (!at_exit_set)
        at_exit_set = !atexit(tmp_at_exit);
    tmp_live = 1;
    catch_signals(1);
    int ok;
    if (format == EXP_SQLITE) {
        close(fd);   /* SQLite opens the (empty) file itself */
        ok = !write_sqlite(tr, tmp_path);   /* reports its own errors */
        if (ok) {
            fd = open(tmp_path, O_RDONLY | O_CLOEXEC);
            if (fd < 0 || fsync(fd)) {
                fprintf(stderr, "cutap export: cannot write %s: %s\n", tmp_path, strerror(errno));
                ok = 0;
            }
            if (fd >= 0)
                close(fd);
        }
    } else {
        int said = 0;   /* the writer failed and said why (memory): not published, nothing more to say */
        static struct out_file of;
        FILE *f = out_open(&of, fd);
        if (!f) {
            out_stop(&of);
            close(fd);
            ok = 0;
        } else {
            static char buf[1 << 20];
            setvbuf(f, buf, _IOFBF, sizeof buf);
            __fsetlocking(f, FSETLOCKING_BYCALLER);   /* one thread at a time writes (cli_par): no lock per write */
            if (format == EXP_PERFETTO)
                said = write_perfetto(tr, f) < 0;
            else if (format == EXP_PERFETTO_PROTO)
                said = write_perfetto_proto(tr, f) < 0;
            else
                said = write_jsonl(tr, f) < 0;
            /* Write errors (a full disk) stick in the stream: one check at
             * the end sees them all. */
            ok = !said && !fflush(f) && !ferror(f);
            int err = of.werr ? of.werr : errno;   /* (the workers are joined: their error is read in order) */
            if (out_stop(&of)) {   /* the syncer's write-back error, where nothing failed before it */
                err = ok ? errno : err;
                ok = 0;
            }
            if (ok && fsync(fd)) {
                err = errno;
                ok = 0;
            }
            if (fclose(f) | close(fd))   /* (a cookie stream leaves its descriptor open) */
                ok = 0;
            else
                errno = err;
        }
        if (!ok && !said)
            fprintf(stderr, "cutap export: cannot write %s: %s\n", tmp_path, strerror(errno));
    }
    if (ok && publish(tmp_path, out, force))
        ok = 0;
    if (!ok)
        unlink(tmp_path);
    tmp_live = 0;
    if (ok)
        export_sync_dir_of(out);
    tr_progress_done(tr);
    catch_signals(0);
    return ok ? 0 : -1;
}

int cmd_export(int argc, char **argv)
{
    int format = -1, force = 0, text = 0, c;
    const char *out = NULL;
    optind = 1;
    opterr = 0;   /* our own messages, naming the command */
    while ((c = cli_getopt(argc, argv, "export", ":")) != -1) {
        switch (c) {
        case 'e':
        case CLI_OPT_FROM:
        case CLI_OPT_TO:
            if (cli_select_opt(c, optarg, "export"))
                return 2;
            break;
        case 'f':
            if (!strcmp(optarg, "perfetto"))
                format = EXP_PERFETTO;
            else if (!strcmp(optarg, "sqlite"))
                format = EXP_SQLITE;
            else if (!strcmp(optarg, "jsonl"))
                format = EXP_JSONL;
            else if (!strcmp(optarg, "perfetto-proto"))
                format = EXP_PERFETTO_PROTO;
            else if (!strcmp(optarg, "parquet"))
                format = EXP_PARQUET;
            else {
                fprintf(stderr, "cutap export: unknown format '%s' (perfetto, perfetto-proto, sqlite, jsonl, parquet)\n",
                        optarg);
                return 2;
            }
            break;
        case 'o': out = optarg; break;
        case 'F': force = 1; break;
        case CLI_OPT_TEXT: text = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        case ':':
            fprintf(stderr, "cutap export: option '%s' needs a value\n" USAGE_LINE TRY_LINE, argv[optind - 1]);
            return 2;
        default:
            if (optopt)
                fprintf(stderr, "cutap export: unknown option '-%c'\n" USAGE_LINE TRY_LINE, optopt);
            else
                fprintf(stderr, "cutap export: unknown option '%s'\n" USAGE_LINE TRY_LINE, argv[optind - 1]);
            return 2;
        }
    }
    const char *why = format < 0              ? "missing --format"
                      : !out || !*out         ? "missing -o FILE"
                      : optind == argc        ? "missing the trace directory"
                      : optind < argc - 1     ? "more than one trace directory"
                      : text && format != EXP_PARQUET ? "--text is for --format parquet"
                                              : NULL;
    if (why) {
        fprintf(stderr, "cutap export: %s\n" USAGE_LINE TRY_LINE, why);
        return 2;
    }
    const char *dir = argv[optind];

    /* Before the (possibly long) load: refuse early. publish() checks again. */
    struct stat st;
    if (!force && !lstat(out, &st)) {
        fprintf(stderr, "cutap export: %s exists (use --force to replace it)\n", out);
        return 1;
    }

    /* Also before the load, and before any file is made: without
     * libsqlite3 there is no SQLite export. */
    if (format == EXP_SQLITE || format == EXP_PARQUET) {
        const char *why;
        if (format == EXP_SQLITE ? write_sqlite_prepare(&why) : write_parquet_prepare(&why)) {
            fprintf(stderr, "cutap export: %s\n", why);
            return 1;
        }
    }

    struct trace tr;
    if (tr_load(&tr, dir) || cli_select_apply(&tr)) {
        tr_free(&tr);
        return 1;
    }
    int rc = (format == EXP_PARQUET ? write_parquet(&tr, out, force, text) : export_to(&tr, format, out, force)) ? 1 : 0;
    /* Damaged files were reported by the reader and the rest exported;
     * the status says the export is not the whole trace. */
    if (!rc && tr.problems) {
        fprintf(stderr, "cutap export: %s written, but the trace has %d problem(s) (above): it may be incomplete\n",
                out, tr.problems);
        rc = 1;
    }
    tr_free(&tr);
    return rc;
}
