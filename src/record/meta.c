/* Meta records (writer_internal.h): what the file says about its ids
 * (names, signatures), layers, kernels, objects and stacks, each written
 * once per file. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "resolve_internal.h"
#include "writer_internal.h"

/* Ids and kernel handles already named in this file. */
_Atomic uint8_t cutap_named[CUTAP_MAX_IDS];
/* Layers whose binding (CUTAP_META_LAYER) is written in this file. */
_Atomic uint8_t rec_layer_noted[CUTAP_LAYER_COUNT];
#define FUNC_SLOTS 65536   /* 512 KiB, touched only where used */
static _Atomic uint64_t funcs[FUNC_SLOTS];
_Atomic int rec_funcs_full;

/* Ring files: meta records go to META chunks after the ring, shared by
 * every thread (names are written once per file: rare). */
static char *meta_chunk;
static unsigned meta_pos;
static pthread_mutex_t meta_lock = PTHREAD_MUTEX_INITIALIZER;

static struct cutap_rec_call *meta_reserve(unsigned n)
{
    struct cutap_rec_call *r = NULL;
    sigset_t old;
    int blocked = rec_sig_block(&old);
    pthread_mutex_lock(&meta_lock);
    if (!meta_chunk || meta_pos + n > rec_file.csize / CUTAP_SLOT) {
        meta_chunk = rec_chunk_take(&cutap_rt, CUTAP_CHUNK_META, 0);
        meta_pos = 1;
    }
    if (meta_chunk) {
        r = (struct cutap_rec_call *)(meta_chunk + (size_t)meta_pos * CUTAP_SLOT);
        meta_pos += n;
    }
    pthread_mutex_unlock(&meta_lock);
    rec_sig_restore(blocked, &old);
    return r;
}

/* A meta record whose text is len bytes (NUL-separated fields allowed),
 * NUL-terminated in the record. */
int rec_write_meta_n(int sub, uint32_t aux, uint64_t key, const char *text, size_t len)
{
    if (len > (size_t)MAX_REC_SLOTS * CUTAP_SLOT - 64)
        len = (size_t)MAX_REC_SLOTS * CUTAP_SLOT - 64;
    unsigned n = (unsigned)((offsetof(struct cutap_rec_meta, text) + len + 1 + CUTAP_SLOT - 1) / CUTAP_SLOT);
    struct cutap_rec_meta *m = (struct cutap_rec_meta *)(rec_ring.n ? meta_reserve(n) : rec_reserve(n));
    if (!m)
        return cutap_tls.resv && !rec_ring.n ? 1 : -1;
    m->sub = (uint8_t)sub;
    m->nslots = (uint16_t)n;
    m->aux = aux;
    m->key = key;
    m->clock = cutap_rec_clock();
    memcpy(m->text, text, len);
    m->text[len] = 0;
    __atomic_store_n(&m->kind, CUTAP_REC_META, __ATOMIC_RELEASE);
    return 0;
}

static int write_meta(int sub, uint32_t aux, uint64_t key, const char *text)
{
    return rec_write_meta_n(sub, aux, key, text, strnlen(text, (size_t)MAX_REC_SLOTS * CUTAP_SLOT - 64));
}

/* What a runtime or library layer is bound to, once per file: its
 * soname, and whether its calls are recorded untyped because the library
 * is of another major than the generated signatures (resolve/libs.c). */
void rec_note_layer(int layer)
{
    int vouched = 1;
    const char *so = layer >= 0 && layer < CUTAP_LAYER_COUNT ? cutap_lib_bound(layer, &vouched) : NULL;
    uint8_t expect = 0;
    if (!so || !atomic_compare_exchange_strong(&rec_layer_noted[layer], &expect, 1))
        return;
    if (write_meta(CUTAP_META_LAYER, (uint32_t)layer, vouched ? 0 : CUTAP_LAYER_OTHER_MAJOR, so) > 0)
        atomic_store(&rec_layer_noted[layer], 0);   /* not written (rec_write_meta_n): said at its next call */
}

/* An id not named yet in this file (rec_name_id checked): its name and
 * signature, by the first thread that gets to it. */
