/*
 * cutap trace file format, version 3 (docs/FORMAT.md explains it in words;
 * version 1 differs only in its counters, see cutap_counter_v1; version 2
 * lacks the loss fields, THREAD meta records and counter-entry chunks).
 *
 * One file per traced process: a 4096-byte header, then chunks of
 * `chunk_size` bytes. A chunk belongs to one thread and holds 64-byte slots:
 * slot 0 is the chunk header, the others hold records in the order the
 * thread started them. Every multi-byte field is little-endian (x86-64).
 *
 * The file is mapped into the traced process and written in place, so it is
 * complete up to the last finished call whenever the process stops, even
 * by SIGKILL: regions never written read as zero, and the field a writer
 * sets last (kind, magic, the DONE flag) tells a reader what is valid.
 */
#ifndef CUTAP_FORMAT_H
#define CUTAP_FORMAT_H

#include <stdint.h>

#define CUTAP_FILE_MAGIC "CUTAPTRC"      /* 8 bytes, no NUL */
#define CUTAP_FILE_VERSION 5
#define CUTAP_FILE_VERSION_MIN 1    /* the oldest version readers accept */
#define CUTAP_HEADER_SIZE 4096
#define CUTAP_SLOT 64
#define CUTAP_CHUNK_MAGIC 0x4b4e4843u    /* "CHNK" */
#define CUTAP_FILE_SUFFIX ".cutap"

/* Header flags. */
enum {
    CUTAP_FILE_COUNTS = 1u << 0,   /* counting mode: counter chunks, no call records */
    CUTAP_FILE_CLOSED = 1u << 1,   /* the process reached exit normally */
    CUTAP_FILE_STOPPED = 1u << 2,  /* recording stopped before the process ended
                                      (version 3): stop_* and lost_calls say why
                                      and what was lost */
};

/* Why recording stopped (header stop_reason, version 3). */
enum {
    CUTAP_STOP_NONE = 0,
    CUTAP_STOP_SPACE = 1,      /* the file could not be extended (ENOSPC, EDQUOT, EFBIG, ...) */
    CUTAP_STOP_MAP = 2,        /* a segment could not be mapped */
    CUTAP_STOP_LIMIT = 3,      /* the file reached cutap's size limit */
    CUTAP_STOP_OTHER = 4,
    CUTAP_STOP_FILE = 5,       /* the program closed cutap's descriptor and the path no longer names the file */
};

/* Why a process froze (header freeze_reason, version 5): from then on it
 * records nothing (calls are counted), and nothing recorded is overwritten. */
enum {
    CUTAP_FREEZE_NONE = 0,
    CUTAP_FREEZE_REQUEST = 1,  /* asked from outside: cutap freeze, or a signal to cutap trace */
    CUTAP_FREEZE_ERROR = 2,    /* --until-error: a call it selects failed (freeze_id, freeze_result) */
    CUTAP_FREEZE_PEER = 3,     /* asked by cutap trace because another process froze on an error */
};

/* A file of a trace directory whose existence makes processes that start
 * afterwards start frozen (cutap freeze, SIGUSR2 to cutap trace). */
#define CUTAP_FREEZE_FILE ".cutap-freeze"

/* Capture control (header capture, version 5): calls outside a capture
 * are counted (COUNTER_ENTRIES chunks in the trace file), not recorded. */
enum {
    CUTAP_CAPTURE_WINDOW = 1u << 0,    /* --delay / --duration */
    CUTAP_CAPTURE_PROFILER = 1u << 1,  /* between cuProfilerStart/cudaProfilerStart and ...Stop */
    CUTAP_CAPTURE_NVTX = 1u << 2,      /* inside NVTX ranges of one name */
};

/* How record times are kept. */
enum {
    CUTAP_CLOCK_NS = 0,    /* CLOCK_MONOTONIC nanoseconds */
    CUTAP_CLOCK_TSC = 1,   /* time-stamp counter ticks; convert with the
                              (tsc, ns) pairs of the header and chunks */
};

