/* Runtime copies whose reports cutap does not understand (issue #25):
 * through the driver's TOOLS_RUNTIME_CALLBACK_HOOKS, as tests/rt_copy.h
 * reports, each from a call site of its own:
 *   unmapped   the record pointer is an inaccessible page
 *   short      a record of 16 bytes (smaller than the fields cutap reads)
 *   badname    a record whose name points to an inaccessible page
 *   good       a well-formed report (cudaGetDevice), from a fourth site
 * A cutap that read these records blindly would fault. Each report is made
 * only where the copy's word for its callback id is set. stdout: what was
 * reported and "survived"; the result is the same with and without cutap.
 *   t_bad_report stale: a well-formed report (#4 then #1, record A), then a
 *   #1 with no #4 before it (record B). Where a CUPTI client wants the
 *   reports, a cutap that passed #1 on with the arguments of the earlier #4
 *   would have the driver's #4 write A's context uid again, after A is
 *   gone: prints "stale #4: no" or "stale #4: YES".
 *   t_bad_report noexit: two cudaGetDevice whose entry is reported and
 *   whose exit is not, then a cudaMalloc reported whole, all from one
 *   function (so their records lie at one stack address, as a runtime's
 *   calls made one after another from one place do): prints "noexit".
 *   t_bad_report entryresult: three cudaMalloc reported whole through one
 *   call site (entry and exit alike, as a runtime's reporting helper is),
 *   each entry's result field pointing to an inaccessible page (CUDA 11.8
 *   and 12.4 runtimes leave stack contents there at some entries), each
 *   exit's to the result: prints "entryresult".
 *   t_bad_report v2: a whole cudaStreamGetCaptureInfo_v2 reported (callback
 *   id 409, CUDA 11.3 to 12.x: 6 parameters, every output pointer valid),
 *   its parameter struct followed by an unmapped address (0x18) where 13.0's
 *   7-parameter cudaStreamGetCaptureInfo has its last output: a cutap that
 *   took "_v2" for a version suffix read that as an output pointer
 *   (SIGSEGV, seen under a 12.4 static runtime on the H100): prints "v2".
 *   t_bad_report older: a static CUDA 11.8 runtime's reports by callback
 *   ids that are not 13.0's newest for their function: cudaGraphInstantiate
 *   by 310 (_v10000: 11.8's 5 parameters, 13.0's has 3) and
 *   cudaGetDeviceProperties by 4 (_v3020: the same 2 parameters as 13.0's,
 *   whose id is 440), then cudaMemAdvise by 254 (11.8's: an int device)
 *   and by 448 (13.0's: a cudaMemLocation by value), two descriptions of
 *   one name in one trace: prints "older".
 *   t_bad_report stalevariant LIB: a 13.0 copy's cudaGraphInstantiate (callback
 *   id 443, 13.0's 3 parameters) reported, then LIB (the tests' CUDA 11.8
 *   fake libcudart.so.11.0) opened and its cudaGetDevice called (the runtime
 *   layer bound to 11.8, whose cudaGraphInstantiate takes 5), then the same
 *   report again, its struct followed by an unmapped address where 11.8's
 *   pLogBuffer would be: recorded without 11.8's captures (a plan made before
 *   the binding, used after, read it: SIGSEGV): prints "stalevariant".
 *   t_bad_report entrypoint: a CUDA 11.8 runtime's cudaGetDriverEntryPoint
 *   (callback id 406, which 13.0 keeps for its 4-parameter one: 11.8's has
 *   3), its struct followed by an unmapped address where 13.0's
 *   driverStatus output would be: prints "entrypoint". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda_min.h"
#include "cupti_min.h"

typedef uint64_t (*slot_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
static const uintptr_t *table;
static const volatile uint32_t *words;
static size_t nwords;

static int wanted(uint32_t cbid) { return words && cbid < nwords && words[cbid]; }

/* Each site function calls #1 itself: four call sites (return addresses). */
#define REPORT(cbid, rec)                                                                 \
    do {                                                                                  \
        ((slot_fn)table[4])(0, 0, 0, 0, 0, 0);                                           \
        ((slot_fn)table[1])((cbid), (uint64_t)(uintptr_t)(rec), 0, 0, 0x64, 0);         \
        __asm__ volatile("" ::: "memory");                                                \
    } while (0)
static __attribute__((noinline)) void site_unmapped(const void *rec) { REPORT(17, rec); }
static __attribute__((noinline)) void site_short(const void *rec) { REPORT(17, rec); }
static __attribute__((noinline)) void site_badname(const void *rec) { REPORT(17, rec); }
static __attribute__((noinline)) void site_good(const void *rec) { REPORT(17, rec); }
static __attribute__((noinline)) void site_both(const void *rec) { REPORT(20, rec); }
static __attribute__((noinline)) void site_v2(const void *rec) { REPORT(409, rec); }
static __attribute__((noinline)) void site_gi(const void *rec) { REPORT(310, rec); }
static __attribute__((noinline)) void site_gp(const void *rec) { REPORT(4, rec); }
static __attribute__((noinline)) void site_gi13(const void *rec) { REPORT(443, rec); }
static __attribute__((noinline)) void site_ep(const void *rec) { REPORT(406, rec); }
static __attribute__((noinline)) void site_ma11(const void *rec) { REPORT(254, rec); }
static __attribute__((noinline)) void site_ma13(const void *rec) { REPORT(448, rec); }

