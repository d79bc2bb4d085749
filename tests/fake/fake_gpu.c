/* The fake driver's GPU, for the fake libcupti's activity API
 * (tests/fake/fake_activity.h, fake_cupti_activity.c; `cutap trace --gpu`).
 *
 * Once the fake libcupti has attached (fake_activity_attach), fake_call()
 * tells it of every call of an export CUPTI has a callback id for
 * (generated: fake_cupti_cbids, from cupti_driver_cbid.h), at its start and
 * its end, and of the work a successful call "executes": a kernel per
 * launch (its name from cuModuleGetFunction's handle, its grid and block),
 * one per node of a graph launched (cuGraphLaunch: the kernel nodes added
 * with cuGraphAddKernelNode(_v2), as instantiated), a copy per 1D copy
 * (cuMemcpy*: direction and memory kinds from the name, or for cuMemcpy
 * and cuMemcpyAsync from whether the pointers are the fake's device
 * memory; bytes), a memset per cuMemset* (value, bytes). 2D, 3D and batch
 * copies are not modelled. Before the libcupti attaches nothing is told,
 * and nothing costs more than one load per call.
 *
 * Graphs: cuGraphCreate, cuGraphAddKernelNode(_v2), cuGraphInstantiate
 * (WithFlags), cuGraphLaunch, cuGraphExecDestroy and cuGraphDestroy hand
 * out and check handles as a driver does, attached or not (not "special":
 * the exact cases still call them, with forced results, which come first). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "fake_internal.h"
#include "fake_activity.h"

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2

static const struct fake_activity_ops *_Atomic ops;

FAKE_EXPORT void fake_activity_attach(const struct fake_activity_ops *o)
{
    atomic_store(&ops, o);
}

/* --- which exports put work on the GPU, and how ------------------------- */
enum { W_NONE, W_KERNEL, W_KERNEL_EX, W_GRAPH, W_MEMCPY, W_MEMSET };
/* CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind */
enum { C_HTOD = 1, C_DTOH, C_HTOA, C_ATOH, C_ATOA, C_ATOD, C_DTOA, C_DTOD, C_HTOH, C_PTOP };
enum { M_PAGEABLE = 1, M_DEVICE = 3, M_ARRAY = 4 };

static const struct form {
    const char *base;   /* the name without _ptds/_ptsz, _v2/_v3 and Async */
    uint8_t what, copy, src, dst;
    int8_t bytes;       /* argument index of the byte count (MEMSET: of the count N, or the width) */
    int8_t value;       /* MEMSET: of the value */
    int8_t height;      /* MEMSET 2D: of the height */
    uint8_t elem;       /* MEMSET: element size */
} forms[] = {
    {"cuLaunchKernel", W_KERNEL, 0, 0, 0, 0, 0, 0, 0},
    {"cuLaunchCooperativeKernel", W_KERNEL, 0, 0, 0, 0, 0, 0, 0},
    {"cuLaunchKernelEx", W_KERNEL_EX, 0, 0, 0, 0, 0, 0, 0},
    {"cuGraphLaunch", W_GRAPH, 0, 0, 0, 0, 0, 0, 0},
    {"cuMemcpy", W_MEMCPY, 0, 0, 0, 2, 0, 0, 0},   /* unified: by the pointers */
    {"cuMemcpyHtoD", W_MEMCPY, C_HTOD, M_PAGEABLE, M_DEVICE, 2, 0, 0, 0},
    {"cuMemcpyDtoH", W_MEMCPY, C_DTOH, M_DEVICE, M_PAGEABLE, 2, 0, 0, 0},
    {"cuMemcpyDtoD", W_MEMCPY, C_DTOD, M_DEVICE, M_DEVICE, 2, 0, 0, 0},
    {"cuMemcpyHtoA", W_MEMCPY, C_HTOA, M_PAGEABLE, M_ARRAY, 3, 0, 0, 0},
    {"cuMemcpyAtoH", W_MEMCPY, C_ATOH, M_ARRAY, M_PAGEABLE, 3, 0, 0, 0},
    {"cuMemcpyAtoD", W_MEMCPY, C_ATOD, M_ARRAY, M_DEVICE, 3, 0, 0, 0},
    {"cuMemcpyDtoA", W_MEMCPY, C_DTOA, M_DEVICE, M_ARRAY, 3, 0, 0, 0},
    {"cuMemcpyAtoA", W_MEMCPY, C_ATOA, M_ARRAY, M_ARRAY, 4, 0, 0, 0},
    {"cuMemcpyPeer", W_MEMCPY, C_PTOP, M_DEVICE, M_DEVICE, 4, 0, 0, 0},
    {"cuMemsetD8", W_MEMSET, 0, 0, 0, 2, 1, -1, 1},
    {"cuMemsetD16", W_MEMSET, 0, 0, 0, 2, 1, -1, 2},
    {"cuMemsetD32", W_MEMSET, 0, 0, 0, 2, 1, -1, 4},
    {"cuMemsetD2D8", W_MEMSET, 0, 0, 0, 3, 2, 4, 1},
    {"cuMemsetD2D16", W_MEMSET, 0, 0, 0, 3, 2, 4, 2},
    {"cuMemsetD2D32", W_MEMSET, 0, 0, 0, 3, 2, 4, 4},
};
#define NFORMS (sizeof forms / sizeof forms[0])

