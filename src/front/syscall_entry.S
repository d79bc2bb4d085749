/*
 * syscall() as libcutap.so exports it (src/front/forbid.c). Only SYS_prctl
 * and SYS_seccomp are looked at, in C, before the call; every call then
 * *jumps* to glibc's syscall with the caller's registers and stack as
 * they came (its seventh argument is on the stack, and a clone or vfork
 * made through syscall() must return into the caller's frames exactly as
 * without cutap).
 */
#include "../arch/x86_64/arg_regs.inc"
	.text
/* fn(the syscall's arguments) with every argument register kept; its
 * result in %r11 */
.macro KEEP_REGS_CALL fn
	pushq %rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	movq %rsp, %rbp
	.cfi_def_cfa_register %rbp
	save_arg_regs
	call \fn
	movq %rax, %r11
	restore_arg_regs
	leave
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
.endm

	.globl syscall
	.type syscall,@function
	.p2align 4
syscall:
	.cfi_startproc
	cmpq $157, %rdi            /* SYS_prctl */
	je 1f
	cmpq $317, %rdi            /* SYS_seccomp */
	je 1f
2:
	movq cutap_real_syscall(%rip), %r11
	testq %r11, %r11
	jz 3f
	jmp *%r11
1:
	KEEP_REGS_CALL cutap_syscall_seen
	jmp 2b
3:	/* before cutap's constructor: glibc's function found first */
	KEEP_REGS_CALL cutap_syscall_resolve
	jmp *%r11
	.cfi_endproc
	.size syscall,.-syscall

	.section .note.GNU-stack,"",@progbits