void rec_name_id_slow(uint32_t id)
{
    uint8_t expect = 0;
    if (!atomic_compare_exchange_strong(&cutap_named[id], &expect, 1))
        return;
    const char *name = cutap_call_name(id);
    int layer = cutap_call_layer(id);
    /* Format version 4: the file describes its ids itself (docs/FORMAT.md):
     * name, layer name, then each argument as kind:name:type (kind one of
     * i u p e f d s, CUTAP_ARG_*), ';'-separated, for a typed function. */
    char text[3072];
    const char *ln = cutap_layer_name(layer);
    size_t len = (size_t)snprintf(text, sizeof text, "%s%c%s%c", name ? name : "?", 0, ln ? ln : "?", 0);
    int na = cutap_call_nargs(id);
    for (int i = 0; i < na && len < sizeof text - 256; i++) {
        const cutap_arg_info_t *a = cutap_call_arg(id, (unsigned)i);
        if (!a)
            break;
        int k = snprintf(text + len, sizeof text - len - 1, "%s%c:%s:%s", i ? ";" : "", "iupefds"[a->kind % 7],
                         a->name, a->type);
        if (k < 0 || (size_t)k >= sizeof text - len - 1)
            break;
        len += (size_t)k;
    }
    int w = rec_write_meta_n(CUTAP_META_ID_NAME, id, (uint64_t)layer, text, len);
    if (w > 0) {
        /* not written for now (a signal handler's call that came while its
         * thread took slots, helper-26's review): named by the id's next
         * call, never left unnamed in the file */
        atomic_store(&cutap_named[id], 0);
        return;
    }
    if (w < 0)
        return;   /* (no room: the file is full or dead; nothing more is written) */
    rec_note_layer(layer);
    /* its trace fast path, which is handed out to named ids only (it does
     * not check: one line fewer a call, issue #27) */
    if (id < CUTAP_STATIC_COUNT && __atomic_load_n(&cutap_fast_kind, __ATOMIC_ACQUIRE) == 1)
        (void)cutap_refresh_id_named(id);
}

/* The kernel behind a launch, named once per handle: the driver's own name
 * for it (cuFuncGetName; cuKernelGetName for a CUkernel passed as a
 * function), asked directly, not through our wrappers. */
void rec_name_function_slow(uint64_t f)   /* rec_name_function checked f and room */
{
    uint64_t h = (f >> 4) * 0x9e3779b97f4a7c15ull;
    for (unsigned probe = 0; probe < 64; probe++) {
        _Atomic uint64_t *s = &funcs[(h + probe) % FUNC_SLOTS];
        uint64_t v = atomic_load_explicit(s, memory_order_relaxed);
        if (v == f)
            return;
        if (v)
            continue;
        if (!atomic_compare_exchange_strong(s, &v, f)) {
            if (v == f)
                return;
            continue;
        }
        const char *name = NULL;
        typedef int (*getname_fn)(const char **, uint64_t);
        getname_fn fn = (getname_fn)cutap_driver_real(CUTAP_ID_cuFuncGetName);
        if (!fn || fn(&name, f) || !name) {
            fn = (getname_fn)cutap_driver_real(CUTAP_ID_cuKernelGetName);
            if (!fn || fn(&name, f))
                name = NULL;
        }
        if (name && write_meta(CUTAP_META_FUNC_NAME, 0, f, name) && rec_file.hdr)
            __atomic_fetch_add(&rec_file.hdr->lost_names, 1, __ATOMIC_RELAXED);   /* (not written: counted) */
        return;
    }
    if (rec_file.hdr)
        __atomic_fetch_add(&rec_file.hdr->lost_names, 1, __ATOMIC_RELAXED);
    if (!atomic_exchange(&rec_funcs_full, 1))
        cutap_warn("more kernels than cutap can name (%d); later ones are shown by handle only", FUNC_SLOTS);
}

void cutap_fp_name_function(uint64_t handle)
{
    rec_name_function(handle);
}

/* A forked child's file names everything again. */
void rec_meta_after_fork(void)
{
    for (unsigned i = 0; i < CUTAP_MAX_IDS; i++)
        atomic_store_explicit(&cutap_named[i], 0, memory_order_relaxed);
    cutap_fast_trace_forget();
    for (unsigned i = 0; i < CUTAP_LAYER_COUNT; i++)
        atomic_store_explicit(&rec_layer_noted[i], 0, memory_order_relaxed);
    for (unsigned i = 0; i < FUNC_SLOTS; i++)
        atomic_store_explicit(&funcs[i], 0, memory_order_relaxed);
    atomic_store(&rec_funcs_full, 0);
    meta_chunk = NULL;
    meta_pos = 0;
    pthread_mutex_init(&meta_lock, NULL);
}
