/* The cutap command: shared declarations of its subcommands. */
#ifndef CUTAP_CLI_H
#define CUTAP_CLI_H

#include <signal.h>
#include <stdio.h>

#include "trace_read.h"

int cmd_trace(int argc, char **argv);     /* run/cmd_trace.c */
extern struct sigaction cli_xfsz_default;  /* SIGXFSZ as cutap was started with (main.c), for its command */
int cmd_stat(int argc, char **argv);      /* run/cmd_stat.c */
int cmd_report(int argc, char **argv);    /* cmd_report.c */
int cmd_dump(int argc, char **argv);      /* dump/cmd_dump.c */
int cmd_export(int argc, char **argv);    /* export/cmd_export.c */
int cmd_ps(int argc, char **argv);        /* cmd_ps.c */
int cmd_freeze(int argc, char **argv);    /* cmd_freeze.c */
int cmd_run(int argc, char **argv);       /* run/cmd_run.c */
/* Asks every process tracing into dir to freeze (CUTAP_FREEZE_*);
 * returns how many, -1 when dir cannot be read. */
int cli_freeze_dir(const char *dir, uint32_t reason);
/* cmd_ps.c: the view of a loaded trace into f; returns the number of calls
 * running longer than stuck_s seconds (stuck_s < 0: not counted). */
struct trace;
int ps_view(const struct trace *tr, FILE *f, int json, double stuck_s, int only_pid);

/* cmd_report.c: the summary table, also printed by `cutap stat`. */
enum { FMT_TEXT, FMT_CSV, FMT_JSON };
/* report_gpu.c: cutap report --gpu (top: rows per table, 0 all); 1 when the
 * trace has no GPU activity (said). */
int report_gpu(const struct trace *tr, FILE *f, int format, size_t top);
/* report_env.c: cutap report --env (issue #32); 1 when no file has a lookup */
int report_env(const struct trace *tr, FILE *f, int format, size_t top);
enum { BY_NONE, BY_PROCESS, BY_THREAD, BY_RANK, BY_OBJECT, BY_LAYER };
int report_print(const struct trace *tr, FILE *out, int format, int by);
/* errors.c: report --errors, where errors began */
int report_errors(const struct trace *tr, FILE *out);
/* tree.c: report --tree, the calls by call path */
int report_tree(const struct trace *tr, FILE *out, int format);

/* dump/decode.c, for the exports: a call's arguments as `cutap dump` prints them
 * between the parentheses ("dptr=0x7ffd…→0x7f…, bytesize=4096"), and its
 * result by name ("CUDA_SUCCESS", "cudaErrorMemoryAllocation", a pointer
 * in hex, ...; nothing for an unfinished call). */
void dump_call_args(FILE *f, const struct trace *tr, const struct tr_call *c);
void dump_call_status(FILE *f, const struct trace *tr, const struct tr_call *c);

/* procs.c: the -o directory's checks (create: mkdir it first; 0 or -1
 * after a message), the process registry made before the command runs,
 * the exec note of the command itself (in the forked child), and the
 * summary on stderr at the end (trace: with the "N processes traced"
 * line); returns the number of processes with losses or never traced. */
int procs_check_dir(const char *dir, int create);
/* The same rules for a directory to read (cutap ps --pid: one another
 * user named): why dir is not to be trusted, NULL when it is; mode: what
 * access(2) must grant us (R_OK | X_OK). */
const char *procs_dir_untrusted(const char *dir, int mode);
int procs_create(const char *dir);
void procs_note_exec(const char *path);
int procs_summary(const char *dir, int trace);

/* util.c: used by export/, ps and the errors */
const char *basename_of(const char *path);
void proc_display_name(const struct cutap_file_header *h, char *name, size_t size);

/* symbols.c: a stack frame (object path, offset from its load address)
 * as "function+0xNN (object)", from the object file's symbols; exe: the
 * process's executable, for its own frames. */
void sym_frame(const char *path, const char *exe, uint64_t offset, char *out, size_t size);
/* A C++ name demangled (libstdc++'s __cxa_demangle, loaded at run time),
 * to free; NULL when not mangled or not possible. */
char *cli_demangle(const char *mangled);
/* The same for a recorded frame of process p (its objects named in the file). */
void sym_stack_frame(const struct trace *tr, const struct tr_proc *p, const struct cutap_stack_frame *frame, char *out,
                     size_t size);
/* dump/decode.c: a call's recorded stack (--stack), one "at ..." line a frame */
void dump_call_stack(FILE *f, const struct trace *tr, const struct tr_call *c, const char *indent);

/* util.c */
const char *layer_str(int layer);            /* "driver", "hidden", "runtime", ...; "layer<N>" if unknown */
/* A finished call whose result is a status other than success (report's
 * Errors): for every layer but the export-table slots and NVTX. */
