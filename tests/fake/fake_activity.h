/* Between the fake driver (tests/fake/fake_gpu.c) and the fake libcupti's
 * activity API (tests/fake/fake_cupti_activity.c), as between the real
 * driver and CUPTI: CUPTI learns of each API call (its callback id, at its
 * start and its end, on the calling thread) and of the work each call puts
 * on the GPU (kernels, copies, memsets: what the GPU would execute). A
 * runtime copy's calls reach CUPTI through the driver's tools hook
 * (tests/fake/fake_tools.c, fake_cupti_dispatch), as the driver's own.
 *
 * The fake libcupti hands the driver these functions (fake_activity_attach,
 * an export of the fake driver) when its activity API is first enabled;
 * until then the driver tells nobody and behaves as before. */
#ifndef FAKE_ACTIVITY_H
#define FAKE_ACTIVITY_H
#include <stdint.h>

enum {
    FAKE_DOMAIN_DRIVER = 4,    /* CUPTI_ACTIVITY_KIND_DRIVER */
    FAKE_DOMAIN_RUNTIME = 5,   /* CUPTI_ACTIVITY_KIND_RUNTIME */
};
enum { FAKE_WORK_KERNEL = 1, FAKE_WORK_MEMCPY = 2, FAKE_WORK_MEMSET = 3 };

/* One piece of GPU work (CUPTI's CUpti_ActivityMemcpyKind and
 * CUpti_ActivityMemoryKind values). */
struct fake_gpu_work {
    int type;                      /* FAKE_WORK_* */
    uint32_t stream;               /* CUPTI's stream id */
    const char *name;              /* KERNEL: stable for the process's life */
    uint32_t grid[3], block[3];    /* KERNEL */
    uint8_t copy_kind, src_kind, dst_kind;   /* MEMCPY */
    uint32_t value;                /* MEMSET */
    uint64_t bytes;                /* MEMCPY, MEMSET */
    uint64_t graph_node;           /* a graph's node: its id (0: not of a graph) */
    uint32_t graph;                /* and its graph's */
};

struct fake_activity_ops {
    /* An API call of a domain starts on this thread: whether CUPTI tracks
     * it (its callback id is enabled: then it gets a correlation id, and
     * an EXTERNAL_CORRELATION record per pushed external id). */
    int (*enter)(int domain, uint32_t cbid);
    /* It ends (the API record, when tracked). */
    void (*leave)(int domain, uint32_t cbid);
    /* Work the thread's current call put on the GPU: a record carrying the
     * correlation id of the outermost tracked call open on the thread. */
    void (*work)(const struct fake_gpu_work *w);
};

/* Inside the fake libcupti: fake_cupti.c hands the activity API a runtime
 * copy's report (fake_act_runtime: the correlation id for its subscriber)
 * and, when its subscriber ends, asks it to set again the runtime-callback
 * words it wants (fake_act_rewords). */
struct rt_copy_record;
uint32_t fake_act_runtime(const struct rt_copy_record *r);
void fake_act_rewords(void);
/* The activity API's side of the driver attached (as at its first enabling). */
void fake_act_attach(void);
/* The subscriber's callbacks (fake_cupti.c): whether a function's are
 * enabled (runtime: 1), and a driver function's delivered. */
int fake_cupti_cb_wanted(int runtime, uint32_t cbid);
/* The last callback id this CUPTI knows (FAKE_CUPTI_CBID_MAX), driver or
 * runtime: later ones are refused, as an older CUPTI refuses them. */
uint32_t fake_cupti_known_max(int runtime);
void fake_cupti_cb(uint32_t cbid, int site, uint32_t correlation);
#endif
