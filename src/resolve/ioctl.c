/* The ioctl layer (issue #15): the requests libcuda, NVML and the CUDA
 * libraries make to the NVIDIA kernel driver, and the opens, closes and
 * mappings of its device files, recorded as calls of layer "ioctl" nested
 * under the API call that made them on that thread.
 *
 * libcuda.so.1 (driver 580) imports ioctl, open, open64, mmap, mmap64 and
 * close from glibc through its PLT (measured on the GPU machine; no raw
 * syscall instruction is used for them), so the preloaded library sees
 * them by exporting those names. Every other caller in the process reaches
 * these wrappers too: the pass-through is one load from a table indexed
 * by the file descriptor (is it an NVIDIA device file?) and a jump to
 * glibc's function (bench/ioctl.c measures it).
 *
 * A descriptor is an NVIDIA device's when it was opened by a path of the
 * device directory (/dev, or CUTAP_NV_DEVDIR for tests and containers that
 * mount the nodes elsewhere) named nvidiactl, nvidiaN, nvidia-uvm, ...;
 * dup/dup2/dup3/fcntl(F_DUPFD) carry the mark, close/close_range clear it. A
 * descriptor inherited across exec is looked at (its /proc/self/fd link)
 * at its first request that could be an NVIDIA one (CUTAP_NV_REQUEST_LOOKS),
 * once: start-up reads no descriptor (a process may inherit thousands).
 * Descriptors of 65,536 and above are never marked (not recorded).
 *
 * What the kernel is given is read only after it accepted it: the
 * parameter block of an nvidiactl/nvidiaN request (its size is in the
 * request number) after the ioctl returned 0, when the kernel has copied
 * it in and out; a UVM command's rmStatus and an IOCTL_XFER_CMD header
 * through process_vm_readv, which fails instead of faulting on a bad
 * pointer. A buggy program's bad pointer is the kernel's EFAULT, never a
 * fault in cutap. The records' words and results: docs/FORMAT.md, "The
 * ioctl layer". */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cutap_internal.h"
#include "front_internal.h"
#include "nv_ioctl.h"

#define NV_FD_MAX 65536

/* --- device files ------------------------------------------------------ */

/* Per descriptor: kind (CUTAP_NVDEV_*, 0 for any other file), minor, and
 * the file's identity (st_dev, st_ino) when it was marked: a descriptor
 * closed where cutap cannot see it (closefrom, a raw close system call)
 * and reused for another file is found out by fstat on the slow path
 * before anything is recorded for it. */
static _Atomic uint8_t fd_kind[NV_FD_MAX];
static _Atomic uint16_t fd_minor[NV_FD_MAX];
static _Atomic uint64_t fd_ident[NV_FD_MAX];
/* Looked at already (an unmarked descriptor found not to be a device):
 * one bit each, cleared with its mark. */
static _Atomic uint64_t fd_seen[NV_FD_MAX / 64];

static uint64_t ident_of(int fd)
{
    struct stat st;
    if (fstat(fd, &st))
        return 0;
    return ((uint64_t)st.st_dev * 0x9e3779b97f4a7c15ull) ^ (uint64_t)st.st_ino ^ ((uint64_t)st.st_rdev << 32) ^ 1;
}

/* A vfork child shares this memory with its parent: what it opens,
 * closes or dups (subprocess closes the parent's descriptors in the
 * child) is not the parent's, and must not change the parent's marks. */
static _Atomic pid_t own_pid;
static void pid_after_fork(void) { atomic_store(&own_pid, (pid_t)syscall(SYS_getpid)); }
static int foreign(void)
{
    pid_t p = atomic_load_explicit(&own_pid, memory_order_relaxed), now = (pid_t)syscall(SYS_getpid);
    if (!p) {
        atomic_store(&own_pid, now);
        return 0;
    }
    return p != now;
}

static const char *devdir(size_t *len)
{
    static char dir[256];
    static _Atomic size_t dir_len;
    size_t n = atomic_load_explicit(&dir_len, memory_order_acquire);
    if (!n) {
        const char *e = getenv("CUTAP_NV_DEVDIR");
        if (!e || !*e || strlen(e) > sizeof dir - 2)
            e = "/dev";
        n = strlen(e);
        memcpy(dir, e, n);
        if (dir[n - 1] != '/')
            dir[n++] = '/';
        dir[n] = 0;
        atomic_store_explicit(&dir_len, n, memory_order_release);
    }
    *len = n;
    return dir;
}

static int digits(const char *p, unsigned *v)
{
    unsigned x = 0;
    if (!isdigit((unsigned char)*p))
        return 0;
    for (; isdigit((unsigned char)*p); p++)
        x = x < 100000 ? x * 10 + (unsigned)(*p - '0') : x;
    *v = x > 0xffff ? 0xffff : x;
    return *p == 0;
}

/* The kind of an NVIDIA device file path, or 0. Relative paths and paths
 * through other directories are not recognised: libcuda and NVML open the
 * nodes by absolute path. */
static int path_kind(const char *path, unsigned *minor)
{
    size_t n;
    const char *d = devdir(&n);
    *minor = 0;
    if (!path || strncmp(path, d, n) || strncmp(path + n, "nvidia", 6))
        return 0;
    const char *p = path + n + 6;
    if (!strcmp(p, "ctl"))
        return CUTAP_NVDEV_CTL;
    if (digits(p, minor))
        return CUTAP_NVDEV_GPU;
    if (!strcmp(p, "-uvm"))
        return CUTAP_NVDEV_UVM;
    if (!strcmp(p, "-uvm-tools"))
        return CUTAP_NVDEV_UVM_TOOLS;
    if (!strcmp(p, "-modeset"))
        return CUTAP_NVDEV_MODESET;
    if (!strncmp(p, "-caps/nvidia-cap", 16) && digits(p + 16, minor))
        return CUTAP_NVDEV_CAPS;
    return CUTAP_NVDEV_OTHER;
}

static inline unsigned kind_of(int fd)
{
    return (unsigned)fd < NV_FD_MAX ? atomic_load_explicit(&fd_kind[fd], memory_order_relaxed) : 0;
}