int call_is_error(const struct trace *tr, const struct tr_call *c);
void json_str(FILE *f, const char *s);       /* a JSON string literal, escaped */
void json_str_or_null(FILE *f, const char *s);   /* the same, or null for NULL */
void csv_str(FILE *f, const char *s);        /* a CSV field, quoted when needed, control characters as \xNN */
void text_str(FILE *f, const char *s);       /* a traced process's string in text output: control characters as \xNN */
void text_u64(FILE *f, uint64_t v);           /* "%" PRIu64 */
void text_i64(FILE *f, int64_t v);            /* "%" PRId64 */
void text_hex(FILE *f, uint64_t v);           /* "0x%" PRIx64 */
size_t text_hex_to(char *out, uint64_t v);    /* the same into out (18 bytes at most, no NUL); its length */
extern const char text_digits2[201];          /* "00" .. "99": digits two at a time */
/* Output of the readers' hot paths (dump, the text exports): bytes into
 * the stream's buffer directly where they fit, as putc_unlocked does
 * (glibc's FILE fields), else through fwrite. The command writes each
 * stream from one thread; a write's error shows in ferror, as fputs's. */
/* n bytes, n known only at run time: up to 16 in two overlapping loads and
 * stores each way, inline (most pieces of a dump line are that short: a
 * library call a piece was a sixth of dump's time). Reads and writes only
 * [src, src + n) and [dst, dst + n). */
static inline void out_copy(char *dst, const char *src, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        __builtin_memcpy(&a, src, 8);
        __builtin_memcpy(&b, src + n - 8, 8);
        __builtin_memcpy(dst, &a, 8);
        __builtin_memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        __builtin_memcpy(&a, src, 4);
        __builtin_memcpy(&b, src + n - 4, 4);
        __builtin_memcpy(dst, &a, 4);
        __builtin_memcpy(dst + n - 4, &b, 4);
    } else if (n >= 2 && n < 4) {
        uint16_t a, b;
        __builtin_memcpy(&a, src, 2);
        __builtin_memcpy(&b, src + n - 2, 2);
        __builtin_memcpy(dst, &a, 2);
        __builtin_memcpy(dst + n - 2, &b, 2);
    } else if (n == 1) {
        *dst = *src;
    } else if (n)
        __builtin_memcpy(dst, src, n);
}
static inline void out_mem(FILE *f, const void *p, size_t n)
{
#ifdef __GLIBC__
    /* (glibc may leave the end below the pointer, as after a setvbuf: no
     * room, as putc_unlocked reads it; the difference taken unsigned
     * would read as room without end, seen by the reader fuzzer) */
    if (f->_IO_write_ptr && f->_IO_write_end > f->_IO_write_ptr && (size_t)(f->_IO_write_end - f->_IO_write_ptr) >= n) {
        out_copy(f->_IO_write_ptr, p, n);
        f->_IO_write_ptr += n;
        return;
    }
#endif
    fwrite(p, 1, n, f);
}
/* as fputs and fputc, arguments in their order */
static inline void out_s(const char *s, FILE *f) { out_mem(f, s, __builtin_strlen(s)); }
static inline void out_c(int c, FILE *f) { putc_unlocked(c, f); }
/* A name of the trace as text_str writes it (known plain: at once) */
static inline void text_name(FILE *f, const struct tr_name *n)
{
    if (n->text_len)
        out_mem(f, n->name, n->text_len - 1);
    else
        text_str(f, n->name);
}
void *xcalloc(size_t n, size_t size);         /* calloc; exits when out of memory (n = 0: one element) */
/* The memo of decoded calls (cli/memo.c): a formatting thread's table of
 * texts made from finished calls, by their whole key. new: NULL when
 * CUTAP_MEMO=0 or without memory (then no memo). key: 0 when c cannot be
 * kept (unfinished, a range, a record too long). get: the text and what
 * was put with it, or NULL. */
#define CLI_MEMO_KEY_MAX 320
struct cli_memo;
struct cli_memo_key {
    size_t len;
    uint64_t h;
    unsigned char k[CLI_MEMO_KEY_MAX];
};
struct cli_memo *cli_memo_new(void);
void cli_memo_free(struct cli_memo *m);
int cli_memo_key(struct cli_memo_key *k, const struct trace *tr, const struct tr_call *c);
const char *cli_memo_get(const struct cli_memo *m, const struct cli_memo_key *k, size_t *len, const void **aux,
                         size_t *aux2);
void cli_memo_put(struct cli_memo *m, const struct cli_memo_key *k, const char *text, size_t len, const void *aux,
                  size_t aux2);
/* After option parsing: the one DIR (or file) operand, loaded into tr.
 * Returns 0, 1 when nothing could be read, 2 for a usage error. */
/* A usage error (at most 3 lines, GNU style): getopt's message or
 * "cutap CMD: MSG" (fmt, when not NULL), then "Try 'cutap CMD --help' for
 * more information."; CMD from usage's "usage: cutap CMD". Returns 2. */
int cli_usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* dump/live.c, cutap trace --print: a thread printing the calls of the
 * trace directory dir as they complete, on out (closed by stop unless it
 * is stdout or stderr); times from origin_ns (CLOCK_REALTIME). stop: the
 * command ended: what is left is printed, then the thread ends. */
int dump_live_start(const char *dir, FILE *out, uint64_t origin_ns);
void dump_live_stop(void);

