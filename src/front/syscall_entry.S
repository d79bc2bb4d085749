/*
 * syscall() as libcutap.so exports it (src/core/forbid.c). Only SYS_prctl
 * and SYS_seccomp are looked at, in C, before the call; every call then
 * *jumps* to glibc's syscall with the caller's registers and stack as
 * they came (its seventh argument is on the stack, and a clone or vfork
 * made through syscall() must return into the caller's frames exactly as
 * without cutap).
 */
	.text
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
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	pushq %rdx
	.cfi_adjust_cfa_offset 8
	pushq %rcx
	.cfi_adjust_cfa_offset 8
	pushq %r8
	.cfi_adjust_cfa_offset 8
	pushq %r9
	.cfi_adjust_cfa_offset 8
	subq $8, %rsp
	.cfi_adjust_cfa_offset 8
	call cutap_syscall_seen
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	popq %r9
	.cfi_adjust_cfa_offset -8
	popq %r8
	.cfi_adjust_cfa_offset -8
	popq %rcx
	.cfi_adjust_cfa_offset -8
	popq %rdx
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdi
	.cfi_adjust_cfa_offset -8
	jmp 2b
3:	/* before cutap's constructor: glibc's function found first */
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	pushq %rdx
	.cfi_adjust_cfa_offset 8
	pushq %rcx
	.cfi_adjust_cfa_offset 8
	pushq %r8
	.cfi_adjust_cfa_offset 8
	pushq %r9
	.cfi_adjust_cfa_offset 8
	subq $8, %rsp
	.cfi_adjust_cfa_offset 8
	call cutap_syscall_resolve
	movq %rax, %r11
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	popq %r9
	.cfi_adjust_cfa_offset -8
	popq %r8
	.cfi_adjust_cfa_offset -8
	popq %rcx
	.cfi_adjust_cfa_offset -8
	popq %rdx
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdi
	.cfi_adjust_cfa_offset -8
	jmp *%r11
	.cfi_endproc
	.size syscall,.-syscall

	.section .note.GNU-stack,"",@progbits