static uint8_t form_of[CUTAP_DRIVER_COUNT];    /* index + 1 in forms, 0: no work */
static uint8_t async_of[CUTAP_DRIVER_COUNT];   /* an Async variant: its stream is the last argument */
static pthread_once_t forms_once = PTHREAD_ONCE_INIT;

static int cut(char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n <= k || strcmp(s + n - k, suffix))
        return 0;
    s[n - k] = 0;
    return 1;
}

static void forms_init(void)
{
    for (unsigned id = 0; id < CUTAP_DRIVER_COUNT; id++) {
        char b[128];
        if (strlen(fake_names[id]) >= sizeof b)
            continue;
        strcpy(b, fake_names[id]);
        if (!cut(b, "_ptds"))
            cut(b, "_ptsz");
        if (!cut(b, "_v2"))
            cut(b, "_v3");
        int async = cut(b, "Async");
        for (unsigned i = 0; i < NFORMS; i++)
            if (!strcmp(b, forms[i].base)) {
                form_of[id] = (uint8_t)(i + 1);
                async_of[id] = (uint8_t)async;
            }
    }
}

/* --- graphs --------------------------------------------------------------- */
#define GRAPHS 32
#define NODES 32
struct node {
    uint64_t id, func;
    uint32_t grid[3], block[3];
};
static struct graph {
    uint64_t handle;   /* 0: free */
    unsigned n;
    uint32_t graph_id;
    struct node node[NODES];
} graphs[GRAPHS], execs[GRAPHS];
static pthread_mutex_t graph_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_node = 1;
static uint32_t next_graph = 1;

/* CUDA_KERNEL_NODE_PARAMS and _v2 begin alike; CUlaunchConfig. */
struct kernel_node_params {
    void *func;
    unsigned grid[3], block[3], shared;
    void **params, **extra;
};
struct launch_config {
    unsigned grid[3], block[3], shared;
    void *stream;
};

static struct graph *find(struct graph *t, uint64_t h)
{
    for (int i = 0; h && i < GRAPHS; i++)
        if (t[i].handle == h)
            return &t[i];
    return NULL;
}

static struct graph *take(struct graph *t, uint64_t base)
{
    for (int i = 0; i < GRAPHS; i++)
        if (!t[i].handle) {
            memset(&t[i], 0, sizeof t[i]);
            t[i].handle = base + 0x100 * (uint64_t)i;
            return &t[i];
        }
    return NULL;
}

