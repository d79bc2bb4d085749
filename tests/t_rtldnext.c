/* Prints what RTLD_NEXT lookups made by another library return; the runner
 * compares the output with and without cutap. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "dl_util.h"

int tap_probe(void);
void *next_probe(void);
void *next_cuinit(void);
void *next_missing(void);

int main(void)
{
    int (*p)(void) = (int (*)(void))next_probe();
    printf("tap_probe here=%d next=%s value=%d\n", tap_probe(), object_of((void *)p), p ? p() : -1);
    printf("missing=%s\n", object_of(next_missing()));
    void *ci = next_cuinit();
    Dl_info i;
    printf("cuInit next: %s %s\n", ci ? "found" : "null", ci && dladdr(ci, &i) && i.dli_sname ? i.dli_sname : "?");
    /* The object itself is reported separately: libcuda.so.1 without
     * cutap, libcutap.so (the wrapper of that same function) with it. */
    fprintf(stderr, "cuInit owner: %s\n", object_of(ci));
    return 0;
}
