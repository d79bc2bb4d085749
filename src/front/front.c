/* The front's start and the loading of the core (src/front/front_internal.h).
 *
 * Start-up does only what a process that never calls CUDA needs: glibc's
 * dlsym found (the dlsym entry jumps to it), the real exec functions
 * looked up (an exec from a vfork child or a signal handler makes no
 * lookup), what the process forbade before (a TSC forbidden at fork), and,
 * when recording, the trace registry told that this image arrived (so
 * that cutap trace does not list it as not traced). No descriptor is read,
 * no table touched: a few system calls. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front_internal.h"

/* --- glibc's dlsym ------------------------------------------------------ */

/* Finding glibc's own dlsym: __libc_dlsym is gone since glibc 2.34, and a
 * versioned reference (dlsym@GLIBC_2.34) from this library would bind to
 * our own unversioned dlsym, because the dynamic linker lets unversioned
 * definitions satisfy versioned references (that is what makes
 * preloading work). So the dynamic symbol table of the object that
 * defines dlsym (libc.so.6 since 2.34, libdl.so.2 before) is read here,
 * once, through dl_iterate_phdr: public interfaces only. */
typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlvsym_fn)(void *, const char *, const char *);
dlsym_fn cutap_libc_dlsym_ptr;     /* (hidden: the dlsym entry jumps through them) */
dlvsym_fn cutap_libc_dlvsym_ptr;

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

CUTAP_FRONT const void *cutap_elf_dynamic(struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            return (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    return NULL;
}

/* Looks name up in one object's GNU hash table; takes the default
 * (non-hidden) version when there are several. */
CUTAP_FRONT void *cutap_elf_lookup(struct dl_phdr_info *info, const char *name)
{
    const ElfW(Dyn) *dyn = cutap_elf_dynamic(info);
    if (!dyn)
        return NULL;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const uint32_t *gh = NULL;
    const ElfW(Half) *versym = NULL;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        /* glibc relocates these in place on x86-64; be safe where not. */
        uintptr_t v = dyn->d_un.d_ptr;
        if (v < info->dlpi_addr)
            v += info->dlpi_addr;
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)v; break;
        case DT_STRTAB: strtab = (const char *)v; break;
        case DT_GNU_HASH: gh = (const uint32_t *)v; break;
        case DT_VERSYM: versym = (const ElfW(Half) *)v; break;
        }
    }
    if (!symtab || !strtab || !gh)
        return NULL;
    uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(gh + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t h = gnu_hash(name);
    void *best = NULL;
    for (uint32_t i = buckets[h % nbuckets]; i >= symoffset && i; i++) {
        uint32_t ch = chain[i - symoffset];
        if ((ch | 1) == (h | 1) && !strcmp(strtab + symtab[i].st_name, name) &&
            symtab[i].st_shndx != SHN_UNDEF && ELF64_ST_TYPE(symtab[i].st_info) == STT_FUNC) {
            void *a = (void *)(info->dlpi_addr + symtab[i].st_value);
            if (!versym || !(versym[i] & 0x8000))
                return a;
            if (!best)
                best = a;
        }
        if (ch & 1)
            break;
    }
    return best;
}

struct want {
    const char *name;
    void *addr;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *n = info->dlpi_name, *b = n ? strrchr(n, '/') : NULL;
    b = b ? b + 1 : n;
    if (!b || (strcmp(b, "libc.so.6") && strcmp(b, "libdl.so.2")))
        return 0;
    struct want *w = data;
    w->addr = cutap_elf_lookup(info, w->name);
    return w->addr != NULL;
}

static void *libc_function(const char *name)
{
    struct want w = {name, NULL};
    dl_iterate_phdr(find_cb, &w);
    return w.addr;
}

/* Resolved before any constructor (ours or anyone's) can call dlsym:
 * preinit is not available to shared objects, so the first dlsym through
 * us resolves them too (cutap_dl_divert). */
static void resolve_libc(void)
{
    if (!__atomic_load_n(&cutap_libc_dlsym_ptr, __ATOMIC_ACQUIRE)) {
        dlvsym_fn v = (dlvsym_fn)libc_function("dlvsym");
        dlsym_fn s = (dlsym_fn)libc_function("dlsym");
        if (!s || !v) {
            static const char msg[] = "cutap: cannot find glibc's dlsym/dlvsym; aborting\n";
            (void)!write(2, msg, sizeof msg - 1);
            abort();
        }
        __atomic_store_n(&cutap_libc_dlvsym_ptr, v, __ATOMIC_RELEASE);
        __atomic_store_n(&cutap_libc_dlsym_ptr, s, __ATOMIC_RELEASE);
    }
}

CUTAP_FRONT void *cutap_libc_dlsym(void *handle, const char *name)
{
    resolve_libc();
    return cutap_libc_dlsym_ptr(handle, name);
}