#define P(i, T) ((T)(uintptr_t)a[i])
int fake_gpu_behaviour(uint32_t id, const uint64_t *a, uint64_t *result)
{
    uint64_t r = CUDA_ERROR_INVALID_VALUE;
    struct graph *g, *x;
    switch (id) {
    case CUTAP_ID_cuGraphCreate:
    case CUTAP_ID_cuGraphAddKernelNode:
    case CUTAP_ID_cuGraphAddKernelNode_v2:
    case CUTAP_ID_cuGraphInstantiate:
    case CUTAP_ID_cuGraphInstantiateWithFlags:
    case CUTAP_ID_cuGraphExecDestroy:
    case CUTAP_ID_cuGraphDestroy:
        break;
    default:
        return 0;
    }
    pthread_mutex_lock(&graph_lock);
    switch (id) {
    case CUTAP_ID_cuGraphCreate:
        if (P(0, uint64_t *)) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            if ((g = take(graphs, 0x6a000000))) {
                g->graph_id = next_graph++;
                *P(0, uint64_t *) = g->handle;
                r = CUDA_SUCCESS;
            }
        }
        break;
    case CUTAP_ID_cuGraphAddKernelNode:
    case CUTAP_ID_cuGraphAddKernelNode_v2: {
        const struct kernel_node_params *p = P(4, const struct kernel_node_params *);
        if (P(0, uint64_t *) && p && (g = find(graphs, a[1])) && g->n < NODES) {
            struct node *n = &g->node[g->n++];
            n->id = next_node++;
            n->func = (uint64_t)(uintptr_t)p->func;
            memcpy(n->grid, p->grid, sizeof n->grid);
            memcpy(n->block, p->block, sizeof n->block);
            *P(0, uint64_t *) = 0x6b000000 + n->id;
            r = CUDA_SUCCESS;
        }
        break;
    }
    case CUTAP_ID_cuGraphInstantiate:
    case CUTAP_ID_cuGraphInstantiateWithFlags:
        if (P(0, uint64_t *) && (g = find(graphs, a[1]))) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            if ((x = take(execs, 0x6c000000))) {
                uint64_t h = x->handle;
                *x = *g;   /* the nodes as they are now */
                x->handle = h;
                *P(0, uint64_t *) = h;
                r = CUDA_SUCCESS;
            }
        }
        break;
    case CUTAP_ID_cuGraphExecDestroy:
    case CUTAP_ID_cuGraphDestroy:
        if ((g = find(id == CUTAP_ID_cuGraphDestroy ? graphs : execs, a[0]))) {
            g->handle = 0;
            r = CUDA_SUCCESS;
        }
        break;
    }
    pthread_mutex_unlock(&graph_lock);
    *result = r;
    return 1;
}

/* --- telling the fake libcupti ------------------------------------------- */
int fake_gpu_enter(uint32_t id)
{
    const struct fake_activity_ops *o = atomic_load_explicit(&ops, memory_order_acquire);
    if (!o || id >= CUTAP_DRIVER_COUNT || !fake_cupti_cbids[id])
        return -1;
    return o->enter(FAKE_DOMAIN_DRIVER, fake_cupti_cbids[id]);
}

static uint32_t stream_id(uint64_t h)
{
    return h ? (uint32_t)(h >> 4 & 0xffff) + 16 : 7;   /* 7: the NULL stream, as CUPTI numbers it */
}

static void kernel(const struct fake_activity_ops *o, uint64_t func, const uint32_t *grid, const uint32_t *block,
                   uint64_t stream, uint64_t node, uint32_t graph)
{
    const char *name = fake_func_name(func);
    struct fake_gpu_work w = {.type = FAKE_WORK_KERNEL, .stream = stream_id(stream),
                              .name = name ? name : "fake_unknown_kernel", .graph_node = node, .graph = graph};
    memcpy(w.grid, grid, sizeof w.grid);
    memcpy(w.block, block, sizeof w.block);
    o->work(&w);
}

