/* A fake libcupti.so.13 for the --runtime=cupti tests (tests/t_static_rt.c)
 * and, with its activity API (fake_cupti_activity.c), for `cutap trace
 * --gpu` (tests/t_gpu.c).
 *
 * Real CUPTI learns of runtime calls from the CUDA runtime through the
 * driver, as the fake does: enabling the runtime domain sets the driver's
 * runtime-callback words (the fake driver's fake_tools_enable), a runtime
 * copy reports each call whose word is set through the driver's
 * TOOLS_RUNTIME_CALLBACK_HOOKS#1 (tests/rt_copy.h), and the driver hands
 * the runtime's record to fake_cupti_dispatch(), which calls the
 * subscriber as CUPTI would: domain CUPTI_CB_DOMAIN_RUNTIME_API, the
 * callback id, and a CUpti_CallbackData made of the record. Builds
 * without the CUDA toolkit: the few CUPTI types are declared here, pinned
 * to CUDA 13.0's headers.
 *
 *   FAKE_CUPTI_BUSY=1     cuptiSubscribe fails as when another tool holds
 *                         CUPTI (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
 *   FAKE_CUPTI_NO_CORR=1  reports carry no correlationData pointer
 *   FAKE_CUPTI_ENABLE_CB_SLEEP_MS=N  the first cuptiEnableCallback takes
 *                         N ms (the subscriber is there meanwhile)
 *   FAKE_CUPTI_UNSUB_SLEEP_MS=N  cuptiUnsubscribe takes N ms first
 *   FAKE_CUPTI_CBID_MAX=D,R  cuptiEnableCallback refuses (INVALID_PARAMETER)
 *                         callback ids above D (driver) and R (runtime),
 *                         as an older CUPTI those it does not know
 *   FAKE_CUPTI_CB_LOG=FILE  a line "enable DOMAIN ID" per callback id
 *                         cuptiEnableCallback turned on
 * Per function callbacks (cuptiEnableCallback): a driver function's come
 * from the activity API's tracking of the driver's calls
 * (fake_cupti_activity.c, fake_cupti_cb), with its correlation id; a
 * runtime function's from the runtime copies' reports, as above.
 * fake_cupti_has_subscriber() says whether CUPTI has a subscriber.
 * (the activity API's knobs: fake_cupti_activity.c)
 */
#include <stddef.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cupti_min.h"
#include "fake_activity.h"

#define EXPORT __attribute__((visibility("default")))

/* cupti_result.h */
enum {
    CUPTI_SUCCESS = 0,
    CUPTI_ERROR_INVALID_PARAMETER = 1,
    CUPTI_ERROR_MAX_LIMIT_REACHED = 12,
    CUPTI_ERROR_QUEUE_EMPTY = 18,
    CUPTI_ERROR_INVALID_KIND = 21,
    CUPTI_ERROR_NOT_SUPPORTED = 27,
    CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 39,
};
/* cupti_callbacks.h */
enum { CUPTI_CB_DOMAIN_DRIVER_API = 1, CUPTI_CB_DOMAIN_RUNTIME_API = 2 };
typedef void (*callback_fn)(void *userdata, int domain, uint32_t cbid, const void *cbdata);
#define callback_data cupti_min_cbdata

static int token;   /* the one subscriber handle */

/* The driver's runtime-callback word of a callback id, or all (-1) (the
 * fake driver's export). */
static void driver_enable_id(int cbid, int on)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void (*en)(int, int) = h ? (void (*)(int, int))dlsym(h, "fake_tools_enable") : NULL;
    if (en)
        en(cbid, on);
}
static void driver_enable(int on) { driver_enable_id(-1, on); }

/* FAKE_CUPTI_*_SLEEP_MS=N: a function takes N ms first (a window in which
 * another thread acts) */
