/* Behaviour of the fake driver; see fake_internal.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fake_internal.h"
#include "../../src/common/integrity_hash.h"
#define FAKE_NVKERNEL_TYPES_ONLY
#include "fake_nvkernel.c"   /* the kernel driver's parameter layouts */

/* FAKE_GETENV_LOG=FILE: each lookup of the environment this library makes,
 * a line "getenv NAME VALUE" or "secure_getenv NAME (unset)" (the
 * env_lookups case's count, from the asking side). FILE itself is read
 * from environ directly: no lookup of its own. */
static char *logged_env(int secure, const char *name)
{
    extern char **environ;
    char *v = secure ? secure_getenv(name) : getenv(name);
    const char *log = NULL;
    for (char **e = environ; e && *e && !log; e++)
        if (!strncmp(*e, "FAKE_GETENV_LOG=", 16))
            log = *e + 16;
    int fd = log && *log ? open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd >= 0) {
        char line[512];
        int n = snprintf(line, sizeof line, "%s %s %s\n", secure ? "secure_getenv" : "getenv", name,
                         v ? v : "(unset)");
        if (n > 0 && write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
            n = 0;
        close(fd);
    }
    return v;
}
#define getenv(n) logged_env(0, n)
#define secure_getenv(n) logged_env(1, n)

#define NIDS (CUTAP_DRIVER_COUNT + 16)
#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_FOUND 500

static _Atomic uint64_t counts[NIDS];
static _Atomic int forced[NIDS];
static __thread struct {
    uint32_t id;
    unsigned n;
    uint64_t a[16];
    int aligned;
} last;

typedef uint64_t (*special_fn)(const uint64_t *a);
static special_fn special[NIDS];

/* FAKE_SLOW=NAME[:NS]: every call of NAME busy-waits NS ns (default 2000)
 * before it returns: a call slow enough for cutap stat to time them all. */
static int slow_id = -1;
static uint64_t slow_ns;
/* FAKE_BLOCK=NAME:FILE: calls of NAME wait until FILE exists (a call that
 * hangs until the test releases it; 120 s at most) */
static int block_id = -1;
static char block_file[512];

static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void record(uint32_t id, const uint64_t *a, unsigned n)
{
    atomic_fetch_add(&counts[id], 1);
    last.id = id;
    last.n = n;
    memcpy(last.a, a, n * sizeof *a);
    /* A callee runs with (rsp + 8) % 16 == 0 at entry; the frame address
     * (rbp after the prologue) is then 16-aligned. */
    last.aligned = ((uintptr_t)__builtin_frame_address(0) & 15) == 0;
}

static uint64_t fake_call_body(uint32_t id, const uint64_t *a, unsigned n);

/* Every export's call; told to the fake libcupti's activity API, once it
 * listens (fake_gpu.c). */
uint64_t fake_call(uint32_t id, const uint64_t *a, unsigned n)
{
    record(id, a, n);
    int act = fake_gpu_enter(id);
    uint64_t r = fake_call_body(id, a, n);
    if (act >= 0)
        fake_gpu_leave(id, a, n, r, act);
    return r;
}

static uint64_t fake_call_body(uint32_t id, const uint64_t *a, unsigned n)
{
    if ((int)id == slow_id)
        for (uint64_t until = mono_ns() + slow_ns; mono_ns() < until;)
            ;
    if ((int)id == block_id)
        for (int i = 0; i < 12000 && access(block_file, F_OK); i++) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
    int f = atomic_load(&forced[id]);
    if (f)
        return (uint64_t)(uint32_t)f;
    if (special[id])
        return special[id](a);
    uint64_t r;
    if (fake_gpu_behaviour(id, a, &r))
        return r;
    if (n == 10 && id < CUTAP_DRIVER_COUNT && !strncmp(fake_names[id], "cuMemGetAttribute", 17))
        return (uint32_t)(a[0] ^ a[7]);
    return CUDA_SUCCESS;
}

uint64_t fake_count(uint32_t id) { return id < NIDS ? atomic_load(&counts[id]) : 0; }
void fake_set_result(uint32_t id, int result) { if (id < NIDS) atomic_store(&forced[id], result); }
int fake_is_special(uint32_t id) { return id < NIDS && special[id] != NULL; }
int fake_last_stack_aligned(void) { return last.aligned; }

static int id_of(const char *name)
{
    for (int i = 0; i < CUTAP_DRIVER_COUNT; i++)
        if (!strcmp(fake_names[i], name))
            return i;
    if (!strcmp(name, "cuFutureFunction"))
        return FAKE_ID_FUTURE;
    return -1;
}

