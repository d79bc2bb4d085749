/* Executable entry stubs for dynamic trampolines.
 *
 * Stubs come in blocks of two adjacent pages: a code page written once,
 * when the block is made, then read+execute for good; and a data page
 * (read+write) holding the address of cutap_tramp_common in slot 0 and
 * the context of stub k in slot k+1. Stub k is
 *     movq  slot[k+1](%rip), %r11      4c 8b 1d <disp32>
 *     jmpq *slot[0](%rip)              ff 25 <disp32>
 *     int3 x3                          padding to 16 bytes
 * Handing out a stub writes only the data page, so no page is ever
 * writable and executable at once, and threads running other stubs of the
 * block are never disturbed. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch_internal.h"
#include "cutap_base.h"

void *volatile cutap_tramp_skip[CUTAP_TRAMP_SKIP];
_Static_assert(CUTAP_TRAMP_SKIP == 4, "trampoline.S compares four return addresses");

#define STUB_SIZE 16
static unsigned char *code;      /* current block's code page */
static void **data;              /* its data page */
static unsigned used, per_block;
static pthread_mutex_t stub_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(stub_lock)

static int new_block(void)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *p = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    per_block = (unsigned)(ps / STUB_SIZE);
    if ((per_block + 1) * sizeof(void *) > ps)
        per_block = (unsigned)(ps / sizeof(void *)) - 1;
    void **d = (void **)(p + ps);
    d[0] = (void *)cutap_tramp_common;
    for (unsigned k = 0; k < per_block; k++) {
        unsigned char *s = p + (size_t)k * STUB_SIZE;
        int32_t ctx_disp = (int32_t)((ps + 8 + 8 * (size_t)k) - ((size_t)k * STUB_SIZE + 7));
        int32_t jmp_disp = (int32_t)(ps - ((size_t)k * STUB_SIZE + 13));
        s[0] = 0x4c, s[1] = 0x8b, s[2] = 0x1d;
        memcpy(s + 3, &ctx_disp, 4);
        s[7] = 0xff, s[8] = 0x25;
        memcpy(s + 9, &jmp_disp, 4);
        s[13] = s[14] = s[15] = 0xcc;
    }
    if (mprotect(p, ps, PROT_READ | PROT_EXEC)) {
        munmap(p, 2 * ps);
        return -1;
    }
    code = p;
    data = d;
    used = 0;
    return 0;
}

void *cutap_tramp_make_stub(struct cutap_tramp_ctx *ctx)
{
    pthread_mutex_lock(&stub_lock);
    if ((!code || used >= per_block) && new_block()) {
        int err = errno;
        pthread_mutex_unlock(&stub_lock);
        errno = err;
        return NULL;
    }
    unsigned k = used++;
    __atomic_store_n(&data[k + 1], (void *)ctx, __ATOMIC_RELEASE);
    void *s = code + (size_t)k * STUB_SIZE;
    pthread_mutex_unlock(&stub_lock);
    return s;
}