CUTAP_FRONT void *cutap_libc_dlvsym(void *handle, const char *name, const char *version)
{
    resolve_libc();
    return cutap_libc_dlvsym_ptr(handle, name, version);
}

/* glibc resolves RTLD_NEXT relative to its caller's object, found by the
 * return address: the call must return here, into the front (a tail call
 * would make it relative to our caller, the core, whose next definition
 * is the front's own entry). */
CUTAP_FRONT void *cutap_front_next(const char *name, const char *version)
{
    resolve_libc();
    void *r = version ? cutap_libc_dlvsym_ptr(RTLD_NEXT, name, version) : cutap_libc_dlsym_ptr(RTLD_NEXT, name);
    __asm__ volatile("" : : "r"(r) : "memory");   /* no tail call */
    return r;
}

/* What RTLD_DEFAULT finds, for caller, after the global scope: the
 * caller's own group (its object and what it depends on, as dlsym on its
 * handle searches them: a library opened RTLD_LOCAL with its libcuda),
 * cutap's own entries left out. NULL for the main program (its scope is
 * the global one). */
CUTAP_FRONT void *cutap_front_caller_group(const char *name, const char *version, const void *caller)
{
    Dl_info info, self;
    struct link_map *lm = NULL;
    if (!caller || !dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !lm->l_name || !*lm->l_name)
        return NULL;
    void *h = dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    void *r = version ? cutap_libc_dlvsym(h, name, version) : cutap_libc_dlsym(h, name);
    dlclose(h);
    if (r && dladdr(r, &info) && dladdr((void *)cutap_front_caller_group, &self) && info.dli_fbase == self.dli_fbase)
        return NULL;   /* the group reaches the front itself */
    return r;
}

/* --- the core --------------------------------------------------------------- */

static const struct cutap_core *_Atomic core;
static _Atomic int core_failed, core_ready;
static __thread int loading __attribute__((tls_model("initial-exec")));

/* The API's slots (front_entry.S), filled from the core's. */
void *cutap_front_api_table[CUTAP_API_COUNT];

CUTAP_FRONT void cutap_front_attach(const struct cutap_core *c)
{
    if (!c || c->size != sizeof *c)
        return;
    for (int k = 0; k < CUTAP_API_COUNT; k++)
        __atomic_store_n(&cutap_front_api_table[k], c->api[k], __ATOMIC_RELEASE);
    atomic_store_explicit(&core, c, memory_order_release);
}

/* The core's start is over (the end of its constructor). */
CUTAP_FRONT void cutap_front_ready(void)
{
    atomic_store_explicit(&core_ready, 1, memory_order_release);
}

const struct cutap_core *cutap_core_if_loaded(void)
{
    return atomic_load_explicit(&core, memory_order_acquire);
}

/* libcutap_core.so beside this library (the command and make install put
 * them side by side). */
static int core_file(char *path, size_t size)
{
    Dl_info di;
    if (!dladdr((void *)core_file, &di) || !di.dli_fname)
        return -1;
    const char *slash = strrchr(di.dli_fname, '/');
    int dir = slash ? (int)(slash - di.dli_fname) : 0;
    int n = snprintf(path, size, "%.*s%slibcutap_core.so", dir, di.dli_fname, slash ? "/" : "");
    return n > 0 && (size_t)n < size ? 0 : -1;
}

static int core_file(char *path, size_t size);

/* Another thread is loading the core, whose constructor has attached it
 * but not finished (its recorder may not run yet): wait for it, as a
 * dlopen of the core would, by asking the loader (its lock is held until
 * that constructor returns); so the first calls of several threads are
 * all recorded. */
static __attribute__((noinline)) void wait_ready(void)
{
    char path[PATH_MAX];
    void *h;
    if (!core_file(path, sizeof path) && (h = dlopen(path, RTLD_NOW | RTLD_NOLOAD)))
        dlclose(h);
}

const struct cutap_core *cutap_core(void)
{
    const struct cutap_core *c = atomic_load_explicit(&core, memory_order_acquire);
    if (CUTAP_LIKELY(c != NULL)) {
        if (CUTAP_UNLIKELY(!atomic_load_explicit(&core_ready, memory_order_acquire)) && !loading) {
            int err = errno;
            wait_ready();
            errno = err;
        }
        return c;
    }
    /* This thread is loading it (its calls meanwhile pass through), or it
     * failed once (said once), or the process can make no system call. */
    if (loading || atomic_load(&core_failed) || __atomic_load_n(&cutap_tsc_forbidden, __ATOMIC_ACQUIRE) == 2)
        return NULL;
    loading = 1;
    int err = errno;
    char path[PATH_MAX];
    const char *why = NULL;
    void *h = NULL;
    if (core_file(path, sizeof path))
        why = "libcutap.so cannot find its own path";
    else if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)))
        why = dlerror();
    /* Its constructor attached it; another thread may have loaded it
     * meanwhile (dlopen then returned at once, the constructor done). */
    c = atomic_load_explicit(&core, memory_order_acquire);
    if (!c && !why)
        why = "it did not start";
    loading = 0;
    if (!c && !atomic_exchange(&core_failed, 1))
        cutap_front_warn("cannot load %s: %s; the program runs untraced", h || !why ? path : "libcutap_core.so",
                         why ? why : "?");
    errno = err;
    return c;
}