uint64_t fake_count_name(const char *name)
{
    int id = id_of(name);
    return id < 0 ? 0 : fake_count((uint32_t)id);
}

unsigned fake_last(uint32_t *id, uint64_t *args)
{
    *id = last.id;
    memcpy(args, last.a, last.n * sizeof *args);
    return last.n;
}

/* The fake's own address of an export: what the real driver would hand out
 * (this library is linked -Bsymbolic, so these are never interposed). */
void *fake_real_address(const char *name)
{
    int id = id_of(name);
    if (id < 0)
        return NULL;
    return fake_addresses[id];
}

/* --- entry points with behaviour --- */
#define P(i, T) ((T)(uintptr_t)a[i])

/* --- the kernel driver under the fake (FAKE_NV_DEVDIR=DIR) ---------------
 * With FAKE_NV_DEVDIR set, cuInit, cuMemAlloc_v2 and cuMemFree_v2 talk to
 * "the kernel" as the real libcuda does, through plain open, ioctl, mmap,
 * munmap and close of the files DIR/nvidiactl, DIR/nvidia0 and
 * DIR/nvidia-uvm (called through the PLT, so that a preloaded libcutap
 * sees them; the fake kernel, tests/fake/fake_nvkernel.c, answers). The
 * requests, in order:
 *   cuInit (the first; later ones return the first one's result):
 *     open nvidiactl; CHECK_VERSION_STR (strict, "580.159.04"); CARD_INFO
 *     (32 cards); RM_ALLOC NV01_ROOT (NVOS21) -> client; RM_ALLOC
 *     NV01_DEVICE_0 (NVOS64) -> device; RM_ALLOC NV20_SUBDEVICE_0 (NVOS21)
 *     -> subdevice; open nvidia0; REGISTER_FD on it (nvidiactl's fd);
 *     open nvidia-uvm; UVM_INITIALIZE; IOCTL_XFER_CMD carrying RM_CONTROL
 *     NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION (on the client); RM_CONTROL
 *     0x20800142 on the subdevice (NV_ERR_NOT_SUPPORTED, ignored); then a
 *     detached thread of its own issues 3 RM_CONTROL 0x20800101 on the
 *     subdevice and ends (fake_nv_background_wait waits for it).
 *   cuMemAlloc_v2: RM_ALLOC NV01_MEMORY_LOCAL_USER (NVOS21); RM_MAP_MEMORY
 *     on nvidiactl for nvidia0's fd (the driver takes it on nvidiactl only);
 *     mmap of nvidia0's fd (MAP_SHARED, the size rounded up to 4096,
 *     offset 0), kept with the allocation.
 *   cuMemFree_v2: munmap of that mapping; RM_FREE of the memory object.
 * With FAKE_NV_MAPS also: cuInit maps HOPPER_USERMODE_A (RM_ALLOC on the
 *   subdevice, RM_MAP_MEMORY, mmap of 4096 bytes, never unmapped), and
 *   cuMemFree_v2 unmaps in pieces, with an mremap (fake_maps.c).
 * Errors: cuInit CUDA_ERROR_NO_DEVICE when a file cannot be opened,
 * CUDA_ERROR_SYSTEM_DRIVER_MISMATCH when the version check fails,
 * CUDA_ERROR_OPERATING_SYSTEM when another request fails; cuMemAlloc_v2
 * CUDA_ERROR_NOT_INITIALIZED before a successful cuInit,
 * CUDA_ERROR_OUT_OF_MEMORY when a request fails; cuMemFree_v2
 * CUDA_ERROR_INVALID_VALUE for a pointer it did not hand out. Without
 * FAKE_NV_DEVDIR none of this happens. */
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_OPERATING_SYSTEM 304
#define CUDA_ERROR_SYSTEM_DRIVER_MISMATCH 803

static const char *nv_dir;           /* FAKE_NV_DEVDIR, or NULL */
static pthread_mutex_t nv_lock = PTHREAD_MUTEX_INITIALIZER;
static int nv_ctl = -1, nv_gpu = -1, nv_uvm = -1;
static uint32_t nv_client, nv_device, nv_subdevice;
static int nv_init_done;             /* under nv_lock */
static uint64_t nv_init_result;
static _Atomic int nv_ready;         /* cuInit succeeded */

#define NV_ALLOCS 64
static struct {
    uint64_t dptr;   /* 0: free */
    uint32_t hmem;
    void *map;
    size_t len;
} nv_allocs[NV_ALLOCS];

static pthread_mutex_t nv_bg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nv_bg_cond = PTHREAD_COND_INITIALIZER;
static int nv_bg_started, nv_bg_done, nv_bg_issued;

