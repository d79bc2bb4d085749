/* The NVIDIA kernel interface tables (src/common/generated/nv_ioctl_tables.c,
 * generated from the open kernel module headers of the 580 branch) and
 * their lookups (src/common/nv_ioctl.c): every escape and UVM command
 * measured on the H100 machine (driver 580.159.04) is named, the status,
 * class and control names cutap's output relies on are right, the tables
 * are sorted as the binary searches need, and a number no table holds is
 * not named. */
#include <string.h>

#include "nv_ioctl.h"
#include "unit.h"

static const char *esc(unsigned nr)
{
    const struct cutap_nv_escape *e = cutap_nv_escape_of(nr);
    return e ? e->name : NULL;
}

static const char *uvm(uint32_t cmd)
{
    const struct cutap_nv_uvm *u = cutap_nv_uvm_of(cmd);
    return u ? u->name : NULL;
}

TESTCASE(escapes_seen_on_driver_580)
{
    CHECK_STR(esc(0x2a), "RM_CONTROL");
    CHECK_STR(esc(0x2b), "RM_ALLOC");
    CHECK_STR(esc(0x29), "RM_FREE");
    CHECK_STR(esc(0x27), "RM_ALLOC_MEMORY");
    CHECK_STR(esc(0x4e), "RM_MAP_MEMORY");
    CHECK_STR(esc(0x4f), "RM_UNMAP_MEMORY");
    CHECK_STR(esc(0x5e), "RM_UPDATE_DEVICE_MAPPING_INFO");
    CHECK_STR(esc(0xc8), "CARD_INFO");
    CHECK_STR(esc(0xc9), "REGISTER_FD");
    CHECK_STR(esc(0xce), "ALLOC_OS_EVENT");
    CHECK_STR(esc(0xd2), "CHECK_VERSION_STR");
    CHECK_STR(esc(0xd3), "IOCTL_XFER_CMD");
    CHECK_STR(esc(0xd7), "NUMA_INFO");
    CHECK_STR(esc(0xda), "WAIT_OPEN_COMPLETE");
    CHECK(esc(0xee) == NULL);
    const struct cutap_nv_escape *e = cutap_nv_escape_of(0x2a);
    CHECK_STR(e ? e->params : NULL, "NVOS54_PARAMETERS");
    CHECK_INT(e ? e->params_size : 0, 32);
}

TESTCASE(uvm_commands_seen_on_driver_580)
{
    static const uint32_t seen[] = {0x17, 0x18, 0x19, 0x1b, 0x21, 0x22, 0x25, 0x27, 0x41, 0x44, 0x48, 0x49, 0x4b};
    for (size_t i = 0; i < sizeof seen / sizeof *seen; i++)
        CHECK(uvm(seen[i]) != NULL && !strncmp(uvm(seen[i]), "UVM_", 4));
    CHECK_STR(uvm(0x30000001), "UVM_INITIALIZE");
    const struct cutap_nv_uvm *u = cutap_nv_uvm_of(0x30000001);
    CHECK_INT(u ? u->params_size : 0, 16);   /* NvU64 flags; NV_STATUS rmStatus */
    CHECK_INT(u ? u->status_off : 0, 8);
    CHECK(uvm(0x999) == NULL);
}

TESTCASE(names_of_statuses_classes_controls)
{
    CHECK_STR(cutap_nv_status_name(0), "NV_OK");
    CHECK_STR(cutap_nv_status_name(0x56), "NV_ERR_NOT_SUPPORTED");
    CHECK_STR(cutap_nv_status_name(0x1f), "NV_ERR_INVALID_ARGUMENT");
    CHECK(cutap_nv_status_name(0x7fff1234) == NULL);
    CHECK_STR(cutap_nv_class_name(0x0080), "NV01_DEVICE_0");
    CHECK_STR(cutap_nv_class_name(0x2080), "NV20_SUBDEVICE_0");
    CHECK_STR(cutap_nv_class_name(0xc86f), "HOPPER_CHANNEL_GPFIFO_A");
    CHECK_STR(cutap_nv_class_name(0xcbc0), "HOPPER_COMPUTE_A");
    CHECK_STR(cutap_nv_class_name(0x0040), "NV01_MEMORY_LOCAL_USER");
    CHECK(cutap_nv_class_name(0xbad) == NULL);
    const struct cutap_nv_ctrl *c = cutap_nv_ctrl_of(0x20800102);
    CHECK_STR(c ? c->name : NULL, "NV2080_CTRL_CMD_GPU_GET_INFO_V2");
    CHECK_STR(c ? c->params : NULL, "NV2080_CTRL_GPU_GET_INFO_V2_PARAMS");
    c = cutap_nv_ctrl_of(0x00000d01);
    CHECK_STR(c ? c->name : NULL, "NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE");
    /* private commands: not named, but their class's category is */
    CHECK(cutap_nv_ctrl_of(0x20809064) == NULL);
    CHECK_STR(cutap_nv_category_name(0x20809064), "NV2080_CTRL_CLK_LEGACY_NON_PRIVILEGED");
    CHECK(cutap_nv_category_name(0x7fff0000) == NULL);
}

TESTCASE(tables_sorted)
{
    for (unsigned i = 1; i < cutap_nv_nescapes; i++)
        CHECK(cutap_nv_escapes[i - 1].nr <= cutap_nv_escapes[i].nr);
    for (unsigned i = 1; i < cutap_nv_nclasses; i++)
        CHECK(cutap_nv_classes[i - 1].value <= cutap_nv_classes[i].value);
    for (unsigned i = 1; i < cutap_nv_nctrls; i++)
        CHECK(cutap_nv_ctrls[i - 1].cmd <= cutap_nv_ctrls[i].cmd);
    for (unsigned i = 1; i < cutap_nv_nstatuses; i++)
        CHECK(cutap_nv_statuses[i - 1].value <= cutap_nv_statuses[i].value);
    for (unsigned i = 1; i < cutap_nv_nuvms; i++)
        CHECK(cutap_nv_uvms[i - 1].cmd <= cutap_nv_uvms[i].cmd);
    for (unsigned i = 1; i < cutap_nv_ncategories; i++)
        CHECK(cutap_nv_categories[i - 1].value <= cutap_nv_categories[i].value);
    CHECK(cutap_nv_nctrls > 1500);
    CHECK(cutap_nv_nclasses > 250);
}

TESTCASE(device_names)
{
    char b[64];
    CHECK_STR(cutap_nvdev_str((uint64_t)CUTAP_NVDEV_CTL << 16, b, sizeof b), "nvidiactl");
    CHECK_STR(cutap_nvdev_str((uint64_t)CUTAP_NVDEV_GPU << 16 | 3, b, sizeof b), "nvidia3");
    CHECK_STR(cutap_nvdev_str(((uint64_t)CUTAP_NVDEV_CTL << 16) | CUTAP_NVDEV_XFER, b, sizeof b), "nvidiactl (xfer)");
    CHECK_STR(cutap_nvdev_str((uint64_t)CUTAP_NVDEV_UVM << 16, b, sizeof b), "nvidia-uvm");
}

TESTLIST_BEGIN(nv_ioctl)
    TESTENTRY(escapes_seen_on_driver_580)
    TESTENTRY(uvm_commands_seen_on_driver_580)
    TESTENTRY(names_of_statuses_classes_controls)
    TESTENTRY(tables_sorted)
    TESTENTRY(device_names)
TESTLIST_END()
