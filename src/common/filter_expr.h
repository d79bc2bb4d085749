/* The -e / CUTAP_FILTER expression language, shared by libcutap.so (which
 * applies it) and the cutap command (which checks it before running):
 *
 *   EXPR  := TERM[,TERM…]
 *   TERM  := [!]GLOB | [!]layer=LAYER
 *
 * GLOB is a shell pattern on the exported name (cuMem*, cuLaunchKernel*,
 * CONTEXT_LOCAL_STORAGE#*); LAYER is a name of CUTAP_LAYER_NAMES (driver,
 * hidden, runtime, cublas, cublasLt, ..., nvtx; any case). A call is
 * selected when some positive term selects it (or there is none) and no
 * negative term does. */
#ifndef CUTAP_FILTER_EXPR_H
#define CUTAP_FILTER_EXPR_H

/* 1 when EXPR selects (name, layer), 0 when not, -1 when EXPR is invalid
 * (then *why, if why is not NULL, says what is wrong). name may be NULL
 * (only layer terms can select it). */
int cutap_filter_eval(const char *expr, const char *name, int layer, const char **why);
#endif