static int nv_open(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", nv_dir, name);
    return open(path, O_RDWR | O_CLOEXEC);
}

/* An escape on fd with its block: 0 when the ioctl returned 0. */
static int nv_esc(int fd, unsigned nr, void *blk, size_t size)
{
    return ioctl(fd, FNV_IOWR(nr, size), blk);
}

/* RM_MAP_MEMORY of object hmem for nvidia0's descriptor, then its mmap. */
static void *nv_map(uint32_t hmem, size_t len, int prot)
{
    struct fnv_nvos33_fd m = {.params = {.hClient = nv_client, .hDevice = nv_device, .hMemory = hmem, .length = len},
                              .fd = nv_gpu};
    if (nv_esc(nv_ctl, FNV_ESC_RM_MAP_MEMORY, &m, sizeof m) || m.params.status)
        return MAP_FAILED;
    return mmap(NULL, len, prot, MAP_SHARED, nv_gpu, 0);
}

/* RM_ALLOC of hClass under parent (NVOS64 when wide): the new handle, or 0. */
static uint32_t nv_alloc(uint32_t parent, uint32_t hclass, int wide)
{
    if (wide) {
        struct fnv_nvos64 a = {.hRoot = nv_client, .hObjectParent = parent, .hClass = hclass};
        return nv_esc(nv_ctl, FNV_ESC_RM_ALLOC, &a, sizeof a) || a.status ? 0 : a.hObjectNew;
    }
    struct fnv_nvos21 a = {.hRoot = nv_client, .hObjectParent = parent, .hClass = hclass};
    return nv_esc(nv_ctl, FNV_ESC_RM_ALLOC, &a, sizeof a) || a.status ? 0 : a.hObjectNew;
}

/* RM_CONTROL cmd on hObject: the ioctl's -1 as ~0u, else the status. */
static uint32_t nv_control(uint32_t hobject, uint32_t cmd, void *params, uint32_t size)
{
    struct fnv_nvos54 c = {.hClient = nv_client, .hObject = hobject, .cmd = cmd,
                           .params = (uintptr_t)params, .paramsSize = size};
    return nv_esc(nv_ctl, FNV_ESC_RM_CONTROL, &c, sizeof c) ? ~0u : c.status;
}

static void *nv_background(void *unused)
{
    (void)unused;
    int n = 0;
    for (int i = 0; i < 3; i++)
        if (nv_control(nv_subdevice, FNV_CTRL_BACKGROUND, NULL, 0) != ~0u)
            n++;
    pthread_mutex_lock(&nv_bg_lock);
    nv_bg_issued = n;
    nv_bg_done = 1;
    pthread_cond_broadcast(&nv_bg_cond);
    pthread_mutex_unlock(&nv_bg_lock);
    return NULL;
}

/* Test hook: waits for cuInit's background thread to end; the number of
 * its requests that the kernel took (-1: none was started). */
FAKE_EXPORT int fake_nv_background_wait(void)
{
    pthread_mutex_lock(&nv_bg_lock);
    int r = -1;
    if (nv_bg_started) {
        while (!nv_bg_done)
            pthread_cond_wait(&nv_bg_cond, &nv_bg_lock);
        r = nv_bg_issued;
    }
    pthread_mutex_unlock(&nv_bg_lock);
    return r;
}