struct cutap_file_header {
    char magic[8];              /* CUTAP_FILE_MAGIC */
    uint32_t version;           /* CUTAP_FILE_VERSION */
    uint32_t header_size;       /* CUTAP_HEADER_SIZE */
    uint32_t chunk_size;        /* power of two, 4 KiB .. 64 MiB */
    uint32_t flags;             /* CUTAP_FILE_*; CLOSED is set last, at exit */
    uint32_t clock;             /* CUTAP_CLOCK_* */
    int32_t pid, ppid;
    int32_t rank, local_rank;   /* -1 when not set */
    uint32_t reserved0;
    uint64_t start_realtime_ns; /* CLOCK_REALTIME at start */
    uint64_t start_mono_ns;     /* CLOCK_MONOTONIC at start */
    uint64_t start_clock;       /* record clock at start */
    uint64_t calib_clock;       /* a second (clock, mono) pair taken ~0.2 ms */
    uint64_t calib_mono_ns;     /*   later: the rate before any chunk pair */
    uint64_t end_clock;         /* pair at exit; 0 when the process never */
    uint64_t end_mono_ns;       /*   reached exit (killed, _exit, crash) */
    int32_t exit_code;          /* reserved: 0 */
    uint32_t reserved1;
    char host[64];              /* NUL-terminated */
    char exe[256];              /* /proc/self/exe, truncated */
    char cmdline[1024];         /* arguments separated by spaces, truncated */
    char cutap_version[32];
    /* Version 3: losses. Zero in a file that lost nothing. */
    int32_t stop_errno;         /* errno of the failure that stopped recording */
    uint32_t stop_reason;       /* CUTAP_STOP_* */
    uint64_t stop_clock;        /* record clock when recording stopped */
    uint64_t lost_calls;        /* calls made after recording stopped, or that
                                   could not be recorded: counted, not recorded
                                   (updated while the process runs) */
    uint64_t lost_names;        /* kernel names not recorded (name table full) */
    /* Version 5: the flight recorder (trace --ring) and capture control.
     * Zero in other files. */
    uint32_t ring_chunks;       /* chunks 0 .. ring_chunks-1 are the ring: reused, the oldest
                                   first; 0: no ring (the file only grows) */
    uint32_t freeze_request;    /* written by another process (cutap) through its own
                                   mapping, never by the traced one: non-zero asks it to
                                   freeze (CUTAP_FREEZE_*) */
    uint64_t overwritten_calls; /* call records overwritten by newer ones (ring) */
    uint64_t overwritten_chunks;
    uint64_t freeze_clock;      /* record clock when the process froze; 0: never */
    uint32_t freeze_reason;     /* CUTAP_FREEZE_* */
    uint32_t freeze_id;         /* ERROR: the failing call's id */
    uint64_t freeze_result;     /* ERROR: its result */
    uint32_t capture;           /* CUTAP_CAPTURE_* bits: how calls were selected for recording;
                                   calls outside are in COUNTER_ENTRIES chunks */
    uint32_t capture_ranges;    /* capture ranges (windows) entered */
    /* GPU activity (issue #31, `cutap trace --gpu`; zero in other files and
     * in files of earlier writers). */
    uint32_t gpu;               /* CUTAP_GPU_ON_* bits */
    int32_t gpu_error;          /* FAILED: the CUPTI result that stopped it (0: none) */
    uint64_t gpu_dropped;       /* activity records CUPTI dropped (its buffers full) */
    uint64_t gpu_lost;          /* activity records cutap could not write (recording stopped) */
    uint64_t gpu_records;       /* activity records written (updated as buffers arrive) */
    char gpu_why[128];          /* FAILED: why, in words */
    uint64_t gpu_pushed;        /* calls that enqueue GPU work whose place cutap gave CUPTI (an
                                   external id pushed, or paired itself) or kept for CUPTI's
                                   callbacks (CUTAP_GPU_ON_CALLBACKS; then successful ones made
                                   outside a stream capture of their thread): each should have a CORR
                                   record (or GPU_CORR meta record) in the file once CUPTI
                                   delivered its buffers */
};
/* File header gpu bits. */
enum {
    CUTAP_GPU_ON_ASKED = 1u << 0,      /* --gpu was given */
    CUTAP_GPU_ON_STARTED = 1u << 1,    /* CUPTI's activity API was started */
    CUTAP_GPU_ON_FAILED = 1u << 2,     /* it could not be (gpu_error, gpu_why) */
    CUTAP_GPU_ON_REALTIME = 1u << 3,   /* GPU times are CLOCK_REALTIME ns (else CLOCK_MONOTONIC) */
    CUTAP_GPU_ON_FLUSHED = 1u << 4,    /* the last buffers were flushed at exit */
    CUTAP_GPU_ON_TAKEN = 1u << 5,      /* the program's own CUPTI client took the buffers over
                                          (gpu_why says when); nothing recorded after that */
    CUTAP_GPU_ON_CALLBACKS = 1u << 6,  /* calls joined through CUPTI's callbacks (GPU_CORR meta
                                          records in the threads' runs), not external ids */
    CUTAP_GPU_ON_PUSHED = 1u << 7,     /* calls joined through external ids (CORR GPU records): from
                                          the start (CUPTI had another subscriber, e.g. cutap's
                                          --runtime=cupti), or from when the program subscribed to
                                          CUPTI itself (with CALLBACKS) */
    CUTAP_GPU_ON_UNKNOWN_IDS = 1u << 8,  /* the program made an enqueuing call (successful, not skipped,
                                            not captured) that neither itself nor any enqueuing call
                                            inside it had a callback id the CUPTI knew (one older than
                                            cutap's list of them): its work is not joined */
};

