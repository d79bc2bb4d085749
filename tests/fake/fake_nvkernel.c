/* A fake NVIDIA kernel driver for the ioctl layer's tests (issue #15),
 * built to build/fake/libfakenvkernel.so: an `ioctl` definition that
 * answers the requests made on "device files" under a test directory the
 * way the real nvidia.ko and nvidia-uvm.ko answer them, and passes every
 * other ioctl on to the next definition (glibc's).
 *
 * How tests load it. cutap calls, as "the kernel", the ioctl that
 * dlsym(RTLD_NEXT, "ioctl") finds from libcutap.so, so this library must
 * come AFTER libcutap.so in LD_PRELOAD. `cutap trace` puts libcutap first
 * in front of an LD_PRELOAD it finds (cli/run/launch.c), so put this library in
 * cutap's own environment:
 *
 *     mkdir -p D && touch D/nvidiactl D/nvidia0 D/nvidia-uvm
 *     CUTAP_NV_DEVDIR=D FAKE_NV_DEVDIR=D LD_PRELOAD=$B/fake/libfakenvkernel.so \
 *         cutap trace -o TR -- $B/tests/t_ioctl driver
 *
 * (LD_PRELOAD=libcutap.so:libfakenvkernel.so in the traced program; the
 * cutap command itself runs with the fake preloaded too, harmlessly.)
 * Without cutap, LD_PRELOAD=$B/fake/libfakenvkernel.so alone gives the bare
 * run. FAKE_NV_DEVDIR makes the fake libcuda (fake_core.c) talk to it.
 *
 * The devices. A descriptor is one of ours when readlink(/proc/self/fd/N),
 * read at every request (descriptor numbers are reused), names
 * $CUTAP_NV_DEVDIR/nvidiactl, .../nvidiaN or .../nvidia-uvm
 * ($FAKE_NV_DEVDIR when CUTAP_NV_DEVDIR is unset; the directory as given
 * or resolved by realpath). The files are plain files (any content): only
 * their names count; an mmap of one is the file's ordinary mapping.
 *
 * What it answers (facts from NVIDIA's open-gpu-kernel-modules 580
 * headers and escape.c; the definitions here are our own):
 * - nvidiactl and nvidiaN take _IOWR('F', nr, params): _IOC_SIZE bytes are
 *   copied in as copy_from_user does, without ever faulting on a bad
 *   pointer (process_vm_readv on ourselves; -1/EFAULT when it fails),
 *   handled, and copied back out, also after a failed request, as the
 *   driver does (so a caller sees the version string a mismatch carries).
 *   IOCTL_XFER_CMD (0xd3, nv_ioctl_xfer_t) carries another escape whose
 *   block is at xfer.ptr, xfer.size bytes. A type other than 'F' is
 *   -1/ENOTTY; an escape not emulated, a block of the wrong size, or an RM
 *   escape on the wrong kind of device (RM_ALLOC, RM_CONTROL, RM_FREE,
 *   RM_MAP_MEMORY, RM_UNMAP_MEMORY, CARD_INFO, CHECK_VERSION_STR are for
 *   nvidiactl only) is -1/EINVAL, as rm_ioctl's failures are.
 *     CHECK_VERSION_STR  reply 1 and versionString "580.159.04"; a STRICT or
 *                        RELAXED check of another version string: reply 0,
 *                        our string, -1/EINVAL
 *     CARD_INFO          as many cards as the size holds, the first valid
 *                        (bus 0x65, 10de:2330, minor 0), the others zero
 *     RM_ALLOC           NVOS21 (32 bytes) or NVOS64 (48): hObjectNew 0 is
 *                        given a fresh handle (0xcaf00001, 0xcaf00002, ...
 *                        in order of service); NV01_ROOT/NV01_ROOT_NON_PRIV
 *                        come back as NV01_ROOT_CLIENT (0x41), as the
 *                        driver forces; hClass 0xbad: NV_ERR_INVALID_CLASS
 *                        (0x22); alloc params copied in when given
 *                        (unreadable: NV_ERR_INVALID_ADDRESS 0x1e; with
 *                        paramsSize 0: sized by class, 1 byte read here)
 *     RM_CONTROL         NVOS54: status 0; cmd 0x20800142:
 *                        NV_ERR_NOT_SUPPORTED (0x56); params copied in and
 *                        out (params NULL with a size or the reverse:
 *                        NV_ERR_INVALID_ARGUMENT 0x1f; unreadable:
 *                        NV_ERR_INVALID_ADDRESS 0x1e, not EFAULT);
 *                        NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION (0x101)
 *                        fills its strings and changelist numbers; _V2
 *                        (0x13e, 1032 bytes) its four char arrays and
 *                        changelist numbers; NV2080_CTRL_CMD_GPU_GET_INFO_V2
 *                        (0x20800102, 564 bytes) sets gpuInfoList[i].data
 *                        = index * 16 + 1 for the gpuInfoListSize entries
 *     RM_FREE            status 0
 *     RM_MAP_MEMORY      nv_ioctl_nvos33_parameters_with_fd: the fd must be
 *                        one of our nvidiaN (else NV_ERR_INVALID_ARGUMENT);
 *                        pLinearAddress 0x7f0000000000 + offset, status 0
 *     RM_UNMAP_MEMORY    status 0
 *     ALLOC_OS_EVENT, FREE_OS_EVENT   Status 0 (any device)
 *     REGISTER_FD        ctl_fd must be one of our nvidiactl, else EINVAL
 * - nvidia-uvm takes plain command numbers; a known one copies its
 *   <name>_PARAMS in (-1/EFAULT when unreadable), sets rmStatus and copies
 *   it out; any other number is -1/EINVAL (uvm_ioctl's default):
 *     UVM_INITIALIZE (0x30000001, 16 bytes)        rmStatus 0
 *     UVM_PAGEABLE_MEM_ACCESS (39, 8 bytes)        pageableMemAccess 1, rmStatus 0
 *     UVM_REGISTER_GPU (37, 40 bytes)              rmStatus NV_ERR_INVALID_ARGUMENT (0x1f)
 * Any other request on one of our files (FIONREAD on nvidiactl) is served
 * as above (ENOTTY/EINVAL); on any other file it goes to the next ioctl.
 *
 * What it served. Every request on one of our files is counted per
 * (device kind, request) (fake_nvkernel_count) and, when FAKE_NVKERNEL_LOG
 * names a file, appended to it as it is served, one line each:
 *     pid tid dev req nr result
 * dev: ctl, gpuN or uvm; req: the request number (hex); nr: the escape
 * (hex) of an nvidiactl/nvidiaN request, the inner one of an
 * IOCTL_XFER_CMD, or the UVM command (hex); result: what cutap records as
 * the outcome, in decimal: -errno when the ioctl failed, else the NV_STATUS
 * the block carries (rmStatus for UVM), 0 for requests without one.
 * FAKE_NVKERNEL_COUNTS=FILE writes "dev req nr count" lines at exit.
 *
 * With FAKE_NVKERNEL_TYPES_ONLY defined, this file gives only the
 * parameter layouts and numbers (fake_core.c and tests/t_ioctl.c include
 * it so). */
