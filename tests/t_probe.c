/* What a program probing for CUDA finds, in every lookup form, before and
 * after it loads the driver itself (case probe_lookups_unchanged: the
 * output must be the same bare and under cutap). Not linked against
 * libcuda.so.1; libcuda.so.1 (the fake) and libcublas.so.13 (a fake) are
 * on LD_LIBRARY_PATH, as a machine's own copies would be.
 *
 *   t_probe lookups   dlsym/dlvsym on RTLD_DEFAULT, RTLD_NEXT and the
 *                     program's handle, for driver and library names,
 *                     with nothing loaded; then with the driver opened
 *                     RTLD_LOCAL (still not in the global scope), then
 *                     promoted to RTLD_GLOBAL. A found function is called.
 *   t_probe weak      the weak references (which bind to cutap's exports
 *                     under cutap: README, Limits): called, and whether
 *                     a driver or a cuBLAS is mapped after the calls
 *                     (cutap must not load one the program did not).
 *   t_probe local LIB opens LIB (tests/lib_probe_local.c: linked against
 *                     libcuda.so.1) RTLD_LOCAL, after a lookup of a glibc
 *                     function whose name starts like CUDA's on the
 *                     program's own handle; LIB's own calls, and its
 *                     dlsym(RTLD_DEFAULT) of a driver function, as bare.
 *   t_probe nocuda    lookups and requests that only look like CUDA's
 *                     (cuserid, curl_*, an ioctl numbered like a UVM
 *                     command on a regular file): whether cutap's core got
 *                     loaded for them (it must not). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "dl_util.h"

int cuInit(unsigned flags) __attribute__((weak));
int cuDriverGetVersion(int *v) __attribute__((weak));
unsigned cublasCreate_v2(void **handle) __attribute__((weak));

/* One lookup: NULL, or found (and, for cuDriverGetVersion, its answer). */
static void show(const char *form, void *p, const char *name)
{
    printf("%-28s %-22s ", form, name);
    if (!p) {
        printf("NULL\n");
        return;
    }
    if (!strcmp(name, "cuDriverGetVersion")) {
        int v = -1, rc = ((int (*)(int *))p)(&v);
        printf("found: rc %d version %d\n", rc, v);
    } else {
        printf("found\n");
    }
}

static void probe(const char *when, void *self)
{
    static const char *const names[] = {"cuInit", "cuDriverGetVersion", "cuGetProcAddress_v2", "cublasCreate_v2",
                                        "cudaMalloc", "ncclGetVersion"};
    char form[64];
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(form, sizeof form, "%s RTLD_DEFAULT", when);
        show(form, dlsym(RTLD_DEFAULT, names[i]), names[i]);
        snprintf(form, sizeof form, "%s RTLD_NEXT", when);
        show(form, dlsym(RTLD_NEXT, names[i]), names[i]);
        snprintf(form, sizeof form, "%s dlopen(NULL)", when);
        show(form, dlsym(self, names[i]), names[i]);
        snprintf(form, sizeof form, "%s dlvsym DEFAULT", when);
        show(form, dlvsym(RTLD_DEFAULT, names[i], "libcuda.so.1"), names[i]);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "lookups")) {
        void *self = dlopen(NULL, RTLD_NOW);
        probe("none loaded:", self);
        void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!drv) {
            printf("cannot open libcuda.so.1: %s\n", dlerror());
            return 2;
        }
        probe("driver local:", self);
        show("driver local: its handle", dlsym(drv, "cuDriverGetVersion"), "cuDriverGetVersion");
        if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL))
            return 2;
        probe("driver global:", self);
        return 0;
    }
    if (argc > 2 && !strcmp(argv[1], "local")) {
        /* the program's handle searched for a cu* name that is no CUDA's */
        show("program handle", dlsym(dlopen(NULL, RTLD_NOW), "cuserid"), "cuserid");
        void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
        int (*calls)(int *) = h ? (int (*)(int *))dlsym(h, "probe_local_calls") : NULL;
        int (*dflt)(int *) = h ? (int (*)(int *))dlsym(h, "probe_local_default") : NULL;
        if (!calls || !dflt) {
            printf("cannot open %s\n", argv[2]);
            return 2;
        }
        int v = -1;
        printf("its calls: %d (%d)\n", calls(&v), v);
        v = -1;
        printf("its RTLD_DEFAULT lookup: %d (%d)\n", dflt(&v), v);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "nocuda")) {
        show("RTLD_DEFAULT", dlsym(RTLD_DEFAULT, "cuserid"), "cuserid");
        show("program handle", dlsym(dlopen(NULL, RTLD_NOW), "curl_easy_init"), "curl_easy_init");
        FILE *f = tmpfile();
        int blk = 0, r = f ? ioctl(fileno(f), 2 /* FIGETBSZ */, &blk) : -1;
        printf("FIGETBSZ on a file: %s\n", r == 0 ? "ok" : "failed");
        printf("core mapped: %s\n", mapped("libcutap_core") ? "yes" : "no");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "weak")) {
        /* Bare, the references are NULL: the program says so and stops,
         * as optional-GPU code does. Under cutap they are its exports. */
        if (!cuInit) {
            printf("no driver linked\n");
            return 3;
        }
        int v = -1;
        printf("cuInit = %d\n", cuInit(0));
        printf("cuDriverGetVersion = %d (%d)\n", cuDriverGetVersion(&v), v);
        void *h = NULL;
        printf("cublasCreate_v2 = %u\n", cublasCreate_v2(&h));
        printf("libcuda mapped: %s, libcublas mapped: %s\n", mapped("libcuda") ? "yes" : "no",
               mapped("libcublas") ? "yes" : "no");
        return 0;
    }
    fprintf(stderr, "usage: t_probe lookups|weak|local LIB|nocuda\n");
    return 2;
}
