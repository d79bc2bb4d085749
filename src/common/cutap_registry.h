/* The process registry of a trace directory: DIR/.cutap-procs.
 *
 * cutap's own channel between the traced processes and the `cutap trace`
 * or `cutap stat` that started them (issue #11): which process images
 * loaded the library, whether their trace file could be made, whether and
 * why recording stopped and how many calls were lost, the warnings they
 * had (never written to the program's own file descriptors), and the
 * exec notes from which cutap tells which processes were started but
 * never traced. The command creates the file before it starts anything,
 * with every block allocated (so it works when the disk fills later); a
 * process started by plain CUTAP_TRACE/CUTAP_COUNT creates it when it is
 * missing. Each process maps it and claims slots with one atomic add (a
 * process image only when it has something to say; an exec note is freed
 * when its program starts with cutap, and reused once all are taken).
 * Private to cutap (the library and the command); not a trace file (its
 * name does not end in .cutap), and not part of include/cutap_format.h.
 */
#ifndef CUTAP_REGISTRY_H
#define CUTAP_REGISTRY_H

#include <stdint.h>
#include <sys/resource.h>

#define CUTAP_REG_NAME ".cutap-procs"
#define CUTAP_REG_MAGIC "CUTAPREG"          /* 8 bytes, no NUL */
#define CUTAP_REG_VERSION 2                 /* 2: slots carry mono_ns */
#define CUTAP_REG_SLOT 1024
#define CUTAP_REG_SLOTS 1024                /* slot 0 is the header: 1 MiB */
#define CUTAP_REG_SIZE ((uint64_t)CUTAP_REG_SLOT * CUTAP_REG_SLOTS)
#define CUTAP_REG_MIN_SLOTS 16

/* Slots of a registry made now: fewer under a file-size limit (ulimit -f)
 * below 1 MiB, so that one can still be made (0: none fits). Readers take
 * the header's nslots, any from CUTAP_REG_MIN_SLOTS to CUTAP_REG_SLOTS, with
 * a file of exactly that many slots. */
static inline uint32_t cutap_reg_slots_now(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= CUTAP_REG_SIZE)
        return CUTAP_REG_SLOTS;
    uint32_t n = (uint32_t)(rl.rlim_cur / CUTAP_REG_SLOT);
    return n >= CUTAP_REG_MIN_SLOTS ? n : 0;
}

/* Slot 0. The creator writes the header, magic last, before the file is
 * given its name. */
struct cutap_reg_header {
    char magic[8];
    uint32_t version;
    uint32_t slot_size;
    uint32_t nslots;
    uint32_t next;              /* atomic: slots claimed (starts at 1) */
    uint32_t overflow;          /* atomic: slots asked for past nslots */
};

/* Slot kinds; kind is stored last, with release order. */
enum {
    CUTAP_REG_IMAGE = 1,        /* a process image with the library loaded (pid, exe) */
    CUTAP_REG_EXEC = 2,         /* pid is about to exec path: freed by the new
                                   image when it starts with cutap; left, it is
                                   traced when the next slot of that pid is an
                                   IMAGE (SPAWN: when any IMAGE has that pid) */
    CUTAP_REG_FREE = 3,         /* an exec note that served: claimed again once
                                   every slot has been used */
};

/* Slot flags (atomic or). */
enum {
    CUTAP_REGF_FILE = 1u << 0,        /* IMAGE: its trace file was created */
    CUTAP_REGF_NOFILE = 1u << 1,      /* IMAGE: the trace file could not be created (err) */
    CUTAP_REGF_STOPPED = 1u << 2,     /* IMAGE: recording stopped early (err, stop_reason) */
    CUTAP_REGF_EXITED = 1u << 3,      /* IMAGE: reached exit normally */
    CUTAP_REGF_EXEC_FAILED = 1u << 4, /* EXEC: the exec returned (the old image goes on) */
    CUTAP_REGF_PRELOAD = 1u << 5,     /* EXEC: the new environment preloads libcutap */
    CUTAP_REGF_MODE = 1u << 6,        /* EXEC: ... and keeps CUTAP_TRACE/CUTAP_COUNT */
    CUTAP_REGF_SPAWN = 1u << 7,       /* EXEC: posix_spawn; pid is the child's */
};

struct cutap_reg_slot {
    uint32_t kind;              /* CUTAP_REG_*, stored last */
    uint32_t flags;             /* CUTAP_REGF_* */
    int32_t pid, ppid;
    int32_t err;                /* errno: no file, or recording stopped */
    uint32_t stop_reason;       /* CUTAP_STOP_* (cutap_format.h) */
    uint64_t lost_calls;        /* IMAGE without a trace file: calls not recorded */
    uint32_t warn_len;          /* atomic: bytes of warn claimed */
    uint32_t reserved;
    uint64_t mono_ns;           /* CLOCK_MONOTONIC when claimed: the order of one
                                   pid's slots (a slot reused once all were taken
                                   lies anywhere in the file), and which image of
                                   a pid made a trace file (its start_mono_ns) */
    char path[256];             /* IMAGE: /proc/self/exe; EXEC: the program exec'd */
    char warn[CUTAP_REG_SLOT - 304];   /* warning lines, each ending in \n */
};

_Static_assert(sizeof(struct cutap_reg_slot) == CUTAP_REG_SLOT, "registry slot");
_Static_assert(sizeof(struct cutap_reg_header) <= CUTAP_REG_SLOT, "registry header");
#endif
