/* The ioctl layer's ids, signatures and decoding (ioctl_internal.h):
 * one id per escape and UVM command the generated tables know
 * (src/common/generated/nv_ioctl_tables.c), made at start-up, and ids in hex for
 * numbers they do not know (another driver branch), made at first sight;
 * the parameter blocks of the requests it decodes, their layouts checked
 * against the 580 headers' snapshot. */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve_internal.h"
#include "ioctl_internal.h"
#include "nv_ioctl.h"

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
    A("linearAddress", "NvP64", PTR), A("status", "NV_STATUS", UINT), A("mapFd", "NvS32", INT)};
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
                                            A("offset", "off_t", UINT), A("addr", "void *", PTR),
                                            A("hMemory", "NV_MEMORY", UINT), A("maps", "NV_MAPS", UINT)};
static const cutap_arg_info_t sig_munmap[] = {A("addr", "void *", PTR), A("length", "size_t", UINT),
                                              A("dev", "NV_DEV", UINT), A("hMemory", "NV_MEMORY", UINT),
                                              A("maps", "NV_MAPS", UINT), A("left", "size_t", UINT)};
static const cutap_arg_info_t sig_mremap[] = {
    A("old_address", "void *", PTR), A("old_size", "size_t", UINT), A("new_size", "size_t", UINT),
    A("flags", "MREMAP_FLAGS", UINT), A("new_address", "void *", PTR), A("dev", "NV_DEV", UINT),
    A("hMemory", "NV_MEMORY", UINT), A("maps", "NV_MAPS", UINT), A("addr", "void *", PTR)};
static const cutap_arg_info_t sig_mmap_over[] = {
    A("addr", "void *", PTR), A("length", "size_t", UINT), A("prot", "MMAP_PROT", UINT),
    A("flags", "MMAP_FLAGS", UINT), A("fd", "int", INT), A("dev", "NV_DEV", UINT), A("hMemory", "NV_MEMORY", UINT),
    A("maps", "NV_MAPS", UINT), A("left", "size_t", UINT)};
#undef A
#define SIG(s) (unsigned)(sizeof s / sizeof *s), s

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
struct ioc_ids ioc_id;
_Atomic int ioc_ids_ready;
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

uint32_t ioc_escape_id(unsigned nr)
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

uint32_t ioc_uvm_cmd_id(uint32_t cmd, int *known)
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
        /* the descriptor whose next mmap maps it (-1: a block without) */
        struct nvos33_fd sf;
        w[10] = (uint64_t)-1;
        if (size >= sizeof sf) {
            memcpy(&sf, p, sizeof sf);
            w[10] = (uint64_t)(int64_t)sf.fd;
        }
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
int ioc_decode(unsigned sig, const void *p, size_t size, uint64_t *w, uint64_t *outcome, int use)
{
    int64_t st = decode_block(sig, p, size, w);
    if (st < 0)
        return 0;
    if (use)
        *outcome = (uint64_t)st;
    return 1;
}

/* The size of class hclass's allocation parameters as the headers pair
 * them (src/common/generated/nv_alloc_sizes.c, sorted), 0 when none. */
static int by_class(const void *key, const void *e)
{
    uint32_t a = *(const uint32_t *)key, b = ((const struct cutap_nv_alloc_size *)e)->hclass;
    return a < b ? -1 : a > b;
}
uint32_t ioc_alloc_params_size(uint32_t hclass)
{
    const struct cutap_nv_alloc_size *e =
        bsearch(&hclass, cutap_nv_alloc_sizes, cutap_nv_nalloc_sizes, sizeof *e, by_class);
    return e ? e->size : 0;
}

/* Every id of the layer, made before any is recorded. */
void ioc_ids_init(void)
{
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
    ioc_id.open = new_id("open", SIG(sig_open));
    ioc_id.close = new_id("close", SIG(sig_close));
    ioc_id.mmap = new_id("mmap", SIG(sig_mmap));
    ioc_id.munmap = new_id("munmap", SIG(sig_munmap));
    ioc_id.mremap = new_id("mremap", SIG(sig_mremap));
    ioc_id.mmap_over = new_id("mmap_over", SIG(sig_mmap_over));
    ioc_id.other = new_id("ioctl", SIG(sig_unknown));
    atomic_store_explicit(&ioc_ids_ready, 1, memory_order_release);
}

/* ioctl_internal.h */
unsigned ioc_escape_sig(unsigned nr) { return esc_sig[nr & 255]; }
unsigned ioc_sig_words(unsigned sig) { return sigs[sig].n; }