#if !defined FAKE_NVKERNEL_TYPES_ONLY && !defined _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef FAKE_NVKERNEL_TYPES
#define FAKE_NVKERNEL_TYPES
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* nvidiactl / nvidiaN escapes (the _IOC_NR of _IOWR('F', nr, params)). */
#define FNV_MAGIC 'F'
#define FNV_ESC_RM_FREE 0x29
#define FNV_ESC_RM_CONTROL 0x2a
#define FNV_ESC_RM_ALLOC 0x2b
#define FNV_ESC_RM_MAP_MEMORY 0x4e
#define FNV_ESC_RM_UNMAP_MEMORY 0x4f
#define FNV_ESC_CARD_INFO 0xc8
#define FNV_ESC_REGISTER_FD 0xc9
#define FNV_ESC_ALLOC_OS_EVENT 0xce
#define FNV_ESC_FREE_OS_EVENT 0xcf
#define FNV_ESC_CHECK_VERSION_STR 0xd2
#define FNV_ESC_IOCTL_XFER_CMD 0xd3
#define FNV_IOWR(nr, size) _IOC(_IOC_READ | _IOC_WRITE, FNV_MAGIC, (nr), (size))
#define FNV_MAX_IOCTL_SIZE 16384   /* NV_ABSOLUTE_MAX_IOCTL_SIZE: the largest XFER block */

/* nvidia-uvm commands. */
#define FNV_UVM_INITIALIZE 0x30000001u
#define FNV_UVM_REGISTER_GPU 37u
#define FNV_UVM_PAGEABLE_MEM_ACCESS 39u

