/* cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
 *
 * The runtime and the libraries get undocumented function tables from the
 * driver by UUID. Every request is a driver call like any other (layer
 * driver, recorded by every client). Where the policy allows, the caller
 * receives a copy of the table whose function slots are generic trampolines,
 * so calls through it are visible as layer "hidden", name "<TABLE>#<slot>".
 *
 * Table layout (see docs/HIDDEN_API.md): word 0 is usually the table size in
 * bytes (size word included), then function pointers; some tables have no
 * size word. The runtime verifies some tables (INTEGRITY_CHECK hashes table
 * and function addresses), so handing out copies is opt-in per table:
 *   CUTAP_HIDDEN unset        the tables in default_wrap[] (checked on GPUs)
 *   CUTAP_HIDDEN=observe      no table is wrapped
 *   CUTAP_HIDDEN=all          every table whose length is known
 *   CUTAP_HIDDEN=A,B,...      these names or 32-hex-digit UUIDs
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutap_internal.h"

struct known_table {
    const char *name;
    unsigned char uuid[16];
    int nslots_nosize;     /* >0: no size word, this many function slots */
};

/* Names as used by public reverse-engineering work (ZLUDA, Wine, cricket)
 * and NVIDIA's own names where known; bytes in memory order. */
static const struct known_table known[] = {
    {"CUDART_INTERFACE", {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}, 0},
    {"TOOLS_RUNTIME_CALLBACK_HOOKS", {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66}, 0},
    {"TOOLS_TLS", {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc}, 0},
    {"CONTEXT_LOCAL_STORAGE", {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93}, 3},
    {"INTEGRITY_CHECK", {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}, 0},
    {"CONTEXT_CHECKS", {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e}, 0},
    {"CTX_CREATE_BYPASS", {0x0c, 0xa5, 0x0b, 0x8c, 0x10, 0x04, 0x92, 0x9a, 0x89, 0xa7, 0xd0, 0xdf, 0x10, 0xe7, 0x72, 0x86}, 0},
    {"TOOLS_DEVICE", {0xb1, 0x05, 0x41, 0xe1, 0xf7, 0xc7, 0xc7, 0x4a, 0x9f, 0x64, 0xf2, 0x23, 0xbe, 0x99, 0xf1, 0xe2}, 0},
    {"TOOLS_CONTEXT", {0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2}, 0},
    {"TOOLS_MODULE", {0x6e, 0x16, 0x3f, 0xbe, 0xb9, 0x58, 0x44, 0x4d, 0x83, 0x5c, 0xe1, 0x82, 0xaf, 0xf1, 0x99, 0x1e}, 0},
    {"TOOLS_MEMORY", {0xbf, 0xdb, 0x43, 0x2d, 0xbf, 0x3c, 0x5a, 0x4a, 0x94, 0x5e, 0xb3, 0x40, 0x29, 0xe8, 0x1e, 0x75}, 0},
    {"TOOLS_RM", {0x14, 0x06, 0x18, 0x0d, 0x72, 0xd6, 0xcb, 0x47, 0xab, 0x6e, 0xb9, 0x63, 0xe5, 0x1b, 0xf4, 0xc6}, 0},
    {"VIDEO_INTEROP", {0x9a, 0xf0, 0x70, 0x7b, 0x8e, 0x2d, 0xd8, 0x4c, 0x8e, 0x4e, 0xb9, 0x94, 0xc8, 0x2d, 0xdc, 0x35}, 0},
    /* Test tables of the fake driver (tests/fake). */
    {"FAKE_SIZED", {0xfa, 0x4e, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}, 0},
    {"FAKE_NOSIZE", {0xfa, 0x4e, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02}, 2},
};
#define NKNOWN (sizeof known / sizeof known[0])

/* Tables wrapped when CUTAP_HIDDEN is unset: those that real-GPU runs showed
 * can be handed out as copies without changing any workload's result
 * (tests/gpu/hidden_probe.sh; H100, driver 580.159.04, 2026-11-21; see
 * docs/HIDDEN_API.md), and the fake driver's. CUDART_INTERFACE and
 * INTEGRITY_CHECK are not: the runtime hashes their addresses and fails
 * with error 103 "integrity checks failed" when given copies. */
static const char *const default_wrap[] = {
    "TOOLS_RUNTIME_CALLBACK_HOOKS", "TOOLS_TLS", "CONTEXT_LOCAL_STORAGE", "CONTEXT_CHECKS", "TOOLS_CONTEXT",
    "f8cff95121468b4eb9e2fb469e7c0dd9", "69a28e9f24498b47b030c5da330ea4e9", "1734dc26800d47458726c0f1e7dd8bca",
    "FAKE_SIZED", "FAKE_NOSIZE",
};

static const struct known_table *find_known(const unsigned char *uuid)
{
    for (size_t i = 0; i < NKNOWN; i++)
        if (!memcmp(known[i].uuid, uuid, 16))
            return &known[i];
    return NULL;
}

