/* The ioctl layer's test program (issue #15), run on the fake kernel
 * driver (tests/fake/fake_nvkernel.c, preloaded after libcutap; how: the
 * comment at its top) and the fake libcuda. Its output is deterministic,
 * the same bare and under cutap.
 *
 *   t_ioctl driver      cuInit, then from 4 threads each cuMemAlloc_v2 of
 *                       1 MiB, 4 KiB and 100 bytes and cuMemFree_v2 of the
 *                       three: the fake libcuda's requests (FAKE_NV_DEVDIR
 *                       must be set: fake_core.c lists them); waits for its
 *                       background thread.
 *   t_ioctl raw DIR     requests of every kind made directly on DIR/nvidiactl,
 *                       DIR/nvidia0 and DIR/nvidia-uvm, good and bad (bad
 *                       pointers: EFAULT), one line each: "label: ret errno"
 *                       and what the block says after (status, handles).
 *   t_ioctl other [DIR] ioctls, opens, mmaps of files that are not NVIDIA
 *                       devices (a pipe, a pty, a socket, a regular file,
 *                       DIR/nvidiactl when DIR is given: a plain file
 *                       outside the device directory); nothing of it may be
 *                       recorded in the ioctl layer.
 *   t_ioctl inherit DIR opens DIR/nvidiactl without O_CLOEXEC (under
 *                       another number than libcuda would get: 100) and
 *                       execs itself as "inherited 100": the new image
 *                       makes a CHECK_VERSION_STR request on the
 *                       descriptor it inherited, opened where no cutap of
 *                       its own saw it.
 * Exit status 0 when every result is the one expected, 1 otherwise. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <termios.h>
#include <unistd.h>

#include "cuda_min.h"
#define FAKE_NVKERNEL_TYPES_ONLY
#include "fake/fake_nvkernel.c"

int fake_nv_background_wait(void);   /* the fake libcuda's test hook */

static int failures;

static const char *err_name(int ret, int err)
{
    if (ret != -1)
        return "ok";
    switch (err) {
    case EFAULT: return "efault";
    case EINVAL: return "einval";
    case ENOTTY: return "enotty";
    case EBADF: return "ebadf";
    case ENOENT: return "enoent";
    default: return "error";
    }
}

/* One line per request; want: the errno name expected ("ok" for 0). */
static void show(const char *label, int ret, int err, const char *want, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void show(const char *label, int ret, int err, const char *want, const char *fmt, ...)
{
    const char *got = err_name(ret, err);
    printf("%s: %d %s", label, ret, got);
    if (fmt && *fmt) {
        va_list ap;
        va_start(ap, fmt);
        putchar(' ');
        vprintf(fmt, ap);
        va_end(ap);
    }
    if (strcmp(got, want)) {
        printf("   <- want %s", want);
        failures++;
    }
    putchar('\n');
}

static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("UNEXPECTED: %s\n", what);
        failures++;
    }
}

/* --- driver ---------------------------------------------------------------- */

#define THREADS 4
static int bad[THREADS];

