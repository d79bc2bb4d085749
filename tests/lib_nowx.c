/* A W^X policy, as SELinux's execmem denial or PaX/grsecurity enforce:
 * preloaded, it refuses every mprotect and mmap that asks for executable
 * memory (EACCES). The dynamic loader maps libraries with its own calls,
 * not these, so programs and libraries still load. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>

int mprotect(void *addr, size_t len, int prot)
{
    static int (*real)(void *, size_t, int);
    if (prot & PROT_EXEC) {
        errno = EACCES;
        return -1;
    }
    if (!real)
        real = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "mprotect");
    return real(addr, len, prot);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*real)(void *, size_t, int, int, int, off_t);
    if (prot & PROT_EXEC) {
        errno = EACCES;
        return MAP_FAILED;
    }
    if (!real)
        real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    return real(addr, len, prot, flags, fd, off);
}