static uint64_t nv_init_locked(void)
{
    if ((nv_ctl = nv_open("nvidiactl")) < 0)
        return CUDA_ERROR_NO_DEVICE;
    struct fnv_api_version v = {.cmd = FNV_VERSION_CMD_STRICT};
    memcpy(v.versionString, FNV_VERSION, sizeof FNV_VERSION);
    if (nv_esc(nv_ctl, FNV_ESC_CHECK_VERSION_STR, &v, sizeof v) || v.reply != 1)
        return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
    static struct fnv_card_info cards[32];
    if (nv_esc(nv_ctl, FNV_ESC_CARD_INFO, cards, sizeof cards) || !cards[0].valid)
        return CUDA_ERROR_NO_DEVICE;
    struct fnv_nvos21 root = {.hClass = FNV_NV01_ROOT};
    if (nv_esc(nv_ctl, FNV_ESC_RM_ALLOC, &root, sizeof root) || root.status || !root.hObjectNew)
        return CUDA_ERROR_OPERATING_SYSTEM;
    nv_client = root.hObjectNew;
    if (!(nv_device = nv_alloc(nv_client, FNV_NV01_DEVICE_0, 1)) ||
        !(nv_subdevice = nv_alloc(nv_device, FNV_NV20_SUBDEVICE_0, 0)))
        return CUDA_ERROR_OPERATING_SYSTEM;
    if ((nv_gpu = nv_open("nvidia0")) < 0)
        return CUDA_ERROR_NO_DEVICE;
    struct fnv_register_fd reg = {.ctl_fd = nv_ctl};
    if (nv_esc(nv_gpu, FNV_ESC_REGISTER_FD, &reg, sizeof reg))
        return CUDA_ERROR_OPERATING_SYSTEM;
    if ((nv_uvm = nv_open("nvidia-uvm")) < 0)
        return CUDA_ERROR_NO_DEVICE;
    struct fnv_uvm_initialize ui = {0};
    if (ioctl(nv_uvm, FNV_UVM_INITIALIZE, &ui) || ui.rmStatus)
        return CUDA_ERROR_OPERATING_SYSTEM;
    uint32_t um;   /* FAKE_NV_MAPS: the usermode registers mapped for good, as libcuda does */
    if (getenv("FAKE_NV_MAPS") && (!(um = nv_alloc(nv_subdevice, FNV_HOPPER_USERMODE_A, 0)) ||
                                   nv_map(um, 4096, PROT_WRITE) == MAP_FAILED))
        return CUDA_ERROR_OPERATING_SYSTEM;
    /* The build version, its block passed through IOCTL_XFER_CMD. */
    char drv[64] = {0}, ver[64] = {0}, title[64] = {0};
    struct fnv_build_version bv = {.sizeOfStrings = 64, .pDriverVersionBuffer = (uintptr_t)drv,
                                   .pVersionBuffer = (uintptr_t)ver, .pTitleBuffer = (uintptr_t)title};
    struct fnv_nvos54 c = {.hClient = nv_client, .hObject = nv_client, .cmd = FNV_CTRL_SYSTEM_GET_BUILD_VERSION,
                           .params = (uintptr_t)&bv, .paramsSize = sizeof bv};
    struct fnv_xfer x = {.cmd = FNV_ESC_RM_CONTROL, .size = sizeof c, .ptr = (uintptr_t)&c};
    if (nv_esc(nv_ctl, FNV_ESC_IOCTL_XFER_CMD, &x, sizeof x) || c.status || strcmp(drv, FNV_VERSION))
        return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
    /* An optional query the GPU does not support: its failure is ignored. */
    (void)nv_control(nv_subdevice, FNV_CTRL_UNSUPPORTED, NULL, 0);
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_mutex_lock(&nv_bg_lock);
    if (!pthread_create(&t, &at, nv_background, NULL))
        nv_bg_started = 1;
    pthread_mutex_unlock(&nv_bg_lock);
    pthread_attr_destroy(&at);
    return CUDA_SUCCESS;
}

static uint64_t do_init(const uint64_t *a)
{
    (void)a;
    if (!nv_dir)
        return CUDA_SUCCESS;
    pthread_mutex_lock(&nv_lock);
    if (!nv_init_done) {
        nv_init_result = nv_init_locked();
        nv_init_done = 1;
        atomic_store(&nv_ready, nv_init_result == CUDA_SUCCESS);
    }
    uint64_t r = nv_init_result;
    pthread_mutex_unlock(&nv_lock);
    return r;
}