static __attribute__((noinline)) void one_call(uint32_t cbid, const char *name, int with_exit, int *out)
{
    int dev = 0, r = 0;
    struct { int *device; } params = {out ? out : &dev};
    struct rt_copy_record a = {.size = sizeof a, .name = name, .params = &params, .cbid = cbid, .site = 0};
    ((slot_fn)table[4])((uint64_t)(uintptr_t)&a, (uint64_t)(uintptr_t)&a.context_uid, 0, 0, 0, 0);
    ((slot_fn)table[1])(cbid, (uint64_t)(uintptr_t)&a, 0, 0, 0x64, 0);
    if (with_exit) {
        a.site = 1;
        a.result = &r;
        ((slot_fn)table[4])((uint64_t)(uintptr_t)&a, (uint64_t)(uintptr_t)&a.context_uid, 0, 0, 0, 0);
        ((slot_fn)table[1])(cbid, (uint64_t)(uintptr_t)&a, 0, 0, 0x64, 0);
    }
}

static __attribute__((noinline)) void stale(void)
{
    int dev = 0;
    struct { int *device; } params = {&dev};
    struct rt_copy_record a = {.size = sizeof a, .name = "cudaGetDevice", .params = &params, .cbid = 17, .site = 0};
    struct rt_copy_record b = a;
    ((slot_fn)table[4])((uint64_t)(uintptr_t)&a, (uint64_t)(uintptr_t)&a.context_uid, 0, 0, 0, 0);
    ((slot_fn)table[1])(17, (uint64_t)(uintptr_t)&a, 0, 0, 0x64, 0);
    a.context_uid = 0;
    ((slot_fn)table[1])(17, (uint64_t)(uintptr_t)&b, 0, 0, 0x64, 0);   /* no #4 before it */
    printf("stale #4: %s\n", a.context_uid ? "YES" : "no");
    b.site = 1;   /* the exits, so that nothing stays open */
    a.site = 1;
    ((slot_fn)table[4])((uint64_t)(uintptr_t)&a, (uint64_t)(uintptr_t)&a.context_uid, 0, 0, 0, 0);
    ((slot_fn)table[1])(17, (uint64_t)(uintptr_t)&a, 0, 0, 0x64, 0);
    ((slot_fn)table[4])((uint64_t)(uintptr_t)&b, (uint64_t)(uintptr_t)&b.context_uid, 0, 0, 0, 0);
    ((slot_fn)table[1])(17, (uint64_t)(uintptr_t)&b, 0, 0, 0x64, 0);
}

