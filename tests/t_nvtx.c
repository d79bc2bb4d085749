/* NVTX under cutap (cutap as the NVTX injection library): a program that
 * annotates its driver calls with NVTX 3 (header-only, nvtx3/nvToolsExt.h),
 * for the nvtx_* cases (tests/cases/nvtx/). It prints "CALL <name>" for each driver
 * call and "NVTX <what>" for each annotation, the same with and without
 * cutap. With EXPECT_NVTX=1 (cutap attached) it also checks the values NVTX
 * returns (levels, ids), and fails if they are wrong.
 *
 *   t_nvtx          ranges and marks: outer { cuDriverGetVersion, mark,
 *                   inner { cuCtxGetCurrent } }, a start/end range ended on
 *                   another thread, Ex pushes with ASCII messages (default
 *                   domain and a domain), a registered string, a worker
 *                   thread's own range
 *   t_nvtx hostile  what a reader must survive: pops with nothing open,
 *                   an end of an id never started, a start never ended,
 *                   300 nested ranges, ranges left open at exit */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>

#include "cuda_min.h"

static int expect, bad;

static void called(const char *name) { printf("CALL %s\n", name); }

/* A value NVTX returned, checked only when cutap is attached (without a
 * tool NVTX returns -2 for every push and pop, 0 for every id). */
static void want(const char *what, long long got, long long exp)
{
    if (expect && got != exp) {
        fprintf(stderr, "t_nvtx: %s returned %lld, want %lld\n", what, got, exp);
        bad = 1;
    }
}

static nvtxEventAttributes_t ascii(const char *msg)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xff00ff00;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = msg;
    return a;
}

static nvtxRangeId_t async_id;

static void *worker(void *arg)
{
    (void)arg;
    nvtxRangeEnd(async_id);   /* ends the range main started */
    puts("NVTX end async (worker)");
    want("worker push", nvtxRangePushA("worker"), 0);
    puts("NVTX push worker");
    int n = 0;
    bad |= cuDeviceGetCount(&n) != CUDA_SUCCESS;
    called("cuDeviceGetCount");
    want("worker pop", nvtxRangePop(), 0);
    puts("NVTX pop worker");
    return NULL;
}

static int ranges(void)
{
    int v = 0;
    CUcontext ctx;
    bad |= cuInit(0) != CUDA_SUCCESS;
    called("cuInit");
    want("push outer", nvtxRangePushA("outer"), 0);
    puts("NVTX push outer");
    bad |= cuDriverGetVersion(&v) != CUDA_SUCCESS;
    called("cuDriverGetVersion");
    nvtxMarkA("tick");
    puts("NVTX mark tick");
    want("push inner", nvtxRangePushA("inner"), 1);
    puts("NVTX push inner");
    bad |= cuCtxGetCurrent(&ctx) != CUDA_SUCCESS;
    called("cuCtxGetCurrent");
    want("pop inner", nvtxRangePop(), 1);
    puts("NVTX pop inner");
    want("pop outer", nvtxRangePop(), 0);
    puts("NVTX pop outer");

    /* a start/end range, ended by another thread */
    async_id = nvtxRangeStartA("async");
    want("start async != 0", async_id != 0, 1);
    puts("NVTX start async");
    bad |= cuDriverGetVersion(&v) != CUDA_SUCCESS;
    called("cuDriverGetVersion");
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) || pthread_join(th, NULL))
        return 1;

    /* Ex with an ASCII message, default domain */
    nvtxEventAttributes_t a = ascii("expush");
    want("push expush", nvtxRangePushEx(&a), 0);
    puts("NVTX pushEx expush");
    bad |= cuDriverGetVersion(&v) != CUDA_SUCCESS;
    called("cuDriverGetVersion");
    want("pop expush", nvtxRangePop(), 0);
    puts("NVTX pop expush");

    /* a domain: Ex with an ASCII message, and with a registered string */
    nvtxDomainHandle_t dom = nvtxDomainCreateA("mydomain");
    puts("NVTX domain mydomain");
    a = ascii("dompush");
    want("domain push", nvtxDomainRangePushEx(dom, &a), 0);
    puts("NVTX domain pushEx dompush");
    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(dom, "registered");
    nvtxEventAttributes_t b = ascii(NULL);
    b.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    b.message.registered = reg;
    want("domain push registered", nvtxDomainRangePushEx(dom, &b), 1);
    puts("NVTX domain pushEx registered");
    bad |= cuCtxGetCurrent(&ctx) != CUDA_SUCCESS;
    called("cuCtxGetCurrent");
    want("domain pop", nvtxDomainRangePop(dom), 1);
    want("domain pop", nvtxDomainRangePop(dom), 0);
    puts("NVTX domain pop pop");
    want("empty pop", nvtxRangePop(), -1);
    puts("NVTX pop (none open)");
    return bad;
}

static int hostile(void)
{
    int v = 0;
    nvtxRangePop();
    nvtxRangePop();
    puts("NVTX pop pop (none open)");
    nvtxRangeEnd(123456789);
    puts("NVTX end of an unknown id");
    nvtxRangeStartA("never ended");
    puts("NVTX start never ended");
    for (int i = 0; i < 300; i++) {
        char name[32];
        snprintf(name, sizeof name, "level %d", i);
        nvtxRangePushA(name);
        if (cuDriverGetVersion(&v) != CUDA_SUCCESS)
            return 1;
        called("cuDriverGetVersion");
    }
    puts("NVTX 300 nested pushes");
    for (int i = 0; i < 300; i++)
        nvtxRangePop();
    puts("NVTX 300 pops");
    nvtxRangePushA("left open");
    nvtxRangePushA("left open too");
    if (cuDriverGetVersion(&v) != CUDA_SUCCESS)
        return 1;
    called("cuDriverGetVersion");
    puts("NVTX 2 pushes never popped");
    return 0;
}

int main(int argc, char **argv)
{
    const char *e = getenv("EXPECT_NVTX");
    expect = e && !strcmp(e, "1");
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && !strcmp(argv[1], "hostile"))
        return hostile();
    return ranges();
}
