/* The fake driver's TOOLS_RUNTIME_CALLBACK_HOOKS, as the real driver 580's
 * (measured with tests/gpu/rt_hooks_probe.cu, docs/HIDDEN_API.md):
 *   word 0    the table's size (7 words)
 *   #2(&p,&n) the driver's runtime-callback words: n = 1024 32-bit words,
 *             word c set when a CUPTI subscriber wants runtime callback id
 *             c (here: the fake libcupti, through fake_tools_enable)
 *   #4(ctx, &record.context_uid, 0, ?, name, 0)   fills the context uid
 *   #1(cbid, &record, ...)  hands the report to CUPTI (the fake libcupti's
 *             fake_cupti_dispatch, when a tool loaded it)
 *   #3, #5    present, never called by a runtime; #6 a second buffer
 *             (14 words) no enabling changes.
 * and TOOLS_TLS, whose #2 the runtime calls before each #4.
 * A runtime copy (tests/rt_copy.h) reads the words at every call and
 * reports only what they ask for. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>

#include "fake_internal.h"

#define WORDS 1024
/* room past the n words, as the real driver's buffer has (its driver
 * domain's words follow): a runtime reading past n would read these */
static uint32_t tools_words[2 * WORDS];
static uint8_t tools_buf2[14 * 8];
static _Atomic uint64_t calls1, calls4, uid_missing;

static void tools_get_words(void **p, size_t *n)
{
    *p = tools_words;
    *n = WORDS;
}
static void tools_get_buf2(void **p, size_t *n)
{
    *p = tools_buf2;
    *n = 14;
}

/* The record's context uid, as the real #4 fills it. */
static uint64_t tools_fill(void *ctx, uint64_t *uid, uint64_t c, uint64_t d, const char *name, uint64_t f)
{
    (void)c, (void)d, (void)name, (void)f;
    calls4++;
    if (uid)
        *uid = ctx ? 7 : 0;
    return 0;
}

typedef void (*dispatch_fn)(const void *record);
static uint64_t tools_dispatch(uint64_t cbid, const void *record, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
    (void)c, (void)d, (void)e, (void)f;
    calls1++;
    if (!record || cbid >= WORDS || !tools_words[cbid])
        return 0;   /* nobody asked: the real driver's #1 does nothing either */
    const uint64_t *w = record;
    if (w[1] != 7)   /* the uid #4 fills: #4 was not called first, or not with this record */
        uid_missing++;
    static dispatch_fn _Atomic fn;
    dispatch_fn f1 = atomic_load(&fn);
    if (!f1) {
        void *lib = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);   /* loaded by a tool, or not at all */
        if (!lib || !(f1 = (dispatch_fn)dlsym(lib, "fake_cupti_dispatch")))
            return 0;
        atomic_store(&fn, f1);
    }
    f1(record);
    return 0;
}

static uint64_t tools_unused(void) { return 0; }

const uintptr_t fake_table_tools[7] = {7 * sizeof(uintptr_t), (uintptr_t)tools_dispatch,
                                       (uintptr_t)tools_get_words, (uintptr_t)tools_unused,
                                       (uintptr_t)tools_fill, (uintptr_t)tools_unused,
                                       (uintptr_t)tools_get_buf2};

/* TOOLS_TLS (2 slots): a CUDA 13 runtime whose words are set calls #2
 * just before #4 at each report (measured on the H100: twice a runtime
 * call); tests/rt_copy.h does the same. */
static _Atomic uint64_t tls_calls;
static uint64_t tools_tls_1(void) { return 0; }
static uint64_t tools_tls_2(uint64_t a, uint64_t b)
{
    (void)a, (void)b;
    tls_calls++;
    return 0;
}
const uintptr_t fake_table_tools_tls[3] = {3 * sizeof(uintptr_t), (uintptr_t)tools_tls_1, (uintptr_t)tools_tls_2};

/* CUPTI's enabling (the fake libcupti): cbid -1 is every id. */
FAKE_EXPORT void fake_tools_enable(int cbid, int on)
{
    for (int i = cbid < 0 ? 1 : cbid; i < (cbid < 0 ? WORDS : cbid + 1) && i < WORDS; i++)
        tools_words[i] = on ? 1 : 0;
}

/* Test hook: calls of #1 and #4 the driver got, #1 reports of an enabled
 * id whose record #4 had not filled, and TOOLS_TLS#2 calls. */
FAKE_EXPORT void fake_tools_counts(uint64_t *c1, uint64_t *c4, uint64_t *missing, uint64_t *tls2)
{
    *c1 = calls1, *c4 = calls4, *missing = uid_missing, *tls2 = tls_calls;
}
