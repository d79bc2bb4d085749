/* The built-in demo: a program that reaches the driver the way the CUDA
 * runtime does. It opens libcuda.so.1 itself, takes cuGetProcAddress_v2
 * with dlsym, resolves entry points through it by base name, version and
 * per-thread-stream flag, calls them, and calls through an export table.
 * `make demo` runs it on the fake driver under cutap; nothing in the
 * program knows about cutap. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*gpa_fn)(const char *, void **, int, uint64_t, int *);

int main(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "demo: %s\n", dlerror());
        return 1;
    }
    gpa_fn gpa = (gpa_fn)dlsym(h, "cuGetProcAddress_v2");
    if (!gpa)
        return 1;
    int (*init)(unsigned) = NULL;
    int (*ver)(int *) = NULL;
    int (*alloc)(uint64_t *, size_t) = NULL;
    int (*htod)(uint64_t, const void *, size_t) = NULL;
    int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **) = NULL;
    int (*freep)(uint64_t) = NULL;
    int (*etbl)(const void **, const void *) = NULL;
    gpa("cuInit", (void **)&init, 13000, 0, NULL);
    gpa("cuDriverGetVersion", (void **)&ver, 13000, 0, NULL);
    gpa("cuMemAlloc", (void **)&alloc, 13000, 0, NULL);
    gpa("cuMemcpyHtoD", (void **)&htod, 13000, 2 /* per-thread default stream */, NULL);
    gpa("cuLaunchKernel", (void **)&launch, 13000, 2, NULL);
    gpa("cuMemFree", (void **)&freep, 13000, 0, NULL);
    gpa("cuGetExportTable", (void **)&etbl, 13000, 0, NULL);
    if (!init || !ver || !alloc || !htod || !launch || !freep || !etbl)
        return 1;
    int v = 0;
    uint64_t d = 0;
    float x[256] = {0};
    init(0);
    ver(&v);
    alloc(&d, sizeof x);
    htod(d, x, sizeof x);
    /* The launches name no real kernel and the export table is the fake
     * driver's own: made only there (tests/fake exports fake_count_name),
     * so the demo also runs, shorter, where a real driver answers. */
    int fake = dlsym(h, "fake_count_name") != NULL;
    void *params[] = {&d};
    for (int i = 0; fake && i < 3; i++)
        launch((void *)0x1234, 8, 1, 1, 128, 1, 1, 0, NULL, params, NULL);
    freep(d);
    static const unsigned char uuid[16] = {0xfa, 0x4e, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
    const uintptr_t *t = NULL;
    if (fake && etbl((const void **)&t, uuid) == 0 && t)
        ((int (*)(int))t[1])(41);
    printf("demo: driver version %d, allocated 0x%llx%s\n", v, (unsigned long long)d,
           fake ? "" : " (a real driver: no launch, no fake export table)");
    return 0;
}