static void mark(int fd, unsigned kind, unsigned minor)
{
    if ((unsigned)fd >= NV_FD_MAX)
        return;
    atomic_fetch_and_explicit(&fd_seen[fd / 64], ~(1ull << (fd % 64)), memory_order_relaxed);
    atomic_store_explicit(&fd_ident[fd], kind ? ident_of(fd) : 0, memory_order_relaxed);
    atomic_store_explicit(&fd_minor[fd], (uint16_t)minor, memory_order_relaxed);
    atomic_store_explicit(&fd_kind[fd], (uint8_t)kind, memory_order_release);
}


/* An unmarked descriptor's first request that could be an NVIDIA one: is
 * it a device file (one inherited across exec, opened where cutap did not
 * see it)? Looked at once, by the path its /proc/self/fd link names, as an
 * open's path would be. */
static __attribute__((noinline)) unsigned classify(int fd)
{
    if ((unsigned)fd >= NV_FD_MAX || cutap_tls.internal ||
        (atomic_load_explicit(&fd_seen[fd / 64], memory_order_relaxed) >> (fd % 64) & 1))
        return 0;
    char link[64], target[512];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    int err = errno;
    ssize_t n = readlink(link, target, sizeof target - 1);
    errno = err;
    unsigned minor, kind = 0;
    if (n > 0) {
        target[n] = 0;
        kind = (unsigned)path_kind(target, &minor);
    }
    if (foreign())
        return 0;   /* a vfork child: the parent's marks are not its to change */
    if (kind)
        mark(fd, kind, minor);
    else
        atomic_fetch_or_explicit(&fd_seen[fd / 64], 1ull << (fd % 64), memory_order_relaxed);
    return kind;
}

/* On the slow path of a marked descriptor: still the device it was
 * marked for? If not, the mark is dropped (and nothing recorded). Not
 * while cutap itself is at work on the thread (its trace file). */
static int still_device(int fd)
{
    if (cutap_tls.internal)
        return 0;
    uint64_t want = atomic_load_explicit(&fd_ident[fd], memory_order_relaxed);
    if (want && ident_of(fd) == want)
        return 1;
    if (!foreign())
        mark(fd, 0, 0);
    return 0;
}

static inline uint64_t dev_word(int fd)
{
    return (uint64_t)kind_of(fd) << 16 | atomic_load_explicit(&fd_minor[fd], memory_order_relaxed);
}

/* --- the real functions --------------------------------------------------- */

/* glibc's functions, as the front found them (the core's own RTLD_NEXT
 * would find the front's entries). */
enum { R_IOCTL = CUTAP_IO_IOCTL, R_CLOSE = CUTAP_IO_CLOSE, R_CLOSE_RANGE = CUTAP_IO_CLOSE_RANGE,
       R_MUNMAP = CUTAP_IO_MUNMAP, R_COUNT = CUTAP_IO_COUNT };
#define real(k) cutap_front_real(k)
#define REAL(k, type) ((type)real(k))

/* Reads n bytes at src without ever faulting: 0, or -1 when they are not
 * all readable or the system refuses process_vm_readv (seccomp profiles
 * of some containers: then *refused is set). */
static _Atomic int vm_read_refused;
static int safe_read(void *dst, const void *src, size_t n)
{
    if (atomic_load_explicit(&vm_read_refused, memory_order_relaxed))
        return -1;
    struct iovec l = {dst, n}, r = {(void *)(uintptr_t)src, n};
    int err = errno;
    ssize_t got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
    if (got < 0 && (errno == ENOSYS || errno == EPERM))
        atomic_store(&vm_read_refused, 1);
    errno = err;
    return got == (ssize_t)n ? 0 : -1;
}

/* A block the kernel just accepted (copied in and out): read safely, or,
 * where process_vm_readv is refused, directly. */
static int read_accepted(void *dst, const void *src, size_t n)
{
    if (!safe_read(dst, src, n))
        return 0;
    if (!atomic_load_explicit(&vm_read_refused, memory_order_relaxed))
        return -1;   /* not readable now: unmapped meanwhile by another thread */
    memcpy(dst, src, n);
    return 0;
}

/* --- ids and signatures ------------------------------------------------ */

#define A(n, t, k) {n, t, CUTAP_ARG_##k}
static const cutap_arg_info_t sig_control[] = {
    A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("hClient", "NvHandle", UINT), A("hObject", "NvHandle", UINT),
    A("cmd", "NV_CTRL_CMD", UINT), A("flags", "NvU32", UINT), A("paramsSize", "NvU32", UINT),
    A("status", "NV_STATUS", UINT)};
static const cutap_arg_info_t sig_alloc[] = {
    A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("hRoot", "NvHandle", UINT), A("hObjectParent", "NvHandle", UINT),
    A("hObjectNew", "NvHandle", UINT), A("hClass", "NV_CLASS", UINT), A("paramsSize", "NvU32", UINT),
    A("status", "NV_STATUS", UINT)};
static const cutap_arg_info_t sig_free[] = {
    A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("hRoot", "NvHandle", UINT), A("hObjectParent", "NvHandle", UINT),
    A("hObjectOld", "NvHandle", UINT), A("status", "NV_STATUS", UINT)};
static const cutap_arg_info_t sig_alloc_memory[] = {
    A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("hRoot", "NvHandle", UINT), A("hObjectParent", "NvHandle", UINT),
    A("hObjectNew", "NvHandle", UINT), A("hClass", "NV_CLASS", UINT), A("flags", "NvU32", UINT),
    A("limit", "NvU64", UINT), A("status", "NV_STATUS", UINT)};
static const cutap_arg_info_t sig_map[] = {
    A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("hClient", "NvHandle", UINT), A("hDevice", "NvHandle", UINT),
    A("hMemory", "NvHandle", UINT), A("offset", "NvU64", UINT), A("length", "NvU64", UINT), A("flags", "NvU32", UINT),
    A("linearAddress", "NvP64", PTR), A("status", "NV_STATUS", UINT)};
