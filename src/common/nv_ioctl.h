/* The NVIDIA kernel driver's ioctl interface as cutap decodes it (issue
 * #15): device kinds, and lookups in the tables generated from NVIDIA's
 * open kernel module headers (src/common/generated/nv_ioctl_tables.c, by
 * gen/nv_ioctl_generator.py from gen/snapshots/nv_ioctl.json). Shared by
 * libcutap.so (src/resolve/ioctl.c, ioctl_decode.c) and the cutap command (cli/). */
#ifndef CUTAP_NV_IOCTL_H
#define CUTAP_NV_IOCTL_H

#include <stddef.h>
#include <stdint.h>

#include "generated/nv_ioctl_tables.h"

/* The device files libcuda, NVML and friends open. The "dev" argument word
 * of every ioctl-layer record is kind << 16 | minor, ORed with
 * CUTAP_NVDEV_XFER for a request that came wrapped in IOCTL_XFER_CMD and
 * CUTAP_NVDEV_DECODED when its block was decoded. */
enum {
    CUTAP_NVDEV_NONE = 0,
    CUTAP_NVDEV_CTL = 1,        /* nvidiactl */
    CUTAP_NVDEV_GPU = 2,        /* nvidiaN (minor N) */
    CUTAP_NVDEV_UVM = 3,        /* nvidia-uvm */
    CUTAP_NVDEV_UVM_TOOLS = 4,  /* nvidia-uvm-tools */
    CUTAP_NVDEV_MODESET = 5,    /* nvidia-modeset */
    CUTAP_NVDEV_CAPS = 6,       /* nvidia-caps/nvidia-capN (minor N) */
    CUTAP_NVDEV_OTHER = 7,      /* any other nvidia* node (nvswitch, nvlink, imex channels, ...) */
    CUTAP_NVDEV_KINDS = 8,
};
#define CUTAP_NVDEV_XFER 0x80000000u
/* The words after fd and dev were read from the parameter block (the
 * kernel accepted it): without it they are 0 and mean nothing. */
#define CUTAP_NVDEV_DECODED 0x40000000u

/* The ioctl magic and number layout of nvidiactl/nvidiaN requests
 * (_IOWR('F', nr, params)); /dev/nvidia-uvm takes plain command numbers. */
#define CUTAP_NV_IOCTL_MAGIC 'F'
/* Could req be a request to an NVIDIA device file: an escape ('F'), or a
 * UVM command (small numbers, and 0x3000000N)? A descriptor cutap has not
 * marked (inherited across exec) is looked at only for such a request. */
#define CUTAP_NV_REQUEST_LOOKS(req)                                                               \
    (CUTAP_NV_IOC_TYPE(req) == CUTAP_NV_IOCTL_MAGIC || (unsigned long)(req) < 0x1000ul ||       \
     ((unsigned long)(req) & ~0xfful) == 0x30000000ul)
#define CUTAP_NV_IOC_NR(req) ((unsigned)((req) & 0xff))
#define CUTAP_NV_IOC_TYPE(req) ((unsigned)(((req) >> 8) & 0xff))
#define CUTAP_NV_IOC_SIZE(req) ((unsigned)(((req) >> 16) & 0x3fff))

/* "nvidiactl", "nvidia0", "nvidia-uvm", "nvidia-caps/nvidia-cap1", ... of
 * a dev word, into buf (at least 40 bytes); returns buf. */
const char *cutap_nvdev_str(uint64_t dev, char *buf, size_t size);

/* Lookups (binary search; NULL when the number is not in the tables: a
 * number of another driver branch, shown in hex, never guessed). */
const struct cutap_nv_escape *cutap_nv_escape_of(unsigned nr);
const char *cutap_nv_class_name(uint32_t hclass);
/* The size of a class's allocation parameters, as the headers pair them
 * (src/common/generated/nv_alloc_sizes.c, libcutap_core.so only). */
struct cutap_nv_alloc_size {
    uint32_t hclass, size;
};
extern const struct cutap_nv_alloc_size cutap_nv_alloc_sizes[];
extern const unsigned cutap_nv_nalloc_sizes;
const struct cutap_nv_ctrl *cutap_nv_ctrl_of(uint32_t cmd);
const char *cutap_nv_status_name(uint32_t status);
/* The category of a control command (NV2080_CTRL_CLK_LEGACY_NON_PRIVILEGED
 * for 0x20809064), for commands the tables do not list. */
const char *cutap_nv_category_name(uint32_t cmd);
const struct cutap_nv_uvm *cutap_nv_uvm_of(uint32_t cmd);

#endif
