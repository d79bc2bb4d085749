/* Example cutap plugin: device-memory caps, the core of a GPU-sharing
 * system (what HAMi-core's libvgpu does), on cutap's callback API.
 *
 *   CUTAP_PLUGINS=+build/examples/memlimit.so CUTAP_MEMLIMIT=0:4G,1:8G \
 *     LD_PRELOAD=build/libcutap.so ./app
 *
 * CUTAP_MEMLIMIT   SIZE (every device) or DEV:SIZE,... (those devices;
 *                  the others uncapped); SIZE in bytes or with K, M, G, T
 *                  (powers of 1024). CUTAP_MEMLIMIT_BYTES=N: N on every
 *                  device (the first version's setting).
 * CUTAP_MEMLIMIT_NAME  the processes that share the caps: all those
 *                  started with the same name (default "uid<UID>") count
 *                  against one cap per device, through a shared memory
 *                  object (/dev/shm/cutap-memlimit.NAME); a process that
 *                  died without freeing is found dead and its bytes given
 *                  back. Without shared memory, each process alone.
 *
 * An allocation that would pass its device's cap is not made: the program
 * gets CUDA_ERROR_OUT_OF_MEMORY, as from a full GPU, and a trace records
 * the call as skipped. Covered: cuMemAlloc, cuMemAllocPitch, cuMemAllocManaged,
 * cuMemAllocAsync, cuMemAllocFromPoolAsync (and their _v2/_ptsz names),
 * cuMemCreate (virtual memory, on the device its properties name), and
 * what frees them (cuMemFree, cuMemFreeAsync, cuMemRelease); the runtime's
 * and the libraries' allocations reach these driver calls. cuMemGetInfo
 * and NVML's nvmlDeviceGetMemoryInfo(_v2) report the cap, and the bytes
 * used by all the processes that share it, as nvidia-smi and PyTorch read
 * them. Not covered: arrays (cuArrayCreate), host memory, and memory a
 * pool keeps after a free (counted until the free, as the driver's
 * accounting of a pool's reserve is not visible here).
 *
 * Load it required ('+' in CUTAP_PLUGINS): a limiter that cannot load
 * then stops the program instead of running it without a cap. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cutap.h"

CUTAP_PLUGIN_NEGOTIATE()

#define CUDA_SUCCESS 0
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define MAXDEV 64
#define MAXPROC 256
#define SHM_MAGIC 0x6d656d6c696d3032ull   /* "memlim02" */

/* --- the caps, shared by the processes of one name ---------------------- */
struct proc_slot {
    int32_t pid;
    uint64_t start;            /* its start time (/proc/PID/stat): a reused pid is another process */
    uint64_t used[MAXDEV];
};
struct shared {
    uint64_t magic;
    pthread_mutex_t lock;      /* process-shared, robust: a holder that dies does not block the rest */
    struct proc_slot proc[MAXPROC];
};
static struct shared *sh, alone;
static pthread_once_t alone_once = PTHREAD_ONCE_INIT;
static int slot = -1;
static uint64_t cap[MAXDEV];