static const cutap_arg_info_t sig_unmap[] = {
    A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("hClient", "NvHandle", UINT), A("hDevice", "NvHandle", UINT),
    A("hMemory", "NvHandle", UINT), A("linearAddress", "NvP64", PTR), A("flags", "NvU32", UINT),
    A("status", "NV_STATUS", UINT)};
static const cutap_arg_info_t sig_card_info[] = {
    A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("cards", "NvU32", UINT), A("pci", "NV_PCI", UINT),
    A("vendor_id", "NvU16", UINT), A("device_id", "NvU16", UINT), A("reg_address", "NvU64", PTR),
    A("fb_address", "NvU64", PTR), A("fb_size", "NvU64", UINT), A("minor_number", "NvU32", UINT)};
static const cutap_arg_info_t sig_version[] = {
    A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("cmd", "NV_VERSION_CMD", UINT), A("reply", "NvU32", UINT),
    A("version", "NV_STR32", UINT), A("version+8", "NV_STR_CONT", UINT), A("version+16", "NV_STR_CONT", UINT),
    A("version+24", "NV_STR_CONT", UINT)};
static const cutap_arg_info_t sig_register_fd[] = {A("fd", "int", INT), A("dev", "NV_DEV", UINT),
                                                   A("ctl_fd", "NvS32", INT)};
static const cutap_arg_info_t sig_os_event[] = {
    A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("hClient", "NvHandle", UINT), A("hDevice", "NvHandle", UINT),
    A("event_fd", "NvS32", INT), A("status", "NV_STATUS", UINT)};
static const cutap_arg_info_t sig_generic[] = {A("fd", "int", INT), A("dev", "NV_DEV", UINT),
                                               A("size", "size_t", UINT)};
static const cutap_arg_info_t sig_uvm[] = {A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("size", "size_t", UINT),
                                           A("status", "NV_STATUS", UINT)};
static const cutap_arg_info_t sig_unknown[] = {A("fd", "int", INT), A("dev", "NV_DEV", UINT),
                                               A("request", "NV_IOCTL_REQUEST", UINT), A("arg", "void *", PTR)};
static const cutap_arg_info_t sig_open[] = {A("dev", "NV_DEV", UINT), A("flags", "OPEN_FLAGS", UINT),
                                            A("fd", "int", INT)};
static const cutap_arg_info_t sig_close[] = {A("fd", "int", INT), A("dev", "NV_DEV", UINT)};
static const cutap_arg_info_t sig_mmap[] = {A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("length", "size_t", UINT),
                                            A("prot", "MMAP_PROT", UINT), A("flags", "MMAP_FLAGS", UINT),
                                            A("offset", "off_t", UINT), A("addr", "void *", PTR)};
static const cutap_arg_info_t sig_munmap[] = {A("addr", "void *", PTR), A("length", "size_t", UINT),
                                              A("dev", "NV_DEV", UINT)};
#undef A
#define SIG(s) (unsigned)(sizeof s / sizeof *s), s
#define MAX_WORDS 10

enum { S_CONTROL, S_ALLOC, S_FREE, S_ALLOC_MEMORY, S_MAP, S_UNMAP, S_CARD_INFO, S_VERSION, S_REGISTER_FD,
       S_OS_EVENT, S_GENERIC };
static const struct {
    unsigned n;
    const cutap_arg_info_t *a;
} sigs[] = {{SIG(sig_control)},   {SIG(sig_alloc)},   {SIG(sig_free)},     {SIG(sig_alloc_memory)},
            {SIG(sig_map)},       {SIG(sig_unmap)},   {SIG(sig_card_info)}, {SIG(sig_version)},
            {SIG(sig_register_fd)}, {SIG(sig_os_event)}, {SIG(sig_generic)}};

/* The escapes with a decoder of their own, by the name the tables give. */
static const struct {
    const char *name;
    uint8_t sig;
} special[] = {
    {"RM_CONTROL", S_CONTROL}, {"RM_ALLOC", S_ALLOC},         {"RM_FREE", S_FREE},
    {"RM_ALLOC_MEMORY", S_ALLOC_MEMORY}, {"RM_MAP_MEMORY", S_MAP}, {"RM_UNMAP_MEMORY", S_UNMAP},
    {"CARD_INFO", S_CARD_INFO}, {"CHECK_VERSION_STR", S_VERSION}, {"REGISTER_FD", S_REGISTER_FD},
    {"ALLOC_OS_EVENT", S_OS_EVENT}, {"FREE_OS_EVENT", S_OS_EVENT},
};

static const unsigned flags_typed = CUTAP_DYN_WORDS_AFTER | CUTAP_DYN_STATUS;
static _Atomic uint32_t esc_id[256];        /* id + 1 by escape number; 0: none yet */
static uint8_t esc_sig[256];                /* S_* of a known escape */
static _Atomic uint32_t *uvm_id;            /* id + 1 by index into cutap_nv_uvms */
static uint32_t id_open, id_close, id_mmap, id_munmap, id_other;
static _Atomic int ids_ready;
static pthread_mutex_t new_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(new_lock)

/* Ids of numbers the tables do not know (another driver branch): made at
 * first sight, named in hex. */
#define MAX_UNKNOWN_UVM 256
static struct {
    _Atomic uint32_t cmd;
    _Atomic uint32_t id1;
} unknown_uvm[MAX_UNKNOWN_UVM];

static uint32_t new_id(const char *name, unsigned n, const cutap_arg_info_t *a)
{
    return cutap_id_new_typed(name, CUTAP_LAYER_IOCTL, n, a, flags_typed);
}

static uint32_t escape_id(unsigned nr)
{
    uint32_t v = atomic_load_explicit(&esc_id[nr], memory_order_acquire);
    if (CUTAP_LIKELY(v))
        return v - 1;
    if (pthread_mutex_trylock(&new_lock))
        return CUTAP_ID_ALL;   /* busy (a signal handler on the thread that holds it): not recorded */
    if (!(v = atomic_load(&esc_id[nr]))) {
        char name[32];
        snprintf(name, sizeof name, "NV_ESC_0x%02x", nr);
        uint32_t id = new_id(name, SIG(sig_unknown));
        if (id != CUTAP_ID_ALL)
            atomic_store(&esc_id[nr], v = id + 1);
    }
    pthread_mutex_unlock(&new_lock);
    return v ? v - 1 : CUTAP_ID_ALL;
}

