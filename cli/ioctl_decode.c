/* The ioctl layer's records in text (issue #15): its argument words by the
 * types the recorder gave them (src/resolve/ioctl_decode.c: NV_DEV, NV_CLASS,
 * NV_CTRL_CMD, NV_STATUS, ...), named from the tables generated from
 * NVIDIA's kernel interface headers (src/common/generated/nv_ioctl_tables.c);
 * numbers the tables do not know stay in hex. Used by dump and the
 * exports (through put_raw_args), report and report --tree. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ioctl_decode.h"
#include "nv_ioctl.h"
#include "trace_read.h"

static int is(const char *type, size_t len, const char *want)
{
    return strlen(want) == len && !memcmp(type, want, len);
}

struct flag {
    uint64_t bit;
    const char *name;
};

static void put_flags(FILE *f, uint64_t v, const struct flag *t, size_t n, int any)
{
    for (size_t i = 0; i < n; i++)
        if ((v & t[i].bit) == t[i].bit) {
            fprintf(f, "%s%s", any++ ? "|" : "", t[i].name);
            v &= ~t[i].bit;
        }
    if (v || !any)
        fprintf(f, "%s0x%" PRIx64, any ? "|" : "", v);
}

/* open(2) flags as Linux x86-64 numbers them (the traced process's, not
 * this machine's headers'). */
static void put_open_flags(FILE *f, uint64_t v)
{
    static const struct flag t[] = {{0100, "O_CREAT"}, {0200, "O_EXCL"}, {01000, "O_TRUNC"}, {02000, "O_APPEND"},
                                    {04000, "O_NONBLOCK"}, {02000000, "O_CLOEXEC"}, {0400000, "O_NOFOLLOW"},
                                    {040000, "O_DIRECT"}, {04010000, "O_SYNC"}};
    fputs((const char *[]){"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE"}[v & 3], f);
    if (v & ~3ull)
        put_flags(f, v & ~3ull, t, sizeof t / sizeof *t, 1);
}

static void put_prot(FILE *f, uint64_t v)
{
    static const struct flag t[] = {{1, "PROT_READ"}, {2, "PROT_WRITE"}, {4, "PROT_EXEC"}};
    if (!v)
        fputs("PROT_NONE", f);
    else
        put_flags(f, v, t, sizeof t / sizeof *t, 0);
}

static void put_map_flags(FILE *f, uint64_t v)
{
    static const struct flag t[] = {{0x03, "MAP_SHARED_VALIDATE"}, {0x01, "MAP_SHARED"}, {0x02, "MAP_PRIVATE"},
                                    {0x10, "MAP_FIXED"}, {0x20, "MAP_ANONYMOUS"}, {0x8000, "MAP_POPULATE"},
                                    {0x100000, "MAP_FIXED_NOREPLACE"}, {0x80000, "MAP_SYNC"}};
    put_flags(f, v, t, sizeof t / sizeof *t, 0);
}

static void put_named(FILE *f, const char *name, uint64_t v)
{
    if (name)
        fputs(name, f);
    else
        fprintf(f, "0x%" PRIx64, v);
}

/* A control command by name; one the headers do not list (NVIDIA's
 * private ones) as its number with its class's category and index:
 * 0x20809064 (NV2080_CTRL_CLK_LEGACY_NON_PRIVILEGED #0x64). */
static void put_ctrl(FILE *f, uint64_t v)
{
    const struct cutap_nv_ctrl *c = cutap_nv_ctrl_of((uint32_t)v);
    const char *cat = c ? NULL : cutap_nv_category_name((uint32_t)v);
    if (c)
        fputs(c->name, f);
    else if (cat)
        fprintf(f, "0x%" PRIx64 " (%s #0x%02x)", v, cat, (unsigned)v & 0xff);
    else
        fprintf(f, "0x%" PRIx64, v);
}

static int ends(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

/* What a mapping of an object of class cls maps, as far as the class says
 * (NVIDIA's class headers and the driver's mmap of it); NULL: not said. */
static const char *maps_what(const char *cls)
{
    static const struct {
        const char *name, *what;
    } t[] = {{"NV01_MEMORY_LOCAL_USER", "video memory, through BAR1"},
             {"NV01_MEMORY_LOCAL_PHYSICAL", "video memory by physical address"},
             {"NV01_MEMORY_SYSTEM", "system memory the driver allocated"},
             {"NV01_MEMORY_SYSTEM_OS_DESCRIPTOR", "memory of the process, described to the driver"},
             {"NV01_MEMORY_FLA", "fabric linear address memory"},
             {"NV_MEMORY_FABRIC", "fabric memory (NVLink)"},
             {"NV_MEMORY_MULTICAST_FABRIC", "multicast fabric memory (NVLink)"},
             {"NV01_MEMORY_DEVICELESS", "memory of no device"},
             {"NV50_MEMORY_VIRTUAL", "a GPU virtual address range"},
             {"NV01_DEVICE_0", "GPU registers (BAR0)"},
             {"NV20_SUBDEVICE_0", "GPU registers (BAR0)"}};
    if (!cls)
        return NULL;
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(cls, t[i].name))
            return t[i].what;
    if (ends(cls, "_USERMODE_A") || ends(cls, "_USERMODE_B") || ends(cls, "_USERMODE_C"))
        return "usermode registers: the work-submission doorbell";
    if (ends(cls, "_CHANNEL_GPFIFO_A") || ends(cls, "_CHANNEL_GPFIFO_B"))
        return "a channel's USERD: its GPFIFO get and put";
    if (ends(cls, "_SEMAPHORE_SURFACE"))
        return "a semaphore surface";
    return NULL;
}