/* RECORDS: call and meta records of one thread (version 3: the chunk may
 * pass to other threads, see CUTAP_META_THREAD). COUNTERS: counters of one
 * thread, indexed by id from first_id (versions 1-2; version 3 readers
 * still read them). COUNTER_ENTRIES (version 3): cutap_counter_entry
 * records of any threads, each naming its thread and id, allocated as
 * threads first call an id. */
/* META (version 5, ring files): meta records only (names, layers, kernels,
 * objects) of any thread, kept out of the ring so that no name is ever
 * overwritten. */
/* GPU (issue #31, --gpu): GPU activity records (CUTAP_REC_GPU) and the
 * GPU_NAME meta records they name, of no thread: written as CUPTI hands
 * its buffers over (tid: the thread that wrote the chunk). Readers before
 * issue #31 skip such a chunk as damaged. */
enum { CUTAP_CHUNK_RECORDS = 1, CUTAP_CHUNK_COUNTERS = 2, CUTAP_CHUNK_COUNTER_ENTRIES = 3, CUTAP_CHUNK_META = 4,
       CUTAP_CHUNK_GPU = 5 };

/* Slot 0 of every chunk. The writer sets magic last. */
struct cutap_chunk_header {
    uint32_t magic;             /* CUTAP_CHUNK_MAGIC */
    uint16_t type;              /* CUTAP_CHUNK_* */
    uint16_t reserved;
    int32_t tid;                /* kernel thread id */
    uint32_t seq;               /* 0, 1, 2… per thread and type */
    uint64_t clock;             /* (clock, mono) pair when the chunk was */
    uint64_t mono_ns;           /*   taken: refines the tick rate */
    uint32_t first_id;          /* counter chunks: id of the first counter */
    uint32_t reserved2;
    char thread_name[16];       /* comm of the thread when the chunk was taken */
    uint64_t take;              /* version 5: 1 + the number of this take in the file (a
                                   ring chunk taken again gets a new one; magic is 0
                                   while it is cleared) */
};

/* Record kinds (first byte of a record). 0 = no record: the rest of the
 * chunk is unused. */