/* Classes, statuses, controls used by the fakes and the tests. */
#define FNV_NV01_ROOT 0x0u
#define FNV_NV01_ROOT_NON_PRIV 0x1u
#define FNV_NV01_ROOT_CLIENT 0x41u
#define FNV_NV01_MEMORY_LOCAL_USER 0x40u
#define FNV_NV01_DEVICE_0 0x80u
#define FNV_NV20_SUBDEVICE_0 0x2080u
#define FNV_HOPPER_USERMODE_A 0xc661u
#define FNV_CLASS_BAD 0xbadu
#define FNV_OK 0x0u
#define FNV_ERR_INVALID_CLASS 0x22u
#define FNV_ERR_INVALID_ADDRESS 0x1eu
#define FNV_ERR_INVALID_ARGUMENT 0x1fu
#define FNV_ERR_NOT_SUPPORTED 0x56u
#define FNV_CTRL_SYSTEM_GET_BUILD_VERSION 0x101u   /* NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION */
#define FNV_CTRL_UNSUPPORTED 0x20800142u           /* answered NV_ERR_NOT_SUPPORTED */
#define FNV_CTRL_BACKGROUND 0x20800101u            /* the fake libcuda's background thread's */
#define FNV_CTRL_GPU_GET_INFO_V2 0x20800102u       /* NV2080_CTRL_CMD_GPU_GET_INFO_V2 */
#define FNV_CTRL_BUILD_VERSION_V2 0x13eu           /* NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2 */
#define FNV_GPU_INFO_MAX 70                        /* NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE */
#define FNV_VERSION "580.159.04"
#define FNV_VERSION_CMD_STRICT 0
#define FNV_VERSION_CMD_RELAXED '1'
#define FNV_VERSION_CMD_QUERY '2'

struct fnv_nvos00 { uint32_t hRoot, hObjectParent, hObjectOld, status; };
struct fnv_nvos21 {
    uint32_t hRoot, hObjectParent, hObjectNew, hClass;
    uint64_t pAllocParms;
    uint32_t paramsSize, status;
};
struct fnv_nvos64 {
    uint32_t hRoot, hObjectParent, hObjectNew, hClass;
    uint64_t pAllocParms, pRightsRequested;
    uint32_t paramsSize, flags, status;
    uint32_t pad_;
};
struct fnv_nvos54 {
    uint32_t hClient, hObject, cmd, flags;
    uint64_t params;
    uint32_t paramsSize, status;
};
struct fnv_nvos33 {
    uint32_t hClient, hDevice, hMemory, pad_;
    uint64_t offset, length, pLinearAddress;
    uint32_t status, flags;
};
struct fnv_nvos33_fd { struct fnv_nvos33 params; int32_t fd; uint32_t pad_; };
struct fnv_nvos34 {
    uint32_t hClient, hDevice, hMemory, pad_;
    uint64_t pLinearAddress;
    uint32_t status, flags;
};
struct fnv_card_info {
    uint8_t valid;
    uint8_t pad0_[3];
    uint32_t domain;
    uint8_t bus, slot, function, pad1_;
    uint16_t vendor_id, device_id;
    uint32_t gpu_id;
    uint16_t interrupt_line;
    uint8_t pad2_[2];
    uint64_t reg_address, reg_size, fb_address, fb_size;
    uint32_t minor_number;
    uint8_t dev_name[10];
    uint8_t pad3_[2];
};
struct fnv_api_version { uint32_t cmd, reply; char versionString[64]; };
struct fnv_xfer { uint32_t cmd, size; uint64_t ptr; };
struct fnv_os_event { uint32_t hClient, hDevice, fd, Status; };
struct fnv_register_fd { int32_t ctl_fd; };
struct fnv_build_version {   /* NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS */
    uint32_t sizeOfStrings, pad_;
    uint64_t pDriverVersionBuffer, pVersionBuffer, pTitleBuffer;
    uint32_t changelistNumber, officialChangelistNumber;
};
struct fnv_gpu_info_v2 {     /* NV2080_CTRL_GPU_GET_INFO_V2_PARAMS */
    uint32_t gpuInfoListSize;
    struct { uint32_t index, data; } gpuInfoList[FNV_GPU_INFO_MAX];
};
struct fnv_build_version_v2 {   /* NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS */
    char driverVersionBuffer[256], versionBuffer[256], driverBranch[256], titleBuffer[256];
    uint32_t changelistNumber, officialChangelistNumber;
};
struct fnv_uvm_initialize { uint64_t flags; uint32_t rmStatus, pad_; };
struct fnv_uvm_pageable_mem_access { uint8_t pageableMemAccess, pad_[3]; uint32_t rmStatus; };
struct fnv_uvm_register_gpu {
    uint8_t gpu_uuid[16];
    uint8_t numaEnabled, pad_[3];
    int32_t numaNodeId, rmCtrlFd;
    uint32_t hClient, hSmcPartRef, rmStatus;
};

