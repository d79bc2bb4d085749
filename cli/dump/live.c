/* cutap trace --print: a thread of the cutap command (never of the traced
 * program) follows the trace directory (cli/read/follow.c) and prints each
 * call as dump prints it, as it completes: the program pays nothing more
 * than for the trace. Times are seconds from the command's start. The
 * thread runs at a lower priority (nice +10), so that on a busy machine it
 * falls behind rather than takes the program's time; it reads what it has
 * missed when it can, and everything once the command has ended. A write
 * that fails (a closed pipe, a full disk) ends the printing, never the
 * command. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dump_internal.h"

#define LIVE_PAUSE_NS 20000000L   /* between polls that found nothing new */

static struct {
    pthread_t thread;
    int started;
    int stop;                     /* (atomic) the command ended: a last poll, then out */
    struct tr_follow *fol;
    FILE *out;
    struct dump d;
    int failed;                   /* errno of the failed output, 0 */
} live;

static void on_call(void *arg, const struct trace *tr, const struct tr_follow_out *o)
{
    (void)arg;
    if (live.failed)
        return;
    if (ferror(live.out)) {
        live.failed = errno ? errno : EIO;
        return;
    }
    const struct tr_call *c = &o->call;
    char label[96];
    dump_thread_label(tr, c->thread, 0, label);
    live.d.tr = tr;
    live.d.started = o->kind == TR_FOLLOW_STARTED;
    if (o->kind == TR_FOLLOW_RESUMED)
        dump_put_resumed(&live.d, c, label);
    else
        dump_put_call(&live.d, c, label);
}

static void *live_main(void *arg)
{
    (void)arg;
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
    for (;;) {
        int final = __atomic_load_n(&live.stop, __ATOMIC_ACQUIRE);
        size_t got;
        do
            got = tr_follow_poll(live.fol, 0, on_call, NULL);
        while (got && !live.failed);
        while (final && !live.failed && tr_follow_poll(live.fol, 1, on_call, NULL)) {
        }   /* everything still held */
        if (!live.failed && (fflush(live.out) == EOF || ferror(live.out)))
            live.failed = errno ? errno : EIO;
        if (final || live.failed)
            break;   /* a failed output: nothing more is read or printed */
        struct timespec ts = {0, LIVE_PAUSE_NS};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int dump_live_start(const char *dir, FILE *out, uint64_t origin_ns)
{
    live.fol = tr_follow_open(dir, origin_ns);
    live.out = out;
    live.d.out = out;
    live.d.demangle = 1;
    /* created with every signal blocked (it keeps them so): the
     * command's signals (SIGUSR2, SIGTERM) go to the thread that waits */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&live.thread, NULL, live_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        fprintf(stderr, "cutap: --print: cannot start its thread: calls are recorded, not printed\n");
        tr_follow_close(live.fol);
        live.fol = NULL;
        return -1;
    }
    live.started = 1;
    return 0;
}

void dump_live_stop(void)
{
    if (!live.started)
        return;
    __atomic_store_n(&live.stop, 1, __ATOMIC_RELEASE);
    pthread_join(live.thread, NULL);
    live.started = 0;
    if (live.failed && live.failed != EPIPE)   /* a reader that went away is not worth a word */
        fprintf(stderr, "cutap: --print: writing the calls failed (%s); the rest were recorded, not printed "
                        "(cutap dump reads them)\n", strerror(live.failed));
    tr_follow_close(live.fol);
    live.fol = NULL;
    dump_kernels_free();
    if (live.out != stderr && live.out != stdout)
        fclose(live.out);
    else
        fflush(live.out);
}
