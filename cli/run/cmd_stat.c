/* cutap stat: run a command with every CUDA call counted. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#include "run_internal.h"
#include "stat_sample.h"

static const char stat_usage[] =
    "usage: cutap stat [-o FILE [--force]] [-e FILTER] [--time-all] [--runtime=all|symbols|cupti]\n"
    "                  [--inject SPEC] -- CMD [ARGS...]\n"
    "Runs CMD counting calls only (the cheapest mode) and prints, per function, calls, errors and\n"
    "time (total, average, min, max) at exit; exits with CMD's status.\n"
    "  -o, --output FILE        the summary into FILE (made 0600; never through a symbolic link)\n"
    "  --force                  replace FILE when it exists\n"
    "  --time-all               time every call (by default some are timed and the rest estimated,\n"
    "                           marked ~; CUTAP_STAT_TIMING=all does the same; CUTAP_STAT_SAMPLE=M:\n"
    "                           one call in M sampled, default 128)\n"
    FILTER_HELP RUNTIME_HELP
    "  --inject SPEC            fault injection (see cutap run --help)\n"
    HELP_HELP
    "examples:\n"
    "  cutap stat -- python3 -c 'import torch; torch.zeros(1, device=\"cuda\")'\n"
    "  cutap stat -o counts.txt -e 'layer=cublas' -- ./app\n";

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                char p[PATH_MAX + 256];
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(dir);
}

int cmd_stat(int argc, char **argv)
{
    struct run_opts o;
    int rc = parse(argc, argv, &o, stat_usage, 1);
    if (rc)
        return rc;
    /* Which calls are timed (the library checks it too, and records
     * nothing when it is wrong): refused here before anything runs. */
    const char *timing = getenv("CUTAP_STAT_TIMING");
    if (o.time_all) {
        if (setenv("CUTAP_STAT_TIMING", "all", 1)) {
            fprintf(stderr, "cutap: cannot set the environment\n");
            return 1;
        }
    } else if (timing && *timing && strcmp(timing, "all") && strcmp(timing, "sample")) {
        cli_usage_error(stat_usage, "invalid CUTAP_STAT_TIMING '%s': takes all or sample", timing);
        return 2;
    }
    /* How many calls a sample stands for on average (the library checks
     * it the same way). */
    const char *mean = getenv("CUTAP_STAT_SAMPLE");
    unsigned m;
    if (mean && *mean && cutap_stat_sample_parse(mean, &m)) {
        cli_usage_error(stat_usage, "invalid CUTAP_STAT_SAMPLE '%s': takes a mean from 2 to 4096 calls", mean);
        return 2;
    }
    /* -o FILE: opened before the command runs (a refusal costs no run),
     * never through a symbolic link, never over an existing file unless
     * --force, 0600; written, and an existing one truncated, only at the
     * end, when the command ran. */
    FILE *out = stderr;
    int made = 0;
    if (o.out) {
        int fd = open(o.out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        made = fd >= 0;
        if (fd < 0 && errno == EEXIST && o.force) {
            /* What is opened is checked, not the name before: no symbolic
             * link (O_NOFOLLOW: ELOOP), and not a FIFO or device swapped in
             * (O_NONBLOCK: a FIFO does not block the open). */
            struct stat st;
            fd = open(o.out, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0 && errno == ENXIO)
                errno = EINVAL;   /* a FIFO nobody reads */
            if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
                close(fd);
                fd = -1;
                errno = EINVAL;
            }
            if (fd >= 0)
                (void)fcntl(fd, F_SETFL, 0);
        }
        if (fd < 0) {
            int e = errno;
            fprintf(stderr, "cutap: cannot write %s: %s\n", o.out,
                    e == EEXIST ? "it exists (--force replaces it)"
                    : e == ELOOP ? "it is a symbolic link"
                    : e == EINVAL ? "not a regular file" : strerror(e));
            return 1;
        }
        if (!(out = fdopen(fd, "w"))) {
            fprintf(stderr, "cutap: cannot write %s: %s\n", o.out, strerror(errno));
            close(fd);
            if (made)
                unlink(o.out);
            return 1;
        }
    }
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/cutap-stat-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "cutap: cannot make a directory for the counters: %s\n", strerror(errno));
        return 1;
    }
    if (prepare_env("CUTAP_COUNT", dir, o.filter, o.runtime) || inject_env(&o)) {
        remove_dir(dir);
        return 1;
    }
    int no_registry = procs_create(dir) != 0;
    int not_run;
    int code = run_command(o.cmd, &not_run);
    struct trace tr;
    if (not_run) {
        /* nothing ran: the file is left as it was (a new one removed) */
        if (out != stderr) {
            fclose(out);
            if (made)
                unlink(o.out);
        }
        remove_dir(dir);
        return code;
    }
    if (out != stderr)
        (void)!ftruncate(fileno(out), 0);
    int lossy = procs_summary(dir, 0) > 0 || no_registry;
    if (!count_traces(dir))
        fprintf(out, lossy ? "cutap stat: no CUDA calls recorded (see the messages above)\n" : "cutap stat: no CUDA calls\n");
    else if (!tr_load(&tr, dir)) {
        report_print(&tr, out, FMT_TEXT, BY_NONE);
        tr_free(&tr);
    }
    if (out != stderr)
        fclose(out);
    remove_dir(dir);
    return code;
}
