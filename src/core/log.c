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

#include "clock_internal.h"
#include "cutap_internal.h"

static int client = -1;
static const char *dest;
static _Atomic int fd = -1;
static _Atomic pid_t fd_pid;
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
 * the inherited one. */
static int out_fd(void)
{
    pid_t me = getpid();
    if (CUTAP_LIKELY(atomic_load_explicit(&fd_pid, memory_order_acquire) == me))
        return atomic_load_explicit(&fd, memory_order_relaxed);
    pthread_mutex_lock(&fd_lock);
    if (atomic_load(&fd_pid) != me) {
        int old = atomic_load(&fd);
        int nfd = cutap_open_output(dest, 1);
        atomic_store(&fd, nfd);
        if (old > 2 && atomic_load(&fd_pid) != 0)
            close(old);   /* only ever in a forked child: no other thread */
        atomic_store_explicit(&fd_pid, me, memory_order_release);
    }
    pthread_mutex_unlock(&fd_lock);
    return atomic_load(&fd);
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
    if (f >= 0)
        (void)!write(f, line, n);
}

void cutap_log_start(const char *d)
{
    if ((client = cutap_register("log", pre, post, NULL)) < 0)
        return;
    dest = d;
    cutap_enable(client, CUTAP_ID_ALL, 1);
}