/* Sizes and offsets as in the 580 headers (x86-64). */
#define FNV_SIZE(t, n) _Static_assert(sizeof(struct t) == (n), #t " size")
#define FNV_OFF(t, f, n) _Static_assert(offsetof(struct t, f) == (n), #t "." #f " offset")
FNV_SIZE(fnv_nvos00, 16);
FNV_SIZE(fnv_nvos21, 32);
FNV_OFF(fnv_nvos21, status, 28);
FNV_SIZE(fnv_nvos64, 48);
FNV_OFF(fnv_nvos64, status, 40);
FNV_SIZE(fnv_nvos54, 32);
FNV_OFF(fnv_nvos54, status, 28);
FNV_SIZE(fnv_nvos33, 48);
FNV_OFF(fnv_nvos33, pLinearAddress, 32);
FNV_SIZE(fnv_nvos33_fd, 56);
FNV_OFF(fnv_nvos33_fd, fd, 48);
FNV_SIZE(fnv_nvos34, 32);
FNV_SIZE(fnv_card_info, 72);
FNV_OFF(fnv_card_info, domain, 4);
FNV_OFF(fnv_card_info, vendor_id, 12);
FNV_OFF(fnv_card_info, gpu_id, 16);
FNV_OFF(fnv_card_info, reg_address, 24);
FNV_OFF(fnv_card_info, fb_size, 48);
FNV_OFF(fnv_card_info, minor_number, 56);
FNV_SIZE(fnv_api_version, 72);
FNV_SIZE(fnv_xfer, 16);
FNV_SIZE(fnv_os_event, 16);
FNV_SIZE(fnv_build_version, 40);
FNV_SIZE(fnv_gpu_info_v2, 564);
FNV_SIZE(fnv_build_version_v2, 1032);
FNV_SIZE(fnv_uvm_initialize, 16);
FNV_OFF(fnv_uvm_initialize, rmStatus, 8);
FNV_SIZE(fnv_uvm_pageable_mem_access, 8);
FNV_OFF(fnv_uvm_pageable_mem_access, rmStatus, 4);
FNV_SIZE(fnv_uvm_register_gpu, 40);
FNV_OFF(fnv_uvm_register_gpu, rmStatus, 36);
#undef FNV_SIZE
#undef FNV_OFF
#endif /* FAKE_NVKERNEL_TYPES */

#ifndef FAKE_NVKERNEL_TYPES_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

enum { DEV_NONE, DEV_CTL, DEV_GPU, DEV_UVM };

/* --- our files ------------------------------------------------------------ */

static char dir_given[PATH_MAX], dir_real[PATH_MAX];
static size_t dir_given_len, dir_real_len;
static pthread_once_t dir_once = PTHREAD_ONCE_INIT;

static void dir_init(void)
{
    const char *d = getenv("CUTAP_NV_DEVDIR");
    if (!d || !*d)
        d = getenv("FAKE_NV_DEVDIR");
    if (!d || !*d || strlen(d) >= sizeof dir_given - 2)
        return;
    snprintf(dir_given, sizeof dir_given, "%s", d);
    while (strlen(dir_given) > 1 && dir_given[strlen(dir_given) - 1] == '/')
        dir_given[strlen(dir_given) - 1] = 0;
    dir_given_len = strlen(dir_given);
    char r[PATH_MAX];
    if (realpath(dir_given, r) && strlen(r) < sizeof dir_real) {
        memcpy(dir_real, r, strlen(r) + 1);
        dir_real_len = strlen(dir_real);
    }
}

static int digits(const char *p, unsigned *v)
{
    unsigned x = 0;
    if (*p < '0' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++)
        x = x < 100000 ? x * 10 + (unsigned)(*p - '0') : x;
    *v = x;
    return *p == 0;
}

