/* What src/arch/x86_64 offers the rest of the library: the generic
 * trampoline (trampoline.S), which records entry and exit of a function
 * whose signature cutap does not know and preserves every register and
 * stack argument; the executable stubs that enter it with a context
 * (stub.c); the lazy resolver of a layer's typed entries (lib_resolve.S);
 * the macros that save and restore the argument registers (arg_regs.inc,
 * for assembly). The assembly calls up into the library: the functions it
 * calls are declared at the end, their owners named. */
#ifndef CUTAP_ARCH_INTERNAL_H
#define CUTAP_ARCH_INTERNAL_H

#include <stdint.h>

/* A trampoline's context. The layout is used by the assembly: keep real
 * at 0 and active at 8. */
struct cutap_tramp_ctx {
    void *real;              /* function to run */
    uint8_t active;          /* 1: take the slow path (callbacks or not resolved) */
    uint8_t pad[3];
    uint32_t id;
    uint64_t reserved;       /* dynamic ids: address of their entry stub */
};
_Static_assert(sizeof(struct cutap_tramp_ctx) == 24, "trampoline ctx layout");

/* The trampoline's entry (a stub jumps there with the context in %r11),
 * and where a recorded frame's callee returns to (cutap_tramp_enter puts
 * it in the return slot). */
void cutap_tramp_common(void);
void cutap_tramp_return(void);
/* Makes an executable stub that enters the trampoline with ctx; NULL with
 * errno set when no executable memory can be had (a W^X policy refuses
 * code made at run time): the caller then hands out the function itself. */
void *cutap_tramp_make_stub(struct cutap_tramp_ctx *ctx);

/* Return addresses whose calls through a trampoline run at once, without
 * a frame, before any register is saved (trampoline.S; 0: none): the call
 * sites of slot calls a runtime copy makes only because cutap asked it to
 * report (resolve/rt_hooks.c fills them as it learns them). */
#define CUTAP_TRAMP_SKIP 4
extern void *volatile cutap_tramp_skip[CUTAP_TRAMP_SKIP];

/* --- what the assembly calls ------------------------------------------- */

/* trampoline.S, defined by src/core/dispatch.c: entry (the callbacks
 * before the call; returns the function to run, the return address kept
 * in *retslot, regs the saved argument registers) and exit (after it, with
 * its %rax; returns where to go back to). */
void *cutap_tramp_enter(struct cutap_tramp_ctx *ctx, void **retslot, uint64_t *regs);
void *cutap_tramp_exit(uint64_t rax);
/* lib_resolve.S, defined by src/resolve/libs.c: the real entry of a typed
 * layer id, its layer resolved first. */
void *cutap_lib_resolve(uint32_t id);

#endif
