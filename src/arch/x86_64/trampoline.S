/*
 * Generic x86-64 trampoline for functions whose signature cutap does not
 * know (exports no header declares, entry points of newer drivers, slots of
 * cuGetExportTable tables).
 *
 * Entry: %r11 = struct cutap_tramp_ctx * (real at 0, active at 8); every
 * argument register, %rax (vararg count) and the stack are the caller's.
 * %r11 is a scratch register in the SysV ABI that carries no argument, so
 * using it loses nothing.
 *
 * Fast path: ctx->active == 0 -> jump straight to ctx->real; so does a
 * call whose return address is one of cutap_tramp_skip's (a call site
 * cutap learned makes calls that are its own instrument's: %r10, scratch
 * and no argument register, is used to compare).
 * Slow path: save rdi rsi rdx rcx r8 r9 rax and xmm0-7, call
 * cutap_tramp_enter(ctx, &return-slot, saved integer regs), restore them
 * and jump to the function it returns. When a frame is recorded, enter()
 * has replaced the return address with cutap_tramp_return, so the stack
 * the callee sees is unchanged (same depth, same stack arguments) and it
 * returns to us; we save rax/rdx/xmm0/xmm1, call cutap_tramp_exit(rax),
 * which gives back the caller's return address, restore and return there.
 */
#include "arg_regs.inc"
	.text
	.globl cutap_tramp_common
	.hidden cutap_tramp_common
	.type cutap_tramp_common,@function
	.p2align 4
cutap_tramp_common:
	.cfi_startproc
	cmpb $0, 8(%r11)
	jne 1f
2:
	jmp *(%r11)
1:
	movq (%rsp), %r10
	cmpq %r10, cutap_tramp_skip(%rip)
	je 3f
	cmpq %r10, cutap_tramp_skip+8(%rip)
	je 3f
	cmpq %r10, cutap_tramp_skip+16(%rip)
	je 3f
	cmpq %r10, cutap_tramp_skip+24(%rip)
	je 3f
4:
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq %rsp, %rbp
	.cfi_def_cfa_register %rbp
	save_arg_regs
	movq %r11, %rdi            /* ctx */
	leaq 8(%rbp), %rsi         /* the caller's return-address slot */
	movq %rsp, %rdx            /* saved integer argument registers */
	call cutap_tramp_enter
	movq %rax, %r11            /* function to run */
	restore_arg_regs
	leave
	.cfi_def_cfa %rsp, 8
	jmp *%r11
3:
	cmpq $0, (%r11)            /* a learned site, the function known: run it */
	jne 2b
	jmp 4b
	.cfi_endproc
	.size cutap_tramp_common,.-cutap_tramp_common

	.globl cutap_tramp_return
	.hidden cutap_tramp_return
	.type cutap_tramp_return,@function
	.p2align 4
cutap_tramp_return:
	/* The callee returned here: %rsp is 16-aligned (the caller's call
	 * pushed 8, the callee's ret popped it). The slot at 48(%rsp) will
	 * hold the caller's return address for our ret. */
	.cfi_startproc
	.cfi_undefined %rip
	subq $56, %rsp
	movq %rax, 0(%rsp)
	movq %rdx, 8(%rsp)
	movdqu %xmm0, 16(%rsp)
	movdqu %xmm1, 32(%rsp)
	subq $8, %rsp              /* align for the call */
	movq %rax, %rdi
	call cutap_tramp_exit
	addq $8, %rsp
	movq %rax, 48(%rsp)        /* caller's return address */
	movq 0(%rsp), %rax
	movq 8(%rsp), %rdx
	movdqu 16(%rsp), %xmm0
	movdqu 32(%rsp), %xmm1
	addq $48, %rsp
	ret
	.cfi_endproc
	.size cutap_tramp_return,.-cutap_tramp_return

	.section .note.GNU-stack,"",@progbits