/* The kind of device fd is (DEV_*), by the file it has open now. */
static int dev_of(int fd, unsigned *minor)
{
    pthread_once(&dir_once, dir_init);
    *minor = 0;
    if (!dir_given_len || fd < 0)
        return DEV_NONE;
    char link[64], t[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    int err = errno;
    ssize_t n = readlink(link, t, sizeof t - 1);
    errno = err;
    if (n <= 0)
        return DEV_NONE;
    t[n] = 0;
    const char *name = NULL;
    if (!strncmp(t, dir_given, dir_given_len) && t[dir_given_len] == '/')
        name = t + dir_given_len + 1;
    else if (dir_real_len && !strncmp(t, dir_real, dir_real_len) && t[dir_real_len] == '/')
        name = t + dir_real_len + 1;
    if (!name)
        return DEV_NONE;
    if (!strcmp(name, "nvidiactl"))
        return DEV_CTL;
    if (!strcmp(name, "nvidia-uvm"))
        return DEV_UVM;
    if (!strncmp(name, "nvidia", 6) && digits(name + 6, minor))
        return DEV_GPU;
    return DEV_NONE;
}

/* --- copy_from_user / copy_to_user -------------------------------------- */

/* A pipe carries the bytes where process_vm_readv/writev are refused
 * (seccomp): write() and read() fail with EFAULT too, never fault. */
static int pipe_copy(void *dst, const void *src, size_t n)
{
    int p[2], ok = -1;
    if (pipe2(p, O_CLOEXEC))
        return -1;
    if (write(p[1], src, n) == (ssize_t)n && read(p[0], dst, n) == (ssize_t)n)
        ok = 0;
    close(p[0]);
    close(p[1]);
    return ok;
}

static _Atomic int vm_refused;

/* 0, or -EFAULT: n bytes from the caller's address src. */
static int copy_in(void *dst, uint64_t src, size_t n)
{
    if (!n)
        return 0;
    int err = errno, rc = -EFAULT;
    if (!atomic_load(&vm_refused)) {
        struct iovec l = {dst, n}, r = {(void *)(uintptr_t)src, n};
        ssize_t k = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
        if (k == (ssize_t)n)
            rc = 0;
        else if (k < 0 && (errno == ENOSYS || errno == EPERM))
            atomic_store(&vm_refused, 1);
    }
    if (atomic_load(&vm_refused))
        rc = pipe_copy(dst, (const void *)(uintptr_t)src, n) ? -EFAULT : 0;
    errno = err;
    return rc;
}

/* 0, or -EFAULT: n bytes to the caller's address dst. */
static int copy_out(uint64_t dst, const void *src, size_t n)
{
    if (!n)
        return 0;
    int err = errno, rc = -EFAULT;
    if (!atomic_load(&vm_refused)) {
        struct iovec l = {(void *)src, n}, r = {(void *)(uintptr_t)dst, n};
        ssize_t k = process_vm_writev(getpid(), &l, 1, &r, 1, 0);
        if (k == (ssize_t)n)
            rc = 0;
        else if (k < 0 && (errno == ENOSYS || errno == EPERM))
            atomic_store(&vm_refused, 1);
    }
    if (atomic_load(&vm_refused))
        rc = pipe_copy((void *)(uintptr_t)dst, src, n) ? -EFAULT : 0;
    errno = err;
    return rc;
}

/* --- counting and the log ------------------------------------------------ */

#define NCOUNT 256
static struct {
    _Atomic unsigned long req;   /* 0: free */
    _Atomic unsigned dev;        /* DEV_* << 16 | minor */
    _Atomic unsigned nr;
    _Atomic unsigned long n;
} counts[NCOUNT];
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void dev_str(unsigned dev, char *buf, size_t size)
{
    switch (dev >> 16) {
    case DEV_CTL: snprintf(buf, size, "ctl"); break;
    case DEV_GPU: snprintf(buf, size, "gpu%u", dev & 0xffff); break;
    case DEV_UVM: snprintf(buf, size, "uvm"); break;
    default: snprintf(buf, size, "?"); break;
    }
}

static void count(unsigned dev, unsigned long req, unsigned nr)
{
    pthread_mutex_lock(&count_lock);
    for (unsigned i = 0; i < NCOUNT; i++) {
        unsigned long r = atomic_load(&counts[i].req);
        if (r && (r != req || atomic_load(&counts[i].dev) != dev || atomic_load(&counts[i].nr) != nr))
            continue;
        if (!r) {
            atomic_store(&counts[i].dev, dev);
            atomic_store(&counts[i].nr, nr);
            atomic_store(&counts[i].req, req);
        }
        atomic_fetch_add(&counts[i].n, 1);
        break;
    }
    pthread_mutex_unlock(&count_lock);
}

/* How many requests req the fake served on devices named dev ("ctl",
 * "gpu0", "uvm"; NULL: any) with escape or command nr (~0u: any). */
EXPORT unsigned long fake_nvkernel_count(const char *dev, unsigned long req, unsigned nr)
{
    unsigned long total = 0;
    for (unsigned i = 0; i < NCOUNT; i++) {
        unsigned long r = atomic_load(&counts[i].req);
        if (!r)
            break;
        char d[16];
        dev_str(atomic_load(&counts[i].dev), d, sizeof d);
        if (r == req && (!dev || !strcmp(dev, d)) && (nr == ~0u || nr == atomic_load(&counts[i].nr)))
            total += atomic_load(&counts[i].n);
    }
    return total;
}

static void log_served(unsigned dev, unsigned long req, unsigned nr, long result)
{
    const char *path = getenv("FAKE_NVKERNEL_LOG");
    if (!path || !*path)
        return;
    char d[16], line[160];
    dev_str(dev, d, sizeof d);
    int n = snprintf(line, sizeof line, "%ld %ld %s 0x%lx 0x%x %ld\n", (long)getpid(), (long)syscall(SYS_gettid), d,
                     req, nr, result);
    int err = errno;
    pthread_mutex_lock(&log_lock);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) != n)
            (void)0;
        close(fd);
    }
    pthread_mutex_unlock(&log_lock);
    errno = err;
}