static uint32_t uvm_cmd_id(uint32_t cmd, int *known)
{
    const struct cutap_nv_uvm *u = cutap_nv_uvm_of(cmd);
    *known = u != NULL;
    if (u && uvm_id) {
        uint32_t v = atomic_load_explicit(&uvm_id[u - cutap_nv_uvms], memory_order_acquire);
        return v ? v - 1 : CUTAP_ID_ALL;
    }
    for (unsigned i = 0; i < MAX_UNKNOWN_UVM; i++) {
        uint32_t v = atomic_load_explicit(&unknown_uvm[i].id1, memory_order_acquire);   /* stored last */
        uint32_t c = atomic_load_explicit(&unknown_uvm[i].cmd, memory_order_relaxed);
        if (v && c == cmd)
            return v - 1;
        if (!v)
            break;
    }
    uint32_t id = CUTAP_ID_ALL;
    if (pthread_mutex_trylock(&new_lock))
        return id;   /* as above */
    for (unsigned i = 0; i < MAX_UNKNOWN_UVM; i++) {
        uint32_t v = atomic_load(&unknown_uvm[i].id1);
        if (v && atomic_load(&unknown_uvm[i].cmd) == cmd) {
            id = v - 1;
            break;
        }
        if (!v) {
            char name[32];
            snprintf(name, sizeof name, "UVM_0x%x", cmd);
            id = new_id(name, SIG(sig_unknown));
            if (id != CUTAP_ID_ALL) {
                atomic_store(&unknown_uvm[i].cmd, cmd);
                atomic_store(&unknown_uvm[i].id1, id + 1);
            }
            break;
        }
    }
    pthread_mutex_unlock(&new_lock);
    return id;
}

/* --- decoding ------------------------------------------------------------ */

/* Layouts of the parameter blocks, from the 580 headers; checked against
 * the generated snapshot's offsets below. */
struct nvos00 { uint32_t hRoot, hObjectParent, hObjectOld, status; };
struct nvos21 { uint32_t hRoot, hObjectParent, hObjectNew, hClass; uint64_t pAllocParms; uint32_t paramsSize, status; };
struct nvos64 {
    uint32_t hRoot, hObjectParent, hObjectNew, hClass;
    uint64_t pAllocParms, pRightsRequested;
    uint32_t paramsSize, flags, status;
};
struct nvos54 { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; };
struct nvos33 {
    uint32_t hClient, hDevice, hMemory;
    uint64_t offset __attribute__((aligned(8))), length, pLinearAddress;
    uint32_t status, flags;
};
struct nvos33_fd { struct nvos33 params; int fd; };
struct nvos34 { uint32_t hClient, hDevice, hMemory; uint64_t pLinearAddress __attribute__((aligned(8))); uint32_t status, flags; };
struct nvos02 {
    uint32_t hRoot, hObjectParent, hObjectNew, hClass, flags;
    uint64_t pMemory __attribute__((aligned(8))), limit;
    uint32_t status;
};
struct nvos02_fd { struct nvos02 params; int fd; };
struct card_info {
    uint8_t valid;
    struct { uint32_t domain; uint8_t bus, slot, function; uint16_t vendor_id, device_id; } pci_info;
    uint32_t gpu_id;
    uint16_t interrupt_line;
    uint64_t reg_address __attribute__((aligned(8))), reg_size, fb_address, fb_size;
    uint32_t minor_number;
    uint8_t dev_name[10];
};
struct api_version { uint32_t cmd, reply; char versionString[64]; };
struct xfer { uint32_t cmd, size; uint64_t ptr; };
struct os_event { uint32_t hClient, hDevice, fd, Status; };

#define CHECK(type, gen) _Static_assert(sizeof(struct type) == gen, #type " differs from the 580 headers")
CHECK(nvos00, CUTAP_NV_NVOS00_PARAMETERS_SIZE);
CHECK(nvos21, CUTAP_NV_NVOS21_PARAMETERS_SIZE);
CHECK(nvos64, CUTAP_NV_NVOS64_PARAMETERS_SIZE);
CHECK(nvos54, CUTAP_NV_NVOS54_PARAMETERS_SIZE);
CHECK(nvos33, CUTAP_NV_NVOS33_PARAMETERS_SIZE);
CHECK(nvos34, CUTAP_NV_NVOS34_PARAMETERS_SIZE);
CHECK(nvos02, CUTAP_NV_NVOS02_PARAMETERS_SIZE);
CHECK(card_info, CUTAP_NV_NV_IOCTL_CARD_INFO_T_SIZE);
CHECK(api_version, CUTAP_NV_NV_IOCTL_RM_API_VERSION_T_SIZE);
CHECK(xfer, CUTAP_NV_NV_IOCTL_XFER_T_SIZE);
CHECK(os_event, CUTAP_NV_NV_IOCTL_ALLOC_OS_EVENT_T_SIZE);
_Static_assert(offsetof(struct nvos54, status) == CUTAP_NV_NVOS54_PARAMETERS_OFF_STATUS, "NVOS54 status");
_Static_assert(offsetof(struct nvos64, status) == CUTAP_NV_NVOS64_PARAMETERS_OFF_STATUS, "NVOS64 status");
_Static_assert(offsetof(struct nvos33, status) == CUTAP_NV_NVOS33_PARAMETERS_OFF_STATUS, "NVOS33 status");
_Static_assert(offsetof(struct card_info, minor_number) == CUTAP_NV_NV_IOCTL_CARD_INFO_T_OFF_MINOR_NUMBER,
               "card info");

/* Fills w[2..] from the parameter block p of size bytes (what the kernel
 * accepted) and returns the request's status (NV_STATUS), 0 when it has
 * none; -1 for a block too small for the layout (left undecoded). */
