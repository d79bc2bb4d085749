/* What src/resolve/ioctl_decode.c (the ioctl layer's ids, signatures and
 * decoding of parameter blocks) offers src/resolve/ioctl.c (the device
 * files and the wrappers of ioctl, open, close, mmap, munmap). */
#ifndef CUTAP_IOCTL_INTERNAL_H
#define CUTAP_IOCTL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* The signatures of the escapes decoded (S_GENERIC: fd, dev, size). */
enum { S_CONTROL, S_ALLOC, S_FREE, S_ALLOC_MEMORY, S_MAP, S_UNMAP, S_CARD_INFO, S_VERSION, S_REGISTER_FD,
       S_OS_EVENT, S_GENERIC };
#define IOC_MAX_WORDS 11   /* words of the largest signature */

/* IOCTL_XFER_CMD's block: a larger one, of the inner escape cmd. */
struct xfer { uint32_t cmd, size; uint64_t ptr; };

/* The ids of the open, close, mmap and munmap of device files and of an
 * ioctl nothing decodes; valid once ioc_ids_ready (CUTAP_ID_ALL: none). */
struct ioc_ids {
    uint32_t open, close, mmap, munmap, mremap, mmap_over, other;
};
extern struct ioc_ids ioc_id;
extern _Atomic int ioc_ids_ready;
void ioc_ids_init(void);

/* The id of escape nr (NV_ESC_0xNN when the tables do not know it), of a
 * UVM command (*known: the tables know it); CUTAP_ID_ALL when none could
 * be made (not recorded). */
uint32_t ioc_escape_id(unsigned nr);
uint32_t ioc_uvm_cmd_id(uint32_t cmd, int *known);
/* The signature (S_*) of a known escape, and its number of words. */
unsigned ioc_escape_sig(unsigned nr);
unsigned ioc_sig_words(unsigned sig);
/* Decodes the block p (size bytes, what the kernel accepted) into w[2..];
 * 1 when done (*outcome set to the request's status when use is set), 0
 * when it was not decoded (too small for the layout). */
int ioc_decode(unsigned sig, const void *p, size_t size, uint64_t *w, uint64_t *outcome, int use);
/* The size of class hclass's allocation parameters (0: none known): an
 * RM_ALLOC whose paramsSize is 0 is sized so, as the driver sizes it. */
uint32_t ioc_alloc_params_size(uint32_t hclass);

/* --- ioctl_maps.c: what the device files' mappings are ------------------ */

/* The object a device mapping maps: its handle and class (0: not known). */
struct ioc_map_info {
    uint64_t dev;   /* the dev word of the descriptor mapped */
    uint32_t h, cls;
};
/* Objects allocated (RM_ALLOC, RM_ALLOC_MEMORY) and freed (RM_FREE). */
void ioc_handle_put(uint32_t client, uint32_t h, uint32_t cls);
void ioc_handle_drop(uint32_t client, uint32_t h);
uint32_t ioc_handle_class(uint32_t client, uint32_t h);
/* This thread's RM_MAP_MEMORY of object h for descriptor fd; the mmap of
 * fd that follows takes it (1: m->h and m->cls set). */
void ioc_map_asked(int fd, uint32_t client, uint32_t h);
int ioc_map_take_asked(int fd, struct ioc_map_info *m);
/* Device mappings (whole pages): [a, a + len) mapped (replacing any
 * overlapped); whether [a, a + len) overlaps one (a read that never
 * waits: *m the first's, *left the bytes of those overlapped that stay
 * mapped after an unmapping of it); [a, a + len) unmapped. take: the same
 * as look, and the overlapped parts removed at once, kept in *t so that
 * untake puts exactly those back (a call that failed); 0, nothing
 * removed, when the lock could not be had or more than 8 pieces would go. */
#define IOC_TAKEN_MAX 8
struct ioc_map_taken {
    struct ioc_map_info m;   /* the first piece's */
    uint64_t left;
    unsigned n;
    struct {
        uintptr_t start, end;
        struct ioc_map_info m;
    } p[IOC_TAKEN_MAX];
};
void ioc_map_put(uintptr_t a, size_t len, const struct ioc_map_info *m);
int ioc_map_look(uintptr_t a, size_t len, struct ioc_map_info *m, uint64_t *left);
int ioc_map_take(uintptr_t a, size_t len, struct ioc_map_taken *t);
void ioc_map_untake(const struct ioc_map_taken *t);
void ioc_map_gone(uintptr_t a, size_t len);
/* How many ranges there are: the one load an ordinary munmap pays. */
extern _Atomic unsigned ioc_nmaps __attribute__((visibility("hidden")));
static inline unsigned ioc_maps_count(void)
{
    return __atomic_load_n(&ioc_nmaps, __ATOMIC_RELAXED);
}

#endif
