/* A coverage-guided fuzz target (clang's libFuzzer) for the trace reader
 * and every command built on it, linked with cli/ but main.c and built
 * with -fsanitize=fuzzer,address,undefined (tests/tests.mk, $(T)/fuzz_trace):
 *
 *   build/tests/fuzz_trace [libFuzzer options] tests/fuzz/corpus
 *
 * Each input is one trace file, read from memory (tr_mem_file: exactly its
 * bytes, so AddressSanitizer sees a read past its end) and given to
 * tr_load, report_print in every format and grouping, report_tree in
 * every format, `cutap dump` (plain, --pid, --tid, --no-demangle, chosen
 * by the input's last byte), and `cutap export` as JSON lines and
 * Perfetto JSON (and SQLite when FUZZ_SQLITE=1 and libsqlite3 loads:
 * slow, so not by default). Outputs go to /dev/null or a temporary
 * directory. tests/run.sh reader_libfuzzer runs it for a bounded time over
 * tests/fuzz/corpus (seeds and every input that once failed). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cutap_format.h"

#define PATH "/nonexistent/fuzz/x.cutap"

static FILE *devnull;
static char outdir[64];
static int with_sqlite;

static void cleanup(void)
{
    rmdir(outdir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    int fd = open("/dev/null", O_WRONLY);
    /* tmpfs where there is one: the exports fsync their output */
    snprintf(outdir, sizeof outdir, "/dev/shm/cutap-fuzz.XXXXXX");
    if (!mkdtemp(outdir))
        snprintf(outdir, sizeof outdir, "/tmp/cutap-fuzz.XXXXXX");
    if (!devnull || fd < 0 || dup2(fd, 1) < 0 || (!outdir[0] || (access(outdir, F_OK) && !mkdtemp(outdir)))) {
        perror("fuzz_trace");
        exit(2);
    }
    close(fd);
    const char *s = getenv("FUZZ_SQLITE");
    with_sqlite = s && *s == '1';
    atexit(cleanup);
    return 0;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tr_mem_file = (struct tr_mem_file){PATH, data, size};
    struct trace tr;
    if (tr_load(&tr, PATH) == 0) {
        for (int fmt = FMT_TEXT; fmt <= FMT_JSON; fmt++) {
            for (int by = BY_NONE; by <= BY_OBJECT; by++)
                report_print(&tr, devnull, fmt, by);
            report_tree(&tr, devnull, fmt);
            report_gpu(&tr, devnull, fmt, 3);
            report_env(&tr, devnull, fmt, 2);
        }
    }
    tr_free(&tr);
    char pid[32] = "1", tid[32] = "1";
    if (size >= CUTAP_HEADER_SIZE + 64) {
        int32_t v;
        memcpy(&v, data + offsetof(struct cutap_file_header, pid), 4);
        snprintf(pid, sizeof pid, "%d", v);
        memcpy(&v, data + CUTAP_HEADER_SIZE + offsetof(struct cutap_chunk_header, tid), 4);
        snprintf(tid, sizeof tid, "%d", v);
    }
    switch (size ? data[size - 1] % 5 : 0) {
    case 1: run_cmd(cmd_dump, 4, (const char *const[]){"dump", "--pid", pid, PATH}); break;
    case 2: run_cmd(cmd_dump, 4, (const char *const[]){"dump", "--tid", tid, PATH}); break;
    case 3: run_cmd(cmd_dump, 3, (const char *const[]){"dump", "--no-demangle", PATH}); break;
    default: run_cmd(cmd_dump, 2, (const char *const[]){"dump", PATH}); break;
    }
    fflush(stdout);
    static const char *const formats[] = {"jsonl", "perfetto", "sqlite"};
    for (size_t i = 0; i < 2u + with_sqlite; i++) {
        char out[128];
        snprintf(out, sizeof out, "%s/out.%s", outdir, formats[i]);
        run_cmd(cmd_export, 7, (const char *const[]){"export", "--format", formats[i], "-o", out, "--force", PATH});
        unlink(out);
    }
    tr_mem_file = (struct tr_mem_file){0};
    return 0;
}