enum { CUTAP_REC_CALL = 1, CUTAP_REC_META = 2, CUTAP_REC_GPU = 3 };

/* Call record flags. DONE is set last, when the call returned. */
enum {
    CUTAP_RF_DONE = 1u << 0,
    CUTAP_RF_SKIPPED = 1u << 1,   /* a client skipped the real call */
    CUTAP_RF_UNTYPED = 1u << 2,   /* unknown signature: args are the 6 argument registers */
    CUTAP_RF_NOSTATUS = 1u << 3,  /* the result is no status code (pointer, count, void) */
    CUTAP_RF_INJECTED = 1u << 4,  /* version 5: fault injection chose the call (delayed, or
                                     skipped with an injected result: then SKIPPED too) */
};

/*
 * A call: this header slot and nslots-1 following slots. The payload (from
 * `words` on, 24 + 64*(nslots-1) bytes) holds nargs argument words, then
 * ncap captures. A capture is a cutap_capture header followed by `reserved`
 * bytes (of which `len` are valid), padded to 8 bytes.
 */
struct cutap_rec_call {
    uint8_t kind;               /* CUTAP_REC_CALL; written last at start */
    uint8_t flags;              /* CUTAP_RF_* */
    uint16_t nslots;
    uint32_t id;                /* per-file id, named by an ID_NAME meta record */
    uint64_t t0, t1;            /* start and end (header's clock); t1 = 0: unfinished */
    uint64_t result;            /* CUresult (driver) or the raw return register */
    uint16_t depth;             /* nesting depth on the thread, 0 = outermost */
    uint8_t nargs, ncap;
    uint32_t origin;            /* a call reported through CUPTI by a runtime copy cutap does not
                                   wrap: its object's index + 1 (CUTAP_META_OBJECT); else 0 */
    uint64_t words[3];
};

/* Capture kinds: what the recorder copies from the traced process. */
enum {
    CUTAP_CAP_IN_BYTES = 1,     /* before the call: `size` bytes at a pointer argument */
    CUTAP_CAP_OUT_BYTES = 2,    /* after a successful call: `size` bytes at a pointer argument */
    CUTAP_CAP_IN_STR = 3,       /* before the call: the string an argument points to */
    CUTAP_CAP_OUT_STRPTR = 4,   /* after a successful call: the string *(char **)arg points to */
    CUTAP_CAP_OUT_STRBUF = 5,   /* after a successful call: the string written into a char buffer */
};
/* Capture states. */
enum {
    CUTAP_CAPS_NONE = 0,        /* not taken (NULL pointer, failed call, unfinished) */
    CUTAP_CAPS_OK = 1,
    CUTAP_CAPS_TRUNCATED = 2,   /* string longer than the room reserved */
};
struct cutap_capture {
    uint16_t len;               /* valid bytes (strings: without the NUL) */
    uint16_t reserved;          /* room after this header */
    uint8_t arg;                /* argument index */
    uint8_t kind;               /* CUTAP_CAP_* */
    uint8_t state;              /* CUTAP_CAPS_*; set when the bytes are in */
    uint8_t pad;
};
/* Room reserved for strings of unknown length. */
#define CUTAP_CAP_STR_MAX 256
#define CUTAP_CAP_OUTSTR_ROOM 128

/* Meta records: facts the decoder needs, written once. The string starts
 * at `text` and continues into the following slots, NUL-terminated. */
