/*
 * dlsym and dlvsym as libcutap.so exports them.
 *
 * glibc resolves RTLD_NEXT (and the namespace of RTLD_DEFAULT) relative to
 * the *return address* of dlsym. A C wrapper that calls the real dlsym
 * would make every lookup relative to libcutap.so, which breaks other
 * libraries (LLVM's libomp looking up its tool with dlsym(RTLD_NEXT) ends
 * up finding itself and loops). So these entries decide first whether the
 * name is a driver lookup cutap must see (cutap_dl_divert, C); if not,
 * they *jump* to glibc's function with the caller's stack untouched, and
 * glibc sees the original caller. Only driver lookups go through C
 * (cutap_dl_lookup), which gets the caller's return address explicitly.
 */
	.text
	.globl dlsym
	.type dlsym,@function
	.p2align 4
dlsym:
	.cfi_startproc
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	subq $8, %rsp
	.cfi_adjust_cfa_offset 8
	xorl %edx, %edx            /* no version */
	call cutap_dl_divert
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdi
	.cfi_adjust_cfa_offset -8
	testl %eax, %eax
	jnz 1f
	jmp *cutap_libc_dlsym_ptr(%rip)
1:
	xorl %edx, %edx            /* version */
	movq (%rsp), %rcx          /* caller */
	jmp cutap_dl_lookup
	.cfi_endproc
	.size dlsym,.-dlsym

	.globl dlvsym
	.type dlvsym,@function
	.p2align 4
dlvsym:
	.cfi_startproc
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	pushq %rdx
	.cfi_adjust_cfa_offset 8
	call cutap_dl_divert
	popq %rdx
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdi
	.cfi_adjust_cfa_offset -8
	testl %eax, %eax
	jnz 1f
	jmp *cutap_libc_dlvsym_ptr(%rip)
1:
	movq (%rsp), %rcx          /* caller */
	jmp cutap_dl_lookup
	.cfi_endproc
	.size dlvsym,.-dlvsym

	.section .note.GNU-stack,"",@progbits