const char *cutap_export_table_name(const void *uuid16)
{
    const struct known_table *k = uuid16 ? find_known(uuid16) : NULL;
    return k ? k->name : NULL;
}

static void hexuuid(const unsigned char *u, char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", u[i]);
}

/* Read once at start (cutap_init): getenv at call time races with the
 * program's own setenv. */
static const char *hidden_policy;
void cutap_exporttable_configure(const char *policy)
{
    hidden_policy = policy && *policy ? strdup(policy) : NULL;
}

static int policy_says_wrap(const char *name, const char *hex)
{
    const char *p = hidden_policy;
    if (!p) {
        for (size_t i = 0; i < sizeof default_wrap / sizeof *default_wrap; i++)
            if (!strcmp(default_wrap[i], name ? name : hex))
                return 1;
        return 0;
    }
    if (!strcmp(p, "all"))
        return 1;
    size_t nl = name ? strlen(name) : 0;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if ((name && len == nl && !strncmp(s, name, len)) || (len == 32 && !strncasecmp(s, hex, 32)))
            return 1;
        s += len + (e ? 1 : 0);
    }
    return 0;
}

/* One wrapped copy per real table, made once and kept for good (the
 * runtime keeps table pointers forever). */
#define MAX_TABLES 64
static struct {
    const void *real;
    const void *copy;
} tables[MAX_TABLES];
static unsigned ntables;
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(tab_lock)

static const void *make_copy(const void *real, const char *tname, int nosize_slots)
{
    const uintptr_t *w = real;
    size_t nwords, first;
    if (nosize_slots > 0) {
        nwords = (size_t)nosize_slots;
        first = 0;
    } else {
        /* A plausible size word: a multiple of 8 between 16 bytes and 4 KiB.
         * Anything else means we do not know the length: observe only. */
        if (w[0] < 16 || w[0] > 4096 || w[0] % 8)
            return NULL;
        nwords = w[0] / 8;
        first = 1;
    }
    uintptr_t *copy = calloc(nwords, sizeof *copy);
    if (!copy)
        return NULL;
    memcpy(copy, w, nwords * sizeof *copy);
    for (size_t s = first; s < nwords; s++) {
        void *fn = (void *)w[s];
        /* Only slots that point into executable code get a trampoline;
         * anything else (data, NULL) is copied as it is. */
        if (!fn || !cutap_addr_is_code(fn))
            continue;
        char name[96];
        snprintf(name, sizeof name, "%s#%zu", tname, s);
        struct cutap_tramp_ctx *ctx = NULL;
        uint32_t id = cutap_id_new(name, CUTAP_LAYER_HIDDEN, &ctx);
        void *stub = ctx ? cutap_tramp_make_stub(ctx) : NULL;
        if (!stub)
            continue;   /* that slot stays the real function */
        ctx->reserved = (uint64_t)(uintptr_t)stub;
        __atomic_store_n(&ctx->real, fn, __ATOMIC_RELEASE);
        cutap_refresh_id(id);
        copy[s] = (uintptr_t)stub;
    }
    return copy;
}

static void fix(cutap_call_t *call)
{
    const void **pp = (const void **)(uintptr_t)call->args[0];
    const unsigned char *uuid = (const unsigned char *)(uintptr_t)call->args[1];
    if (call->result != CUTAP_CUDA_SUCCESS || !pp || !*pp || !uuid)
        return;
    const struct known_table *k = find_known(uuid);
    char hex[33];
    hexuuid(uuid, hex);
    const char *tname = k ? k->name : hex;
    cutap_log_debug("export table %s at %p: word 0 = %#lx", tname, *pp, (unsigned long)*(const uintptr_t *)*pp);
    if (!policy_says_wrap(k ? k->name : NULL, hex))
        return;
    /* Made outside the lock (make_copy asks the loader about addresses);
     * if two threads race, the first copy published wins and the other is
     * dropped (its stubs stay valid, unused). */
    const void *real = *pp, *copy = NULL;
    pthread_mutex_lock(&tab_lock);
    for (unsigned i = 0; i < ntables; i++)
        if (tables[i].real == real)
            copy = tables[i].copy;
    pthread_mutex_unlock(&tab_lock);
    if (!copy) {
        const void *made = make_copy(real, tname, k ? k->nslots_nosize : 0);
        pthread_mutex_lock(&tab_lock);
        for (unsigned i = 0; i < ntables; i++)
            if (tables[i].real == real)
                copy = tables[i].copy;
        if (!copy && made && ntables < MAX_TABLES) {
            tables[ntables].real = real;
            tables[ntables++].copy = made;
            copy = made;
        }
        pthread_mutex_unlock(&tab_lock);
    }
    if (copy)
        *pp = copy;
    else
        cutap_warn("export table %s: length unknown, observed only", tname);
}

void cutap_exporttable_init(void)
{
    cutap_fixup[CUTAP_ID_cuGetExportTable] = fix;
}