/* --- calls while the core is not loaded -------------------------------- */

/* A library layer's or the driver's "library missing" (the real function
 * is nowhere): its status, or 0 for a function whose result is no
 * status, set by the thread just before it jumps here. */
static __thread uint64_t none_status __attribute__((tls_model("initial-exec")));
static uint64_t none(void) { return none_status; }

/* cutap_front_slow (front_entry.S), with every argument register saved:
 * where the call of static id, made from caller (its return address),
 * goes. */
void *cutap_front_resolve(uint32_t id, const void *caller);
void *cutap_front_resolve(uint32_t id, const void *caller)
{
    const struct cutap_core *c = cutap_core();
    void *to = c ? c->entry(id) : NULL;
    if (to)
        return to;
    if (id >= cutap_front_ids)
        abort();   /* the generated entries carry their own ids: never */
    /* Untraced: the real function by name, the definition after ours in
     * the global scope (kept in the table: every caller's PLT finds that
     * one first; not while the core is being loaded on this thread), else
     * in the caller's own group (a library opened RTLD_LOCAL with its
     * libcuda: that caller's alone, not kept). */
    const char *name = cutap_front_names + cutap_front_name_at[id];
    if ((to = cutap_front_next(name, NULL))) {
        if (!loading)
            __atomic_store_n(&cutap_hot[id].to, to, __ATOMIC_RELEASE);
        return to;
    }
    if ((to = cutap_front_caller_group(name, NULL, caller)))
        return to;
    uint8_t l = cutap_front_layer[id];
    none_status = l & 0x80 ? 0 : cutap_front_unavailable[l & 0x7f];
    return (void *)none;
}

/* dlsym and dlvsym (front/dlsym_entry.S): a name that is a CUDA one goes
 * to the core, which is loaded for it; everything else goes straight to
 * glibc. First, on every lookup, the first letters of every name cutap
 * wraps: cu* (driver, cuda*, cublas*, cudnn*, cufft*, curand*, cusparse*,
 * cusolver*), nccl*, nvrtc*, nvJitLink*, nvml*, nvtx*, __cuda*,
 * __nvJitLink*. */
static int maybe_ours(const char *n)
{
    switch (n[0]) {
    case 'c': return n[1] == 'u';
    case 'n': return (n[1] == 'c' && n[2] == 'c') || n[1] == 'v';
    case '_': return n[1] == '_' && (n[2] == 'c' || n[2] == 'n');
    default: return 0;
    }
}

/* Then the name itself, in a hash of the front's names (made at the first
 * such lookup), so that curl_*, cuserid or nvim_* never load the core. */
#define NAME_SLOTS 8192   /* a power of two, over twice the ids */
static uint16_t name_slot[NAME_SLOTS];   /* id + 1 */
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void names_index(void)
{
    for (uint32_t id = 0; id < cutap_front_ids && id < 0xffff; id++) {
        uint32_t i = name_hash(cutap_front_names + cutap_front_name_at[id]);
        while (name_slot[i & (NAME_SLOTS - 1)])
            i++;
        name_slot[i & (NAME_SLOTS - 1)] = (uint16_t)(id + 1);
    }
}

static int known_name(const char *n)
{
    pthread_once(&names_once, names_index);
    for (uint32_t i = name_hash(n);; i++) {
        uint16_t s = name_slot[i & (NAME_SLOTS - 1)];
        if (!s)
            return 0;
        if (!strcmp(cutap_front_names + cutap_front_name_at[s - 1], n))
            return 1;
    }
}

int cutap_dl_divert(void *handle, const char *name, const char *version);
int cutap_dl_divert(void *handle, const char *name, const char *version)
{
    resolve_libc();
    if (!name || !maybe_ours(name))
        return 0;
    if (cutap_cupti_watched(handle, name) >= 0)
        return 1;   /* CUPTI's registrations on a handle: the watch's export (cupti_watch.c) */
    /* A name the tables know; or another cu* name on a handle of a driver
     * (an entry point newer than the tables: the core wraps it), a handle
     * whose cuInit is not the front's own (the program's handle finds
     * that one). */
    if (!known_name(name)) {
        if (name[0] != 'c' || name[1] != 'u' || !handle || handle == RTLD_DEFAULT || handle == RTLD_NEXT)
            return 0;
        Dl_info a, self;
        void *init = cutap_libc_dlsym(handle, "cuInit");
        if (!init || (dladdr(init, &a) && dladdr((void *)cutap_dl_divert, &self) && a.dli_fbase == self.dli_fbase))
            return 0;
    }
    const struct cutap_core *c = cutap_core();
    return c ? c->dl_divert(handle, name, version) : 0;
}

