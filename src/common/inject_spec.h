/* Fault injection specs (issue #17), shared by libcutap.so (which applies
 * them, from CUTAP_INJECT) and the cutap command (which checks them and
 * turns status names into numbers before anything runs):
 *
 *   SPEC   := NAMES[:KEY=VALUE]...
 *   NAMES  := a filter expression (filter_expr.h): cuMemAlloc*, layer=nccl
 *   KEY    := error    a status (a number; the command also takes the name
 *                      of a status of the selected functions' layer): the
 *                      real call is skipped, the caller gets it
 *           | retval   any value, returned the same way (a number, or a
 *                      status name)
 *                      A number is decimal or 0x hex, negative with '-';
 *                      the command refuses one the selected functions'
 *                      result type cannot hold.
 *           | when     N (the Nth call only), N+ (from the Nth on), N+S (N,
 *                      N+S, N+2S...), N..M; counted per process over the
 *                      calls NAMES selects (default: every call)
 *           | rank     N[,N...]: only processes of these ranks
 *           | delay    a duration (500ms, 2s, 10us, a number of seconds):
 *                      sleep before the call (then make it, unless error
 *                      or retval is given too)
 *
 * CUTAP_INJECT holds specs separated by newlines, with numbers only. */
#ifndef CUTAP_INJECT_SPEC_H
#define CUTAP_INJECT_SPEC_H
#include <stddef.h>
#include <stdint.h>

#define CUTAP_INJECT_MAX 16
#define CUTAP_INJECT_MAX_RANKS 16

enum { CUTAP_WHEN_ALL = 0, CUTAP_WHEN_ONE, CUTAP_WHEN_FROM, CUTAP_WHEN_STEP, CUTAP_WHEN_RANGE };

struct cutap_inject_spec {
    char names[512];           /* the filter expression */
    int has_value;             /* error= or retval= given */
    int is_error;              /* the value came as error= */
    uint64_t value;            /* a negative number as its two's complement */
    int value_neg;             /* the value was a negative number (-1) */
    char value_name[128];      /* a status name not resolved yet (the command's), or "" */
    int when;                  /* CUTAP_WHEN_* */
    uint64_t n, m;             /* ONE/FROM: n; STEP: n, step m; RANGE: n..m */
    int nranks;
    int ranks[CUTAP_INJECT_MAX_RANKS];
    uint64_t delay_ns;         /* 0: none */
};

/* Parses one SPEC (len bytes of s) into *o. Status names are left in
 * value_name (numbers parsed into value). Returns 0, or -1 with *why
 * naming the wrong part (a static string, or written into why_buf). */
int cutap_inject_parse(const char *s, size_t len, struct cutap_inject_spec *o, char *why_buf, size_t why_size);

/* Whether the k-th call (1-based) of the spec's selection is injected. */
int cutap_inject_when(const struct cutap_inject_spec *o, uint64_t k);

/* The canonical text of a spec with value resolved (what CUTAP_INJECT
 * holds); returns the length written (< size), or -1 when it does not fit. */
int cutap_inject_format(const struct cutap_inject_spec *o, char *buf, size_t size);

/* --stack FILTER (CUTAP_STACK): FILTER without its "errors" terms into
 * expr (size bytes, "" when none is left); returns whether it had one. */
int cutap_stack_filter_split(const char *filter, char *expr, size_t size);
#endif
