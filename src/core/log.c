/* CUTAP_LOG=DEST: one text line per intercepted call, written when the call
 * returns (so an inner call comes before the call that made it; the
 * indentation gives the nesting):
 *   [pid/tid] t=<start ns> <indent>name(arg=value, ...) = result <dur ns>
 * Arguments are the raw words (pointers in hex, integers in decimal); the
 * process never reads memory behind a pointer, except the 16-byte UUID of
 * cuGetExportTable after the driver accepted it. One write(2) per line to
 * an O_APPEND file: lines of threads and processes never interleave. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core_internal.h"

static int client = -1;
static const char *dest;
static struct cutap_fd out = {.fd = -1};   /* under fd_lock */
static pid_t fd_pid;
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(fd_lock)

static int pre(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    (void)call;
    *scratch = cutap_now_ns();
    return CUTAP_PROCEED;
}

/* The file is opened once per process, by the first line written: several
 * threads may get there at once, so under a lock. A forked child (one
 * thread, its parent's descriptor inherited) opens its own file and closes
 * the inherited one. Each line is written through a private duplicate
 * checked to name the file (src/front/fd.c): a program that closed our
 * descriptor and got its number back never receives our lines; the file
 * is then opened again (appending), or, for "stderr", no longer written.
 * Returns a descriptor the caller closes, or -1. (A text line per call
 * is slow anyway: the lock and the checks cost a few system calls.) */
static int out_fd(void)
{
    pid_t me = getpid();
    pthread_mutex_lock(&fd_lock);
    if (fd_pid != me) {
        cutap_fd_close(&out);   /* a forked child's inherited copy, if still ours */
        out.fd = cutap_open_output(dest, 1);
        if (out.fd >= 0 && cutap_fd_remember(&out))
            out.fd = -1;
        fd_pid = me;
    } else if (out.fd >= 0 && !cutap_fd_is_ours(&out)) {
        /* the program took the number: forgotten, never closed */
        out.fd = strcmp(dest, "stderr") ? cutap_open_output(dest, 1) : -1;
        if (out.fd >= 0 && cutap_fd_remember(&out))
            out.fd = -1;
    }
    int d = cutap_fd_dup_checked(&out);
    pthread_mutex_unlock(&fd_lock);
    return d;
}

static void post(cutap_call_t *call, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    uint64_t t1 = cutap_now_ns(), t0 = *scratch;
    char line[2048];
    size_t n = 0, cap = sizeof line - 2;
#define PUT(...) do { int k_ = snprintf(line + n, cap - n, __VA_ARGS__); if (k_ > 0) n = n + (size_t)k_ < cap ? n + (size_t)k_ : cap; } while (0)
    PUT("[%d/%ld] t=%llu %*s%s(", (int)getpid(), (long)syscall(SYS_gettid), (unsigned long long)t0,
        (int)(2 * call->depth), "", cutap_call_name(call->id));
    for (uint32_t i = 0; i < call->nargs; i++) {
        const cutap_arg_info_t *a = cutap_call_arg(call->id, i);
        const char *sep = i ? ", " : "";
        if (!a)
            PUT("%s0x%llx", sep, (unsigned long long)call->args[i]);
        else if (a->kind == CUTAP_ARG_INT)
            PUT("%s%s=%lld", sep, a->name, (long long)call->args[i]);
        else if (a->kind == CUTAP_ARG_UINT || a->kind == CUTAP_ARG_ENUM)
            PUT("%s%s=%llu", sep, a->name, (unsigned long long)call->args[i]);
        else
            PUT("%s%s=0x%llx", sep, a->name, (unsigned long long)call->args[i]);
    }
    PUT(")");
    if (call->id == CUTAP_ID_cuGetExportTable && !call->result && call->args[1]) {
        const unsigned char *u = (const unsigned char *)(uintptr_t)call->args[1];
        const char *name = cutap_export_table_name(u);
        PUT(" uuid=");
        for (int i = 0; i < 16; i++)
            PUT("%02x", u[i]);
        PUT(" table=%s", name ? name : "?");
    }
    PUT(" = %lld%s <%llu ns>\n", (long long)(call->flags & CUTAP_CALL_UNTYPED ? call->result : (uint32_t)call->result),
        call->flags & CUTAP_CALL_SKIPPED ? " (skipped)" : "", (unsigned long long)(t1 - t0));
#undef PUT
    if (n && line[n - 1] != '\n')
        line[n++] = '\n';   /* a truncated line still ends */
    int f = out_fd();
    if (f >= 0) {
        (void)cutap_write_all(f, line, n);
        close(f);
    }
}

void cutap_log_start(const char *d)
{
    if ((client = cutap_register("log", pre, post, NULL)) < 0)
        return;
    dest = d;
    cutap_enable(client, CUTAP_ID_ALL, 1);
}