void *cutap_dl_lookup(void *handle, const char *name, const char *version, void *caller);
void *cutap_dl_lookup(void *handle, const char *name, const char *version, void *caller)
{
    int w = cutap_cupti_watched(handle, name);
    if (w >= 0)
        return cutap_cupti_dl_lookup(w, handle, version);
    /* only after cutap_dl_divert said yes: the core is loaded */
    return cutap_core_if_loaded()->dl_lookup(handle, name, version, caller);
}

/* The public API (front_entry.S) while the core is not loaded, or cannot
 * be: each function's "nothing there" answer. (caller: unused here.) */
static int api_fail(void) { return -1; }
static uint64_t api_zero(void) { return 0; }
static uint32_t api_no_id(void) { return CUTAP_ID_ALL; }

void *cutap_front_api_resolve(uint32_t k, const void *caller);
void *cutap_front_api_resolve(uint32_t k, const void *caller)
{
    (void)caller;
    const struct cutap_core *c = cutap_core();
    if (c && k < CUTAP_API_COUNT && c->api[k])
        return c->api[k];
    switch (k) {
    case CUTAP_API_REGISTER: case CUTAP_API_UNREGISTER: case CUTAP_API_ENABLE: case CUTAP_API_ENABLE_NAME:
    case CUTAP_API_ENABLE_FILTER: case CUTAP_API_CALL_LAYER: case CUTAP_API_CALL_NARGS: case CUTAP_API_LAYER_LOOKUP:
        return (void *)api_fail;
    case CUTAP_API_LOOKUP:
        return (void *)api_no_id;
    default:
        return (void *)api_zero;   /* counts 0, names NULL, NVTX not initialised */
    }
}

/* --- warnings ------------------------------------------------------------------ */

CUTAP_FRONT void cutap_front_warn(const char *fmt, ...)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "cutap[%d]: warning: ", (int)getpid());
    va_list ap;
    va_start(ap, fmt);
    int m = n > 0 ? vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap) : -1;
    va_end(ap);
    if (m < 0)
        return;
    n += m < (int)(sizeof buf - (size_t)n - 1) ? m : (int)(sizeof buf - (size_t)n - 2);
    buf[n++] = '\n';
    /* recording: the registry, never the program's stderr (it may be a
     * data file of the program's); else stderr, as the user asked for
     * cutap by hand */
    const char *rd = getenv("CUTAP_TRACE");
    if (!rd || !*rd)
        rd = getenv("CUTAP_COUNT");
    if (rd && *rd) {
        /* (the registry made for it when missing, as the core's warnings) */
        char dir[PATH_MAX];
        if (cutap_reg_warn(buf, (size_t)n) && !cutap_reg_dir_from_env(dir, sizeof dir) && !cutap_reg_attach(dir, 1))
            (void)cutap_reg_warn(buf, (size_t)n);
        return;
    }
    (void)cutap_write_all(2, buf, (size_t)n);
}

/* --- start-up ------------------------------------------------------------------ */

__attribute__((constructor)) static void front_init(void)
{
    resolve_libc();
    cutap_exec_init();
    cutap_io_init();
    cutap_env_init();
    cutap_forbid_init();
    char dir[PATH_MAX];
    if (!cutap_reg_dir_from_env(dir, sizeof dir)) {
        /* a relative trace directory made absolute now, and passed on so:
         * the process or its children may change directory before their
         * first call */
        const char *t = getenv("CUTAP_TRACE");
        const char *var = t && *t ? "CUTAP_TRACE" : "CUTAP_COUNT";
        if (getenv(var)[0] != '/')
            setenv(var, dir, 1);
        cutap_reg_attach(dir, 0);
    }
    /* Clients that exist from the start: plugins (a limiter), the text
     * log and table; and a driver named to load at start (CUTAP_DRIVER).
     * Everything else waits for the first call. */
    static const char *const eager[] = {"CUTAP_PLUGINS", "CUTAP_LOG", "CUTAP_STAT", "CUTAP_DRIVER"};
    for (unsigned i = 0; i < sizeof eager / sizeof *eager; i++) {
        const char *v = getenv(eager[i]);
        if (v && *v) {
            cutap_core();
            break;
        }
    }
}