static void *worker(void *arg)
{
    int k = (int)(intptr_t)arg;
    static const size_t sizes[3] = {1 << 20, 4096, 100};
    CUdeviceptr p[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        bad[k] += cuMemAlloc_v2(&p[i], sizes[i]) != CUDA_SUCCESS || !p[i];
    for (int i = 0; i < 3; i++)
        bad[k] += cuMemFree_v2(p[i]) != CUDA_SUCCESS;
    return NULL;
}

static int run_driver(void)
{
    int r = cuInit(0);
    printf("cuInit: %d\n", r);
    if (r)
        return 1;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    int total = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        total += bad[i];
    }
    printf("allocations: %d, frees: %d, failed: %d\n", 3 * THREADS, 3 * THREADS, total);
    int bg = fake_nv_background_wait();
    if (bg < 0)
        printf("background requests: none (is FAKE_NV_DEVDIR set?)\n");
    else
        printf("background requests: %d\n", bg);
    int ok = !total && bg == 3;
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

/* --- raw ----------------------------------------------------------------- */

static int open_dev(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    char label[64];
    snprintf(label, sizeof label, "open %s", name);
    show(label, fd < 0 ? -1 : 0, errno, "ok", NULL);
    return fd;
}

#define ESC(fd, nr, blk) ioctl((fd), FNV_IOWR((nr), sizeof *(blk)), (blk))

static uint32_t rm_alloc21(const char *label, int fd, uint32_t root, uint32_t parent, uint32_t hclass,
                           uint64_t params, uint32_t psize, const char *want, uint32_t want_status)
{
    struct fnv_nvos21 a = {.hRoot = root, .hObjectParent = parent, .hClass = hclass, .pAllocParms = params,
                           .paramsSize = psize};
    int r = ESC(fd, FNV_ESC_RM_ALLOC, &a);
    show(label, r, errno, want, "status 0x%x hObjectNew 0x%x hClass 0x%x", a.status, a.hObjectNew, a.hClass);
    if (!r)
        expect(a.status == want_status, label);
    return a.hObjectNew;
}

static uint32_t rm_control(const char *label, int fd, uint32_t client, uint32_t obj, uint32_t cmd, uint64_t params,
                           uint32_t psize, const char *want, uint32_t want_status)
{
    struct fnv_nvos54 c = {.hClient = client, .hObject = obj, .cmd = cmd, .params = params, .paramsSize = psize};
    int r = ESC(fd, FNV_ESC_RM_CONTROL, &c);
    show(label, r, errno, want, "status 0x%x", c.status);
    if (!r)
        expect(c.status == want_status, label);
    return c.status;
}

static int run_raw(const char *dir)
{
    int ctl = open_dev(dir, "nvidiactl");
    if (ctl < 0)
        return 1;
    int r;

    struct fnv_api_version v = {.cmd = FNV_VERSION_CMD_STRICT};
    snprintf(v.versionString, sizeof v.versionString, "%s", FNV_VERSION);
    r = ESC(ctl, FNV_ESC_CHECK_VERSION_STR, &v);
    show("CHECK_VERSION_STR", r, errno, "ok", "reply %u version %s", v.reply, v.versionString);
    struct fnv_api_version v2 = {.cmd = FNV_VERSION_CMD_STRICT};
    snprintf(v2.versionString, sizeof v2.versionString, "999.99");
    r = ESC(ctl, FNV_ESC_CHECK_VERSION_STR, &v2);
    show("CHECK_VERSION_STR mismatch", r, errno, "einval", "reply %u version %s", v2.reply, v2.versionString);

    struct fnv_card_info cards[8];
    memset(cards, 0xff, sizeof cards);
    r = ioctl(ctl, FNV_IOWR(FNV_ESC_CARD_INFO, sizeof cards), cards);
    int valid = 0;
    for (int i = 0; i < 8; i++)
        valid += cards[i].valid;
    show("CARD_INFO x8", r, errno, "ok", "valid %d pci %04x:%02x:%02x.%x %04x:%04x minor %u", valid,
         cards[0].domain, cards[0].bus, cards[0].slot, cards[0].function, cards[0].vendor_id, cards[0].device_id,
         cards[0].minor_number);

    uint32_t client = rm_alloc21("RM_ALLOC NV01_ROOT", ctl, 0, 0, FNV_NV01_ROOT, 0, 0, "ok", 0);
    struct fnv_nvos64 d = {.hRoot = client, .hObjectParent = client, .hClass = FNV_NV01_DEVICE_0};
    r = ESC(ctl, FNV_ESC_RM_ALLOC, &d);
    show("RM_ALLOC NV01_DEVICE_0 (NVOS64)", r, errno, "ok", "status 0x%x hObjectNew 0x%x", d.status, d.hObjectNew);
    uint32_t device = d.hObjectNew;
    uint32_t sub = rm_alloc21("RM_ALLOC NV20_SUBDEVICE_0", ctl, client, device, FNV_NV20_SUBDEVICE_0, 0, 0, "ok", 0);
    rm_alloc21("RM_ALLOC class 0xbad", ctl, client, device, FNV_CLASS_BAD, 0, 0, "ok", FNV_ERR_INVALID_CLASS);
    struct fnv_nvos64 given = {.hRoot = client, .hObjectParent = device, .hObjectNew = 0x5c000001u,
                               .hClass = FNV_NV01_MEMORY_LOCAL_USER, .pAllocParms = 8, .paramsSize = 16};
    r = ESC(ctl, FNV_ESC_RM_ALLOC, &given);
    show("RM_ALLOC bad alloc params", r, errno, "ok", "status 0x%x hObjectNew 0x%x", given.status, given.hObjectNew);
    expect(given.status == FNV_ERR_INVALID_ADDRESS, "RM_ALLOC bad alloc params: NV_ERR_INVALID_ADDRESS");
    uint64_t aparams[2] = {1, 2};
    uint32_t mem = rm_alloc21("RM_ALLOC NV01_MEMORY_LOCAL_USER", ctl, client, device, FNV_NV01_MEMORY_LOCAL_USER,
                              (uintptr_t)aparams, sizeof aparams, "ok", 0);

    int gpu = open_dev(dir, "nvidia0");
    if (gpu < 0)
        return 1;
    struct fnv_register_fd reg = {.ctl_fd = ctl};
    r = ESC(gpu, FNV_ESC_REGISTER_FD, &reg);
    show("REGISTER_FD", r, errno, "ok", NULL);
    struct fnv_register_fd reg2 = {.ctl_fd = gpu};
    r = ESC(gpu, FNV_ESC_REGISTER_FD, &reg2);
    show("REGISTER_FD not a ctl fd", r, errno, "einval", NULL);
    rm_alloc21("RM_ALLOC on nvidia0", gpu, client, device, FNV_NV01_MEMORY_LOCAL_USER, 0, 0, "einval", 0);

    struct fnv_nvos33_fd m = {.params = {.hClient = client, .hDevice = device, .hMemory = mem, .offset = 0x1000,
                                         .length = 0x1000},
                              .fd = gpu};
    r = ESC(ctl, FNV_ESC_RM_MAP_MEMORY, &m);
    show("RM_MAP_MEMORY", r, errno, "ok", "status 0x%x pLinearAddress 0x%llx", m.params.status,
         (unsigned long long)m.params.pLinearAddress);
    struct fnv_nvos33_fd m2 = m;
    m2.fd = ctl;
    r = ESC(ctl, FNV_ESC_RM_MAP_MEMORY, &m2);
    show("RM_MAP_MEMORY fd not a GPU", r, errno, "ok", "status 0x%x", m2.params.status);
    expect(m2.params.status == FNV_ERR_INVALID_ARGUMENT, "RM_MAP_MEMORY fd not a GPU: NV_ERR_INVALID_ARGUMENT");
    r = ESC(gpu, FNV_ESC_RM_MAP_MEMORY, &m2);
    show("RM_MAP_MEMORY on nvidia0", r, errno, "einval", NULL);
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, gpu, 0);
    show("mmap nvidia0", p == MAP_FAILED ? -1 : 0, errno, "ok", NULL);
    if (p != MAP_FAILED) {
        r = munmap(p, 4096);
        show("munmap nvidia0", r, errno, "ok", NULL);
    }
    struct fnv_nvos34 um = {.hClient = client, .hDevice = device, .hMemory = mem,
                            .pLinearAddress = m.params.pLinearAddress};
    r = ESC(ctl, FNV_ESC_RM_UNMAP_MEMORY, &um);
    show("RM_UNMAP_MEMORY", r, errno, "ok", "status 0x%x", um.status);

    char drv[64] = {0}, ver[64] = {0}, title[64] = {0};
    struct fnv_build_version bv = {.sizeOfStrings = 64, .pDriverVersionBuffer = (uintptr_t)drv,
                                   .pVersionBuffer = (uintptr_t)ver, .pTitleBuffer = (uintptr_t)title};
    struct fnv_nvos54 c = {.hClient = client, .hObject = client, .cmd = FNV_CTRL_SYSTEM_GET_BUILD_VERSION,
                           .params = (uintptr_t)&bv, .paramsSize = sizeof bv};
    struct fnv_xfer x = {.cmd = FNV_ESC_RM_CONTROL, .size = sizeof c, .ptr = (uintptr_t)&c};
    r = ESC(ctl, FNV_ESC_IOCTL_XFER_CMD, &x);
    show("XFER RM_CONTROL GET_BUILD_VERSION", r, errno, "ok", "status 0x%x driver %s changelist %u", c.status, drv,
         bv.changelistNumber);
    memset(drv, 0, sizeof drv);
    rm_control("RM_CONTROL GET_BUILD_VERSION", ctl, client, client, FNV_CTRL_SYSTEM_GET_BUILD_VERSION,
               (uintptr_t)&bv, sizeof bv, "ok", 0);
    printf("  driver version %s\n", drv);
    rm_control("RM_CONTROL 0x20800142", ctl, client, sub, FNV_CTRL_UNSUPPORTED, 0, 0, "ok", FNV_ERR_NOT_SUPPORTED);
    rm_control("RM_CONTROL 0x20800101", ctl, client, sub, FNV_CTRL_BACKGROUND, 0, 0, "ok", 0);
    rm_control("RM_CONTROL bad params pointer", ctl, client, sub, FNV_CTRL_BACKGROUND, 8, 16, "ok",
               FNV_ERR_INVALID_ADDRESS);
    rm_control("RM_CONTROL params without size", ctl, client, sub, FNV_CTRL_BACKGROUND, (uintptr_t)&bv, 0, "ok",
               FNV_ERR_INVALID_ARGUMENT);
    rm_control("RM_CONTROL on nvidia0", gpu, client, sub, FNV_CTRL_BACKGROUND, 0, 0, "einval", 0);
    r = ioctl(ctl, FNV_IOWR(FNV_ESC_RM_CONTROL, sizeof(struct fnv_nvos54)), (void *)8);
    show("RM_CONTROL bad pointer", r, errno, "efault", NULL);
    r = ioctl(ctl, FNV_IOWR(FNV_ESC_RM_CONTROL, 24), &c);
    show("RM_CONTROL wrong size", r, errno, "einval", NULL);
    struct fnv_xfer xb = {.cmd = FNV_ESC_RM_CONTROL, .size = sizeof c, .ptr = 8};
    r = ESC(ctl, FNV_ESC_IOCTL_XFER_CMD, &xb);
    show("XFER bad inner pointer", r, errno, "efault", NULL);
    r = ioctl(ctl, FNV_IOWR(FNV_ESC_IOCTL_XFER_CMD, sizeof(struct fnv_xfer)), (void *)8);
    show("XFER bad pointer", r, errno, "efault", NULL);
    struct fnv_nvos00 f_inner = {.hRoot = client, .hObjectParent = client, .hObjectOld = 0x5c0000ffu, .status = 0xffff};
    struct fnv_xfer xf = {.cmd = FNV_ESC_RM_FREE, .size = sizeof f_inner, .ptr = (uintptr_t)&f_inner};
    r = ESC(ctl, FNV_ESC_IOCTL_XFER_CMD, &xf);
    show("XFER RM_FREE", r, errno, "ok", "status 0x%x", f_inner.status);

    struct fnv_os_event ev = {.hClient = client, .hDevice = device, .fd = 1234};
    r = ESC(gpu, FNV_ESC_ALLOC_OS_EVENT, &ev);
    show("ALLOC_OS_EVENT", r, errno, "ok", "Status 0x%x", ev.Status);
    r = ESC(gpu, FNV_ESC_FREE_OS_EVENT, &ev);
    show("FREE_OS_EVENT", r, errno, "ok", "Status 0x%x", ev.Status);
    uint64_t eight = 0;
    r = ioctl(ctl, FNV_IOWR(0xee, sizeof eight), &eight);
    show("unknown escape 0xee", r, errno, "einval", NULL);
    int avail = -7;
    r = ioctl(ctl, FIONREAD, &avail);
    show("FIONREAD on nvidiactl", r, errno, "enotty", NULL);

    int uvm = open_dev(dir, "nvidia-uvm");
    if (uvm < 0)
        return 1;
    struct fnv_uvm_initialize ui = {.flags = 0, .rmStatus = 0xffff};
    r = ioctl(uvm, FNV_UVM_INITIALIZE, &ui);
    show("UVM_INITIALIZE", r, errno, "ok", "rmStatus 0x%x", ui.rmStatus);
    struct fnv_uvm_pageable_mem_access pma = {.rmStatus = 0xffff};
    r = ioctl(uvm, FNV_UVM_PAGEABLE_MEM_ACCESS, &pma);
    show("UVM_PAGEABLE_MEM_ACCESS", r, errno, "ok", "pageableMemAccess %u rmStatus 0x%x", pma.pageableMemAccess,
         pma.rmStatus);
    struct fnv_uvm_register_gpu rg = {.rmCtrlFd = ctl, .hClient = client};
    r = ioctl(uvm, FNV_UVM_REGISTER_GPU, &rg);
    show("UVM_REGISTER_GPU", r, errno, "ok", "rmStatus 0x%x", rg.rmStatus);
    expect(rg.rmStatus == FNV_ERR_INVALID_ARGUMENT, "UVM_REGISTER_GPU: NV_ERR_INVALID_ARGUMENT");
    r = ioctl(uvm, 0x999, &eight);
    show("UVM 0x999", r, errno, "einval", NULL);
    r = ioctl(uvm, FNV_UVM_INITIALIZE, (void *)8);
    show("UVM_INITIALIZE bad pointer", r, errno, "efault", NULL);

    int dupd = dup(ctl);
    show("dup nvidiactl", dupd < 0 ? -1 : 0, errno, "ok", NULL);
    struct fnv_nvos00 fr = {.hRoot = client, .hObjectParent = device, .hObjectOld = mem, .status = 0xffff};
    r = ESC(dupd, FNV_ESC_RM_FREE, &fr);
    show("RM_FREE on the dup", r, errno, "ok", "status 0x%x", fr.status);

    int pfd[2];
    if (pipe(pfd))
        return 1;
    if (write(pfd[1], "12345", 5) != 5)
        return 1;
    r = dup2(pfd[0], uvm);
    show("dup2 pipe over nvidia-uvm", r == uvm ? 0 : -1, errno, "ok", NULL);
    avail = -1;
    r = ioctl(uvm, FIONREAD, &avail);
    show("FIONREAD on it", r, errno, "ok", "%d", avail);

    struct fnv_nvos00 fs[3] = {{client, device, sub, 0xffff}, {client, client, device, 0xffff}, {client, 0, client, 0xffff}};
    static const char *const fl[3] = {"RM_FREE subdevice", "RM_FREE device", "RM_FREE client"};
    for (int i = 0; i < 3; i++) {
        r = ESC(ctl, FNV_ESC_RM_FREE, &fs[i]);
        show(fl[i], r, errno, "ok", "status 0x%x", fs[i].status);
    }
    show("close nvidia-uvm (the pipe now)", close(uvm), errno, "ok", NULL);
    show("close dup", close(dupd), errno, "ok", NULL);
    show("close nvidia0", close(gpu), errno, "ok", NULL);
    show("close nvidiactl", close(ctl), errno, "ok", NULL);
    close(pfd[0]);
    close(pfd[1]);
    r = ESC(ctl, FNV_ESC_RM_FREE, &fr);
    show("RM_FREE on the closed fd", r, errno, "ebadf", NULL);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}

