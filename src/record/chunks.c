/* Threads and their chunks (writer_internal.h): a thread's first record,
 * the chunks it takes (records, counters, metas), the tails of exited
 * threads' chunks passed on, and the slow side of rec_reserve. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "writer_internal.h"

/* Thread exit (a key destructor, registered when a thread first records):
 * the rest of its record chunk waits here for a new thread (which marks
 * it with a THREAD meta record), its counter table is unmapped. */
static pthread_key_t exit_key;
static int have_exit_key;
static struct {
    struct cutap_rec_call *pos, *end;
} tails[TAILS_MAX];
static unsigned ntails;
static pthread_mutex_t tail_lock = PTHREAD_MUTEX_INITIALIZER;

static _Atomic uint32_t meta_seq;   /* META chunks taken */

void rec_thread_init(struct rec_thread *t)
{
    memset(t, 0, sizeof *t);
    t->tid = (int32_t)syscall(SYS_gettid);
    /* splitmix64 of the thread id and the clock: threads (and processes)
     * sample at different calls */
    uint64_t x = (rec_fixed_seed ? rec_seed : (uint64_t)(uint32_t)t->tid << 32 ^ cutap_rec_clock()) + 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    t->rng = (x ^ (x >> 31)) | 1;
    t->countdown = rec_next_interval(t);
    if (have_exit_key)
        pthread_setspecific(exit_key, (void *)1);
}

/* A thread's destructor. A later destructor of the same thread may still
 * call CUDA: the thread then starts afresh (a new chunk; its tail, given
 * away, is never written again by it). */
static void thread_exit(void *v)
{
    (void)v;
    struct rec_thread *t = &cutap_rt;
    /* The whole hand-over with the thread's signals blocked: a signal
     * handler's call between reading the position and dropping the chunk
     * wrote its record into the tail given away, which the next owner's
     * THREAD record overwrote (helper-28's review); and a handler's ring
     * take ran inside the ring's release. */
    sigset_t old;
    int blocked = rec_sig_block(&old);
    if (rec_ring.n) {
        rec_thread_drop(t);   /* (first: as below) */
        rec_ring_release_all(t);   /* a ring's chunks are never passed on: they are reused */
    } else {
        /* (dropped before the tail is given away: a signal handler's call
         * after this destructor takes a chunk of its own, never writes into
         * a tail another thread may have taken) */
        struct cutap_rec_call *pos = t->pos, *end = t->end;
        rec_thread_drop(t);
        if (pos && end - pos >= TAIL_MIN && !atomic_load(&rec_file.dead)) {
            pthread_mutex_lock(&tail_lock);
            if (ntails < TAILS_MAX) {
                tails[ntails].pos = pos;
                tails[ntails].end = end;
                __atomic_store_n(&ntails, ntails + 1, __ATOMIC_RELAXED);
            }
            pthread_mutex_unlock(&tail_lock);
        }
    }
    rec_sig_restore(blocked, &old);
    if (t->tab)
        munmap(t->tab, TAB_BYTES);
    t->tab = NULL;
    t->gone = 1;
}

void *rec_chunk_take(struct rec_thread *t, int type, uint32_t first_id)
{
    if (atomic_load_explicit(&rec_file.dead, memory_order_relaxed) || rec_file_ensure())
        return NULL;
    if (CUTAP_UNLIKELY(!t->tid))
        rec_thread_init(t);
    if (rec_ring.n && type == CUTAP_CHUNK_RECORDS) {
        char *rc = rec_ring_take(t);
        if (!rc)
            return NULL;
        struct cutap_chunk_header *h = (struct cutap_chunk_header *)rc;
        h->type = CUTAP_CHUNK_RECORDS;
        h->tid = t->tid;
        h->seq = t->seq_rec++;
        h->first_id = 0;
        h->take = atomic_fetch_add(&rec_ring.takes, 1) + 1;
        rec_clock_pair(&h->clock, &h->mono_ns);
        prctl(PR_GET_NAME, h->thread_name);
        __atomic_store_n(&h->magic, CUTAP_CHUNK_MAGIC, __ATOMIC_RELEASE);
        return rc;
    }
    int why = CUTAP_STOP_OTHER;
    uint64_t i = atomic_fetch_add(&rec_file.next_chunk, 1);
    char *c = rec_chunk_addr(i, &why);
    if (!c) {
        rec_stop(why, errno,
             why == CUTAP_STOP_FILE ? "the program closed cutap's descriptor of the trace file, which cannot be opened again"
                                    : "cannot extend the trace file");
        return NULL;
    }
    /* Fault the chunk's pages in now, in one system call, rather than one
     * page fault per 4 KiB on the hot path (Linux 5.14+; else ignored),
     * unless the helper did already. */
    if (!rec_pf_populated(i))
        madvise(c, rec_file.csize, MADV_POPULATE_WRITE);
    /* from the process's second chunk on (one that records a handful of
     * calls makes no thread); the helper populates chunks of segments
     * already mapped, so the file grows only as chunks are taken */
    if (type == CUTAP_CHUNK_RECORDS && !rec_file.counts && i >= 1 && !rec_ring.n)
        rec_pf_kick(i);
    struct cutap_chunk_header *h = (struct cutap_chunk_header *)c;
    h->type = (uint16_t)type;
    h->tid = t->tid;
    h->seq = type == CUTAP_CHUNK_RECORDS ? t->seq_rec++ : type == CUTAP_CHUNK_META ? atomic_fetch_add(&meta_seq, 1)
                                                                                 : t->seq_cnt++;
    h->first_id = first_id;
    h->take = atomic_fetch_add(&rec_ring.takes, 1) + 1;
    rec_clock_pair(&h->clock, &h->mono_ns);
    prctl(PR_GET_NAME, h->thread_name);
    __atomic_store_n(&h->magic, CUTAP_CHUNK_MAGIC, __ATOMIC_RELEASE);
    return c;
}