__attribute__((destructor)) static void write_counts(void)
{
    const char *path = getenv("FAKE_NVKERNEL_COUNTS");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    for (unsigned i = 0; i < NCOUNT && atomic_load(&counts[i].req); i++) {
        char d[16];
        dev_str(atomic_load(&counts[i].dev), d, sizeof d);
        fprintf(f, "%s 0x%lx 0x%x %lu\n", d, atomic_load(&counts[i].req), atomic_load(&counts[i].nr),
                atomic_load(&counts[i].n));
    }
    fclose(f);
}

/* --- nvidiactl / nvidiaN ------------------------------------------------- */

static _Atomic uint32_t next_handle = 0xcaf00001u;

/* Copies an RM parameter block of the caller's in: an NV_STATUS. */
static uint32_t rm_params_in(uint64_t p, uint32_t size, void **copy)
{
    *copy = NULL;
    if (!p != !size)
        return FNV_ERR_INVALID_ARGUMENT;
    if (!size)
        return FNV_OK;
    if (size > (1u << 20) || !(*copy = malloc(size)))
        return FNV_ERR_INVALID_ARGUMENT;
    if (copy_in(*copy, p, size)) {
        free(*copy);
        *copy = NULL;
        return FNV_ERR_INVALID_ADDRESS;
    }
    return FNV_OK;
}

static uint32_t put_string(uint64_t to, uint32_t room, const char *s)
{
    if (!to || !room)
        return FNV_OK;
    char buf[256] = {0};
    size_t n = strlen(s) + 1 < room ? strlen(s) + 1 : room;
    if (n > sizeof buf)
        n = sizeof buf;
    memcpy(buf, s, n - 1);
    return copy_out(to, buf, n) ? FNV_ERR_INVALID_ADDRESS : FNV_OK;
}

static uint32_t rm_control(struct fnv_nvos54 *c)
{
    void *p;
    uint32_t st = rm_params_in(c->params, c->paramsSize, &p);
    if (st)
        return st;
    if (c->cmd == FNV_CTRL_UNSUPPORTED)
        st = FNV_ERR_NOT_SUPPORTED;
    else if (c->cmd == FNV_CTRL_SYSTEM_GET_BUILD_VERSION) {
        struct fnv_build_version *b = p;
        if (c->paramsSize != sizeof *b)
            st = FNV_ERR_INVALID_ARGUMENT;   /* NV_ERR_INVALID_PARAM_STRUCT in the driver */
        else {
            st = put_string(b->pDriverVersionBuffer, b->sizeOfStrings, FNV_VERSION);
            if (!st)
                st = put_string(b->pVersionBuffer, b->sizeOfStrings, FNV_VERSION);
            if (!st)
                st = put_string(b->pTitleBuffer, b->sizeOfStrings, "cutap fake NVIDIA kernel module");
            b->changelistNumber = b->officialChangelistNumber = 36158064u;
        }
    } else if (c->cmd == FNV_CTRL_GPU_GET_INFO_V2) {
        /* each entry asked for gets data = index * 16 + 1 (the driver
         * writes the values of the indices given) */
        struct fnv_gpu_info_v2 *g = p;
        if (c->paramsSize != sizeof *g || g->gpuInfoListSize > FNV_GPU_INFO_MAX)
            st = FNV_ERR_INVALID_ARGUMENT;
        else
            for (uint32_t i = 0; i < g->gpuInfoListSize; i++)
                g->gpuInfoList[i].data = g->gpuInfoList[i].index * 16 + 1;
    } else if (c->cmd == FNV_CTRL_BUILD_VERSION_V2) {
        struct fnv_build_version_v2 *v = p;
        if (c->paramsSize != sizeof *v)
            st = FNV_ERR_INVALID_ARGUMENT;
        else {
            memset(v, 0, sizeof *v);
            strcpy(v->driverVersionBuffer, FNV_VERSION);
            strcpy(v->versionBuffer, FNV_VERSION);
            strcpy(v->driverBranch, "r580_00");
            strcpy(v->titleBuffer, "cutap fake NVIDIA kernel module");
            v->changelistNumber = v->officialChangelistNumber = 36158064u;
        }
    }
    if (p && !st && copy_out(c->params, p, c->paramsSize))
        st = FNV_ERR_INVALID_ADDRESS;
    free(p);
    return st;
}

