/* Native stacks (writer_internal.h): the return addresses of the calls
 * CUTAP_STACK selects, written as meta records. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <stdlib.h>
#include <string.h>

#include "filter_expr.h"
#include "inject_spec.h"
#include "writer_internal.h"

/* For the calls FILTER selects, at their start, and with the term
 * "errors", for every call that fails, at its end: the return addresses of
 * the thread's stack (glibc's backtrace: the unwind tables, no frame
 * pointers needed), cutap's own frames (libcutap.so's) left out, each as its object
 * (named once in the file, CUTAP_META_OBJECT) and the offset in it. The
 * reader names them from the objects' symbol tables. Only those calls pay
 * (a few microseconds each); they leave the fast paths. */
#define STACK_FRAMES 32
uint8_t rec_stack_ids[CUTAP_MAX_IDS];
int rec_stack_errors, rec_stack_on;
static uint32_t self_obj, front_obj;   /* cutap's objects (cutap_object_of): their frames are left out */

__attribute__((noinline, cold)) void rec_write_stack(const struct cutap_rec_call *r, uint32_t id)
{
    void *pc[STACK_FRAMES + 8];
    int n = backtrace(pc, STACK_FRAMES + 8);
    char buf[sizeof(struct cutap_stack_head) + STACK_FRAMES * sizeof(struct cutap_stack_frame) + 8];
    struct cutap_stack_head *h = (struct cutap_stack_head *)buf;
    struct cutap_stack_frame *f = (struct cutap_stack_frame *)(h + 1);
    unsigned k = 0;
    for (int i = 0; i < n && k < STACK_FRAMES; i++) {
        uintptr_t a = (uintptr_t)pc[i];
        uint32_t o = rec_origin_of(pc[i]);
        if (o && (o == self_obj || o == front_obj))
            continue;   /* cutap's own: its wrappers and recorder are not the program's */
        uint64_t base = 0;
        if (o)
            cutap_object_path(o, &base);
        f[k].object = o;
        f[k].reserved = 0;
        f[k].offset = o ? (uint64_t)a - base : (uint64_t)a;
        k++;
    }
    h->tid = cutap_rt.tid;
    h->nframes = k;
    size_t len = sizeof *h + k * sizeof *f;
    memset(buf + len, 0, 8);
    rec_write_meta_n(CUTAP_META_STACK, id, r->t0, buf, len + 7);
}

/* CUTAP_STACK: the ids selected; "errors" as a term: failing calls. The
 * stack client has no callbacks: enabled for those ids, it keeps them off
 * the fast paths, so that trace_pre and trace_post see them. */
void rec_stack_setup(void)
{
    const char *v = getenv("CUTAP_STACK");
    if (!v || !*v)
        return;
    char expr[1024];
    rec_stack_errors = cutap_stack_filter_split(v, expr, sizeof expr);
    size_t n = strlen(expr);
    const char *why = NULL;
    if (n && cutap_filter_eval(expr, "", CUTAP_LAYER_DRIVER, &why) < 0) {
        cutap_warn("invalid CUTAP_STACK '%s': %s; no stack is recorded", v, why);
        return;
    }
    self_obj = cutap_object_of((const void *)rec_stack_setup);
    front_obj = cutap_object_of((const void *)cutap_front_attach);
    void *warm[2];
    backtrace(warm, 2);   /* loads the unwinder now, not inside a call */
    int c = cutap_register("stack", NULL, NULL, NULL);
    if (c < 0)
        return;
    if (rec_stack_errors)
        cutap_enable(c, CUTAP_ID_ALL, 1);
    uint32_t count = cutap_call_count();
    for (uint32_t id = 0; n && id < count && id < CUTAP_MAX_IDS; id++) {
        const char *name = cutap_call_name(id);
        if (name && cutap_filter_eval(expr, name, cutap_call_layer(id), NULL) == 1) {
            rec_stack_ids[id] = 1;
            if (!rec_stack_errors)
                cutap_enable(c, id, 1);
        }
    }
    rec_stack_on = 1;
}