static void env_sleep(const char *name)
{
    const char *ms = getenv(name);
    if (ms && *ms) {
        struct timespec t = {.tv_sec = 0, .tv_nsec = (long)strtoul(ms, NULL, 10) * 1000000L};
        nanosleep(&t, NULL);
    }
}
static callback_fn callback;
static void *callback_user;
static int runtime_enabled;
/* cuptiEnableCallback's choices: [domain][callback id] (driver 1, runtime 2) */
#define CB_IDS 4096
static _Atomic uint8_t cb_on[3][CB_IDS];
static _Atomic uint64_t subscribes;   /* cuptiSubscribe calls that succeeded (FAKE_CUPTI_LOG) */

EXPORT int cuptiSubscribe(void **subscriber, callback_fn fn, void *userdata)
{
    const char *busy = getenv("FAKE_CUPTI_BUSY");
    if (!subscriber)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if ((busy && !strcmp(busy, "1")) || callback)
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;   /* one subscriber, as CUPTI */
    callback = fn;
    callback_user = userdata;
    *subscriber = &token;
    atomic_fetch_add(&subscribes, 1);
    return CUPTI_SUCCESS;
}

/* One function's callbacks (CUDA 13.0's cuptiEnableCallback): a driver
 * function's come from the driver's own entry and exit (the activity API's
 * tracking, fake_cupti_activity.c, fake_cupti_cb); a runtime function's
 * from the runtime copies' reports, whose word it sets in the driver. */
/* FAKE_CUPTI_CBID_MAX=D,R: the last callback id this CUPTI knows, driver
 * and runtime (an older CUPTI's: 11.8's are 676 and 433); a later one is
 * refused as CUPTI refuses an id it does not know */
uint32_t fake_cupti_known_max(int runtime)
{
    const char *e = getenv("FAKE_CUPTI_CBID_MAX");
    if (!e || !*e)
        return UINT32_MAX;
    char *end;
    unsigned long d = strtoul(e, &end, 10), r = *end == ',' ? strtoul(end + 1, NULL, 10) : d;
    return (uint32_t)(runtime ? r : d);
}

EXPORT int cuptiEnableCallback(uint32_t enable, void *subscriber, int domain, uint32_t cbid)
{
    if (subscriber != &token || !callback || (domain != CUPTI_CB_DOMAIN_DRIVER_API &&
                                              domain != CUPTI_CB_DOMAIN_RUNTIME_API) || cbid >= CB_IDS ||
        cbid > fake_cupti_known_max(domain == CUPTI_CB_DOMAIN_RUNTIME_API))
        return CUPTI_ERROR_INVALID_PARAMETER;
    atomic_store(&cb_on[domain][cbid], enable != 0);
    const char *log = getenv("FAKE_CUPTI_CB_LOG");
    int fd = enable && log && *log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    if (fd >= 0) {
        dprintf(fd, "enable %d %u\n", domain, cbid);
        close(fd);
    }
    fake_act_attach();
    /* the first call: the subscriber is there meanwhile */
    static _Atomic int slept;
    if (!atomic_exchange(&slept, 1))
        env_sleep("FAKE_CUPTI_ENABLE_CB_SLEEP_MS");
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && (enable || !runtime_enabled))
        driver_enable_id((int)cbid, enable != 0);
    return CUPTI_SUCCESS;
}

/* Test hook: whether CUPTI has a subscriber now. */
EXPORT int fake_cupti_has_subscriber(void) { return callback != NULL; }

int fake_cupti_cb_wanted(int runtime, uint32_t cbid)
{
    return callback && cbid < CB_IDS &&
           atomic_load_explicit(&cb_on[runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API][cbid],
                                memory_order_relaxed);
}

/* A driver function's callback (its entry: site 0, exit: 1), on the
 * calling thread inside the call, with the correlation id the activity
 * API gave it. */
void fake_cupti_cb(uint32_t cbid, int site, uint32_t correlation)
{
    callback_fn f = callback;
    if (!f || !fake_cupti_cb_wanted(0, cbid))
        return;
    struct callback_data d = {.callbackSite = site, .functionName = "cu?", .correlationId = correlation};
    f(callback_user, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &d);
}