static int64_t decode_block(unsigned sig, const void *p, size_t size, uint64_t *w)
{
#define TAKE(type, v)                       \
    struct type v;                          \
    if (size < sizeof v)                    \
        return -1;                          \
    memcpy(&v, p, sizeof v)
    switch (sig) {
    case S_CONTROL: {
        TAKE(nvos54, s);
        w[2] = s.hClient, w[3] = s.hObject, w[4] = s.cmd, w[5] = s.flags, w[6] = s.paramsSize, w[7] = s.status;
        return s.status;
    }
    case S_ALLOC: {
        if (size == sizeof(struct nvos64)) {
            TAKE(nvos64, s);
            w[2] = s.hRoot, w[3] = s.hObjectParent, w[4] = s.hObjectNew, w[5] = s.hClass, w[6] = s.paramsSize;
            return (uint32_t)(w[7] = s.status);
        }
        TAKE(nvos21, s);
        w[2] = s.hRoot, w[3] = s.hObjectParent, w[4] = s.hObjectNew, w[5] = s.hClass, w[6] = s.paramsSize;
        return (uint32_t)(w[7] = s.status);
    }
    case S_FREE: {
        TAKE(nvos00, s);
        w[2] = s.hRoot, w[3] = s.hObjectParent, w[4] = s.hObjectOld;
        return (uint32_t)(w[5] = s.status);
    }
    case S_ALLOC_MEMORY: {
        TAKE(nvos02, s);
        w[2] = s.hRoot, w[3] = s.hObjectParent, w[4] = s.hObjectNew, w[5] = s.hClass, w[6] = s.flags;
        w[7] = s.limit;
        return (uint32_t)(w[8] = s.status);
    }
    case S_MAP: {
        TAKE(nvos33, s);
        w[2] = s.hClient, w[3] = s.hDevice, w[4] = s.hMemory, w[5] = s.offset, w[6] = s.length, w[7] = s.flags;
        w[8] = s.pLinearAddress;
        return (uint32_t)(w[9] = s.status);
    }
    case S_UNMAP: {
        TAKE(nvos34, s);
        w[2] = s.hClient, w[3] = s.hDevice, w[4] = s.hMemory, w[5] = s.pLinearAddress, w[6] = s.flags;
        return (uint32_t)(w[7] = s.status);
    }
    case S_CARD_INFO: {
        /* An array of cards, as many as the request's size holds. */
        const struct card_info *c = p;
        size_t n = size / sizeof *c, valid = 0;
        for (size_t i = 0; i < n; i++) {
            struct card_info ci;
            memcpy(&ci, &c[i], sizeof ci);
            if (!ci.valid)
                continue;
            if (!valid++) {
                w[3] = (uint64_t)ci.pci_info.domain << 16 | (uint64_t)ci.pci_info.bus << 8 |
                       (uint64_t)(ci.pci_info.slot & 0x1f) << 3 | (ci.pci_info.function & 7);
                w[4] = ci.pci_info.vendor_id, w[5] = ci.pci_info.device_id;
                w[6] = ci.reg_address, w[7] = ci.fb_address, w[8] = ci.fb_size, w[9] = ci.minor_number;
            }
        }
        w[2] = valid;
        return 0;
    }
    case S_VERSION: {
        TAKE(api_version, s);
        w[2] = s.cmd, w[3] = s.reply;
        s.versionString[sizeof s.versionString - 1] = 0;
        char v[32] = {0};
        size_t n = strnlen(s.versionString, sizeof v - 1);   /* "580.159.04": 31 characters kept at most */
        memcpy(v, s.versionString, n);
        memcpy(&w[4], v, sizeof v);
        return 0;
    }
    case S_REGISTER_FD: {
        int fd;
        if (size < sizeof fd)
            return -1;
        memcpy(&fd, p, sizeof fd);
        w[2] = (uint64_t)(int64_t)fd;
        return 0;
    }
    case S_OS_EVENT: {
        TAKE(os_event, s);
        w[2] = s.hClient, w[3] = s.hDevice, w[4] = (uint64_t)(int64_t)(int32_t)s.fd;
        return (uint32_t)(w[5] = s.Status);
    }
    default:
        return -1;
    }
#undef TAKE
}

/* Decodes into w; 1 when done (*outcome set to the status when use is
 * set: the request was accepted), 0 when the block was not decoded. */
static int decode(unsigned sig, const void *p, size_t size, uint64_t *w, uint64_t *outcome, int use)
{
    int64_t st = decode_block(sig, p, size, w);
    if (st < 0)
        return 0;
    if (use)
        *outcome = (uint64_t)st;
    return 1;
}

/* --- the wrappers -------------------------------------------------------- */

/* The outcome a record of this layer keeps as its result: 0, -errno of a
 * failed system call, or the NV_STATUS the driver put in the block. */
static inline uint64_t failed(int err) { return (uint64_t)-(int64_t)err; }

/* A pre callback skipped the call: what the caller gets (for an ioctl, 0
 * or -1 with the errno a negative result names). */
static int skipped_ret(const struct cutap_external *x)
{
    int64_t r = (int64_t)x->call.c.result;
    if (r < 0) {
        errno = (int)-r;
        return -1;
    }
    return 0;
}