int main(int argc, char **argv)
{
    static const unsigned char uuid[16] = {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
                                           0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66};
    if (cuInit(0) != CUDA_SUCCESS || cuGetExportTable((const void **)&table, uuid) != CUDA_SUCCESS || !table)
        return 1;
    void *p = NULL;
    ((void (*)(void **, size_t *))table[2])(&p, &nwords);
    words = p;
    if (argc > 1 && !strcmp(argv[1], "stale")) {
        stale();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "noexit")) {
        if (wanted(17)) {
            one_call(17, "cudaGetDevice", 0, NULL);
            one_call(17, "cudaGetDevice", 0, NULL);
            one_call(20, "cudaMalloc", 1, NULL);
        }
        printf("noexit\n");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "noexitgone")) {
        /* a call whose exit never comes, its output in a page unmapped
         * before the next call's record lands at the same address */
        long ps = sysconf(_SC_PAGESIZE);
        int *gone = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (gone == MAP_FAILED)
            return 1;
        if (wanted(17)) {
            one_call(17, "cudaGetDevice", 0, gone);
            munmap(gone, (size_t)ps);
            one_call(17, "cudaGetDevice", 1, NULL);
        }
        printf("noexitgone\n");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "v2")) {
        if (wanted(409)) {
            int status = 0, r = 0;
            unsigned long long id = 0;
            void *graph = NULL, *deps = NULL;
            size_t ndeps = 0;
            /* cudaStreamGetCaptureInfo_v2_v11030_params, then the word 13.0's
             * seventh parameter would be read from */
            struct {
                void *stream, *status, *id, *graph, *deps, *ndeps;
                uint64_t after;
            } params = {NULL, &status, &id, &graph, &deps, &ndeps, 0x18};
            struct rt_copy_record a = {.size = sizeof a, .name = "cudaStreamGetCaptureInfo_v2", .params = &params,
                                       .cbid = 409, .site = 0};
            site_v2(&a);
            a.site = 1;
            a.result = &r;
            site_v2(&a);
        }
        printf("v2\n");
        return 0;
    }
    if (argc > 2 && !strcmp(argv[1], "stalevariant")) {
        if (wanted(443)) {
            void *exec = NULL;
            struct {
                void *pGraphExec, *graph;
                unsigned long long flags;
                uint64_t after[2];   /* where 11.8's pLogBuffer and bufferSize would be */
            } gi = {&exec, (void *)0x1234, 0, {0x18, 0x40}};
            for (int i = 0; i < 2; i++) {
                int r = 0;
                struct rt_copy_record a = {.size = sizeof a, .name = "cudaGraphInstantiate", .params = &gi,
                                           .cbid = 443};
                site_gi13(&a);
                a.site = 1;
                a.result = &r;
                site_gi13(&a);
                if (i)
                    break;
                void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
                int (*gd)(int *) = h ? (int (*)(int *))dlsym(h, "cudaGetDevice") : NULL;
                int dev = 0;
                if (!gd)
                    return 2;
                printf("cudaGetDevice = %d\n", gd(&dev));
            }
        }
        printf("stalevariant\n");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "entrypoint")) {
        if (wanted(406)) {
            int r = 0;
            void *fp = NULL;
            struct {
                const char *symbol;
                void **funcPtr;
                unsigned long long flags;
                uint64_t after;   /* 13.0's driverStatus */
            } ep = {"cuInit", &fp, 0, 0x18};
            struct rt_copy_record a = {.size = sizeof a, .name = "cudaGetDriverEntryPoint", .params = &ep, .cbid = 406};
            site_ep(&a);
            a.site = 1;
            a.result = &r;
            site_ep(&a);
        }
        printf("entrypoint\n");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "older")) {
        if (wanted(310) && wanted(4)) {
            int r = 0;
            char log[64];
            void *exec = NULL, *bad = NULL;
            struct {
                void *pGraphExec, *graph, *pErrorNode, *pLogBuffer;
                size_t bufferSize;
            } gi = {&exec, (void *)0x1234, &bad, log, sizeof log};
            struct rt_copy_record a = {.size = sizeof a, .name = "cudaGraphInstantiate", .params = &gi, .cbid = 310};
            site_gi(&a);
            a.site = 1;
            a.result = &r;
            site_gi(&a);
            unsigned char prop[1024] = {0};
            struct {
                void *prop;
                int device;
            } gp = {prop, 3};
            struct rt_copy_record b = {.size = sizeof b, .name = "cudaGetDeviceProperties", .params = &gp, .cbid = 4};
            site_gp(&b);
            b.site = 1;
            b.result = &r;
            site_gp(&b);
        }
        if (wanted(254) && wanted(448)) {
            int r = 0;
            static char mem[64];
            struct {
                void *devPtr;
                size_t count;
                int advice, device;
            } m11 = {mem, 64, 3, 5};
            struct rt_copy_record a = {.size = sizeof a, .name = "cudaMemAdvise", .params = &m11, .cbid = 254};
            site_ma11(&a);
            a.site = 1;
            a.result = &r;
            site_ma11(&a);
            struct {
                void *devPtr;
                size_t count;
                int advice;
                struct {
                    int type, id;
                } location;
            } m13 = {mem, 64, 3, {1, 7}};
            struct rt_copy_record b = {.size = sizeof b, .name = "cudaMemAdvise", .params = &m13, .cbid = 448};
            site_ma13(&b);
            b.site = 1;
            b.result = &r;
            site_ma13(&b);
        }
        printf("older\n");
        return 0;
    }
    long ps = sysconf(_SC_PAGESIZE);
    unsigned char *none = mmap(NULL, (size_t)ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (none == MAP_FAILED)
        return 1;
    if (argc > 1 && !strcmp(argv[1], "entryresult")) {
        for (int i = 0; i < 3 && wanted(20); i++) {
            void *dp = NULL;
            int r = 0;
            struct { void **devPtr; size_t size; } params = {&dp, 64};
            struct rt_copy_record a = {.size = sizeof a, .size_pad = 0x55d7, .name = "cudaMalloc",
                                       .params = &params, .result = none, .cbid = 20, .site = 0};
            site_both(&a);
            a.site = 1;
            a.result = &r;
            site_both(&a);
        }
        printf("entryresult\n");
        return 0;
    }
    int dev = 0, r = 0;
    struct { int *device; } params = {&dev};
    if (wanted(17)) {
        for (int site = 0; site < 2; site++) {   /* entry and exit */
            uint64_t shortrec[2] = {16, 17};
            struct rt_copy_record bad = {.size = sizeof bad, .name = (const char *)none, .params = &params,
                                         .result = &r, .cbid = 17, .site = (uint32_t)site};
            struct rt_copy_record good = {.size = sizeof good, .name = "cudaGetDevice", .params = &params,
                                          .result = site ? &r : NULL, .cbid = 17, .site = (uint32_t)site};
            site_unmapped(none);
            site_short(shortrec);
            site_badname(&bad);
            site_good(&good);
        }
        printf("reported: 4 entries, 4 exits\n");
    } else {
        printf("reported: none\n");
    }
    munmap(none, (size_t)ps);
    printf("survived\n");
    return 0;
}
