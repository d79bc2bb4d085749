/*
 * Entry of the resolver stubs (src/generated/lib_resolve.S): the first call
 * of a typed runtime or library function reaches us by tail jumps from its
 * exported wrapper, with %r11 = its call id and every argument register,
 * %rax (vararg count) and the stack exactly as the caller left them.
 *
 * We save the argument registers, call cutap_lib_resolve(id), which adopts
 * the function's layer and returns the address the call must go to, restore
 * the registers and jump there. The stack the target sees is the caller's
 * (same depth, same stack arguments), so a caller built against another
 * major of the library, passing more arguments or fewer than the generated
 * signature declares, loses nothing.
 */
#include "arg_regs.inc"
	.text
	.globl cutap_lib_resolve_common
	.hidden cutap_lib_resolve_common
	.type cutap_lib_resolve_common,@function
	.p2align 4
cutap_lib_resolve_common:
	.cfi_startproc
	resolve_and_jump cutap_lib_resolve   /* (id) */
	.cfi_endproc
	.size cutap_lib_resolve_common,.-cutap_lib_resolve_common

	.section .note.GNU-stack,"",@progbits
