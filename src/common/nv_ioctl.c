/* Lookups in the generated NVIDIA ioctl tables (nv_ioctl.h). */
#include <stdio.h>

#include "nv_ioctl.h"

const char *cutap_nvdev_str(uint64_t dev, char *buf, size_t size)
{
    unsigned kind = (unsigned)(dev >> 16) & 0xff, minor = (unsigned)dev & 0xffff;   /* flag bits aside */
    const char *x = (dev & CUTAP_NVDEV_XFER) ? " (xfer)" : "";
    switch (kind) {
    case CUTAP_NVDEV_CTL: snprintf(buf, size, "nvidiactl%s", x); break;
    case CUTAP_NVDEV_GPU: snprintf(buf, size, "nvidia%u%s", minor, x); break;
    case CUTAP_NVDEV_UVM: snprintf(buf, size, "nvidia-uvm"); break;
    case CUTAP_NVDEV_UVM_TOOLS: snprintf(buf, size, "nvidia-uvm-tools"); break;
    case CUTAP_NVDEV_MODESET: snprintf(buf, size, "nvidia-modeset"); break;
    case CUTAP_NVDEV_CAPS: snprintf(buf, size, "nvidia-caps/nvidia-cap%u", minor); break;
    case CUTAP_NVDEV_OTHER: snprintf(buf, size, "nvidia-other"); break;
    default: snprintf(buf, size, "0x%llx", (unsigned long long)dev);
    }
    return buf;
}

/* The first entry whose key is v in an array sorted by key (aliases are
 * adjacent, the preferred name first), or NULL. */
#define FIND(arr, n, key, v)                                 \
    do {                                                     \
        size_t lo_ = 0, hi_ = (n);                           \
        while (lo_ < hi_) {                                  \
            size_t mid_ = lo_ + (hi_ - lo_) / 2;             \
            if ((arr)[mid_].key < (v))                       \
                lo_ = mid_ + 1;                              \
            else                                             \
                hi_ = mid_;                                  \
        }                                                    \
        return lo_ < (n) && (arr)[lo_].key == (v) ? &(arr)[lo_] : NULL; \
    } while (0)

const struct cutap_nv_escape *cutap_nv_escape_of(unsigned nr) { FIND(cutap_nv_escapes, cutap_nv_nescapes, nr, nr); }
const struct cutap_nv_ctrl *cutap_nv_ctrl_of(uint32_t cmd) { FIND(cutap_nv_ctrls, cutap_nv_nctrls, cmd, cmd); }
const struct cutap_nv_uvm *cutap_nv_uvm_of(uint32_t cmd) { FIND(cutap_nv_uvms, cutap_nv_nuvms, cmd, cmd); }

static const struct cutap_nv_name *name_of(const struct cutap_nv_name *arr, size_t n, uint32_t v)
{
    FIND(arr, n, value, v);
}

const char *cutap_nv_class_name(uint32_t hclass)
{
    const struct cutap_nv_name *e = name_of(cutap_nv_classes, cutap_nv_nclasses, hclass);
    return e ? e->name : NULL;
}

const char *cutap_nv_status_name(uint32_t status)
{
    const struct cutap_nv_name *e = name_of(cutap_nv_statuses, cutap_nv_nstatuses, status);
    return e ? e->name : NULL;
}

const char *cutap_nv_category_name(uint32_t cmd)
{
    const struct cutap_nv_name *e = name_of(cutap_nv_categories, cutap_nv_ncategories, cmd >> 8);
    return e ? e->name : NULL;
}
