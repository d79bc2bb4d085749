/* What cli/dump/decode.c (a call's arguments and result as text) offers
 * cli/dump/cmd_dump.c (the command); the exports use cli.h's dump_call_*. */
#ifndef CUTAP_DUMP_INTERNAL_H
#define CUTAP_DUMP_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "decode_tables.h"
#include "trace_read.h"

/* What printing one call needs besides the call. */
struct dump {
    const struct trace *tr;
    FILE *out;
    const struct tr_proc *proc;    /* process of the call being printed */
    const struct dec_set *set;     /* tables of the call's layer */
    int demangle;                  /* kernel names demangled (dump without --no-demangle) */
    int absolute;                  /* -t: local wall-clock time of day, not seconds from the start */
    uint64_t abs_sec;              /* -t: the second last formatted (per thread: each has its own dump) */
    char abs_hms[16];              /* and its "HH:MM:SS." */
    int started;                   /* cutap trace --print: the call is shown started, its end later */
    struct dump_memo *memo;        /* finished calls' texts by their records (memo.c); NULL: none */
};

/* memo.c: a formatting thread's memo (cli/memo.c; NULL: none: CUTAP_MEMO=0,
 * or no memory), freed with dump_memo_free; "(ARGS) = STATUS" of a finished
 * call through it, returning the signature it was decoded by. */
struct dump_memo *dump_memo_new(void);
void dump_memo_free(struct dump_memo *mm);
const struct dec_fn *dump_put_memo(struct dump *d, const struct tr_call *c);
/* "(ARGS)", decoded by the call's signature (returned), or raw. */
const struct dec_fn *dump_put_args_of(struct dump *d, const struct tr_call *c);
/* " = STATUS" of a finished call. */
void dump_put_status(const struct dump *d, const struct tr_call *c, const struct dec_fn *fn);

/* "[4121/4122]", "[r1 4121/4122]", with hosts "[node7:4121/4122]": a thread's label. */
void dump_thread_label(const struct trace *tr, size_t ti, int hosts, char out[96]);
/* A call's line (an NVTX range's, for a range entry), labelled. */
void dump_put_call(struct dump *d, const struct tr_call *c, const char *label);
/* The end of a call shown started: "<... NAME resumed>(ARGS) = RESULT <duration>". */
void dump_put_resumed(struct dump *d, const struct tr_call *c, const char *label);

/* The signature to decode c with (d->set set to its tables), or NULL to
 * print raw words. */
const struct dec_fn *dump_signature(struct dump *d, const struct tr_call *c);
/* The arguments between the parentheses: decoded by fn, or the raw words. */
void dump_put_args(const struct dump *d, const struct tr_call *c, const struct dec_fn *fn);
void dump_put_raw_args(FILE *f, const struct trace *tr, const struct tr_call *c);
/* " = RESULT <duration>", or " = ? <unfinished>". */
void dump_put_result(const struct dump *d, const struct tr_call *c, const struct dec_fn *fn);
/* "<1.2 us>" */
void dump_put_duration(FILE *f, uint64_t ns);
/* A C string literal (escaped); truncated: "…" after it. */
void dump_put_str(FILE *f, const char *s, size_t len, int truncated);
/* Frees the demangled kernel names (decode.c keeps one per name). */
void dump_kernels_free(void);

/* cli/dump/older.c: the signature of name n (described by sig in the
 * trace) in set for a call whose process bound its layer to soname so
 * (NULL: the pinned one), an older
 * major's where it declares it otherwise or where the trace describes
 * that major's parameters; *rset: the set it is in. */
const struct dec_fn *dec_resolve(const struct tr_name *n, const char *sig, const struct dec_set *set,
                                 const char *so, const struct dec_set **rset);

#endif