enum {
    CUTAP_META_ID_NAME = 1,     /* aux = id, key = layer: the name of an id */
    CUTAP_META_FUNC_NAME = 2,   /* key = CUfunction/CUkernel handle: kernel name */
    /* Version 3. From this record on, the records of this chunk belong to
     * thread aux (tid); key = that thread's sequence number for the run of
     * records it starts (a thread's record runs, chunk headers and THREAD
     * metas together, are numbered 0, 1, 2... in the order it wrote them),
     * clock = record clock, text = thread name. A chunk whose thread
     * exited passes the rest of its room to a new thread this way. */
    CUTAP_META_THREAD = 3,
    /* Version 3. What a runtime or library layer is bound to, written
     * before the first record of one of its calls: aux = layer, key =
     * CUTAP_LAYER_* flags, text = the library's soname. */
    CUTAP_META_LAYER = 4,
    /* Version 4 (issue #14). An object whose runtime copy reported calls
     * (through CUPTI, --runtime=cupti), written before the first record
     * naming it: aux = its index in this file (what call records' origin
     * holds, minus one), key = its load address, text = its path. */
    CUTAP_META_OBJECT = 5,
    /* Version 5 (issue #17, --stack): the native stack of a call: aux = the
     * call's id, key = its t0 (the pair names the call on its thread);
     * text = struct cutap_stack_head, then nframes cutap_stack_frame, then
     * a zero word. Written into the thread's chunk (a ring file's META
     * chunks: the thread is in the head). */
    CUTAP_META_STACK = 6,
    /* Issue #31 (GPU chunks only): aux = a kernel name's index in the file
     * (GPU KERNEL records' name), text = the name as CUPTI gives it
     * (mangled). */
    CUTAP_META_GPU_NAME = 7,
    /* Issue #32: a getenv or secure_getenv made by an NVIDIA library
     * (trace mode), in the calling thread's run of records, where it
     * happened (inside the call that made it, if any): aux = the asking
     * object's index in this file + 1 (named by a CUTAP_META_OBJECT before
     * it), key = CUTAP_ENV_* flags, clock = when; text = the name, NUL,
     * the value it got (nothing after the NUL when unset). */
    CUTAP_META_ENV = 8,
    /* Issue #32 (trace --ioctl-params): the parameter block of an ioctl
     * layer RM_CONTROL or RM_ALLOC call, right after the call's record in
     * the same chunk (one reservation): aux = the call's id, key = its t0;
     * text = struct cutap_params_head, then `len` bytes as they were before
     * the call, then `len` bytes as the driver left them, then a zero
     * byte. Same format version (5): readers before issue #32 skip it as
     * a meta record of a kind they do not know. */
    CUTAP_META_PARAMS = 9,
    /* Issue #31 (trace --gpu, joined through CUPTI's callbacks): the
     * correlation id CUPTI gave a call that enqueues GPU work, written by
     * the calling thread into its run of records while the call runs: aux
     * = the correlation id (what the GPU chunks' KERNEL, MEMCPY and MEMSET
     * records carry), key = the place of the record of the outermost
     * enqueuing call open on the thread (take << 24 | slot, as a CORR GPU
     * record's start), clock = 0. The same pair as a CORR GPU record;
     * readers before it skip it as a meta record of a kind they do not
     * know. */
    CUTAP_META_GPU_CORR = 10,
};
enum {
    CUTAP_ENV_SECURE = 1,   /* secure_getenv */
    CUTAP_ENV_SET = 2,      /* the name was set: a value follows (maybe empty) */
    CUTAP_ENV_CUT = 4,      /* the name (256 bytes) or the value (1024) was cut */
    CUTAP_ENV_EARLY = 8,    /* made before cutap's core was loaded (kept by the front: name 127 and
                               value 255 bytes at most): clock and thread are those of its writing */
};

/* CUTAP_META_PARAMS: the head. state bits: BEFORE / AFTER the bytes are
 * in; CUT size > len (only the first len bytes were copied); BEFORE_BAD /
 * AFTER_BAD the block could not be read there (a bad pointer, or
 * process_vm_readv refused): its bytes are zero. AFTER is only read when
 * the ioctl returned 0 (the kernel accepted it). */