static int is_event_class(uint32_t c) { return c == 0x5 || c == 0x79 || c == 0x78 || c == 0x7e; }

/* One escape on its copied-in block: 0 or -errno; *st the NV_STATUS the
 * block carries (0 when it has none). */
static int escape(int dev, unsigned nr, void *blk, size_t size, uint32_t *st)
{
    *st = 0;
    int ctl = dev == DEV_CTL;
    switch (nr) {
    case FNV_ESC_CHECK_VERSION_STR: {
        struct fnv_api_version *v = blk;
        if (size != sizeof *v || !ctl)
            return -EINVAL;
        int same = !strncmp(v->versionString, FNV_VERSION, sizeof v->versionString);
        memset(v->versionString, 0, sizeof v->versionString);
        memcpy(v->versionString, FNV_VERSION, sizeof FNV_VERSION);
        if (v->cmd == FNV_VERSION_CMD_QUERY || same) {
            v->reply = 1;
            return 0;
        }
        v->reply = 0;
        return -EINVAL;
    }
    case FNV_ESC_CARD_INFO: {
        size_t n = size / sizeof(struct fnv_card_info);
        if (!n || !ctl)
            return -EINVAL;
        memset(blk, 0, size);
        struct fnv_card_info *c = blk;
        c->valid = 1;
        c->domain = 0, c->bus = 0x65, c->slot = 0, c->function = 0;
        c->vendor_id = 0x10de, c->device_id = 0x2330;
        c->gpu_id = 0x6500;
        c->reg_address = 0xfb000000ULL, c->reg_size = 0x1000000ULL;
        c->fb_address = 0x38000000000ULL, c->fb_size = 0x2000000000ULL;
        c->minor_number = 0;
        return 0;
    }
    case FNV_ESC_RM_ALLOC: {
        struct fnv_nvos21 *a = blk;    /* NVOS64 begins as NVOS21 does */
        struct fnv_nvos64 *a64 = blk;
        if (size != sizeof(struct fnv_nvos21) && size != sizeof(struct fnv_nvos64))
            return -EINVAL;
        if (!ctl && !is_event_class(a->hClass))
            return -EINVAL;
        uint32_t *status = size == sizeof *a ? &a->status : &a64->status;
        void *p;
        /* paramsSize 0 with a pointer (libcuda's way): sized by class */
        uint32_t psize = size == sizeof *a ? a->paramsSize : a64->paramsSize;
        uint32_t s = rm_params_in(a->pAllocParms, psize || !a->pAllocParms ? psize : 1, &p);
        free(p);
        if (!s && a->hClass == FNV_CLASS_BAD)
            s = FNV_ERR_INVALID_CLASS;
        if (!s) {
            if (a->hClass == FNV_NV01_ROOT || a->hClass == FNV_NV01_ROOT_NON_PRIV)
                a->hClass = FNV_NV01_ROOT_CLIENT;
            if (!a->hObjectNew)
                a->hObjectNew = atomic_fetch_add(&next_handle, 1);
        }
        *st = *status = s;
        return 0;
    }
    case FNV_ESC_RM_CONTROL: {
        struct fnv_nvos54 *c = blk;
        if (size != sizeof *c || !ctl)
            return -EINVAL;
        *st = c->status = rm_control(c);
        return 0;
    }
    case FNV_ESC_RM_FREE: {
        struct fnv_nvos00 *f = blk;
        if (size != sizeof *f || !ctl)
            return -EINVAL;
        *st = f->status = FNV_OK;
        return 0;
    }
    case FNV_ESC_RM_MAP_MEMORY: {
        struct fnv_nvos33_fd *m = blk;
        unsigned minor;
        if (size != sizeof *m || !ctl)
            return -EINVAL;
        if (dev_of(m->fd, &minor) != DEV_GPU)
            m->params.status = FNV_ERR_INVALID_ARGUMENT;
        else {
            m->params.pLinearAddress = 0x7f0000000000ULL + m->params.offset;
            m->params.status = FNV_OK;
        }
        *st = m->params.status;
        return 0;
    }
    case FNV_ESC_RM_UNMAP_MEMORY: {
        struct fnv_nvos34 *u = blk;
        if (size != sizeof *u || !ctl)
            return -EINVAL;
        *st = u->status = FNV_OK;
        return 0;
    }
    case FNV_ESC_ALLOC_OS_EVENT:
    case FNV_ESC_FREE_OS_EVENT: {
        struct fnv_os_event *e = blk;
        if (size != sizeof *e)
            return -EINVAL;
        *st = e->Status = FNV_OK;
        return 0;
    }
    case FNV_ESC_REGISTER_FD: {
        struct fnv_register_fd *r = blk;
        unsigned minor;
        if (size != sizeof *r || dev_of(r->ctl_fd, &minor) != DEV_CTL)
            return -EINVAL;
        return 0;
    }
    default:
        return -EINVAL;   /* "unknown NVRM ioctl command" */
    }
}

