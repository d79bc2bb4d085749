/* A driver-API program that manages its process as daemons and sandboxes
 * do, on the real driver (tests/gpu/harm.sh, issue #24). Each mode prints
 * deterministic lines and exits 0 when everything matched:
 *
 *   daemon fds DATA   asks the driver's version (cutap makes its trace file
 *                     then), closes every descriptor from 3 up, puts DATA
 *                     (1,000 bytes, made here) on every number from 3 to
 *                     1,000, then initialises CUDA, allocates, copies both
 *                     ways and frees; DATA must be unchanged.
 *   daemon std DATA   closes 0, 1, 2 first, does the CUDA work, then opens
 *                     /dev/null and DATA expecting descriptors 0 and 1
 *                     (writes the verdict into DATA).
 *   daemon tsc        forbids itself the time-stamp counter, then does the
 *                     CUDA work (only meaningful where it runs bare).
 *   daemon plain      the CUDA work alone. */
#define _GNU_SOURCE
#include <cuda.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char data[1000];

static int work(void)
{
    CUdevice d;
    CUcontext c;
    CUdeviceptr p;
    unsigned char in[4096], out[4096];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 7);
    if (cuInit(0) || cuDeviceGet(&d, 0) || cuDevicePrimaryCtxRetain(&c, d) || cuCtxSetCurrent(c) ||
        cuMemAlloc(&p, sizeof in) || cuMemcpyHtoD(p, in, sizeof in) || cuMemcpyDtoH(out, p, sizeof out) ||
        cuMemFree(p) || cuDevicePrimaryCtxRelease(d))
        return 1;
    return memcmp(in, out, sizeof in) != 0;
}

static int data_same(const char *path)
{
    char got[sizeof data + 1];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, got, sizeof got) : -1;
    if (fd >= 0)
        close(fd);
    return n == (ssize_t)sizeof data && !memcmp(got, data, sizeof data);
}

int main(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)('a' + i % 26);
    const char *m = argc > 1 ? argv[1] : "plain";
    if (!strcmp(m, "fds") && argc > 2) {
        int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || write(fd, data, sizeof data) != (ssize_t)sizeof data)
            return 2;
        close(fd);
        int v = 0;
        cuDriverGetVersion(&v);
        fflush(stdout);
        struct rlimit rl;
        getrlimit(RLIMIT_NOFILE, &rl);
        long top = rl.rlim_cur < 65536 ? (long)rl.rlim_cur : 65536;
        for (long i = 3; i < top; i++)
            close((int)i);
        fd = open(argv[2], O_RDWR);
        for (int i = fd + 1; i <= 1000 && i < top; i++)
            dup2(fd, i);
        int rc = work();
        for (int i = fd; i <= 1000 && i < top; i++)
            close(i);
        printf("fds: cuda %s, data %s\n", rc ? "FAILED" : "ok", data_same(argv[2]) ? "unchanged" : "CHANGED");
        return rc || !data_same(argv[2]);
    }
    if (!strcmp(m, "std") && argc > 2) {
        close(0);
        close(1);
        close(2);
        int rc = work();
        int in = open("/dev/null", O_RDONLY), out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dprintf(out, "std: cuda %s, stdin %d stdout %d\n", rc ? "FAILED" : "ok", in, out);
        return rc || in != 0 || out != 1;
    }
    if (!strcmp(m, "tsc")) {
        if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0))
            return 2;
        int rc = work();
        printf("tsc: cuda %s\n", rc ? "FAILED" : "ok");
        return rc;
    }
    int rc = work();
    printf("plain: cuda %s\n", rc ? "FAILED" : "ok");
    return rc;
}