enum { CUTAP_PARAMS_CONTROL = 1, CUTAP_PARAMS_ALLOC = 2 };
enum {
    CUTAP_PARAMS_BEFORE = 1u << 0,
    CUTAP_PARAMS_AFTER = 1u << 1,
    CUTAP_PARAMS_CUT = 1u << 2,
    CUTAP_PARAMS_BEFORE_BAD = 1u << 3,
    CUTAP_PARAMS_AFTER_BAD = 1u << 4,
};
#define CUTAP_PARAMS_MAX 4096   /* bytes copied of a block, each time */
struct cutap_params_head {
    uint32_t what;              /* CONTROL: the command (NVOS54 cmd); ALLOC: the class (hClass) */
    uint8_t kind;               /* CUTAP_PARAMS_CONTROL / ALLOC */
    uint8_t state;              /* CUTAP_PARAMS_* bits, written last */
    uint16_t len;               /* bytes copied each time (<= CUTAP_PARAMS_MAX, <= size) */
    uint32_t size;              /* the block's size as the call gave it (paramsSize) */
    uint32_t reserved;          /* 0 */
    uint64_t ptr;               /* the block's address in the program */
};

/* A GPU activity record (issue #31), one slot, in GPU chunks. Times are ns
 * of CLOCK_MONOTONIC (CLOCK_REALTIME with CUTAP_GPU_ON_REALTIME), the
 * kernel's or copy's execution on the GPU as CUPTI measured it.
 *   KERNEL: device, context, stream; name; grid and block.
 *   MEMCPY: bytes; info = copyKind | srcKind << 8 | dstKind << 16 | flags << 24
 *           (CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind).
 *   MEMSET: bytes; info = the value.
 *   CORR:   an external correlation: the API call CUPTI numbered
 *           `correlation` was made while cutap's id `ext` was pushed: ext =
 *           take << 24 | slot of the call's record (the chunk header's take,
 *           the slot within the chunk). No times.
 *   API:    CUPTI's record of a launching API call: start, end (CPU), info =
 *           callback id, device = thread id, context = 0 driver / 1 runtime.
 * KERNEL, MEMCPY and MEMSET carry the correlation of the API call that
 * enqueued them (every node of a graph: the graph launch's). */
enum { CUTAP_GPU_KERNEL = 1, CUTAP_GPU_MEMCPY = 2, CUTAP_GPU_MEMSET = 3, CUTAP_GPU_CORR = 4, CUTAP_GPU_API = 5 };
struct cutap_rec_gpu {
    uint8_t kind;               /* CUTAP_REC_GPU; written last */
    uint8_t type;               /* CUTAP_GPU_* */
    uint16_t nslots;            /* 1 */
    uint32_t correlation;
    uint64_t start, end;        /* CORR: start = ext */
    uint32_t device, context, stream;
    uint32_t info;              /* KERNEL: name index + 1 (0: none); see above */
    union {
        struct {
            uint32_t grid[3], block[3];
        } k;
        struct {
            uint64_t bytes;
            uint64_t graph_node;
            uint32_t graph;
            uint32_t reserved;
        } m;
    } u;
};
struct cutap_stack_head {
    int32_t tid;
    uint32_t nframes;
};
struct cutap_stack_frame {
    uint32_t object;            /* CUTAP_META_OBJECT index + 1 of the frame's object; 0: unknown */
    uint32_t reserved;
    uint64_t offset;            /* from the object's load address (its key); the absolute address when object is 0 */
};

/* CUTAP_META_LAYER key flags. */
enum {
    /* The library is not of the major the generated signatures belong to
     * (libcudart.so.12 under headers of CUDA 13.0): its typed functions are
     * recorded untyped, arguments as the six argument registers. */
    CUTAP_LAYER_OTHER_MAJOR = 1u << 0,
};
struct cutap_rec_meta {
    uint8_t kind;               /* CUTAP_REC_META; written last */
    uint8_t sub;                /* CUTAP_META_* */
    uint16_t nslots;
    uint32_t aux;
    uint64_t key;
    uint64_t clock;
    char text[40];
};