/* --- other -------------------------------------------------------------- */

static int run_other(const char *dir)
{
    int r;
    int pfd[2];
    if (pipe(pfd) || write(pfd[1], "abc", 3) != 3)
        return 1;
    int n = -1;
    r = ioctl(pfd[0], FIONREAD, &n);
    show("FIONREAD pipe", r, errno, "ok", "%d", n);
    close(pfd[0]);
    close(pfd[1]);

    int m = posix_openpt(O_RDWR | O_NOCTTY);
    const char *sname = m >= 0 && !grantpt(m) && !unlockpt(m) ? ptsname(m) : NULL;
    int s = sname ? open(sname, O_RDWR | O_NOCTTY) : -1;
    if (s >= 0) {
        struct termios t;
        r = ioctl(s, TCGETS, &t);
        show("TCGETS pty", r, errno, "ok", NULL);
        struct winsize ws = {0, 0, 0, 0};
        ws.ws_row = 24, ws.ws_col = 80;
        r = ioctl(m, TIOCSWINSZ, &ws);
        show("TIOCSWINSZ pty", r, errno, "ok", NULL);
        memset(&ws, 0, sizeof ws);
        r = ioctl(s, TIOCGWINSZ, &ws);
        show("TIOCGWINSZ pty", r, errno, "ok", "%ux%u", ws.ws_col, ws.ws_row);
        close(s);
    } else
        printf("pty: unavailable\n");
    if (m >= 0)
        close(m);

    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock >= 0) {
        struct ifreq ifr[64];
        struct ifconf ifc = {.ifc_len = sizeof ifr, .ifc_req = ifr};
        r = ioctl(sock, SIOCGIFCONF, &ifc);
        show("SIOCGIFCONF", r, errno, "ok", "%d interfaces", r ? -1 : (int)(ifc.ifc_len / sizeof *ifr));
        close(sock);
    } else
        printf("socket: unavailable\n");

    char tmpl[] = "/tmp/t_ioctl.XXXXXX";
    const char *d = dir;
    if (!d) {
        if (!mkdtemp(tmpl))
            return 1;
        d = tmpl;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/nvidiactl", d);   /* a plain file outside the device directory */
    int f = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    show("open regular file", f < 0 ? -1 : 0, errno, "ok", NULL);
    if (f < 0)
        return 1;
    char page[4096];
    memset(page, 'x', sizeof page);
    expect(write(f, page, sizeof page) == (ssize_t)sizeof page, "write");
    struct termios t;
    r = ioctl(f, TCGETS, &t);
    show("TCGETS regular file", r, errno, "enotty", NULL);
    r = ioctl(f, FNV_IOWR(FNV_ESC_RM_CONTROL, sizeof(struct fnv_nvos54)), page);
    show("RM_CONTROL number on regular file", r, errno, "enotty", NULL);
    char *p = mmap(NULL, sizeof page, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    show("mmap regular file", p == MAP_FAILED ? -1 : 0, errno, "ok", NULL);
    if (p != MAP_FAILED) {
        expect(p[100] == 'x', "mapped content");
        show("munmap regular file", munmap(p, sizeof page), errno, "ok", NULL);
    }
    int f2 = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    show("openat regular file", f2 < 0 ? -1 : 0, errno, "ok", NULL);
    int f3 = dup(f2);
    show("dup", f3 < 0 ? -1 : 0, errno, "ok", NULL);
    show("close", close(f3), errno, "ok", NULL);
    show("close", close(f2), errno, "ok", NULL);
    show("close", close(f), errno, "ok", NULL);
    void *a = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    show("mmap anonymous", a == MAP_FAILED ? -1 : 0, errno, "ok", NULL);
    if (a != MAP_FAILED)
        show("munmap anonymous", munmap(a, 8192), errno, "ok", NULL);
    unlink(path);
    if (!dir)
        rmdir(tmpl);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}

static int run_inherit(const char *dir)
{
    char p[4096], self[4096];
    snprintf(p, sizeof p, "%s/nvidiactl", dir);
    int fd = open(p, O_RDWR);
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (fd < 0 || dup2(fd, 100) != 100 || k <= 0)
        return 1;
    close(fd);
    self[k] = 0;
    execl(self, self, "inherited", "100", (char *)NULL);
    return 1;
}

static int run_inherited(int fd)
{
    struct fnv_api_version v = {.cmd = FNV_VERSION_CMD_STRICT};
    snprintf(v.versionString, sizeof v.versionString, "%s", FNV_VERSION);
    int r = ESC(fd, FNV_ESC_CHECK_VERSION_STR, &v);
    show("CHECK_VERSION_STR (inherited)", r, errno, "ok", "reply %u version %s", v.reply, v.versionString);
    int n = 0;
    r = ioctl(fd, FIONREAD, &n);   /* on the device (marked by now): recorded like any of its requests */
    show("FIONREAD (inherited)", r, errno, "enotty", "%d", n);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}

/* --- params (issue #32): RM parameter blocks of real shapes ------------- */

static int run_params(const char *dir)
{
    int ctl = open_dev(dir, "nvidiactl");
    if (ctl < 0)
        return 1;
    uint32_t client = rm_alloc21("alloc root", ctl, 0, 0, FNV_NV01_ROOT, 0, 0, "ok", FNV_OK);
    /* NV0080_ALLOC_PARAMETERS: deviceId, hClientShare, ..., vaMode */
    uint32_t dev_params[14] = {0};
    dev_params[1] = client;
    dev_params[12] = 2;
    uint32_t device = rm_alloc21("alloc device", ctl, client, client, FNV_NV01_DEVICE_0, (uintptr_t)dev_params,
                                 sizeof dev_params, "ok", FNV_OK);
    /* paramsSize 0, as libcuda passes it: the driver (and cutap) size the
     * block by class; NV_MEMORY_ALLOCATION_PARAMS (128 bytes) for video
     * memory, a pairing the class headers do not make */
    rm_alloc21("alloc device, no size", ctl, client, client, FNV_NV01_DEVICE_0, (uintptr_t)dev_params, 0, "ok",
               FNV_OK);
    uint32_t mem_params[32] = {0x1234, 0, 0x80};
    rm_alloc21("alloc video memory, no size", ctl, client, device, FNV_NV01_MEMORY_LOCAL_USER, (uintptr_t)mem_params,
               0, "ok", FNV_OK);
    /* the driver fills data for the 2 indices asked */
    struct fnv_gpu_info_v2 info = {.gpuInfoListSize = 2};
    info.gpuInfoList[0].index = 3;
    info.gpuInfoList[1].index = 7;
    rm_control("GPU_GET_INFO_V2", ctl, client, device, FNV_CTRL_GPU_GET_INFO_V2, (uintptr_t)&info, sizeof info, "ok",
               FNV_OK);
    expect(info.gpuInfoList[0].data == 49 && info.gpuInfoList[1].data == 113, "GPU_GET_INFO_V2 data");
    printf("info data %u %u\n", info.gpuInfoList[0].data, info.gpuInfoList[1].data);
    /* the same on nvidia0, where the driver refuses RM escapes (-1/EINVAL):
     * the block as passed, nothing read after the call */
    int gpu = open_dev(dir, "nvidia0");
    struct fnv_gpu_info_v2 refused = {.gpuInfoListSize = 2};
    refused.gpuInfoList[0].index = 3;
    refused.gpuInfoList[1].index = 7;
    rm_control("GPU_GET_INFO_V2 refused", gpu, client, device, FNV_CTRL_GPU_GET_INFO_V2, (uintptr_t)&refused,
               sizeof refused, "einval", 0);
    close(gpu);
    static struct fnv_build_version_v2 bv;
    rm_control("BUILD_VERSION_V2", ctl, client, client, FNV_CTRL_BUILD_VERSION_V2, (uintptr_t)&bv, sizeof bv, "ok",
               FNV_OK);
    printf("build %s %s %u\n", bv.driverVersionBuffer, bv.driverBranch, bv.changelistNumber);
    /* a private command (in no header): its bytes */
    uint32_t priv[6] = {0xdeadbeef, 1, 2, 3, 4, 5};
    rm_control("private", ctl, client, device, 0x20809064u, (uintptr_t)priv, sizeof priv, "ok", FNV_OK);
    /* a block larger than cutap copies: NV2080_CTRL_FB_GET_REMAPPED_ROWS_PARAMS (6152
     * bytes), entries[0] and entries[400] (at 4808) set */
    static uint32_t rows[6152 / 4];
    rows[0] = 2;
    rows[2] = 0x1234;
    rows[(8 + 400 * 12) / 4] = 0x5678;
    rm_control("REMAPPED_ROWS", ctl, client, device, 0x20801344u, (uintptr_t)rows, sizeof rows, "ok", FNV_OK);
    /* unmapped params pointers: the driver's NV_ERR_INVALID_ADDRESS, as bare */
    void *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(gone, 4096);
    rm_control("GPU_GET_INFO_V2 unmapped", ctl, client, device, FNV_CTRL_GPU_GET_INFO_V2, (uintptr_t)gone,
               sizeof info, "ok", FNV_ERR_INVALID_ADDRESS);
    rm_control("GPU_GET_INFO_V2 at 0x10", ctl, client, device, FNV_CTRL_GPU_GET_INFO_V2, 0x10, sizeof info, "ok",
               FNV_ERR_INVALID_ADDRESS);
    rm_alloc21("alloc device unmapped", ctl, client, client, FNV_NV01_DEVICE_0, (uintptr_t)gone, sizeof dev_params,
               "ok", FNV_ERR_INVALID_ADDRESS);
    /* an unmapped NVOS54 block itself: the kernel's EFAULT */
    int r = ioctl(ctl, FNV_IOWR(FNV_ESC_RM_CONTROL, sizeof(struct fnv_nvos54)), gone);
    show("RM_CONTROL block unmapped", r, errno, "efault", NULL);
    close(ctl);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 3 && !strcmp(argv[1], "inherit"))
        return run_inherit(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "inherited"))
        return run_inherited(atoi(argv[2]));
    if (argc >= 2 && !strcmp(argv[1], "driver"))
        return run_driver();
    if (argc >= 3 && !strcmp(argv[1], "raw"))
        return run_raw(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "params"))
        return run_params(argv[2]);
    if (argc >= 2 && !strcmp(argv[1], "other"))
        return run_other(argc >= 3 ? argv[2] : NULL);
    fprintf(stderr, "usage: t_ioctl driver | raw DIR | params DIR | other [DIR]\n");
    return 2;
}
