/* What the export formats share (cli/export/): the format writers, which
 * the command (cmd_export.c) calls, and the helpers common.c gives them. A
 * format includes this header and cli.h, never another format. */
#ifndef CUTAP_EXPORT_INTERNAL_H
#define CUTAP_EXPORT_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/* the formats */
int write_perfetto(const struct trace *tr, FILE *f);           /* perfetto.c: Chrome/Perfetto JSON */
int write_perfetto_proto(const struct trace *tr, FILE *f);   /* proto.c: Perfetto protobuf; -1 after a message */
int write_jsonl(const struct trace *tr, FILE *f);              /* jsonl.c */
int write_sqlite(const struct trace *tr, const char *path);   /* sqlite.c: 0, or -1 after a message */
int write_sqlite_prepare(const char **why);                   /* sqlite.c: libsqlite3 loaded first */
/* parquet.c: a directory of Parquet files (libduckdb loaded first by
 * write_parquet_prepare); 0, or -1 after a message. */
int write_parquet(const struct trace *tr, const char *dir, int force, int text);
int write_parquet_prepare(const char **why);

/* common.c */
const struct tr_proc *call_proc(const struct trace *tr, const struct tr_call *c);
/* The kernel a call is about: launches and function queries take the
 * CUfunction/CUkernel as their first or second argument. */
const char *call_kernel(const struct trace *tr, const struct tr_call *c);
/* ,"kernel":NAME and ,"object":PATH where the call has them (JSON). */
void json_kernel_object(FILE *f, const struct trace *tr, const struct tr_call *c);

/* A call decoded as `cutap dump` decodes it: the arguments at buf, the
 * result (empty when unfinished) at buf + status_at, each NUL-terminated.
 * One memory stream for all the calls of an export, and one memo of the
 * finished calls' texts (cli/memo.c) a thread. */
struct decoded {
    FILE *m;
    char *buf;
    size_t len, status_at;
    int unlocked;   /* m set to FSETLOCKING_BYCALLER */
    int memo_made;
    struct cli_memo *memo;   /* NULL: none (CUTAP_MEMO=0) */
};
void decode_call(struct decoded *d, const struct trace *tr, const struct tr_call *c);
void decoded_free(struct decoded *d);

/* A string as a JSON literal, made once: call names and hosts are
 * repeated on every line. */
char *json_dup(const char *s);
char **json_names(const struct trace *tr);   /* every call name as a JSON literal */
void free_strs(char **v, size_t n);

/* The pid each process shows in the Perfetto viewers, and its sort index.
 * Two files can carry the same pid: an exec'd image (same process, new
 * file) or processes on different hosts. The viewer merges tracks of
 * equal pids, so the earliest-started keeps the real pid and the others
 * get made-up ones; the process name keeps the real pid. */
struct pf_proc {
    int64_t pid;
    size_t sort_index;
};
struct pf_proc *pf_procs(const struct trace *tr);

/* What a text export's formatting thread holds (cli/parallel.c): the
 * export's tables, shared, and a decoder of its own. export_worker_new
 * copies base (dec zeroed); export_worker_free frees a copy. */
struct export_worker {
    const struct trace *tr;
    char **jname;              /* names as JSON literals */
    char **jhost;              /* hosts as JSON literals (jsonl) */
    const struct pf_proc *pp;  /* (perfetto) */
    int lead;                  /* (perfetto) the first entry starts the array's elements */
    struct decoded dec;        /* this thread's */
};
void *export_worker_new(void *base);
void export_worker_free(void *w);

/* GPU activity (cutap trace --gpu): "kernel", "memcpy" or "memset"; the
 * display name (the demangled kernel, "[CUDA memcpy HtoD]", "[CUDA
 * memset]") in buf; its JSON members with a leading comma (kind, device,
 * context, stream; name, mangled, grid, block; copy, bytes; bytes, value);
 * the Perfetto JSON track (a made-up tid, above any real one) of its
 * device and stream. */
const char *gpu_kind_str(const struct tr_gpu *x);
const char *gpu_label(const struct tr_proc *p, const struct tr_gpu *x, char *buf, size_t size);
void json_gpu_fields(FILE *f, const struct tr_proc *p, const struct tr_gpu *x);
/* A GPU track: one per device, context, stream and lane (tr_proc.gpu_lane:
 * records of a stream that overlap in time go to lanes of their own). */
uint32_t gpu_track_tid(const struct tr_gpu *x, unsigned lane);
void gpu_track_name(const struct tr_gpu *x, unsigned lane, char *buf, size_t size);   /* "GPU 0 stream 13" */

/* A kernel's name demangled (cli_demangle), or as recorded where it is
 * not mangled; NULL: not named. Each name of a process is demangled once
 * and kept until gpu_names_free. */
struct gpu_names {
    char ***dm;      /* [process][GPU_NAME index]: demangled, or NULL */
    size_t nprocs;
};
const char *gpu_demangled(struct gpu_names *gn, const struct trace *tr, size_t pi, const struct tr_gpu *x);
void gpu_names_free(struct gpu_names *gn, const struct trace *tr);

/* A process's freeze (version 5): "no", "request", "error", "peer", "other". */
const char *proc_frozen_str(const struct tr_proc *p);

/* FNV-1a of a string: the exports' tables of distinct strings. */
uint64_t str_fnv1a(const char *s);

/* Microseconds with three decimals: exact nanoseconds, no float rounding. */
void put_us(FILE *f, uint64_t ns);
/* A process's losses as JSON members (no braces). */
void json_loss(FILE *f, const struct tr_proc *p, const char *loss);

/* cmd_export.c: the directory holding a published output synced */
void export_sync_dir_of(const char *out);

#endif
