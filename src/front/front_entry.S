/*
 * The front's slow entries (src/front/front_internal.h).
 *
 * cutap_front_slow: an entry whose cutap_hot slot is still 0 (the core not
 * loaded yet) comes here with its id in %r11d and the caller's registers
 * and stack as they came. Every argument register is kept (the integer
 * ones, %rax for a variadic call's vector count, %xmm0-7 for float
 * arguments) while cutap_front_resolve loads the core and says where the
 * call goes; then a jump there.
 *
 * The public API and the NVTX injection entry: each export jumps to the
 * core's function once the core filled its slot; before, to
 * cutap_front_api_slow with its index in %r11d.
 */
	.text
/* %r11d: the argument of fn, which says where to jump. */
.macro SAVE_CALL_JUMP fn
	.cfi_startproc
	/* entry: %rsp = 8 mod 16 (the caller's return address on top) */
	subq $200, %rsp
	.cfi_adjust_cfa_offset 200
	movq %rdi, 0(%rsp)
	movq %rsi, 8(%rsp)
	movq %rdx, 16(%rsp)
	movq %rcx, 24(%rsp)
	movq %r8, 32(%rsp)
	movq %r9, 40(%rsp)
	movq %rax, 48(%rsp)
	movdqu %xmm0, 56(%rsp)
	movdqu %xmm1, 72(%rsp)
	movdqu %xmm2, 88(%rsp)
	movdqu %xmm3, 104(%rsp)
	movdqu %xmm4, 120(%rsp)
	movdqu %xmm5, 136(%rsp)
	movdqu %xmm6, 152(%rsp)
	movdqu %xmm7, 168(%rsp)
	movl %r11d, %edi
	call \fn
	movq %rax, %r11
	movq 0(%rsp), %rdi
	movq 8(%rsp), %rsi
	movq 16(%rsp), %rdx
	movq 24(%rsp), %rcx
	movq 32(%rsp), %r8
	movq 40(%rsp), %r9
	movq 48(%rsp), %rax
	movdqu 56(%rsp), %xmm0
	movdqu 72(%rsp), %xmm1
	movdqu 88(%rsp), %xmm2
	movdqu 104(%rsp), %xmm3
	movdqu 120(%rsp), %xmm4
	movdqu 136(%rsp), %xmm5
	movdqu 152(%rsp), %xmm6
	movdqu 168(%rsp), %xmm7
	addq $200, %rsp
	.cfi_adjust_cfa_offset -200
	jmp *%r11
	.cfi_endproc
.endm

	.globl cutap_front_slow
	.hidden cutap_front_slow
	.type cutap_front_slow,@function
	.p2align 4
cutap_front_slow:
	SAVE_CALL_JUMP cutap_front_resolve
	.size cutap_front_slow,.-cutap_front_slow

	.globl cutap_front_api_slow
	.hidden cutap_front_api_slow
	.type cutap_front_api_slow,@function
	.p2align 4
cutap_front_api_slow:
	SAVE_CALL_JUMP cutap_front_api_resolve
	.size cutap_front_api_slow,.-cutap_front_api_slow

/* One export of the API: its slot in cutap_front_api (filled by the core). */
.macro API name, k
	.globl \name
	.type \name,@function
	.p2align 4
\name:
	.cfi_startproc
	movq cutap_front_api_table+8*\k(%rip), %r11
	testq %r11, %r11
	jz 1f
	jmp *%r11
1:
	movl $\k, %r11d
	jmp cutap_front_api_slow
	.cfi_endproc
	.size \name,.-\name
.endm

	API cutap_register, 0
	API cutap_unregister, 1
	API cutap_enable, 2
	API cutap_enable_name, 3
	API cutap_enable_filter, 4
	API cutap_call_count, 5
	API cutap_call_name, 6
	API cutap_call_layer, 7
	API cutap_call_nargs, 8
	API cutap_call_arg, 9
	API cutap_lookup, 10
	API cutap_layer_lookup, 11
	API cutap_layer_name, 12
	API cutap_export_table_name, 13
	API cutap_thread_depth, 14
	API InitializeInjectionNvtx2, 15

	.section .note.GNU-stack,"",@progbits