/* What an NV_MAPS word (the class of the object a device mapping maps)
 * prints: the class and, where known, what that is. */
static void put_maps(FILE *f, uint64_t v)
{
    const char *cls = cutap_nv_class_name((uint32_t)v), *what = maps_what(cls);
    put_named(f, cls, v);
    if (what)
        fprintf(f, " (%s)", what);
}

int ioctl_arg_hidden(const char *type, size_t tlen, uint64_t v)
{
    /* NV_STR_CONT: printed with the NV_STR32 before it; a mapping's object
     * when no RM_MAP_MEMORY named it */
    return is(type, tlen, "NV_STR_CONT") || (!v && (is(type, tlen, "NV_MAPS") || is(type, tlen, "NV_MEMORY")));
}

int ioctl_put_arg(FILE *f, const char *type, size_t tlen, const uint64_t *w, unsigned i, unsigned n)
{
    uint64_t v = w[i];
    char buf[64];
    if (is(type, tlen, "NV_DEV"))
        fputs(cutap_nvdev_str(v, buf, sizeof buf), f);
    else if (is(type, tlen, "NvHandle") || is(type, tlen, "NV_MEMORY") || is(type, tlen, "NvU32") || is(type, tlen, "NvU16") ||
             is(type, tlen, "NvU64") || is(type, tlen, "NvP64"))
        fprintf(f, "0x%" PRIx64, v);
    else if (is(type, tlen, "NV_CLASS"))
        put_named(f, cutap_nv_class_name((uint32_t)v), v);
    else if (is(type, tlen, "NV_MAPS"))
        put_maps(f, v);
    else if (is(type, tlen, "MREMAP_FLAGS")) {
        static const struct flag t[] = {{1, "MREMAP_MAYMOVE"}, {2, "MREMAP_FIXED"}, {4, "MREMAP_DONTUNMAP"}};
        put_flags(f, v, t, sizeof t / sizeof *t, 0);
    } else if (is(type, tlen, "NV_CTRL_CMD"))
        put_ctrl(f, v); else if (is(type, tlen, "NV_STATUS"))
        put_named(f, cutap_nv_status_name((uint32_t)v), v);
    else if (is(type, tlen, "NV_PCI"))
        fprintf(f, "%04x:%02x:%02x.%x", (unsigned)(v >> 16) & 0xffff, (unsigned)(v >> 8) & 0xff,
                (unsigned)(v >> 3) & 0x1f, (unsigned)v & 7);
    else if (is(type, tlen, "NV_STR32")) {
        /* this word and the NV_STR_CONT ones after it: a string of 32 bytes */
        char s[33] = {0};
        for (unsigned k = 0; k < 4 && i + k < n; k++)
            memcpy(s + 8 * k, &w[i + k], 8);
        fputc('"', f);
        text_str(f, s);
        fputc('"', f);
    } else if (is(type, tlen, "NV_STR_CONT"))
        return 2;   /* printed with the NV_STR32 before it */
    else if (is(type, tlen, "OPEN_FLAGS"))
        put_open_flags(f, v);
    else if (is(type, tlen, "MMAP_PROT"))
        put_prot(f, v);
    else if (is(type, tlen, "MMAP_FLAGS"))
        put_map_flags(f, v);
    else if (is(type, tlen, "NV_VERSION_CMD"))
        if (v >= 0x20 && v < 0x7f)
            fprintf(f, "'%c'", (int)v);
        else
            fprintf(f, "%" PRIu64, v);
    else if (is(type, tlen, "NV_IOCTL_REQUEST")) {
        unsigned dir = (unsigned)(v >> 30) & 3, size = (unsigned)(v >> 16) & 0x3fff, t = (unsigned)(v >> 8) & 0xff;
        /* legacy numbers (FIONREAD 0x541b) carry no direction nor size */
        if (v >> 32 || !t || t < 0x20 || t > 0x7e || (!dir && !size))
            fprintf(f, "0x%" PRIx64, v);
        else
            fprintf(f, "_IOC(%s, '%c', 0x%02x, %u)", (const char *[]){"_IOC_NONE", "_IOC_WRITE", "_IOC_READ",
                                                                        "_IOC_READ|_IOC_WRITE"}[dir],
                    (int)t, (unsigned)v & 0xff, size);
    } else
        return 0;
    return 1;
}

