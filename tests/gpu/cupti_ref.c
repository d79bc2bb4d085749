/* The referee: a CUPTI callback subscriber that counts the driver and
 * runtime API calls of a process per name. It is loaded by the driver
 * itself, during the first cuInit, through the injection mechanism:
 *
 *   CUDA_INJECTION64_PATH=build/gpu/libcupti_ref.so CUTAP_REF_DIR=DIR ./app
 *
 * At exit it writes DIR/cupti.<pid>.tsv: "domain<TAB>name<TAB>count" per
 * API called at least once, after a line "# pid <pid> ppid <ppid>
 * init_realtime_ns <CLOCK_REALTIME when the driver called us>", and
 * DIR/cbids.tsv: every driver API CUPTI has a callback for. Without CUTAP_REF_DIR it counts and
 * writes nothing (the overhead benchmark). CUTAP_REF_DOMAINS=driver limits
 * the subscription to the driver API. A forked child starts from zero.
 *
 * Build: gcc -O2 -shared -fPIC -I/usr/local/cuda/include cupti_ref.c
 *        -o libcupti_ref.so -L<cupti lib dir> -lcupti -lpthread
 */
#define _GNU_SOURCE
#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NDRV CUPTI_DRIVER_TRACE_CBID_SIZE
#define NRT CUPTI_RUNTIME_TRACE_CBID_SIZE

static _Atomic unsigned long drv[NDRV + 1];
static _Atomic unsigned long rt[NRT + 1];
static _Atomic unsigned long other;     /* cbids beyond the header's table */
static CUpti_SubscriberHandle sub;
static unsigned long long init_ns;   /* CLOCK_REALTIME */
static int initialized;

static void CUPTIAPI on_api(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
    (void)ud;
    const CUpti_CallbackData *cb = data;
    if (cb->callbackSite != CUPTI_API_ENTER)
        return;
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cbid < NDRV)
        atomic_fetch_add_explicit(&drv[cbid], 1, memory_order_relaxed);
    else if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < NRT)
        atomic_fetch_add_explicit(&rt[cbid], 1, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&other, 1, memory_order_relaxed);
}

static void write_domain(FILE *f, CUpti_CallbackDomain dom, const char *label, _Atomic unsigned long *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned long v = atomic_load(&c[i]);
        if (!v)
            continue;
        const char *name = NULL;
        if (cuptiGetCallbackName(dom, i, &name) != CUPTI_SUCCESS || !name)
            fprintf(f, "%s\tcbid_%u\t%lu\n", label, i, v);
        else
            fprintf(f, "%s\t%s\t%lu\n", label, name, v);
    }
}

static void dump(void)
{
    const char *dir = getenv("CUTAP_REF_DIR");
    if (!dir || !*dir || !initialized)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/cupti.%d.tsv", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    fprintf(f, "# pid %d ppid %d init_realtime_ns %llu\n", (int)getpid(), (int)getppid(), init_ns);
    write_domain(f, CUPTI_CB_DOMAIN_DRIVER_API, "driver", drv, NDRV);
    write_domain(f, CUPTI_CB_DOMAIN_RUNTIME_API, "runtime", rt, NRT);
    unsigned long o = atomic_load(&other);
    if (o)
        fprintf(f, "other\tunknown_cbid\t%lu\n", o);
    fclose(f);
    char final[4096];
    snprintf(final, sizeof final, "%s/cbids.tsv", dir);
    snprintf(path, sizeof path, "%s/cbids.tsv.%d", dir, (int)getpid());
    if (access(final, F_OK) == 0 || !(f = fopen(path, "w")))
        return;
    for (unsigned i = 1; i < NDRV; i++) {
        const char *name = NULL;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, i, &name) == CUPTI_SUCCESS && name)
            fprintf(f, "driver\t%s\n", name);
    }
    fclose(f);
    rename(path, final);   /* whole, whichever process writes it last */
}

static void zero_in_child(void)
{
    for (unsigned i = 0; i <= NDRV; i++)
        atomic_store(&drv[i], 0);
    for (unsigned i = 0; i <= NRT; i++)
        atomic_store(&rt[i], 0);
    atomic_store(&other, 0);
}

static int check(CUptiResult r, const char *what)
{
    if (r == CUPTI_SUCCESS)
        return 0;
    const char *s = NULL;
    cuptiGetResultString(r, &s);
    fprintf(stderr, "cupti_ref: %s: %s\n", what, s ? s : "?");
    return 1;
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    if (initialized)
        return 1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    init_ns = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
    if (check(cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_api, NULL), "cuptiSubscribe"))
        return 0;
    const char *doms = getenv("CUTAP_REF_DOMAINS");
    int want_rt = !doms || strstr(doms, "runtime");
    if (check(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API), "enable driver domain"))
        return 0;
    if (want_rt && check(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API), "enable runtime domain"))
        return 0;
    initialized = 1;
    pthread_atfork(NULL, NULL, zero_in_child);
    atexit(dump);
    return 1;
}