/* The tail of an exited thread's chunk with room for a THREAD meta record
 * and n slots, taken; or 0. */
static int tail_take(struct rec_thread *t, unsigned n)
{
    if (!__atomic_load_n(&ntails, __ATOMIC_RELAXED))   /* without the lock: a miss costs a new chunk */
        return 0;
    struct cutap_rec_call *pos = NULL, *end = NULL;
    pthread_mutex_lock(&tail_lock);
    if (ntails && tails[ntails - 1].end - tails[ntails - 1].pos > (ptrdiff_t)n) {
        __atomic_store_n(&ntails, ntails - 1, __ATOMIC_RELAXED);
        pos = tails[ntails].pos;
        end = tails[ntails].end;
    }
    pthread_mutex_unlock(&tail_lock);
    if (!pos)
        return 0;
    /* From here on the chunk's records are this thread's. */
    struct cutap_rec_meta *m = (struct cutap_rec_meta *)pos;
    m->sub = CUTAP_META_THREAD;
    m->nslots = 1;
    m->aux = (uint32_t)t->tid;
    m->key = t->seq_rec++;
    m->clock = cutap_rec_clock();
    char name[17] = {0};
    prctl(PR_GET_NAME, name);
    memcpy(m->text, name, 16);
    __atomic_store_n(&m->kind, CUTAP_REC_META, __ATOMIC_RELEASE);
    rec_thread_set(t, pos + 1, end);
    return 1;
}

/* (t is the calling thread's: taken here, not passed, as in one file the
 * compiler did) */
__attribute__((noinline)) struct cutap_rec_call *rec_reserve_slow(unsigned n)
{
    struct rec_thread *t = &cutap_rt;
    if (atomic_load_explicit(&rec_file.dead, memory_order_relaxed))
        return NULL;
    sigset_t old;
    int blocked = rec_sig_block(&old);   /* (the whole switch: rec_sig_block) */
    struct cutap_rec_call *r = NULL;
    if (rec_file_ensure())
        goto out;
    if (CUTAP_UNLIKELY(!t->tid))
        rec_thread_init(t);
    if (t->gone || !tail_take(t, n)) {
        char *c = rec_chunk_take(t, CUTAP_CHUNK_RECORDS, 0);
        if (!c)
            goto out;
        rec_thread_set(t, (struct cutap_rec_call *)(c + CUTAP_SLOT), (struct cutap_rec_call *)(c + rec_file.csize));
    }
    r = t->pos;
    t->pos = r + n;
out:
    rec_sig_restore(blocked, &old);
    return r;
}

/* A thread whose exit destructor ran already and that records again (a
 * later destructor makes a CUDA call): asked again, so that what it takes
 * now goes back too. */
void rec_thread_exit_again(void)
{
    if (have_exit_key)
        pthread_setspecific(exit_key, (void *)1);
}

void rec_threads_start(void)
{
    have_exit_key = !pthread_key_create(&exit_key, thread_exit);
}

/* The forking thread is the child's only thread: its chunk pointers and
 * counters still point into the unmapped parent segments, and so do the
 * tails. */
void rec_chunks_after_fork(void)
{
    rec_thread_drop(&cutap_rt);
    if (cutap_rt.tab)
        munmap(cutap_rt.tab, TAB_BYTES);
    memset(&cutap_rt, 0, sizeof cutap_rt);
    ntails = 0;
    pthread_mutex_init(&tail_lock, NULL);
    atomic_store(&meta_seq, 0);
}
