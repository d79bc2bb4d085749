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
 * size word. The runtime verifies two tables (INTEGRITY_CHECK hashes their
 * addresses: resolve/integrity.c wraps them only where it has shown that it
 * recomputes the driver's answer), so handing out copies is per table:
 *   CUTAP_HIDDEN unset        the tables in default_wrap[] (checked on GPUs)
 *   CUTAP_HIDDEN=observe      no table is wrapped
 *   CUTAP_HIDDEN=all          every table whose length is known
 *   CUTAP_HIDDEN=A,B,...      these names or 32-hex-digit UUIDs
 *   CUTAP_HIDDEN=+A,+B,...    the default tables and these
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve_internal.h"
#include "export_tables.h"
#include "generated/hidden_tables.h"



/* Tables wrapped when CUTAP_HIDDEN is unset: "wrap" in gen/specs/hidden.py,
 * with the evidence for each (tests/gpu/hidden_probe.sh, docs/HIDDEN_API.md),
 * generated into src/common/generated/hidden_tables.h. CUDART_INTERFACE and
 * INTEGRITY_CHECK are not: the runtime hashes their addresses and fails
 * with error 103 "integrity checks failed" when given copies. */
static const char *const default_wrap[] = {CUTAP_DEFAULT_WRAP};

const char *cutap_export_table_name(const void *uuid16)
{
    const struct cutap_known_table *k = uuid16 ? cutap_known_table(uuid16) : NULL;
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
    /* unset, or "+A,+B": the default tables (and those named) */
    if (!p || *p == '+') {
        for (size_t i = 0; i < sizeof default_wrap / sizeof *default_wrap; i++)
            if (!strcmp(default_wrap[i], name ? name : hex))
                return 1;
        if (!p)
            return 0;
    }
    if (!strcmp(p, "all"))
        return 1;
    size_t nl = name ? strlen(name) : 0;
    for (const char *s = p; *s;) {
        s += *s == '+';
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

#define TAIL_WORDS 32

/* plain: only the runtime-callback protocol's slots are cutap's (the
 * policy does not wrap the table, the default runtime mode needs it). */
static const void *make_copy(const void *real, const char *tname, int nosize_slots, int integrity, int plain)
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
    /* A caller may read past the length the table declares (a runtime
     * newer than the driver, or a short table): it would read the driver's
     * memory after the table, so the copy carries those words too, as they
     * are, where they can be read (never trampolines). */
    size_t tail = TAIL_WORDS;
    while (tail && !cutap_readable(w + nwords, tail * sizeof *w))
        tail /= 2;
    uintptr_t *copy = calloc(nwords + tail, sizeof *copy);
    if (!copy)
        return NULL;
    int rt_table = !strcmp(tname, "TOOLS_RUNTIME_CALLBACK_HOOKS");
    memcpy(copy, w, (nwords + tail) * sizeof *copy);
    for (size_t s = first; s < nwords; s++) {
        void *fn = (void *)w[s];
        /* Only slots that point into executable code get a trampoline;
         * anything else (data, NULL) is copied as it is. */
        if (!fn || !cutap_addr_is_code(fn))
            continue;
        /* The runtime copies' reports of their calls (resolve/rt_hooks.c):
         * slots 1, 2 and 4 are that protocol's, handled, not recorded. */
        void *own = rt_table && cutap_rt_hooks ? cutap_rt_hooks_slot((unsigned)s, fn) : NULL;
        if (own) {
            copy[s] = (uintptr_t)own;
            continue;
        }
        if (plain)
            continue;
        char name[96];
        snprintf(name, sizeof name, "%s#%zu", tname, s);
        struct cutap_tramp_ctx *ctx = NULL;
        uint32_t id = cutap_id_new(name, CUTAP_LAYER_HIDDEN, &ctx);
        void *stub = ctx ? cutap_stub_or_warn(ctx) : NULL;
        if (!stub)
            continue;   /* that slot stays the real function */
        ctx->reserved = (uint64_t)(uintptr_t)stub;
        /* INTEGRITY_CHECK#1: the driver's answer recomputed for the copies
         * (resolve/integrity.c), recorded like any slot */
        if (integrity && s == 1)
            fn = cutap_integrity_slot1_fn();
        __atomic_store_n(&ctx->real, fn, __ATOMIC_RELEASE);
        cutap_refresh_id(id);
        if (rt_table)
            cutap_cupti_hook_slot(id, (unsigned)s);
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
    /* The libcupti cutap starts for --gpu, asking on cutap's starting
     * thread: the driver's own table. CUPTI's slot calls are many (67,168
     * against the program's 970 in a PyTorch step, docs/HIDDEN_API.md),
     * the instrument's, never recorded (cutap_cupti_object): through a
     * copy each would pass a trampoline for nothing. */
    if (cutap_tls.real_tables)
        return;
    const struct cutap_known_table *k = cutap_known_table(uuid);
    char hex[33];
    hexuuid(uuid, hex);
    const char *tname = k ? k->name : hex;
    cutap_log_debug("export table %s at %p: word 0 = %#lx", tname, *pp, (unsigned long)*(const uintptr_t *)*pp);
    int plain = 0;
    if (!policy_says_wrap(k ? k->name : NULL, hex)) {
        if (!(cutap_rt_hooks && k && !strcmp(k->name, "TOOLS_RUNTIME_CALLBACK_HOOKS")))
            return;
        plain = 1;   /* the default runtime mode needs its protocol's slots */
    }
    /* The two tables the runtime verifies: only where this process has
     * shown that cutap computes the driver's answer (resolve/integrity.c). */
    int verified = cutap_integrity_table(uuid);
    if (verified && !cutap_integrity_copies_ok())
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
        const void *made = make_copy(real, tname, k ? k->nslots_nosize : 0,
                                     verified && !strcmp(tname, "INTEGRITY_CHECK"), plain);
        pthread_mutex_lock(&tab_lock);
        for (unsigned i = 0; i < ntables; i++)
            if (tables[i].real == real)
                copy = tables[i].copy;
        if (!copy && made && ntables < MAX_TABLES) {
            tables[ntables].real = real;
            tables[ntables++].copy = made;
            copy = made;
            if (verified)
                cutap_integrity_given(uuid, made, (void *)((const uintptr_t *)made)[1]);
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