EXPORT int cuptiEnableDomain(uint32_t enable, void *subscriber, int domain)
{
    if (subscriber != &token || !callback)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        runtime_enabled = enable != 0;
        driver_enable(runtime_enabled);
    }
    return CUPTI_SUCCESS;
}

EXPORT int cuptiUnsubscribe(void *subscriber)
{
    env_sleep("FAKE_CUPTI_UNSUB_SLEEP_MS");   /* (the subscriber still there meanwhile) */
    if (subscriber != &token || !callback)
        return CUPTI_ERROR_INVALID_PARAMETER;
    callback = NULL;
    runtime_enabled = 0;
    for (int d = 1; d < 3; d++)
        for (int i = 0; i < CB_IDS; i++)
            atomic_store_explicit(&cb_on[d][i], 0, memory_order_relaxed);
    driver_enable(0);
    fake_act_rewords();   /* what the activity API still wants reported */
    return CUPTI_SUCCESS;
}

EXPORT int cuptiGetResultString(int result, const char **str)
{
    if (!str)
        return CUPTI_ERROR_INVALID_PARAMETER;
    switch (result) {
    case CUPTI_SUCCESS: *str = "CUPTI_SUCCESS"; break;
    case CUPTI_ERROR_INVALID_PARAMETER: *str = "CUPTI_ERROR_INVALID_PARAMETER"; break;
    case CUPTI_ERROR_MAX_LIMIT_REACHED: *str = "CUPTI_ERROR_MAX_LIMIT_REACHED"; break;
    case CUPTI_ERROR_QUEUE_EMPTY: *str = "CUPTI_ERROR_QUEUE_EMPTY"; break;
    case CUPTI_ERROR_INVALID_KIND: *str = "CUPTI_ERROR_INVALID_KIND"; break;
    case CUPTI_ERROR_NOT_SUPPORTED: *str = "CUPTI_ERROR_NOT_SUPPORTED"; break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: *str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"; break;
    default: *str = "CUPTI_ERROR_UNKNOWN"; return CUPTI_ERROR_INVALID_PARAMETER;
    }
    return CUPTI_SUCCESS;
}

/* FAKE_CUPTI_TABLE_CALLS=1: as the real CUPTI does, a call through a
 * driver export table (the fake's FAKE_SIZED, slot 1) with each report:
 * the instrument's calls, which cutap must not record as the program's. */
static void table_call(void)
{
    static int (*_Atomic slot)(int);
    const char *e = getenv("FAKE_CUPTI_TABLE_CALLS");
    if (!e || strcmp(e, "1"))
        return;
    int (*f)(int) = atomic_load(&slot);
    if (!f) {
        static const unsigned char sized[16] = {0xfa, 0x4e, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        int (*get)(const void **, const void *) = h ? (int (*)(const void **, const void *))dlsym(h, "cuGetExportTable") : NULL;
        const uintptr_t *t = NULL;
        if (!get || get((const void **)&t, sized) || !t)
            return;
        atomic_store(&slot, f = (int (*)(int))t[1]);
    }
    f(1);
}


/* The driver's #1 hands over the runtime's record (tests/fake/fake_tools.c). */
EXPORT void fake_cupti_dispatch(const struct rt_copy_record *r)
{
    if (!r)
        return;
    uint32_t correlation = fake_act_runtime(r);   /* the activity API's records; the call's id */
    if (!callback || !(runtime_enabled || fake_cupti_cb_wanted(1, r->cbid)))
        return;
    table_call();
    const char *nc = getenv("FAKE_CUPTI_NO_CORR");
    struct callback_data d = {
        .callbackSite = (int)r->site,
        .functionName = r->name,
        .functionParams = r->params,
        .functionReturnValue = r->site == 1 ? r->result : NULL,
        .symbolName = r->symbol,
        .context = r->context,
        .contextUid = (uint32_t)r->context_uid,
        .correlationData = nc && !strcmp(nc, "1") ? NULL : r->correlation,
        .correlationId = correlation,
    };
    callback(callback_user, CUPTI_CB_DOMAIN_RUNTIME_API, r->cbid, &d);
}