int ioctl_type_after(const char *type, size_t tlen)
{
    static const char *const after[] = {"NvHandle", "NV_CTRL_CMD", "NV_CLASS", "NV_STATUS", "NvU32",
                                        "NvU16", "NvU64", "NvP64", "NV_PCI", "NV_STR32", "NV_STR_CONT",
                                        "NV_VERSION_CMD", "NvS32"};
    for (size_t i = 0; i < sizeof after / sizeof *after; i++)
        if (is(type, tlen, after[i]))
            return 1;
    return 0;
}

/* The type of argument k in a file's signature ("k:name:type;..."), or
 * NULL; *len its length. */
static const char *arg_type(const char *sig, unsigned k, size_t *len)
{
    for (unsigned i = 0; sig && i < k; i++) {
        sig = strchr(sig, ';');
        sig = sig ? sig + 1 : NULL;
    }
    const char *a = sig ? strchr(sig, ':') : NULL, *t = a ? strchr(a + 1, ':') : NULL;
    if (!t)
        return NULL;
    t++;
    const char *e = strchr(t, ';');
    *len = e ? (size_t)(e - t) : strlen(t);
    return t;
}

static int has_status(const char *sig)
{
    return sig && strstr(sig, ":NV_STATUS");
}

int ioctl_is(const struct trace *tr, const struct tr_call *c)
{
    return tr->names[c->name].layer == CUTAP_LAYER_IOCTL;
}

/* The call's dev word (type NV_DEV), or -1 when it has none. */
static int64_t dev_word(const struct trace *tr, const struct tr_call *c)
{
    for (unsigned k = 0; k < c->rec->nargs; k++) {
        size_t len;
        const char *t = arg_type(tr->names[c->name].sig, k, &len);
        if (!t)
            break;
        if (is(t, len, "NV_DEV"))
            return (int64_t)(tr_args(c)[k] & 0xffffffffu);
    }
    return -1;
}

int ioctl_block_read(const struct trace *tr, const struct tr_call *c)
{
    int64_t d = dev_word(tr, c);
    return d < 0 || (c->t1 && (d & CUTAP_NVDEV_DECODED));
}

void ioctl_put_status(FILE *f, const struct trace *tr, const struct tr_call *c)
{
    int64_t r = (int64_t)tr_result(c);
    if (r < 0) {
        const char *e = r >= -4095 ? strerrorname_np((int)-r) : NULL;
        if (e)
            fprintf(f, "-1 %s", e);
        else
            fprintf(f, "-1 (errno %" PRIu64 ")", 0 - (uint64_t)r);   /* -INT64_MIN would overflow */
    } else if (has_status(tr->names[c->name].sig))
        put_named(f, cutap_nv_status_name((uint32_t)r), (uint64_t)r);
    else
        fprintf(f, "%" PRId64, r);
}

uint32_t ioctl_request_name(struct trace *tr, const struct tr_call *c)
{
    const struct tr_name *n = &tr->names[c->name];
    if (n->layer != CUTAP_LAYER_IOCTL || !c->t1 || (c->flags & CUTAP_RF_UNTYPED))
        return c->name;
    /* a block not read: its command or class is not known (a mapping's
     * object is known before the call: named by the RM_MAP_MEMORY) */
    int blk = ioctl_block_read(tr, c);
    for (unsigned k = 0; k < c->rec->nargs; k++) {
        size_t len;
        const char *t = arg_type(n->sig, k, &len);
        if (!t)
            break;
        uint64_t v = tr_args(c)[k];
        const char *cls;
        char buf[256];
        if (blk && is(t, len, "NV_CTRL_CMD")) {
            FILE *m = fmemopen(buf, sizeof buf, "w");
            if (!m)
                return c->name;
            put_ctrl(m, v);
            fputc(0, m);
            fclose(m);
            buf[sizeof buf - 1] = 0;
        } else if ((blk && is(t, len, "NV_CLASS")) || (v && is(t, len, "NV_MAPS"))) {
            if ((cls = cutap_nv_class_name((uint32_t)v)))
                snprintf(buf, sizeof buf, "%s", cls);
            else
                snprintf(buf, sizeof buf, "0x%" PRIx64, v);
        } else
            continue;
        char name[300];
        snprintf(name, sizeof name, "%s(%s)", n->name, buf);
        return tr_name_intern(tr, name, n->layer);
    }
    return c->name;
}
