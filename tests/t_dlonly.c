/* A program that never links the driver: it opens it by absolute path
 * (argv[1], a driver whose symbols carry version LIBCUDA_FAKE_ALT) after
 * cutap has initialised, and reaches it through dlsym, dlvsym and
 * cuGetProcAddress_v2. Under EXPECT_CUTAP=1 every pointer must be cutap's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad, expect_cutap;

static void check(void *p, const char *name)
{
    Dl_info i;
    const char *o = p && dladdr(p, &i) && i.dli_fname ? strrchr(i.dli_fname, '/') : NULL;
    if (!p || (expect_cutap && (!o || strcmp(o, "/libcutap.so")))) {
        fprintf(stderr, "FAIL %s: %p in %s\n", name, p, o ? o : "?");
        bad++;
    }
}

int main(int argc, char **argv)
{
    expect_cutap = getenv("EXPECT_CUTAP") != NULL;
    void *h = dlopen(argc > 1 ? argv[1] : "", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "t_dlonly: %s\n", dlerror());
        return 2;
    }
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    int (*ver)(int *) = (int (*)(int *))dlvsym(h, "cuDriverGetVersion", "LIBCUDA_FAKE_ALT");
    int (*gpa)(const char *, void **, int, uint64_t, int *) =
        (int (*)(const char *, void **, int, uint64_t, int *))dlsym(h, "cuGetProcAddress_v2");
    uint64_t (*count)(const char *) = (uint64_t (*)(const char *))dlsym(h, "fake_count_name");
    check((void *)init, "cuInit"), check((void *)ver, "cuDriverGetVersion (dlvsym)"), check((void *)gpa, "cuGetProcAddress_v2");
    if (!init || !ver || !gpa || !count)
        return 1;
    int v = 0;
    void *p = NULL;
    bad += init(0) != 0;
    bad += ver(&v) != 0 || v != 13000;
    bad += gpa("cuMemcpyHtoD", &p, 12000, 2, NULL) != 0;
    Dl_info i;
    if (!p || !dladdr(p, &i) || !i.dli_sname || strcmp(i.dli_sname, "cuMemcpyHtoD_v2_ptds")) {
        fprintf(stderr, "FAIL cuGetProcAddress gave %s\n", p && dladdr(p, &i) && i.dli_sname ? i.dli_sname : "?");
        bad++;
    }
    check(p, "cuMemcpyHtoD_v2_ptds");
    bad += count("cuInit") != 1 || count("cuDriverGetVersion") != 1 || count("cuGetProcAddress_v2") != 1;
    printf("CALL cuInit\nCALL cuDriverGetVersion\nCALL cuGetProcAddress_v2\n");
    printf("dlonly: %s\n", bad ? "FAILED" : "OK");
    return bad != 0;
}
