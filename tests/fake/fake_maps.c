/* Unmapping a device mapping in pieces (FAKE_NV_MAPS; fake_internal.h). */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "fake_internal.h"

void fake_unmap_pieces(void *map, size_t len)
{
    char *p = map;
    size_t pg = 4096;
    if (len < 4 * pg) {
        munmap(map, len);
        return;
    }
    munmap(p + len - pg, pg);   /* the last page: the range shrinks */
    len -= pg;
    size_t mid = (len / pg / 2) * pg;
    munmap(p + mid, pg);   /* the middle: two pieces left */
    char *second = p + mid + pg;
    size_t second_len = len - mid - pg;
    void *moved = mremap(second, second_len, second_len + pg, MREMAP_MAYMOVE);
    if (moved == MAP_FAILED)
        munmap(second, second_len);
    else
        munmap(moved, second_len + pg);
    /* the first piece released as libcuda 580 releases every device
     * mapping: anonymous PROT_NONE laid over it (the range stays reserved),
     * then that reservation unmapped (no device memory any more) */
    (void)mmap(p, mid, PROT_NONE, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
    munmap(p, mid);
}
