/* A library linked against libcuda.so.1, opened RTLD_LOCAL by t_probe (as
 * a Python extension is): its calls and its lookups come from inside a
 * group the global scope does not hold. */
#define _GNU_SOURCE
#include <dlfcn.h>

int cuInit(unsigned flags);
int cuDriverGetVersion(int *v);

/* Its own calls, bound through its PLT. */
int probe_local_calls(int *version)
{
    int a = cuInit(0);
    return a ? a : cuDriverGetVersion(version);
}

/* dlsym(RTLD_DEFAULT) from inside the group: the global scope, then this
 * library's own dependencies (its libcuda). */
int probe_local_default(int *version)
{
    int (*f)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "cuDriverGetVersion");
    return f ? f(version) : -1;
}