/* opttab.c: every option of every command, one table (cli_opts, ended by
 * a NULL name). val is what getopt returns: the option's letter where it
 * has a one-letter form (cli_opt_short). */
struct cli_opt {
    const char *cmds;   /* the commands that take it, space-separated */
    const char *name;   /* the long name, without "--" */
    int val;
    int has_arg;        /* no_argument, required_argument, optional_argument */
    const char *arg;    /* its argument: "DIR", "FILTER", or the words it takes, "text|csv|json" */
};
extern const struct cli_opt cli_opts[];
extern const char *const cli_commands[];   /* NULL-ended */
int cli_opt_of(const struct cli_opt *o, const char *cmd);      /* cmd takes o */
int cli_opt_short(const struct cli_opt *o, const char *cmd);   /* its letter in cmd, or 0 */
/* getopt_long over cmd's options of the table; lead: getopt's leading
 * characters ("+": stop at the command to run, ":": missing values as
 * ':'). An option of another command is said as such ('?' returned). */
int cli_getopt(int argc, char **argv, const char *cmd, const char *lead);
/* cutap help --options [CMD]: a line per option, "CMD -o, --output=DIR". */
int cli_print_options(const char *only);
int load_operand(int argc, char **argv, const char *usage, struct trace *tr);
/* A duration: seconds ("0.5"), or with ns, us, ms, s ("10us"); 0, or -1. */
int cli_parse_duration(const char *s, uint64_t *ns);
/* The trace's entries formatted on several threads, written to out in the
 * iterator's order (cli/parallel.c): fmt(w, f, c, index, n) writes entry c
 * (the iterator's index; n: how many kept entries came before it) into f,
 * with w its thread's context: init(arg) per thread (NULL: arg itself),
 * undone by fini; keep(arg, c) says whether to (NULL: every entry). */
struct cli_par {
    const struct trace *tr;
    const char *what;           /* for messages and progress: "dump", "export" */
    /* written, during cli_par_run, by the formatting threads (one at a
     * time, in order), so the caller's own code must not touch it
     * meanwhile; the errno of a failed write comes back in *err only */
    FILE *out;
    int (*keep)(void *arg, const struct tr_call *c);
    /* optional, called right after keep said yes: the depth to show the
     * entry at (dump --failed: counting only the callers shown) */
    uint16_t (*depth)(void *arg, const struct tr_call *c);
    void (*fmt)(void *w, FILE *f, const struct tr_call *c, size_t index, size_t n);
    /* optional, on a worker after a block's last entry: a formatter that
     * buffers its output writes it to the block's stream f */
    void (*block_end)(void *w, FILE *f);
    void *(*init)(void *arg);
    void (*fini)(void *w);
    void *arg;
};
/* How many workers to format on besides the calling thread (0: the
 * calling thread alone): CUTAP_THREADS, else the CPUs the command may run
 * on (at most 9), less one, the calling thread being one of them (it
 * formats blocks itself whenever it would wait for the workers, where
 * init is set: formatters with state per thread); 0 for a trace with
 * stacks or of few calls. */
unsigned cli_par_workers(const struct trace *tr);
/* Formats every kept entry, on nworkers threads (0: this one). Returns 0,
 * or -1 after a message (memory, threads); *err: the errno of a failed
 * write to out (EPIPE: a reader that went away), else 0. */
int cli_par_run(const struct cli_par *par, unsigned nworkers, int *err);
/* Selection at read time, for report, dump and export: -e FILTER (the
 * trace -e language), --from S and --to S (seconds from the start of the
 * trace, time 0 of dump and the exports). cli_select_opt takes one option
 * (c: 'e', CLI_OPT_FROM or CLI_OPT_TO), printing what is wrong (-1);
 * load_operand applies them, or cli_select_apply after a tr_load. */
enum { CLI_OPT_FROM = 1001, CLI_OPT_TO = 1002, CLI_OPT_NO_GPU = 1003, CLI_OPT_TEXT = 1004, CLI_OPT_IOCTL_PARAMS = 1005 };
#define CLI_SELECT_LONGOPTS {"filter", required_argument, 0, 'e'}, {"from", required_argument, 0, CLI_OPT_FROM}, \
                            {"to", required_argument, 0, CLI_OPT_TO}
#define CLI_SELECT_HELP                                                                                    \
    "  -e, --filter FILTER only the calls FILTER selects (the language of cutap trace -e); a call left\n" \
    "                      out leaves the calls it made under its nearest caller kept\n"                  \
    "  --from S, --to S    only the calls that start in that window, S in seconds from the start\n"      \
    "                      of the trace (as dump prints it)\n"                                          \
    "  -h, --help          this help\n"
int cli_select_opt(int c, const char *arg, const char *cmd);
int cli_select_apply(struct trace *tr);

/* Every function cutap knows, with its layer (cli/generated/known_names.c). */
struct cli_known_name {
    const char *name;
    int layer;
};
extern const struct cli_known_name cli_known_names[];
extern const unsigned cli_nknown_names;
#endif