static __attribute__((noinline)) int nv_ioctl(int fd, unsigned long req, void *arg, unsigned kind)
{
    ioctl_fn f = REAL(R_IOCTL, ioctl_fn);
    if (!f) {
        errno = ENOSYS;
        return -1;
    }
    if (!atomic_load_explicit(&ids_ready, memory_order_acquire))
        return f(fd, req, arg);
    uint64_t w[MAX_WORDS] = {(uint64_t)(int64_t)fd, dev_word(fd)};
    uint32_t id = id_other;
    unsigned sig = S_GENERIC, nw = 4;
    int unknown = 1, uvm = 0;   /* unknown: recorded as request and arg, nothing decoded */
    struct xfer xf = {0, 0, 0};
    size_t size = CUTAP_NV_IOC_SIZE(req);
    const void *block = arg;
    if (kind == CUTAP_NVDEV_UVM || kind == CUTAP_NVDEV_UVM_TOOLS) {
        id = uvm_cmd_id((uint32_t)req, &uvm);
        if (uvm) {
            unknown = 0;
            w[2] = cutap_nv_uvm_of((uint32_t)req)->params_size;
        }
    } else if (CUTAP_NV_IOC_TYPE(req) == CUTAP_NV_IOCTL_MAGIC && (kind == CUTAP_NVDEV_CTL || kind == CUTAP_NVDEV_GPU)) {
        unsigned nr = CUTAP_NV_IOC_NR(req);
        const struct cutap_nv_escape *e = cutap_nv_escape_of(nr);
        /* Larger blocks come wrapped: the request is the inner escape's. */
        if (e && !strcmp(e->name, "IOCTL_XFER_CMD") && size >= sizeof xf && !safe_read(&xf, arg, sizeof xf) &&
            xf.cmd < 256 && cutap_nv_escape_of(xf.cmd)) {
            nr = xf.cmd;
            e = cutap_nv_escape_of(nr);
            size = xf.size;
            block = (const void *)(uintptr_t)xf.ptr;
            w[1] |= CUTAP_NVDEV_XFER;
        }
        id = escape_id(nr);
        if (e) {
            unknown = 0;
            sig = esc_sig[nr];
            nw = sigs[sig].n;
            if (sig == S_GENERIC)
                w[2] = size;
        }
    }
    if (unknown)
        w[2] = req, w[3] = (uintptr_t)arg;
    /* not wanted (the layer filtered out), or the descriptor is no longer
     * the device it was marked for: nothing recorded */
    if (id == CUTAP_ID_ALL || !atomic_load_explicit(&cutap_mask[id], memory_order_relaxed) || !still_device(fd))
        return f(fd, req, arg);
    struct cutap_external x;
    int ret, err = errno;
    if (cutap_native_enter(&x, id, w, nw, (void *)f)) {
        ret = skipped_ret(&x);
        err = errno;
        cutap_native_exit(&x, x.call.c.result);
        errno = err;
        return ret;
    }
    errno = err;
    ret = f(fd, req, arg);
    err = errno;
    uint64_t outcome = ret == -1 ? failed(err) : 0;
    /* A version mismatch is refused with EINVAL after the driver wrote
     * its own version into the block: read it then too. */
    int accepted = ret == 0 || (ret == -1 && err == EINVAL && sig == S_VERSION);
    if (accepted && !unknown) {
        if (uvm) {
            const struct cutap_nv_uvm *u = cutap_nv_uvm_of((uint32_t)req);
            uint32_t st;
            if (u->params_size && u->status_off + sizeof st <= u->params_size &&
                !read_accepted(&st, (const char *)arg + u->status_off, sizeof st)) {
                outcome = w[3] = st;
                w[1] |= CUTAP_NVDEV_DECODED;
            }
        } else if (sig != S_GENERIC && block) {
            /* Accepted: the kernel copied the block in and out. Bounded:
             * a CARD_INFO array of 35 cards at most. */
            unsigned char buf[2560] __attribute__((aligned(8)));
            size_t n = size < sizeof buf ? size : sizeof buf;
            if (!read_accepted(buf, block, n) && decode(sig, buf, n, w, &outcome, ret == 0))
                w[1] |= CUTAP_NVDEV_DECODED;
        }
    }
    cutap_native_exit(&x, outcome);
    errno = err;
    return ret;
}

/* Declared variadic by glibc, defined here with its one argument: on
 * x86-64 the third integer argument is in %rdx either way, and a
 * non-variadic definition saves no register area on every call. */
/* The front's ioctl, open, close, ... once the core is loaded
 * (struct cutap_core, src/front/io.c). */
static int io_ioctl(int fd, unsigned long req, void *arg)
{
    unsigned kind = kind_of(fd);
    if (CUTAP_UNLIKELY(!kind && CUTAP_NV_REQUEST_LOOKS(req)))
        kind = classify(fd);
    if (CUTAP_LIKELY(!kind)) {
        ioctl_fn f = REAL(R_IOCTL, ioctl_fn);
        if (CUTAP_LIKELY(f != NULL))
            return f(fd, req, arg);
        errno = ENOSYS;
        return -1;
    }
    return nv_ioctl(fd, req, arg, kind);
}

/* An open of a device file. The path is looked at only once the kernel
 * has read it (a bad pointer stays the program's own EFAULT), so the open
 * is recorded when it returned, with no duration of its own. */
static int kind_after_open(int fd, int err, const char *path, unsigned *minor)
{
    /* Succeeded: the kernel copied the whole path (up to its NUL), so it
     * is readable. Failed: perhaps before the kernel read it (EINVAL from
     * the flags, a seccomp filter's errno), so only a path found readable
     * (front/exec.c's probe, which cannot fault) is looked at. */
    (void)err;
    if (fd < 0 && !cutap_readable_str(path))
        return 0;
    return path_kind(path, minor);
}

static int opened(int fd, int err, const char *path, int flags)
{
    unsigned minor;
    int kind = kind_after_open(fd, err, path, &minor);
    if (!kind || cutap_tls.internal || foreign()) {
        errno = err;
        return fd;
    }
    if (fd >= 0)
        mark(fd, (unsigned)kind, minor);
    if (atomic_load_explicit(&ids_ready, memory_order_acquire) && id_open != CUTAP_ID_ALL &&
        atomic_load_explicit(&cutap_mask[id_open], memory_order_relaxed)) {
        uint64_t w[3] = {(uint64_t)kind << 16 | minor, (uint64_t)(unsigned)flags, (uint64_t)(int64_t)fd};
        struct cutap_external x;
        cutap_native_enter(&x, id_open, w, 3, NULL);   /* after the fact: nothing to skip */
        cutap_native_exit(&x, fd < 0 ? failed(err) : 0);
    }
    errno = err;
    return fd;
}

static inline int need_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