static uint64_t start_time(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');   /* the name may hold spaces */
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

static void lock_shared(void)
{
    if (pthread_mutex_lock(&sh->lock) == EOWNERDEAD)
        pthread_mutex_consistent(&sh->lock);   /* its holder died: the counts stay as they were */
}

static void init_mutex(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

static void init_alone(void)
{
    init_mutex(&alone.lock);
    alone.magic = SHM_MAGIC;
}

/* The shared object of this name, made by the first process (the others
 * wait for its magic). NULL after a warning: this process counts alone. */
static struct shared *attach(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "/cutap-memlimit.%s", name);
    int made = 1, fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) {
        made = 0;
        fd = shm_open(path, O_RDWR | O_CLOEXEC, 0600);
    }
    if (fd < 0 || (made && ftruncate(fd, sizeof(struct shared)))) {
        fprintf(stderr, "memlimit: shared memory %s: %s; this process counts alone\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    struct stat st;
    for (int i = 0; !made && i < 1000 && !fstat(fd, &st) && (size_t)st.st_size < sizeof(struct shared); i++)
        usleep(1000);   /* its maker sizes it */
    struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (s == MAP_FAILED) {
        fprintf(stderr, "memlimit: shared memory %s: %s; this process counts alone\n", path, strerror(errno));
        return NULL;
    }
    if (made) {
        init_mutex(&s->lock);
        __atomic_store_n(&s->magic, SHM_MAGIC, __ATOMIC_RELEASE);
    }
    for (int i = 0; i < 1000 && __atomic_load_n(&s->magic, __ATOMIC_ACQUIRE) != SHM_MAGIC; i++)
        usleep(1000);
    if (s->magic != SHM_MAGIC) {
        fprintf(stderr, "memlimit: shared memory %s is not memlimit's; this process counts alone\n", path);
        munmap(s, sizeof *s);
        return NULL;
    }
    return s;
}

/* Slots of processes that are gone, emptied (under the lock). */
static void reclaim(void)
{
    for (int i = 0; i < MAXPROC; i++) {
        struct proc_slot *p = &sh->proc[i];
        if (p->pid && i != slot && ((kill(p->pid, 0) && errno == ESRCH) || start_time(p->pid) != p->start))
            memset(p, 0, sizeof *p);
    }
}

/* This process's slot (under the lock); -1 when all are taken. */
static int my_slot(void)
{
    pid_t pid = getpid();
    if (slot >= 0 && sh->proc[slot].pid == pid)
        return slot;
    reclaim();
    for (int i = 0; i < MAXPROC; i++)
        if (!sh->proc[i].pid) {
            sh->proc[i].pid = pid;
            sh->proc[i].start = start_time(pid);
            memset(sh->proc[i].used, 0, sizeof sh->proc[i].used);
            return slot = i;
        }
    return -1;
}

static uint64_t usage(int dev)
{
    uint64_t u = 0;
    for (int i = 0; i < MAXPROC; i++)
        u += sh->proc[i].used[dev];
    return u;
}

/* Room for size more bytes on dev: counted, 1; or 0 (over the cap). */
static int reserve(int dev, uint64_t size, int force)
{
    if (dev < 0 || dev >= MAXDEV)
        return 1;
    lock_shared();
    int s = my_slot(), ok = 1;
    if (s >= 0) {
        if (!force && cap[dev]) {
            reclaim();
            ok = usage(dev) + size <= cap[dev];
        }
        if (ok)
            sh->proc[s].used[dev] += size;
    }
    pthread_mutex_unlock(&sh->lock);
    return ok;
}

static void release(int dev, uint64_t size)
{
    if (dev < 0 || dev >= MAXDEV)
        return;
    lock_shared();
    int s = my_slot();
    if (s >= 0)
        sh->proc[s].used[dev] -= size < sh->proc[s].used[dev] ? size : sh->proc[s].used[dev];
    pthread_mutex_unlock(&sh->lock);
}

static uint64_t used_on(int dev)
{
    lock_shared();
    reclaim();
    uint64_t u = usage(dev);
    pthread_mutex_unlock(&sh->lock);
    return u;
}

/* --- what this process holds: pointers and handles, growable ---------- */
struct live {
    uint64_t key;              /* kind << 62 | value (0: empty) */
    uint64_t size;
    int dev;
};
static struct live *tab;
static size_t tab_n, tab_used;
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;
enum { K_PTR = 1, K_HANDLE = 2, K_NVML = 3 };   /* NVML: a device handle, its index in size */

static uint64_t key_of(int kind, uint64_t v) { return (uint64_t)kind << 62 | (v & ((1ull << 62) - 1)); }

static struct live *find(uint64_t key, int add)
{
    if (add && (tab_used + 1) * 2 > tab_n) {
        size_t n = tab_n ? 2 * tab_n : 1024;
        struct live *t = calloc(n, sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < tab_n; i++)
            if (tab[i].key) {
                size_t j = (size_t)(tab[i].key * 0x9e3779b97f4a7c15ull >> 20) & (n - 1);
                while (t[j].key)
                    j = (j + 1) & (n - 1);
                t[j] = tab[i];
            }
        free(tab);
        tab = t, tab_n = n;
    }
    if (!tab_n)
        return NULL;
    size_t j = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (tab_n - 1);
    while (tab[j].key && tab[j].key != key)
        j = (j + 1) & (tab_n - 1);
    if (!tab[j].key) {
        if (!add)
            return NULL;
        tab[j].key = key;
        tab_used++;
    }
    return &tab[j];
}

/* Removes an entry, moving the entries of its run that must follow it. */
static void forget(struct live *e)
{
    size_t i = (size_t)(e - tab);
    tab[i].key = 0;
    tab_used--;
    for (size_t j = (i + 1) & (tab_n - 1); tab[j].key; j = (j + 1) & (tab_n - 1)) {
        struct live x = tab[j];
        tab[j].key = 0;
        tab_used--;
        *find(x.key, 1) = x;
    }
}

static void remember(int kind, uint64_t v, uint64_t size, int dev)
{
    pthread_mutex_lock(&tab_lock);
    struct live *e = find(key_of(kind, v), 1);
    if (e)
        e->size = size, e->dev = dev;
    pthread_mutex_unlock(&tab_lock);
}

/* The entry's size and device, forgotten; 0: none. */
static int take(int kind, uint64_t v, uint64_t *size, int *dev)
{
    pthread_mutex_lock(&tab_lock);
    struct live *e = find(key_of(kind, v), 0);
    if (e) {
        *size = e->size, *dev = e->dev;
        if (kind != K_NVML)
            forget(e);
    }
    pthread_mutex_unlock(&tab_lock);
    return e != NULL;
}

/* --- the calls --------------------------------------------------------- */
enum { A_ALLOC = 1, A_ALLOC_V1, A_PITCH, A_PITCH_V1, A_CREATE, F_FREE, F_FREE_V1, F_RELEASE, I_INFO, I_INFO_V1,
       N_HANDLE, N_INFO, N_INFO_V2, N_COUNT };
static const struct { const char *name; int what; } watched[] = {
    {"cuMemAlloc_v2", A_ALLOC}, {"cuMemAlloc", A_ALLOC_V1}, {"cuMemAllocManaged", A_ALLOC},
    {"cuMemAllocAsync", A_ALLOC}, {"cuMemAllocAsync_ptsz", A_ALLOC}, {"cuMemAllocFromPoolAsync", A_ALLOC},
    {"cuMemAllocFromPoolAsync_ptsz", A_ALLOC}, {"cuMemAllocPitch_v2", A_PITCH}, {"cuMemAllocPitch", A_PITCH_V1},
    {"cuMemCreate", A_CREATE}, {"cuMemFree_v2", F_FREE}, {"cuMemFree", F_FREE_V1}, {"cuMemFreeAsync", F_FREE},
    {"cuMemFreeAsync_ptsz", F_FREE}, {"cuMemRelease", F_RELEASE}, {"cuMemGetInfo_v2", I_INFO},
    {"cuMemGetInfo", I_INFO_V1}, {"nvmlDeviceGetHandleByIndex_v2", N_HANDLE},
    {"nvmlDeviceGetMemoryInfo", N_INFO}, {"nvmlDeviceGetMemoryInfo_v2", N_INFO_V2},
};
#define NWATCHED (sizeof watched / sizeof *watched)
static uint8_t *what_of;    /* id -> A_* / F_* / I_* / N_* (0: not watched) */
static uint32_t nids;
static int (*ctx_get_device)(int *);

static int what(uint32_t id) { return id < nids ? what_of[id] : 0; }

/* The device of the calling thread's context (0 when none can be asked). */
static int current_device(void)
{
    int dev = 0;
    if (ctx_get_device && ctx_get_device(&dev) != CUDA_SUCCESS)
        dev = 0;
    return dev;
}

/* An allocation's device and bytes, before the call (the pitch's rows
 * rounded to 512 bytes until the driver says its pitch). */
static void alloc_size(cutap_call_t *c, int w, int *dev, uint64_t *size)
{
    if (w == A_CREATE) {
        const unsigned char *prop = (const unsigned char *)(uintptr_t)c->args[2];
        int id = 0;
        if (prop)
            memcpy(&id, prop + 12, sizeof id);   /* CUmemAllocationProp.location.id */
        *dev = id;
        *size = c->args[1];
        return;
    }
    *dev = current_device();
    *size = w == A_PITCH || w == A_PITCH_V1 ? ((c->args[2] + 511) & ~511ull) * c->args[3] : c->args[1];
}

static int pre(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    int w = what(c->id), dev;
    uint64_t size;
    if (w < A_ALLOC || w > A_CREATE || (c->flags & CUTAP_CALL_SKIPPED))
        return CUTAP_PROCEED;
    alloc_size(c, w, &dev, &size);
    if (reserve(dev, size, 0)) {
        *scratch = (uint64_t)dev + 1;   /* reserved: given back if the call is not made or fails */
        return CUTAP_PROCEED;
    }
    c->result = CUDA_ERROR_OUT_OF_MEMORY;
    return CUTAP_SKIP;
}

static void post_alloc(cutap_call_t *c, int w, uint64_t *scratch)
{
    int dev = (int)*scratch - 1;
    uint64_t size;
    int d2;
    alloc_size(c, w, &d2, &size);
    const void *out = (const void *)(uintptr_t)c->args[0];
    if ((c->flags & CUTAP_CALL_SKIPPED) || c->result != CUDA_SUCCESS || !out) {
        release(dev, size);   /* not made (a later client skipped it), or failed */
        return;
    }
    if (w == A_PITCH || w == A_PITCH_V1) {
        /* the bytes the driver took: its pitch times the rows */
        uint64_t pitch = 0;
        const void *pp = (const void *)(uintptr_t)c->args[1];
        if (pp)
            memcpy(&pitch, pp, w == A_PITCH ? 8 : 4);
        if (pitch && pitch * c->args[3] != size) {
            release(dev, size);
            size = pitch * c->args[3];
            reserve(dev, size, 1);
        }
    }
    uint64_t v = 0;
    memcpy(&v, out, w == A_ALLOC_V1 || w == A_PITCH_V1 ? 4 : 8);
    remember(w == A_CREATE ? K_HANDLE : K_PTR, v, size, dev);
}

static void post_info(cutap_call_t *c, int w)
{
    int dev = current_device();
    if (c->result != CUDA_SUCCESS || dev < 0 || dev >= MAXDEV || !cap[dev])
        return;
    uint64_t used = used_on(dev), room = used < cap[dev] ? cap[dev] - used : 0;
    void *f = (void *)(uintptr_t)c->args[0], *t = (void *)(uintptr_t)c->args[1];
    if (w == I_INFO) {
        uint64_t v;
        if (f && (memcpy(&v, f, 8), v > room))
            memcpy(f, &room, 8);
        if (t && (memcpy(&v, t, 8), v > cap[dev]))
            memcpy(t, &cap[dev], 8);
    } else {
        uint32_t v, r = (uint32_t)(room > UINT32_MAX ? UINT32_MAX : room),
                    k = (uint32_t)(cap[dev] > UINT32_MAX ? UINT32_MAX : cap[dev]);
        if (f && (memcpy(&v, f, 4), v > r))
            memcpy(f, &r, 4);
        if (t && (memcpy(&v, t, 4), v > k))
            memcpy(t, &k, 4);
    }
}

/* NVML: the cap as the device's memory, the bytes the sharing processes
 * hold as used (nvmlMemory_t: total, free, used; nvmlMemory_v2_t: version,
 * total, reserved, free, used). */
static void post_nvml(cutap_call_t *c, int w)
{
    if (c->result != 0)
        return;
    if (w == N_HANDLE) {
        const void *h = (const void *)(uintptr_t)c->args[1];
        uint64_t v = 0;
        if (h && (memcpy(&v, h, 8), v))
            remember(K_NVML, v, c->args[0], 0);
        return;
    }
    uint64_t index;
    int unused;
    unsigned char *m = (unsigned char *)(uintptr_t)c->args[1];
    if (!m || !take(K_NVML, c->args[0], &index, &unused) || index >= MAXDEV || !cap[index])
        return;
    uint64_t used = used_on((int)index), total = cap[index], free_ = used < total ? total - used : 0;
    size_t o = w == N_INFO_V2 ? 8 : 0;
    memcpy(m + o, &total, 8);
    if (w == N_INFO_V2) {
        uint64_t reserved = 0;
        memcpy(m + 16, &reserved, 8);
        o = 16;
    }
    memcpy(m + o + 8, &free_, 8);
    memcpy(m + o + 16, &used, 8);
}

static void post(cutap_call_t *c, void *ctx, uint64_t *scratch)
{
    (void)ctx;
    int w = what(c->id), dev;
    uint64_t size;
    if (w >= A_ALLOC && w <= A_CREATE) {
        if (*scratch)
            post_alloc(c, w, scratch);
    } else if (w >= F_FREE && w <= F_RELEASE) {
        uint64_t v = w == F_FREE_V1 ? (uint32_t)c->args[0] : c->args[0];
        if (c->result == CUDA_SUCCESS && !(c->flags & CUTAP_CALL_SKIPPED) &&
            take(w == F_RELEASE ? K_HANDLE : K_PTR, v, &size, &dev))
            release(dev, size);
    } else if (w == I_INFO || w == I_INFO_V1) {
        post_info(c, w);
    } else if (w >= N_HANDLE) {
        post_nvml(c, w);
    }
}

/* --- settings ----------------------------------------------------------- */
static int parse_size(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    }
    if (*end && *end != ',')
        return -1;
    *v = (uint64_t)n << shift;
    return 0;
}

static int parse_caps(const char *s)
{
    if (!strchr(s, ':')) {
        uint64_t v;
        if (parse_size(s, &v) || !v)
            return -1;
        for (int d = 0; d < MAXDEV; d++)
            cap[d] = v;
        return 0;
    }
    for (const char *p = s; *p;) {
        char *end;
        long d = strtol(p, &end, 10);
        uint64_t v;
        if (end == p || *end != ':' || d < 0 || d >= MAXDEV || parse_size(end + 1, &v) || !v)
            return -1;
        cap[d] = v;
        p = strchr(end, ',');
        if (!p)
            break;
        p++;
    }
    return 0;
}

static void child_after_fork(void)
{
    slot = -1;   /* the child's bytes are its own; what the parent holds stays the parent's */
    pthread_mutex_init(&tab_lock, NULL);
    free(tab);
    tab = NULL, tab_n = tab_used = 0;
}

int cutap_plugin_init(unsigned api_version)
{
    const char *s = getenv("CUTAP_MEMLIMIT"), *b = getenv("CUTAP_MEMLIMIT_BYTES");
    if (api_version < 3 || !(s && *s ? !parse_caps(s) : b && *b && !parse_caps(b))) {
        fprintf(stderr, "memlimit: set CUTAP_MEMLIMIT=SIZE or DEV:SIZE,... (SIZE: bytes, or with K, M, G, T)\n");
        return 1;
    }
    const char *name = getenv("CUTAP_MEMLIMIT_NAME");
    char def[32];
    if (!name || !*name || strchr(name, '/')) {
        snprintf(def, sizeof def, "uid%u", (unsigned)getuid());
        name = def;
    }
    if (!(sh = attach(name))) {
        pthread_once(&alone_once, init_alone);
        sh = &alone;
    }
    pthread_atfork(NULL, NULL, child_after_fork);
    ctx_get_device = (int (*)(int *))dlsym(RTLD_DEFAULT, "cuCtxGetDevice");
    int me = cutap_register("memlimit", pre, post, NULL);
    if (me < 0)
        return 2;
    nids = cutap_call_count();
    if (!(what_of = calloc(nids, 1)))
        return 3;
    for (unsigned i = 0; i < NWATCHED; i++) {
        uint32_t id = cutap_lookup(watched[i].name);
        if (id < nids && !cutap_enable(me, id, 1))
            what_of[id] = (uint8_t)watched[i].what;
    }
    if (!what_of[cutap_lookup("cuMemAlloc_v2")])
        return 4;   /* not even the main allocation: the cap would not hold */
    return 0;
}
