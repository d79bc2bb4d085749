/* dlsym/dlvsym interposition (entries in src/arch/x86_64/dlsym_entry.S).
 *
 * Finding glibc's own dlsym: __libc_dlsym is gone since glibc 2.34, and a
 * versioned reference (dlsym@GLIBC_2.34) from this library would bind to
 * our own unversioned dlsym, because the dynamic linker lets unversioned
 * definitions satisfy versioned references (that is what makes
 * preloading work). So we read the dynamic symbol table of the object that
 * defines dlsym (libc.so.6 since 2.34, libdl.so.2 before) ourselves, once,
 * through dl_iterate_phdr: public interfaces only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cutap_internal.h"

typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlvsym_fn)(void *, const char *, const char *);
dlsym_fn cutap_libc_dlsym_ptr __attribute__((visibility("hidden")));
dlvsym_fn cutap_libc_dlvsym_ptr __attribute__((visibility("hidden")));

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

struct want {
    const char *name;
    void *addr;
};

/* Looks name up in one object's GNU hash table; takes the default
 * (non-hidden) version when there are several. */
const void *cutap_elf_dynamic(struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            return (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    return NULL;
}

void *cutap_elf_lookup(struct dl_phdr_info *info, const char *name)
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

static int adds_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1;   /* the first object tells: the count is the loader's */
}

/* How many objects the dynamic loader has loaded so far (it never goes
 * down): tells whether a library found missing may have arrived since. */
unsigned long long cutap_dl_adds(void)
{
    unsigned long long n = 0;
    dl_iterate_phdr(adds_cb, &n);
    return n;
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

void *cutap_libc_dlsym(void *handle, const char *name)
{
    resolve_libc();
    return cutap_libc_dlsym_ptr(handle, name);
}

/* First letters of every name cutap wraps: cu* (driver, cuda*, cublas*,
 * cudnn*, cufft*, curand*, cusparse*, cusolver*), nccl*, nvrtc*,
 * nvJitLink*, __cuda*, __nvJitLink*. Other lookups skip the search. */
static int maybe_ours(const char *n)
{
    switch (n[0]) {
    case 'c': return n[1] == 'u';
    case 'n': return (n[1] == 'c' && n[2] == 'c') || n[1] == 'v';
    case '_': return n[1] == '_' && (n[2] == 'c' || n[2] == 'n');
    default: return 0;
    }
}

/* Decides whether a lookup is one cutap must see: a name the generated
 * tables know (driver or layer), on any handle; or any other "cu" name on
 * the driver's own handle (entry points newer than the tables). Everything
 * else goes straight to glibc. */
int cutap_dl_divert(void *handle, const char *name, const char *version);
int cutap_dl_divert(void *handle, const char *name, const char *version)
{
    (void)version;
    resolve_libc();
    if (!name || !maybe_ours(name))
        return 0;
    if (cutap_lookup(name) < CUTAP_STATIC_COUNT)
        return 1;
    if (name[0] != 'c' || name[1] != 'u')
        return 0;
    if (!handle || handle == RTLD_DEFAULT || handle == RTLD_NEXT)
        return 0;
    if (atomic_load_explicit(&cutap_driver_state, memory_order_acquire) != 1) {
        void *init = cutap_libc_dlsym_ptr(handle, "cuInit");
        if (init)
            cutap_driver_adopt_from(init);
    }
    return cutap_driver_is_handle(handle);
}

/* RTLD_NEXT relative to the caller, for driver names only: the first object
 * after the caller's in its namespace's load order that defines name. */
static void *next_after(const char *name, const char *version, void *caller)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return NULL;
    for (struct link_map *l = lm->l_next; l; l = l->l_next) {
        if (!l->l_name || !*l->l_name)
            continue;
        void *h = dlopen(l->l_name, RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            continue;
        void *r = version ? cutap_libc_dlvsym_ptr(h, name, version) : cutap_libc_dlsym_ptr(h, name);
        Dl_info ri;
        struct link_map *rl = NULL;
        int own = r && dladdr1(r, &ri, (void **)&rl, RTLD_DL_LINKMAP) && rl == l;
        dlclose(h);
        if (own)
            return r;
    }
    return NULL;
}

void *cutap_dl_lookup(void *handle, const char *name, const char *version, void *caller);
void *cutap_dl_lookup(void *handle, const char *name, const char *version, void *caller)
{
    cutap_init();
    void *r;
    if (handle == RTLD_NEXT)
        r = next_after(name, version, caller);
    else
        r = version ? cutap_libc_dlvsym_ptr(handle, name, version) : cutap_libc_dlsym_ptr(handle, name);
    if (!r)
        return NULL;   /* dlerror() keeps glibc's message */
    uint32_t id = cutap_lookup(name);
    if (id < CUTAP_STATIC_COUNT && r == cutap_static_wrapper(id)) {
        /* A lookup through a scope that holds libcutap.so (RTLD_DEFAULT,
         * the main program's handle, ctypes.CDLL(None), RTLD_NEXT from the
         * program) found our own export: answer as the scope after us
         * would. Programs probe this way whether CUDA is loaded
         * (optional-GPU code, frameworks); our export would say yes when
         * no driver or library is there, and the program would then call
         * into nothing. The driver's names as the libraries' (issue #24). */
        r = version ? cutap_libc_dlvsym_ptr(RTLD_NEXT, name, version) : cutap_libc_dlsym_ptr(RTLD_NEXT, name);
        if (!r)
            return NULL;
    }
    if (id >= CUTAP_DRIVER_COUNT && id < CUTAP_STATIC_COUNT) {
        /* A runtime or library function: its object becomes the layer's
         * library if none is yet (frameworks dlopen them RTLD_LOCAL). */
        cutap_lib_adopt_from(id, r);
        return cutap_wrap_pointer(r, name);
    }
    if (handle != RTLD_NEXT && handle != RTLD_DEFAULT)
        cutap_driver_adopt_from(r);
    return cutap_wrap_pointer(r, name);
}