static int io_opened(int fd, int err, const char *path, int flags)
{
    return opened(fd, err, path, flags);
}

static int io_open(int k, int dirfd, const char *path, int flags, mode_t mode)
{
    int fd = cutap_real_open(k, dirfd, path, flags, mode);
    return opened(fd, errno, path, flags);
}

static __attribute__((noinline)) int nv_close(int fd)
{
    close_fn f = REAL(R_CLOSE, close_fn);
    if (!f) {
        errno = ENOSYS;
        return -1;
    }
    /* a vfork child closing its parent's descriptor: not the parent's close */
    if (foreign())
        return f(fd);
    int real = still_device(fd);
    uint64_t w[2] = {(uint64_t)(int64_t)fd, dev_word(fd)};
    /* Cleared first: once closed, the number may be another thread's new
     * descriptor at once. */
    mark(fd, 0, 0);
    if (!real || !atomic_load_explicit(&ids_ready, memory_order_acquire) || id_close == CUTAP_ID_ALL ||
        !atomic_load_explicit(&cutap_mask[id_close], memory_order_relaxed))
        return f(fd);
    struct cutap_external x;
    if (cutap_native_enter(&x, id_close, w, 2, (void *)f)) {
        int ret = skipped_ret(&x), err = errno;
        cutap_native_exit(&x, x.call.c.result);
        errno = err;
        return ret;
    }
    int ret = f(fd), err = errno;
    cutap_native_exit(&x, ret ? failed(err) : 0);
    errno = err;
    return ret;
}

static int no_fn(void) { errno = ENOSYS; return -1; }
#define CALL_OR_ENOSYS(k, type, ...) (real(k) ? REAL(k, type)(__VA_ARGS__) : no_fn())

static int io_close(int fd)
{
    if (CUTAP_UNLIKELY(kind_of(fd)))
        return nv_close(fd);
    return CALL_OR_ENOSYS(R_CLOSE, close_fn, fd);
}

static int io_close_range(unsigned first, unsigned last, int flags)
{
    int r = CALL_OR_ENOSYS(R_CLOSE_RANGE, close_range_fn, first, last, flags), err = errno;
    int checked = 0;
    if (!r && !(flags & CLOSE_RANGE_CLOEXEC))
        for (unsigned fd = first; fd <= last && fd < NV_FD_MAX; fd++)
            if (atomic_load_explicit(&fd_kind[fd], memory_order_relaxed)) {
                if (!checked++ && foreign())
                    break;   /* a vfork child closing its parent's descriptors */
                mark((int)fd, 0, 0);
            }
    errno = err;
    return r;
}

/* A duplicate is the same device; the descriptor it replaces is not. */
static int duped(int oldfd, int newfd)
{
    if (newfd >= 0 && newfd != oldfd && (kind_of(oldfd) || kind_of(newfd)) && !foreign())
        mark(newfd, kind_of(oldfd), kind_of(oldfd) ? atomic_load(&fd_minor[oldfd]) : 0);
    return newfd;
}
static int io_dup(int k, int fd, int fd2, int flags)
{
    int r = cutap_real_dup(k, fd, fd2, flags), err = errno;
    duped(fd, r);
    errno = err;
    return r;
}

/* fcntl's F_DUPFD and F_DUPFD_CLOEXEC duplicate too. */
static int io_fcntl(int k, int fd, int cmd, long arg)
{
    int r = cutap_real_fcntl(k, fd, cmd, arg);
    if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r >= 0) {
        int err = errno;
        duped(fd, r);
        errno = err;
    }
    return r;
}

/* Mappings of device files, so that their munmap is recognised: ranges
 * sorted by start, under a lock taken with trylock (a signal handler that
 * unmaps on the thread holding it passes through unrecorded rather than
 * waiting). An munmap of any other memory costs one test while no device
 * mapping exists, a lock and a binary search else. A mapping or unmapping
 * that overlaps a range (MAP_FIXED over it, an munmap from another start)
 * drops the range: it is recorded only when it starts exactly there. */
#define MAX_MAPS 4096
static struct map_range {
    uintptr_t start, end;
    uint64_t dev;
} maps[MAX_MAPS];
static _Atomic unsigned nmaps;
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(map_lock)