/* The kernel's side of an allocation at dptr of size bytes. */
static uint64_t nv_mem_alloc(uint64_t dptr, uint64_t size)
{
    if (!atomic_load(&nv_ready))
        return CUDA_ERROR_NOT_INITIALIZED;
    size_t len = (size_t)((size + 4095) & ~4095ULL);
    uint32_t hmem = nv_alloc(nv_device, FNV_NV01_MEMORY_LOCAL_USER, 0);
    if (!hmem)
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *p = nv_map(hmem, len, PROT_READ | PROT_WRITE);
    int slot = -1;
    if (p != MAP_FAILED) {
        pthread_mutex_lock(&nv_lock);
        for (int i = 0; i < NV_ALLOCS && slot < 0; i++)
            if (!nv_allocs[i].dptr) {
                nv_allocs[i].dptr = dptr, nv_allocs[i].hmem = hmem, nv_allocs[i].map = p, nv_allocs[i].len = len;
                slot = i;
            }
        pthread_mutex_unlock(&nv_lock);
        if (slot < 0)
            munmap(p, len);
    }
    if (slot < 0) {
        struct fnv_nvos00 f = {.hRoot = nv_client, .hObjectParent = nv_device, .hObjectOld = hmem};
        (void)nv_esc(nv_ctl, FNV_ESC_RM_FREE, &f, sizeof f);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    return CUDA_SUCCESS;
}

/* cuMemFree_v2, with FAKE_NV_DEVDIR only. */
static uint64_t do_mem_free(const uint64_t *a)
{
    uint32_t hmem = 0;
    void *map = NULL;
    size_t len = 0;
    pthread_mutex_lock(&nv_lock);
    for (int i = 0; i < NV_ALLOCS; i++)
        if (a[0] && nv_allocs[i].dptr == a[0]) {
            hmem = nv_allocs[i].hmem, map = nv_allocs[i].map, len = nv_allocs[i].len;
            nv_allocs[i].dptr = 0;
            break;
        }
    pthread_mutex_unlock(&nv_lock);
    if (!hmem)
        return CUDA_ERROR_INVALID_VALUE;
    getenv("FAKE_NV_MAPS") ? fake_unmap_pieces(map, len) : (void)munmap(map, len);
    struct fnv_nvos00 f = {.hRoot = nv_client, .hObjectParent = nv_device, .hObjectOld = hmem};
    if (nv_esc(nv_ctl, FNV_ESC_RM_FREE, &f, sizeof f) || f.status)
        return CUDA_ERROR_OPERATING_SYSTEM;
    return CUDA_SUCCESS;
}

static uint64_t do_driver_version(const uint64_t *a)
{
    if (!P(0, int *))
        return CUDA_ERROR_INVALID_VALUE;
    *P(0, int *) = 13000;
    return CUDA_SUCCESS;
}

static uint64_t do_ctx_get_current(const uint64_t *a)
{
    if (!P(0, void **))
        return CUDA_ERROR_INVALID_VALUE;
    *P(0, void **) = (void *)0xc0ffee00;
    return CUDA_SUCCESS;
}

static uint64_t do_device_get_count(const uint64_t *a)
{
    if (!P(0, int *))
        return CUDA_ERROR_INVALID_VALUE;
    *P(0, int *) = 1;
    return CUDA_SUCCESS;
}

static _Atomic uint64_t next_dptr = 0x7f0000000000ULL;
static uint64_t do_mem_alloc(const uint64_t *a)
{
    if (!P(0, uint64_t *) || !a[1])
        return CUDA_ERROR_INVALID_VALUE;
    *P(0, uint64_t *) = atomic_fetch_add(&next_dptr, (a[1] + 255) & ~255ULL);
    if (nv_dir) {
        uint64_t r = nv_mem_alloc(*P(0, uint64_t *), a[1]);
        if (r)
            *P(0, uint64_t *) = 0;
        return r;
    }
    return CUDA_SUCCESS;
}

int fake_is_device_ptr(uint64_t p)
{
    return p >= 0x7f0000000000ULL && p < atomic_load(&next_dptr);
}

static uint64_t do_error_name(const uint64_t *a)
{
    if (!P(1, const char **))
        return CUDA_ERROR_INVALID_VALUE;
    switch ((int)a[0]) {
    case 0: *P(1, const char **) = "CUDA_SUCCESS"; break;
    case 1: *P(1, const char **) = "CUDA_ERROR_INVALID_VALUE"; break;
    case 2: *P(1, const char **) = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    default: *P(1, const char **) = NULL; return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* Kernels: cuModuleGetFunction hands out a handle per name, cuFuncGetName
 * (and cuKernelGetName) gives the name back, as the real driver does. */
#define FAKE_FUNCS 64
static struct {
    uint64_t handle;
    char name[128];
} funcs[FAKE_FUNCS];
static _Atomic unsigned nfuncs;

static uint64_t do_module_get_function(const uint64_t *a)
{
    const char *name = P(2, const char *);
    if (!P(0, uint64_t *) || !name)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned n = atomic_load(&nfuncs);
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(funcs[i].name, name)) {
            *P(0, uint64_t *) = funcs[i].handle;
            return CUDA_SUCCESS;
        }
    if (n >= FAKE_FUNCS)
        return CUDA_ERROR_NOT_FOUND;
    funcs[n].handle = 0xf0000000ULL + 0x100ULL * n;
    snprintf(funcs[n].name, sizeof funcs[n].name, "%s", name);
    atomic_store(&nfuncs, n + 1);
    *P(0, uint64_t *) = funcs[n].handle;
    return CUDA_SUCCESS;
}

static uint64_t do_func_get_name(const uint64_t *a)
{
    if (!P(0, const char **))
        return CUDA_ERROR_INVALID_VALUE;
    unsigned n = atomic_load(&nfuncs);
    for (unsigned i = 0; i < n; i++)
        if (funcs[i].handle == a[1]) {
            *P(0, const char **) = funcs[i].name;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

const char *fake_func_name(uint64_t handle)
{
    unsigned n = atomic_load(&nfuncs);
    for (unsigned i = 0; i < n; i++)
        if (funcs[i].handle == handle)
            return funcs[i].name;
    return NULL;
}

/* A driver function that itself makes a driver call through the global
 * scope, as the runtime does above the driver: it nests. */
static uint64_t do_profiler_start(const uint64_t *a)
{
    (void)a;
    int (*ver)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "cuDriverGetVersion");
    int v = 0;
    return ver ? (uint64_t)ver(&v) : CUDA_ERROR_NOT_FOUND;
}

/* cuCtxSynchronize never returns when FAKE_SYNC_DIES is set: the process
 * kills itself inside the call (a call in progress when a process dies). */
/* FAKE_LAUNCH_FAULT=K: the K-th kernel launch of the process (cuLaunchKernel,
 * cuLaunchKernelEx) "faults" on the GPU: from then on cuCtxSynchronize
 * returns CUDA_ERROR_ILLEGAL_ADDRESS (700), as a real context does after an
 * illegal address (the launch itself succeeded). */
static long fault_at;
static _Atomic long launches_made;
static _Atomic int faulted;
static uint64_t do_launch(const uint64_t *a)
{
    (void)a;
    if (atomic_fetch_add(&launches_made, 1) + 1 == fault_at)
        atomic_store(&faulted, 1);
    return CUDA_SUCCESS;
}

static uint64_t do_ctx_synchronize(const uint64_t *a)
{
    (void)a;
    if (getenv("FAKE_SYNC_DIES"))
        raise(SIGKILL);
    (void)secure_getenv("CUDA_CACHE_PATH");   /* a secure_getenv, as libraries that open files by it make */
    return atomic_load(&faulted) ? 700 : CUDA_SUCCESS;
}

/* cuGetProcAddress: the highest version at or below the one asked for; with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (2) the per-thread variant
 * when one exists at that version. */
#define EXTRA_PROCS 1
static const struct fake_procaddr extra[EXTRA_PROCS] = {{"cuFutureFunction", 13010, 0, "cuFutureFunction"}};

static int proc_lookup(const char *sym, int version, uint64_t flags, void **pfn, int *status)
{
    const struct fake_procaddr *best = NULL, *best_fl = NULL;
    int any = 0;
    for (unsigned i = 0; i < fake_procaddr_count + EXTRA_PROCS; i++) {
        const struct fake_procaddr *e = i < fake_procaddr_count ? &fake_procaddr_table[i] : &extra[i - fake_procaddr_count];
        if (strcmp(e->base, sym))
            continue;
        any = 1;
        if (e->version > version)
            continue;
        if (!e->flavour && (!best || e->version > best->version))
            best = e;
        if (e->flavour && (!best_fl || e->version > best_fl->version))
            best_fl = e;
    }
    if ((flags & 2) && best_fl && (!best || best_fl->version >= best->version))
        best = best_fl;
    *pfn = NULL;
    if (!best) {
        *status = any ? 2 : 1;   /* VERSION_NOT_SUFFICIENT : SYMBOL_NOT_FOUND */
        return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = fake_real_address(best->export_name);
    *status = 0;
    return CUDA_SUCCESS;
}

static uint64_t do_get_proc_address_v2(const uint64_t *a)
{
    if (!P(0, const char *) || !P(1, void **))
        return CUDA_ERROR_INVALID_VALUE;
    int st;
    int rc = proc_lookup(P(0, const char *), (int)a[2], a[3], P(1, void **), &st);
    if (P(4, int *))
        *P(4, int *) = st;
    return (uint64_t)rc;
}

static uint64_t do_get_proc_address(const uint64_t *a)
{
    if (!P(0, const char *) || !P(1, void **))
        return CUDA_ERROR_INVALID_VALUE;
    int st;
    return (uint64_t)proc_lookup(P(0, const char *), (int)a[2], a[3], P(1, void **), &st);
}

/* Export tables: one with a size word, one without, one under the real
 * CUDART_INTERFACE UUID (to check that known names are used). */
static int slot1(int x) { uint64_t a[1] = {(uint64_t)x}; record(FAKE_ID_SLOT_BASE + 0, a, 1); return x + 1; }
static uint64_t slot2(FAKE_UNTYPED_PARAMS)
{
    FAKE_UNTYPED_WORDS(a);
    record(FAKE_ID_SLOT_BASE + 1, a, 10);
    return u0 + u1 + u2 + u3 + u4 + u5 + u6 + u7 + (uint64_t)(int64_t)(d0 * d1);
}
static double slot3(double x) { uint64_t a[1] = {fake_d2w(x)}; record(FAKE_ID_SLOT_BASE + 2, a, 1); return x * 2.0; }
static int nslot0(int x) { uint64_t a[1] = {(uint64_t)x}; record(FAKE_ID_SLOT_BASE + 3, a, 1); return x * 2; }
static int nslot1(void) { uint64_t a[1] = {0}; record(FAKE_ID_SLOT_BASE + 4, a, 0); return 11; }

static const uintptr_t table_sized[] = {4 * sizeof(uintptr_t), (uintptr_t)slot1, (uintptr_t)slot2, (uintptr_t)slot3};
static const uintptr_t table_nosize[] = {(uintptr_t)nslot0, (uintptr_t)nslot1};
static const uintptr_t table_cudart[] = {2 * sizeof(uintptr_t), (uintptr_t)slot1};
static const unsigned char uuid_sized[16] = {0xfa, 0x4e, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
static const unsigned char uuid_nosize[16] = {0xfa, 0x4e, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02};
static const unsigned char uuid_cudart[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};


/* Devices as the fake describes them (one): a UUID and a PCI location,
 * which INTEGRITY_CHECK hashes. */
static uint64_t do_device_get_uuid(const uint64_t *a)
{
    unsigned char *u = P(0, unsigned char *);
    if (!u || a[1] != 0)
        return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < 16; i++)
        u[i] = (unsigned char)(0xa0 + i);
    return CUDA_SUCCESS;
}
static uint64_t do_device_get_attribute(const uint64_t *a)
{
    int *v = P(0, int *);
    if (!v || a[2] != 0)
        return CUDA_ERROR_INVALID_VALUE;
    int attr = (int)a[1];
    *v = attr == 33 ? 0x65 : attr == 34 ? 0x3 : attr == 50 ? 0 : 1;   /* PCI bus, device, domain */
    return CUDA_SUCCESS;
}

/* INTEGRITY_CHECK, as the real driver's (docs/HIDDEN_API.md): slot 1
 * answers with the hash of its own table addresses (and of
 * CUDART_INTERFACE's), the process, the thread, the time and the device;
 * the runtime (t_paths hidden) computes the same over the tables it holds
 * and refuses them when the two differ. */
static int integrity_slot1(uint32_t version, uint64_t secs, uint64_t *res);
static const uintptr_t table_integrity[] = {3 * sizeof(uintptr_t), (uintptr_t)integrity_slot1, (uintptr_t)nslot1};
static const unsigned char uuid_integrity[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                                 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};
static int integrity_slot1(uint32_t version, uint64_t secs, uint64_t *res)
{
    uint64_t w[3] = {version, secs, (uint64_t)(uintptr_t)res};
    record(FAKE_ID_SLOT_BASE + 5, w, 3);
    if (!res)
        return CUDA_ERROR_INVALID_VALUE;
    if (cutap_integrity_fixed(version, res))
        return CUDA_SUCCESS;
    struct cutap_integrity_dev dev;
    uint64_t u[1] = {(uint64_t)(uintptr_t)dev.uuid}, q[3] = {0, 0, 0};
    do_device_get_uuid((const uint64_t[]){u[0], 0});
    q[0] = (uint64_t)(uintptr_t)&dev.pci_domain, q[1] = 50;
    do_device_get_attribute(q);
    q[0] = (uint64_t)(uintptr_t)&dev.pci_bus, q[1] = 33;
    do_device_get_attribute(q);
    q[0] = (uint64_t)(uintptr_t)&dev.pci_device, q[1] = 34;
    do_device_get_attribute(q);
    cutap_integrity_hash(13000, version, (uint32_t)getpid(), (uint32_t)(uintptr_t)pthread_self(),
                         (uint64_t)(uintptr_t)table_cudart, (uint64_t)(uintptr_t)table_integrity,
                         (uint64_t)(uintptr_t)integrity_slot1, secs, &dev, 1, res);
    if (getenv("FAKE_INTEGRITY_OTHER"))
        res[0] ^= 1;   /* a driver whose hash is not the one cutap knows (its runtime knows it) */
    return CUDA_SUCCESS;
}
static const unsigned char uuid_tools_tls[16] = {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47,
                                                 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc};
static const unsigned char uuid_tools[16] = {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66};

static uint64_t do_export_table(const uint64_t *a)
{
    const void **pp = P(0, const void **);
    const unsigned char *u = P(1, const unsigned char *);
    if (!pp || !u)
        return CUDA_ERROR_INVALID_VALUE;
    if (!memcmp(u, uuid_sized, 16))
        *pp = table_sized;
    else if (!memcmp(u, uuid_nosize, 16))
        *pp = table_nosize;
    else if (!memcmp(u, uuid_cudart, 16))
        *pp = table_cudart;
    else if (!memcmp(u, uuid_tools, 16))
        *pp = fake_table_tools;   /* fake_tools.c */
    else if (!memcmp(u, uuid_tools_tls, 16))
        *pp = fake_table_tools_tls;
    else if (!memcmp(u, uuid_integrity, 16))
        *pp = table_integrity;
    else {
        *pp = NULL;
        return CUDA_ERROR_NOT_FOUND;
    }
    return CUDA_SUCCESS;
}

const void *fake_export_table(const void *uuid16)
{
    const void *t = NULL;
    uint64_t a[2] = {(uint64_t)(uintptr_t)&t, (uint64_t)(uintptr_t)uuid16};
    return do_export_table(a) == CUDA_SUCCESS ? t : NULL;
}

/* Not in cutap's tables: an entry point "added by a newer driver". */
uint64_t cuFutureFunction(FAKE_UNTYPED_PARAMS)
{
    FAKE_UNTYPED_WORDS(a);
    record(FAKE_ID_FUTURE, a, 10);
    return u0 * 3 + u7 + (uint64_t)d1;
}

__attribute__((constructor)) static void setup(void)
{
    /* FAKE_GETENV_MANY=N: N more lookups here (FAKE_MANY_0 ...) */
    const char *many = getenv("FAKE_GETENV_MANY");
    for (int i = 0, n = many ? atoi(many) : 0; i < n && i < 1000; i++) {
        char name[32];
        snprintf(name, sizeof name, "FAKE_MANY_%d", i);
        (void)getenv(name);
    }
    (void)getenv("X=Y");   /* names glibc answers as it does any (env X=Y=Z: "Z") */
    (void)getenv("");
    const char *slow = getenv("FAKE_SLOW");
    if (slow && *slow) {
        char name[128];
        snprintf(name, sizeof name, "%s", slow);
        char *colon = strchr(name, ':');
        slow_ns = colon ? strtoull(colon + 1, NULL, 10) : 2000;
        if (colon)
            *colon = 0;
        slow_id = id_of(name);
        if (slow_id < 0)
            fprintf(stderr, "fake libcuda: FAKE_SLOW=%s: no such entry point\n", slow);
    }
    const char *blk = getenv("FAKE_BLOCK");
    if (blk && *blk) {
        char name[128];
        snprintf(name, sizeof name, "%s", blk);
        char *colon = strchr(name, ':');
        if (colon) {
            *colon = 0;
            snprintf(block_file, sizeof block_file, "%s", strchr(blk, ':') + 1);
            block_id = id_of(name);
        }
        if (block_id < 0)
            fprintf(stderr, "fake libcuda: FAKE_BLOCK=%s: NAME:FILE of an entry point\n", blk);
    }
    special[CUTAP_ID_cuInit] = do_init;
    special[CUTAP_ID_cuDriverGetVersion] = do_driver_version;
    special[CUTAP_ID_cuCtxGetCurrent] = do_ctx_get_current;
    special[CUTAP_ID_cuDeviceGetCount] = do_device_get_count;
    special[CUTAP_ID_cuDeviceGetUuid] = do_device_get_uuid;
    special[CUTAP_ID_cuDeviceGetAttribute] = do_device_get_attribute;
    special[CUTAP_ID_cuMemAlloc_v2] = do_mem_alloc;
    special[CUTAP_ID_cuGetErrorName] = do_error_name;
    special[CUTAP_ID_cuProfilerStart] = do_profiler_start;
    special[CUTAP_ID_cuCtxSynchronize] = do_ctx_synchronize;
    const char *lf = getenv("FAKE_LAUNCH_FAULT");
    if (lf && *lf && (fault_at = atol(lf)) > 0) {
        special[CUTAP_ID_cuLaunchKernel] = do_launch;
        special[CUTAP_ID_cuLaunchKernelEx] = do_launch;
    }
    special[CUTAP_ID_cuGetProcAddress] = do_get_proc_address;
    special[CUTAP_ID_cuGetProcAddress_v2] = do_get_proc_address_v2;
    special[CUTAP_ID_cuGetExportTable] = do_export_table;
    special[CUTAP_ID_cuModuleGetFunction] = do_module_get_function;
    special[CUTAP_ID_cuFuncGetName] = do_func_get_name;
    special[CUTAP_ID_cuKernelGetName] = do_func_get_name;
    const char *nv = getenv("FAKE_NV_DEVDIR");
    if (nv && *nv) {
        nv_dir = nv;
        special[CUTAP_ID_cuMemFree_v2] = do_mem_free;
    }
}