static void work(const struct fake_activity_ops *o, uint32_t id, const uint64_t *a, unsigned n)
{
    pthread_once(&forms_once, forms_init);
    if (!form_of[id])
        return;
    const struct form *f = &forms[form_of[id] - 1];
    uint64_t stream = async_of[id] && n ? a[n - 1] : 0;
    switch (f->what) {
    case W_KERNEL: {
        uint32_t grid[3] = {(uint32_t)a[1], (uint32_t)a[2], (uint32_t)a[3]};
        uint32_t block[3] = {(uint32_t)a[4], (uint32_t)a[5], (uint32_t)a[6]};
        kernel(o, a[0], grid, block, a[8], 0, 0);
        break;
    }
    case W_KERNEL_EX: {
        const struct launch_config *c = P(0, const struct launch_config *);
        if (c)
            kernel(o, a[1], c->grid, c->block, (uint64_t)(uintptr_t)c->stream, 0, 0);
        break;
    }
    case W_GRAPH: {
        struct graph x;
        x.n = 0;
        pthread_mutex_lock(&graph_lock);
        struct graph *g = find(execs, a[0]);
        if (g)
            x = *g;   /* (its nodes, told without the lock) */
        pthread_mutex_unlock(&graph_lock);
        for (unsigned i = 0; i < x.n; i++)
            kernel(o, x.node[i].func, x.node[i].grid, x.node[i].block, a[1], x.node[i].id, x.graph_id);
        break;
    }
    case W_MEMCPY: {
        struct fake_gpu_work w = {.type = FAKE_WORK_MEMCPY, .stream = stream_id(stream), .copy_kind = f->copy,
                                  .src_kind = f->src, .dst_kind = f->dst, .bytes = a[f->bytes]};
        if (!f->copy) {   /* unified addressing: the pointers say */
            int dd = fake_is_device_ptr(a[0]), sd = fake_is_device_ptr(a[1]);
            w.copy_kind = sd ? (dd ? C_DTOD : C_DTOH) : (dd ? C_HTOD : C_HTOH);
            w.src_kind = sd ? M_DEVICE : M_PAGEABLE;
            w.dst_kind = dd ? M_DEVICE : M_PAGEABLE;
        }
        o->work(&w);
        break;
    }
    case W_MEMSET: {
        uint64_t count = a[f->bytes] * (f->height >= 0 ? a[f->height] : 1);
        struct fake_gpu_work w = {.type = FAKE_WORK_MEMSET, .stream = stream_id(stream),
                                  .value = (uint32_t)a[f->value], .bytes = count * f->elem};
        o->work(&w);
        break;
    }
    }
}

/* Stream captures open on the thread: the work of its calls goes into a
 * graph, not to the GPU (no activity), as CUDA's stream capture. */
static __thread unsigned capturing;

void fake_gpu_leave(uint32_t id, const uint64_t *a, unsigned n, uint64_t result, int tracked)
{
    const struct fake_activity_ops *o = atomic_load_explicit(&ops, memory_order_acquire);
    if (id == CUTAP_ID_cuStreamBeginCapture_v2 || id == CUTAP_ID_cuStreamBeginCapture ||
        id == CUTAP_ID_cuStreamBeginCapture_ptsz || id == CUTAP_ID_cuStreamBeginCapture_v2_ptsz)
        capturing += result == CUDA_SUCCESS;
    else if ((id == CUTAP_ID_cuStreamEndCapture || id == CUTAP_ID_cuStreamEndCapture_ptsz) && capturing)
        capturing--;
    if (!o)
        return;
    if (result == CUDA_SUCCESS && !capturing)
        work(o, id, a, n);
    if (tracked > 0)
        o->leave(FAKE_DOMAIN_DRIVER, fake_cupti_cbids[id]);
}
