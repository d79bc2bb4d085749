/* The referee: a CUPTI callback subscriber that counts the driver and
 * runtime API calls of a process per callback id. It is loaded by the
 * driver itself, during the first cuInit, through the injection mechanism:
 *
 *   CUDA_INJECTION64_PATH=build/gpu/libcupti_ref.so CUTAP_REF_DIR=DIR ./app
 *
 * The counters live in a shared mapping of DIR/cupti.<pid>.bin, so the
 * file holds every call CUPTI reported, however the process ends (exit
 * handlers that run after ours, os._exit, a signal). Layout (native
 * endianness, u64 words): magic "CUTAPREF", pid, ppid, realtime ns when
 * the driver loaded us, realtime ns of the latest callback, number of
 * driver ids, number of runtime ids, callbacks dropped (ids beyond this
 * build's tables); then the driver counters, then the runtime counters.
 * When subscribing fails, DIR/cupti.<pid>.failed says why. DIR/cbids.tsv names the ids: "domain<TAB>cbid<TAB>name"
 * for every id CUPTI has a callback for. tests/gpu/compare.py reads both.
 *
 * Without CUTAP_REF_DIR it counts into memory and writes nothing, and does
 * not read the clock (bench/gpu/overhead uses it so; CUTAP_REF_MARK=DIR
 * then only leaves DIR/injected.<pid> to show the driver loaded it). CUTAP_REF_DOMAINS=
 * driver limits the subscription to the driver API. A forked child gets a
 * file of its own, starting from zero.
 *
 * cupti_ref_enable(on) (exported; dlopen this file again to reach it)
 * turns the subscribed domains' callbacks off and on, so that a benchmark
 * compares windows of one process with and without the subscriber (issue
 * #27: bench/gpu/overhead's and torch_steps.py's three-way modes).
 *
 * Build: gcc -O2 -shared -fPIC -I<cupti include> cupti_ref.c -o
 *        libcupti_ref.so <libcupti.so> -lpthread   (tests/gpu/build.sh)
 */
#define _GNU_SOURCE
#include <cupti.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NDRV CUPTI_DRIVER_TRACE_CBID_SIZE
#define NRT CUPTI_RUNTIME_TRACE_CBID_SIZE

struct ref_file {
    char magic[8];
    uint64_t pid, ppid, init_realtime_ns;
    _Atomic uint64_t last_realtime_ns;
    uint64_t ndrv, nrt;
    _Atomic uint64_t dropped;
    _Atomic uint64_t drv[NDRV];
    _Atomic uint64_t rt[NRT];
};

static struct ref_file mem;           /* without CUTAP_REF_DIR */
static struct ref_file *ref = &mem;
static CUpti_SubscriberHandle sub;
static int initialized;

static uint64_t realtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void CUPTIAPI on_api(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
    (void)ud;
    const CUpti_CallbackData *cb = data;
    if (cb->callbackSite != CUPTI_API_ENTER)
        return;
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cbid < NDRV)
        atomic_fetch_add_explicit(&ref->drv[cbid], 1, memory_order_relaxed);
    else if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < NRT)
        atomic_fetch_add_explicit(&ref->rt[cbid], 1, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&ref->dropped, 1, memory_order_relaxed);
    if (ref != &mem) {   /* with a file: the latest time any thread saw, a maximum */
        uint64_t now = realtime(), seen = atomic_load_explicit(&ref->last_realtime_ns, memory_order_relaxed);
        while (seen < now && !atomic_compare_exchange_weak_explicit(&ref->last_realtime_ns, &seen, now,
                                                                   memory_order_relaxed, memory_order_relaxed))
            ;
    }
}

/* Maps DIR/cupti.<pid>.bin; on failure keeps counting in memory. */
static void open_file(void)
{
    const char *dir = getenv("CUTAP_REF_DIR");
    ref = &mem;
    if (!dir || !*dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/cupti.%d.bin", dir, (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ftruncate(fd, sizeof(struct ref_file))) {
        perror(path);
        if (fd >= 0)
            close(fd);
        return;
    }
    void *p = mmap(NULL, sizeof(struct ref_file), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        perror(path);
        return;
    }
    ref = p;
    ref->pid = (uint64_t)getpid();
    ref->ppid = (uint64_t)getppid();
    ref->init_realtime_ns = realtime();
    ref->ndrv = NDRV;
    ref->nrt = NRT;
    memcpy(ref->magic, "CUTAPREF", 8);
}

static void write_cbids(void)
{
    const char *dir = getenv("CUTAP_REF_DIR");
    if (!dir || !*dir)
        return;
    char path[4096], final[4096];
    snprintf(final, sizeof final, "%s/cbids.tsv", dir);
    snprintf(path, sizeof path, "%s/cbids.tsv.%d", dir, (int)getpid());
    FILE *f;
    if (access(final, F_OK) == 0 || !(f = fopen(path, "w")))
        return;
    for (unsigned i = 1; i < NDRV; i++) {
        const char *name = NULL;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, i, &name) == CUPTI_SUCCESS && name)
            fprintf(f, "driver\t%u\t%s\n", i, name);
    }
    for (unsigned i = 1; i < NRT; i++) {
        const char *name = NULL;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, i, &name) == CUPTI_SUCCESS && name)
            fprintf(f, "runtime\t%u\t%s\n", i, name);
    }
    fclose(f);
    rename(path, final);   /* whole, whichever process writes it last */
}

static void in_child(void)
{
    open_file();
    if (ref == &mem)
        memset(&mem, 0, sizeof mem);
}

/* A failure to subscribe leaves DIR/cupti.<pid>.failed, which makes
 * compare.py fail: a process the referee does not watch cannot pass. */
static int check(CUptiResult r, const char *what)
{
    if (r == CUPTI_SUCCESS)
        return 0;
    const char *s = NULL;
    cuptiGetResultString(r, &s);
    fprintf(stderr, "cupti_ref: %s: %s\n", what, s ? s : "?");
    const char *dir = getenv("CUTAP_REF_DIR");
    if (dir && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/cupti.%d.failed", dir, (int)getpid());
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%s: %s\n", what, s ? s : "?");
            fclose(f);
        }
    }
    return 1;
}

static void mark_injected(void)
{
    const char *dir = getenv("CUTAP_REF_MARK");
    if (!dir || !*dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/injected.%d", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
}

static int want_runtime(void)
{
    const char *doms = getenv("CUTAP_REF_DOMAINS");
    return !doms || strstr(doms, "runtime") != NULL;
}

/* 0 when the domains are now as asked; -1 before injection or on error. */
__attribute__((visibility("default"))) int cupti_ref_enable(int on)
{
    if (!initialized)
        return -1;
    uint32_t e = on ? 1 : 0;
    if (cuptiEnableDomain(e, sub, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS)
        return -1;
    if (want_runtime() && cuptiEnableDomain(e, sub, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS)
        return -1;
    return 0;
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    if (initialized)
        return 1;
    open_file();
    if (getenv("CUTAP_REF_DIR") && *getenv("CUTAP_REF_DIR") && ref == &mem)
        return check(CUPTI_ERROR_UNKNOWN, "cannot map the counter file"), 0;
    if (check(cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_api, NULL), "cuptiSubscribe"))
        return 0;
    int want_rt = want_runtime();
    if (check(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API), "enable driver domain"))
        return 0;
    if (want_rt && check(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API), "enable runtime domain"))
        return 0;
    initialized = 1;
    write_cbids();
    mark_injected();
    pthread_atfork(NULL, NULL, in_child);
    return 1;
}