static int nv_request(int dev, unsigned long req, void *arg, unsigned *lognr, uint32_t *st)
{
    unsigned nr = _IOC_NR(req);
    size_t size = _IOC_SIZE(req);
    uint64_t ptr = (uintptr_t)arg;
    *lognr = nr;
    *st = 0;
    if (_IOC_TYPE(req) != FNV_MAGIC)
        return -ENOTTY;
    if (nr == FNV_ESC_IOCTL_XFER_CMD) {
        struct fnv_xfer x;
        if (size != sizeof x)
            return -EINVAL;
        if (copy_in(&x, ptr, sizeof x))
            return -EFAULT;
        *lognr = nr = x.cmd;
        if (x.size > FNV_MAX_IOCTL_SIZE || nr == FNV_ESC_IOCTL_XFER_CMD)
            return -EINVAL;
        size = x.size;
        ptr = x.ptr;
    }
    unsigned char stackbuf[512] __attribute__((aligned(8)));
    void *blk = size <= sizeof stackbuf ? stackbuf : malloc(size);
    if (!blk)
        return -ENOMEM;
    int rc = copy_in(blk, ptr, size);
    if (!rc) {
        rc = escape(dev, nr, blk, size, st);
        if (copy_out(ptr, blk, size))
            rc = -EFAULT;
    }
    if (rc == -EFAULT)
        *st = 0;
    if (blk != stackbuf)
        free(blk);
    return rc;
}

/* --- nvidia-uvm ------------------------------------------------------------ */

static int uvm_request(unsigned long req, void *arg, uint32_t *st)
{
    union {
        struct fnv_uvm_initialize init;
        struct fnv_uvm_pageable_mem_access pma;
        struct fnv_uvm_register_gpu reg;
    } u;
    size_t size;
    uint32_t *rm;
    *st = 0;
    switch (req) {
    case FNV_UVM_INITIALIZE: size = sizeof u.init, rm = &u.init.rmStatus; break;
    case FNV_UVM_PAGEABLE_MEM_ACCESS: size = sizeof u.pma, rm = &u.pma.rmStatus; break;
    case FNV_UVM_REGISTER_GPU: size = sizeof u.reg, rm = &u.reg.rmStatus; break;
    default: return -EINVAL;
    }
    if (copy_in(&u, (uintptr_t)arg, size))
        return -EFAULT;
    switch (req) {
    case FNV_UVM_INITIALIZE: *rm = FNV_OK; break;
    case FNV_UVM_PAGEABLE_MEM_ACCESS: u.pma.pageableMemAccess = 1, *rm = FNV_OK; break;
    case FNV_UVM_REGISTER_GPU: *rm = FNV_ERR_INVALID_ARGUMENT; break;
    }
    if (copy_out((uintptr_t)arg, &u, size))
        return -EFAULT;
    *st = *rm;
    return 0;
}

/* --- the ioctl ---------------------------------------------------------- */

typedef int (*ioctl_fn)(int, unsigned long, void *);

EXPORT int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    va_start(ap, req);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    unsigned minor;
    int dev = dev_of(fd, &minor);
    if (dev == DEV_NONE) {
        static ioctl_fn _Atomic next;
        ioctl_fn f = atomic_load(&next);
        if (!f) {
            f = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
            atomic_store(&next, f);
        }
        if (!f) {
            errno = ENOSYS;
            return -1;
        }
        return f(fd, req, arg);
    }
    unsigned nr = (unsigned)req;
    uint32_t st = 0;
    int rc = dev == DEV_UVM ? uvm_request(req, arg, &st) : nv_request(dev, req, arg, &nr, &st);
    unsigned d = (unsigned)dev << 16 | (dev == DEV_GPU ? minor & 0xffff : 0);
    count(d, req, nr);
    log_served(d, req, nr, rc < 0 ? rc : (long)st);
    if (rc < 0) {
        errno = -rc;
        return -1;
    }
    return 0;
}
#endif /* FAKE_NVKERNEL_TYPES_ONLY */