/* The first range whose end is past a (lock held). */
static unsigned map_find(uintptr_t a)
{
    unsigned lo = 0, hi = atomic_load_explicit(&nmaps, memory_order_relaxed);
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (maps[mid].end <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Drops the ranges overlapping [a, a + len) (lock held); returns the
 * device of one that started exactly at a, or 0. */
static uint64_t map_drop(uintptr_t a, size_t len)
{
    unsigned n = atomic_load_explicit(&nmaps, memory_order_relaxed), i = map_find(a), j = i;
    uint64_t dev = 0;
    while (j < n && maps[j].start < a + len) {
        if (maps[j].start == a)
            dev = maps[j].dev;
        j++;
    }
    if (j > i) {
        memmove(&maps[i], &maps[j], (n - j) * sizeof *maps);
        atomic_store_explicit(&nmaps, n - (j - i), memory_order_relaxed);
    }
    return dev;
}

static void map_put(uintptr_t a, size_t len, uint64_t dev)
{
    if (!len || pthread_mutex_trylock(&map_lock))
        return;
    map_drop(a, len);
    unsigned n = atomic_load_explicit(&nmaps, memory_order_relaxed), i = map_find(a);
    if (n < MAX_MAPS) {
        memmove(&maps[i + 1], &maps[i], (n - i) * sizeof *maps);
        maps[i] = (struct map_range){a, a + len, dev};
        atomic_store_explicit(&nmaps, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&map_lock);
}

/* The device of a mapping starting at a (and forgets every range the
 * unmapping overlaps), or 0. */
static uint64_t map_take(uintptr_t a, size_t len)
{
    if (pthread_mutex_trylock(&map_lock))
        return 0;
    uint64_t dev = map_drop(a, len ? len : 1);
    pthread_mutex_unlock(&map_lock);
    return dev;
}

static __attribute__((noinline)) void *nv_mmap(int k, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    mmap_fn f = (mmap_fn)real(k);
    if (!f) {
        errno = ENOSYS;
        return MAP_FAILED;
    }
    if (!still_device(fd) || foreign())
        return f(addr, len, prot, flags, fd, off);
    uint64_t dev = dev_word(fd);
    uint64_t w[7] = {(uint64_t)(int64_t)fd, dev, len, (uint64_t)(unsigned)prot, (uint64_t)(unsigned)flags,
                     (uint64_t)off, 0};
    int rec = atomic_load_explicit(&ids_ready, memory_order_acquire) && id_mmap != CUTAP_ID_ALL &&
              atomic_load_explicit(&cutap_mask[id_mmap], memory_order_relaxed);
    struct cutap_external x;
    if (rec && cutap_native_enter(&x, id_mmap, w, 7, (void *)f)) {
        int err = (int)-(int64_t)x.call.c.result;
        cutap_native_exit(&x, x.call.c.result);
        errno = err > 0 ? err : ENOMEM;
        return MAP_FAILED;
    }
    void *p = f(addr, len, prot, flags, fd, off);
    int err = errno;
    if (p != MAP_FAILED)
        map_put((uintptr_t)p, len, dev);
    if (rec) {
        w[6] = (uintptr_t)p;
        cutap_native_exit(&x, p == MAP_FAILED ? failed(err) : 0);
    }
    errno = err;
    return p;
}

static __attribute__((noinline)) void fixed_over(void *addr, size_t len)
{
    if (!cutap_tls.internal)
        map_take((uintptr_t)addr, len);   /* a mapping laid over a device range ends it */
}

static void *io_mmap(int k, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (CUTAP_UNLIKELY(kind_of(fd)) && !(flags & MAP_ANONYMOUS))
        return nv_mmap(k, addr, len, prot, flags, fd, off);
    if (CUTAP_UNLIKELY(flags & MAP_FIXED) && atomic_load_explicit(&nmaps, memory_order_relaxed))
        fixed_over(addr, len);
    return cutap_real_mmap(k, addr, len, prot, flags, fd, off);
}

static __attribute__((noinline)) int nv_munmap(void *addr, size_t len, uint64_t dev)
{
    munmap_fn f = REAL(R_MUNMAP, munmap_fn);
    if (!f) {
        errno = ENOSYS;
        return -1;
    }
    if (!atomic_load_explicit(&ids_ready, memory_order_acquire) || id_munmap == CUTAP_ID_ALL ||
        !atomic_load_explicit(&cutap_mask[id_munmap], memory_order_relaxed))
        return f(addr, len);
    uint64_t w[3] = {(uintptr_t)addr, len, dev};
    struct cutap_external x;
    if (cutap_native_enter(&x, id_munmap, w, 3, (void *)f)) {
        int ret = skipped_ret(&x), err = errno;
        cutap_native_exit(&x, x.call.c.result);
        errno = err;
        return ret;
    }
    int ret = f(addr, len), err = errno;
    cutap_native_exit(&x, ret ? failed(err) : 0);
    errno = err;
    return ret;
}

static int io_munmap(void *addr, size_t len)
{
    uint64_t dev;
    if (CUTAP_UNLIKELY(atomic_load_explicit(&nmaps, memory_order_relaxed)) && !cutap_tls.internal &&
        (dev = map_take((uintptr_t)addr, len)))
        return nv_munmap(addr, len, dev);
    munmap_fn f = REAL(R_MUNMAP, munmap_fn);
    if (CUTAP_UNLIKELY(!f)) {
        errno = ENOSYS;
        return -1;
    }
    return f(addr, len);
}

/* --- start-up ------------------------------------------------------------ */

void cutap_ioctl_init(void)
{
    pid_after_fork();
    pthread_atfork(NULL, NULL, pid_after_fork);
    for (int k = 0; k < R_COUNT; k++)
        (void)real(k);
    for (unsigned i = 0; i < cutap_nv_nescapes; i++) {
        const struct cutap_nv_escape *e = &cutap_nv_escapes[i];
        if (atomic_load(&esc_id[e->nr]))
            continue;   /* an alias of an escape named already */
        unsigned sig = S_GENERIC;
        for (unsigned s = 0; s < sizeof special / sizeof *special; s++)
            if (!strcmp(special[s].name, e->name))
                sig = special[s].sig;
        esc_sig[e->nr] = (uint8_t)sig;
        uint32_t id = new_id(e->name, sigs[sig].n, sigs[sig].a);
        if (id != CUTAP_ID_ALL)
            atomic_store(&esc_id[e->nr], id + 1);
    }
    _Atomic uint32_t *u = calloc(cutap_nv_nuvms ? cutap_nv_nuvms : 1, sizeof *u);
    for (unsigned i = 0; u && i < cutap_nv_nuvms; i++) {
        uint32_t id = i && cutap_nv_uvms[i].cmd == cutap_nv_uvms[i - 1].cmd
                          ? atomic_load(&u[i - 1]) - 1
                          : new_id(cutap_nv_uvms[i].name, SIG(sig_uvm));
        if (id != CUTAP_ID_ALL)
            atomic_store(&u[i], id + 1);
    }
    uvm_id = u;
    id_open = new_id("open", SIG(sig_open));
    id_close = new_id("close", SIG(sig_close));
    id_mmap = new_id("mmap", SIG(sig_mmap));
    id_munmap = new_id("munmap", SIG(sig_munmap));
    id_other = new_id("ioctl", SIG(sig_unknown));
    atomic_store_explicit(&ids_ready, 1, memory_order_release);
}

/* The ioctl layer's side of the front's libc entries (src/front/io.c). */
void cutap_ioctl_core(struct cutap_core *c)
{
    c->ioctl = io_ioctl;
    c->open = io_open;
    c->opened = io_opened;
    c->close = io_close;
    c->close_range = io_close_range;
    c->dup = io_dup;
    c->mmap = io_mmap;
    c->munmap = io_munmap;
    c->fcntl = io_fcntl;
}
