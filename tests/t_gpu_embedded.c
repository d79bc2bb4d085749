/* A program whose CUPTI is linked into a library of its own (as older
 * PyTorch builds link CUPTI statically into libtorch_cuda; here
 * tests/lib_embedded_cupti.c), loaded RTLD_LOCAL, with no libcupti
 * anywhere (issue #31). It takes cuptiActivityRegisterCallbacks by
 * dlsym(RTLD_DEFAULT), else from that library, calls it, and prints the
 * result and how many calls the library's function got: "embedded result
 * 0 calls 1" bare, and under cutap, whose export is the one RTLD_DEFAULT
 * finds there and must pass the call to the library's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    (void)argc;
    char path[4096];
    const char *slash = strrchr(argv[0], '/');
    snprintf(path, sizeof path, "%.*slibembedded_cupti.so", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    int (*reg)(void *, void *) = (int (*)(void *, void *))dlsym(RTLD_DEFAULT, "cuptiActivityRegisterCallbacks");
    if (!reg)
        reg = (int (*)(void *, void *))dlsym(h, "cuptiActivityRegisterCallbacks");
    int r = reg ? reg(NULL, NULL) : -1;
    int *calls = (int *)dlsym(h, "embedded_calls");
    printf("embedded result %d calls %d\n", r, calls ? *calls : -1);
    return 0;
}
