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
#include "../arch/x86_64/arg_regs.inc"
	.text
.macro SAVE_CALL_JUMP fn
	.cfi_startproc
	resolve_and_jump \fn
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
	API cutap_on_exit, 16
	API cutap_call_result_kind, 17
	API cutap_status_name, 18
	API cutap_want_time, 19

	.section .note.GNU-stack,"",@progbits