/* Counter chunks (counting mode): one cutap_counter per id, from
 * first_id on, as many as fit after the chunk header (4095 in a 256 KiB
 * chunk), one cache line each.
 *
 * Calls and errors count every call. Not every call is timed: a call is
 * timed when, on its thread, its id has had fewer than 16 calls, or the
 * mean of its timed calls is at least 1 us (total >= 1 us * timed), or
 * the thread's countdown reaches zero (it counts every call and restarts
 * at a pseudo-random 1..63); with CUTAP_STAT_TIMING=all every call is.
 * The calls timed for the first two reasons are timed exactly; those timed
 * by the countdown alone (`sampled`) stand for all the others:
 *   exact = total - sampled_total, n_exact = timed - sampled
 *   total of all calls ~ exact + sampled_total * (calls - n_exact) / sampled
 * (total * calls / timed when sampled is 0). */
struct cutap_counter {
    uint64_t calls;             /* written last for each call */
    uint64_t errors;
    uint64_t total;             /* clock units, over the timed calls */
    uint64_t min, max;          /* clock units, over the timed calls; valid when timed > 0 */
    uint64_t timed;             /* calls timed (<= calls; a process killed between
                                   the stores may leave calls + 1) */
    uint64_t sampled;           /* of those, calls timed by the countdown alone */
    uint64_t sampled_total;     /* their total, clock units */
};

/* Version 3 counting mode: entries in COUNTER_ENTRIES chunks, two slots
 * each (the first entry starts at slot 1 of the chunk, then every 128
 * bytes). magic is stored last, with release order, once tid and id are
 * in; a reader ignores an entry whose magic is not CUTAP_ENTRY_MAGIC. */
#define CUTAP_ENTRY_MAGIC 0x544e4543u    /* "CENT" */
struct cutap_counter_entry {
    uint32_t magic;             /* CUTAP_ENTRY_MAGIC, stored last */
    int32_t tid;                /* thread whose calls it counts */
    uint32_t id;                /* per-file id (named by ID_NAME meta records) */
    uint32_t reserved;
    uint64_t clock, mono_ns;    /* (clock, mono) pair when the entry was made */
    char thread_name[16];
    uint64_t pad[2];
    struct cutap_counter c;     /* second slot */
};

/* Version 1 counters: 40 bytes, every call timed (timed = calls). */
struct cutap_counter_v1 {
    uint64_t calls, errors, total, min, max;
};

_Static_assert(sizeof(struct cutap_rec_call) == CUTAP_SLOT, "call record slot");
_Static_assert(sizeof(struct cutap_rec_meta) == CUTAP_SLOT, "meta record slot");
_Static_assert(sizeof(struct cutap_rec_gpu) == CUTAP_SLOT, "GPU record slot");
_Static_assert(sizeof(struct cutap_chunk_header) <= CUTAP_SLOT, "chunk header slot");
_Static_assert(sizeof(struct cutap_capture) == 8, "capture header");
_Static_assert(sizeof(struct cutap_params_head) == 24, "params head");
_Static_assert(sizeof(struct cutap_counter) == CUTAP_SLOT, "counter: one cache line");
_Static_assert(sizeof(struct cutap_counter_v1) == 40, "version 1 counter");
_Static_assert(sizeof(struct cutap_file_header) <= CUTAP_HEADER_SIZE, "file header");
_Static_assert(__builtin_offsetof(struct cutap_file_header, ring_chunks) == 1520 &&
                   __builtin_offsetof(struct cutap_file_header, capture_ranges) == 1572 &&
                   __builtin_offsetof(struct cutap_file_header, gpu) == 1576 &&
                   __builtin_offsetof(struct cutap_file_header, gpu_why) == 1608 &&
                   __builtin_offsetof(struct cutap_file_header, gpu_pushed) == 1736,
               "version 5 header fields where docs/FORMAT.md says");
_Static_assert(__builtin_offsetof(struct cutap_chunk_header, take) == 56, "chunk header take");
_Static_assert(sizeof(struct cutap_counter_entry) == 2 * CUTAP_SLOT, "counter entry: two slots");

#endif
