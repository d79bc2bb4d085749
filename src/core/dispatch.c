/* Callback dispatch: clients, per-id enable masks, and the slow path every
 * intercepted call takes when a client wants it (or before the driver is
 * resolved). The fast path lives in the generated wrappers. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_internal.h"
#include "filter_expr.h"

/* cutap_hot[CUTAP_STATIC_COUNT] is the front's (src/generated/fronts.S),
 * zero until the core sets each slot (refresh.c: never back to 0);
 * cutap_tls is the front's too (src/front/tls.c). */
_Atomic uint8_t cutap_mask[CUTAP_MAX_IDS];
int cutap_recorder_client = -1;
cutap_fixup_fn cutap_fixup[CUTAP_STATIC_COUNT];

struct client {
    const char *name;
    cutap_pre_fn pre;
    cutap_post_fn post;
    void *ctx;
    int all;           /* enabled for CUTAP_ID_ALL: ids made later get it too */
    char *filter;      /* or: ids made later that this filter selects */
    int gone;          /* unregistered: never enabled again */
    void (*at_exit)(void *ctx);   /* cutap_on_exit */
};
static struct client clients[CUTAP_MAX_CLIENTS];
static _Atomic uint8_t time_mask;   /* clients that want t0 and t1 (cutap_want_time) */
static _Atomic int nclients;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
CUTAP_FORK_SAFE(reg_lock)

int cutap_register(const char *name, cutap_pre_fn pre, cutap_post_fn post, void *ctx)
{
    pthread_mutex_lock(&reg_lock);
    int n = atomic_load(&nclients);
    if (n >= CUTAP_MAX_CLIENTS) {
        pthread_mutex_unlock(&reg_lock);
        cutap_warn("cannot register client '%s': %d clients already", name ? name : "?", n);
        return -1;
    }
    clients[n] = (struct client){name, pre, post, ctx, 0, NULL, 0, NULL};
    atomic_store(&nclients, n + 1);
    pthread_mutex_unlock(&reg_lock);
    return n;
}

static void set_bit(uint32_t id, int client, int on)
{
    uint8_t bit = (uint8_t)(1u << client);
    if (on)
        atomic_fetch_or(&cutap_mask[id], bit);
    else
        atomic_fetch_and(&cutap_mask[id], (uint8_t)~bit);
    cutap_refresh_id(id);
}

int cutap_enable(int client, uint32_t id, int on)
{
    if (client < 0 || client >= atomic_load(&nclients) || (on && clients[client].gone))
        return -1;
    if (id == CUTAP_ID_ALL) {
        pthread_mutex_lock(&reg_lock);
        clients[client].all = on;
        uint32_t n = cutap_call_count();
        for (uint32_t i = 0; i < n; i++)
            set_bit(i, client, on);
        pthread_mutex_unlock(&reg_lock);
        return 0;
    }
    if (id >= cutap_call_count())
        return -1;
    set_bit(id, client, on);
    return 0;
}

int cutap_enable_name(int client, const char *name, int on)
{
    uint32_t id = cutap_lookup(name);
    return id == CUTAP_ID_ALL ? -1 : cutap_enable(client, id, on);
}

int cutap_enable_filter(int client, const char *filter)
{
    const char *why = NULL;
    if (!filter || cutap_filter_eval(filter, "", CUTAP_LAYER_DRIVER, &why) < 0) {
        cutap_warn("invalid filter '%s': %s (terms: GLOB, !GLOB, layer=NAME)", filter ? filter : "(null)",
                   why ? why : "missing");
        return -1;
    }
    char *copy = strdup(filter);
    if (!copy)
        return -1;
    pthread_mutex_lock(&reg_lock);
    if (client < 0 || client >= atomic_load(&nclients) || clients[client].gone) {
        pthread_mutex_unlock(&reg_lock);
        free(copy);
        return -1;
    }
    /* first: no id made meanwhile is missed (a filter is never freed: a
     * concurrent cutap_dispatch_new_id may be reading the old one) */
    clients[client].filter = copy;
    uint32_t n = cutap_call_count();
    for (uint32_t id = 0; id < n; id++)
        if (cutap_filter_eval(copy, cutap_call_name(id), cutap_call_layer(id), NULL) == 1)
            set_bit(id, client, 1);
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

int cutap_unregister(int client)
{
    pthread_mutex_lock(&reg_lock);
    if (client < 0 || client >= atomic_load(&nclients) || clients[client].gone) {
        pthread_mutex_unlock(&reg_lock);
        return -1;
    }
    clients[client].gone = 1;
    clients[client].all = 0;
    atomic_fetch_and(&time_mask, (uint8_t)~(1u << client));
    clients[client].filter = NULL;
    uint32_t n = cutap_call_count();
    for (uint32_t id = 0; id < n; id++)
        if (atomic_load_explicit(&cutap_mask[id], memory_order_relaxed) & (1u << client))
            set_bit(id, client, 0);
    /* The fused path serves one client: not this one any more. */
    uint8_t bit = (uint8_t)(1u << client), fast = bit;
    atomic_compare_exchange_strong(&cutap_fast_mask, &fast, 0);
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

/* The exit hooks, at the process's normal exit (exit, return from main),
 * last registered first, for clients still registered: run by one atexit
 * handler made at the first hook, so after the recorder's own (made at
 * its start, before any plugin): what they do is still recorded. */
static pid_t exit_pid;   /* the process whose hooks they are: a forked child's exit runs none */
static void run_exit_hooks(void)
{
    if (getpid() != exit_pid)
        return;
    pthread_mutex_lock(&reg_lock);
    int n = atomic_load(&nclients);
    void (*fn[CUTAP_MAX_CLIENTS])(void *);
    void *ctx[CUTAP_MAX_CLIENTS];
    for (int c = 0; c < n; c++) {
        fn[c] = clients[c].gone ? NULL : clients[c].at_exit;
        ctx[c] = clients[c].ctx;
        clients[c].at_exit = NULL;   /* once */
    }
    pthread_mutex_unlock(&reg_lock);   /* a hook may call the API */
    for (int c = n - 1; c >= 0; c--)
        if (fn[c])
            fn[c](ctx[c]);
}

int cutap_want_time(int client, int on)
{
    pthread_mutex_lock(&reg_lock);
    int ok = client >= 0 && client < atomic_load(&nclients) && !clients[client].gone;
    if (ok) {
        uint8_t bit = (uint8_t)(1u << client);
        if (on)
            atomic_fetch_or(&time_mask, bit);
        else
            atomic_fetch_and(&time_mask, (uint8_t)~bit);
    }
    pthread_mutex_unlock(&reg_lock);
    return ok ? 0 : -1;
}

int cutap_on_exit(int client, void (*fn)(void *ctx))
{
    static int handler;
    pthread_mutex_lock(&reg_lock);
    if (client < 0 || client >= atomic_load(&nclients) || clients[client].gone) {
        pthread_mutex_unlock(&reg_lock);
        return -1;
    }
    clients[client].at_exit = fn;
    if (fn && !handler && atexit(run_exit_hooks) == 0) {
        exit_pid = getpid();
        handler = 1;
    }
    int ok = !fn || handler;
    pthread_mutex_unlock(&reg_lock);
    return ok ? 0 : -1;
}

/* A dynamic id was just made: clients enabled for every id get it too, and
 * those whose filter accepts it. */
void cutap_dispatch_new_id(uint32_t id, const char *name, int layer)
{
    uint8_t m = 0;
    pthread_mutex_lock(&reg_lock);   /* against a concurrent cutap_enable(ALL) */
    int n = atomic_load(&nclients);
    for (int c = 0; c < n; c++)
        if (clients[c].all || (clients[c].filter && cutap_filter_eval(clients[c].filter, name, layer, NULL) == 1))
            m |= (uint8_t)(1u << c);
    atomic_store(&cutap_mask[id], m);
    pthread_mutex_unlock(&reg_lock);
}

/* Runs the pre callbacks in order (lowest client first). When one skips
 * the call, it is marked skipped at once and the later clients' pre
 * callbacks still run (observers see every call: they find the flag set),
 * but what they return and any result they write are void: the caller
 * gets what the skipping client set. Every client whose pre ran gets its
 * post (never a post without its pre). The loops visit only the set bits
 * of the mask. */
static inline int run_pre(struct cutap_icall *call, uint8_t *mask, int can_skip)
{
    int skip = 0;
    uint64_t kept = 0;
    call->c.t0 = *mask & atomic_load_explicit(&time_mask, memory_order_relaxed) ? cutap_now_ns() : 0;
    for (unsigned m = *mask; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        if (!clients[c].pre)
            continue;
        int r = clients[c].pre(&call->c, clients[c].ctx, &call->scratch[c]);
        if (skip) {
            call->c.result = kept;
        } else if (r == CUTAP_SKIP && can_skip) {
            skip = 1;
            kept = call->c.result;
            call->c.flags |= CUTAP_CALL_SKIPPED;
        }
    }
    return skip;
}

/* The post callbacks, in reverse order. One may rewrite the result of a
 * call that was made; a skipped call's result stays the skipping
 * client's: every post callback sees it, whatever an earlier one wrote. */
static inline void run_post(struct cutap_icall *call, unsigned mask)
{
    uint64_t kept = call->c.result;
    int skipped = !!(call->c.flags & CUTAP_CALL_SKIPPED);
    if (call->c.t0)
        call->c.t1 = cutap_now_ns();   /* the call has returned: read once for every post */
    while (mask) {
        int c = 31 - __builtin_clz(mask);
        mask &= ~(1u << c);
        if (skipped)
            call->c.result = kept;
        if (clients[c].post)
            clients[c].post(&call->c, clients[c].ctx, &call->scratch[c]);
    }
    if (skipped)
        call->c.result = kept;
}

/* CUTAP_DIAG_PATHS=DEST (a diagnostic, issue #27): how many calls of each
 * id that a client wanted took the general path (cutap_dispatch) or the
 * untyped trampoline's callbacks, not a fast path; written at exit to DEST
 * ("stderr" or a path, %p the pid: cutap_open_output), by the process that
 * asked, and by a forked child that exits through exit() where DEST names
 * the pid (its counts start at 0 at the fork; without %p it would write
 * over its parent's). Off: one load a general call. */
#define DIAG_IDS 65536
static _Atomic uint64_t (*diag_paths)[DIAG_IDS];
static pid_t diag_pid;
static const char *diag_dest;
static void diag_print(void)
{
    int fd;
    if (getpid() != diag_pid || (fd = cutap_open_output(diag_dest, 1)) < 0)
        return;
    for (int k = 0; k < 2; k++)
        for (uint32_t id = 0; id < DIAG_IDS && id < cutap_call_count(); id++)
            if (diag_paths[k][id]) {
                char line[512];
                int n = snprintf(line, sizeof line, "cutap diag: %s %s %llu\n", k ? "untyped" : "general",
                                 cutap_call_name(id), (unsigned long long)diag_paths[k][id]);
                if (n > 0)
                    (void)cutap_write_all(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            }
    close(fd);
}
static void diag_child(void)
{
    /* (zero pages again, touched only where counted: no 1 MiB a fork) */
    if (!diag_paths || !strstr(diag_dest, "%p") || madvise(diag_paths, 2 * sizeof *diag_paths, MADV_DONTNEED))
        return;
    diag_pid = getpid();
}
void cutap_diag_paths_start(const char *dest)
{
    diag_pid = getpid();
    diag_dest = dest;
    void *m = mmap(NULL, 2 * sizeof *diag_paths, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
        diag_paths = m;
        atexit(diag_print);
        pthread_atfork(NULL, NULL, diag_child);
    }
}
static inline void diag_note(int k, uint32_t id)
{
    if (CUTAP_UNLIKELY(diag_paths != NULL) && id < DIAG_IDS)
        atomic_fetch_add_explicit(&diag_paths[k][id], 1, memory_order_relaxed);
}

uint64_t cutap_dispatch(uint32_t id, uint64_t *args, cutap_thunk_t thunk)
{
    int ready = cutap_id_ready(id);
    struct cutap_thread *t = &cutap_tls;
    uint8_t mask = atomic_load_explicit(&cutap_mask[id], memory_order_relaxed);
    if (mask)
        diag_note(0, id);
    const struct cutap_fninfo *fi = cutap_fn(id);
    struct cutap_icall ic;
    ic.c.id = id;
    ic.c.layer = fi->layer;
    ic.c.flags = 0;
    ic.c.nargs = fi->nargs;
    ic.c.depth = t->depth;
    ic.c.args = args;
    ic.c.result = 0;
    ic.c.fn = ready ? cutap_real[id] : NULL;
    ic.c.parent = t->current;
    ic.c.t0 = ic.c.t1 = 0;
    if (id >= CUTAP_DRIVER_COUNT &&
        CUTAP_UNLIKELY(atomic_load_explicit(&cutap_lib_routed[fi->layer - CUTAP_FIRST_LIB_LAYER], memory_order_relaxed)) &&
        (cutap_lib_route_ctx(id) || (cutap_variant_of(id) && thunk != cutap_variant_of(id)->thunk))) {
        /* Typed code of a function whose signature the major the layer is
         * bound to does not declare, or declares otherwise (a variant): the
         * words were taken with the generated signature, which nobody
         * vouches for there (a call that found this path just before the
         * layer was adopted, or made while no library was loaded, whose
         * entry became the route or the variant's). Not made, as if made
         * before the layer was found; recorded untyped, no argument word
         * trusted. */
        ic.c.fn = NULL;
        ic.c.flags = CUTAP_CALL_UNTYPED;
        ic.c.nargs = 0;
    }
    if (CUTAP_LIKELY(mask == atomic_load_explicit(&cutap_fast_mask, memory_order_relaxed)) && mask && ic.c.fn &&
        !cutap_fixup[id])
        return cutap_record_fast(&ic.c, thunk);
    /* What the caller gets when the real function is missing. */
    ic.c.result = cutap_missing_status(id);
    /* Every client's scratch word zero, those of clients that do not run
     * too: a client may read another's (the GPU join reads the recorder's
     * record, 0 where the recorder does not take the call; a stale word left
     * on the stack by an earlier call joined an unrecorded call's work to
     * that call's record once enqueuing calls took fast paths). */
    memset(ic.scratch, 0, sizeof ic.scratch);

    int skip = mask ? run_pre(&ic, &mask, 1) : 0;
    t->depth++;
    t->current = &ic.c;
    if (!skip && ic.c.fn)
        ic.c.result = thunk(ic.c.fn, args);
    /* else: the driver lacks this export (older driver), or the layer's
     * library is missing; the caller gets CUDA_ERROR_NOT_FOUND or the
     * layer's "not initialised" status rather than a jump to NULL. */
    t->depth--;
    t->current = ic.c.parent;
    if (CUTAP_UNLIKELY(cutap_fixup[id] != NULL) && !skip) {
        int e = errno;   /* a fixup's own work (copies, probes, warnings) leaves the caller's errno */
        cutap_fixup[id](&ic.c);
        errno = e;
    }
    if (mask)
        run_post(&ic, mask);
    return ic.c.result;
}

/* Generic trampoline, C side. enter() runs on the way in with the saved
 * argument registers, exit() on the way out with the return value. The
 * frame of each call lives on a small per-thread shadow stack that also
 * keeps the caller's return address. */
#define SHADOW_DEPTH 256
struct shadow_frame {
    void *ret;
    struct cutap_icall call;
    uint64_t regs[6];
    uint8_t mask;
    uint8_t fused;   /* the recorder's record without callbacks (cutap_record_report_begin) */
    void *rec;       /* then what its end needs */
    uint64_t aux[2];
};
struct shadow_stack {
    unsigned top;
    struct shadow_frame f[SHADOW_DEPTH];
};
#define shadow (cutap_tls.shadow)
static pthread_key_t shadow_key;
static pthread_once_t shadow_once = PTHREAD_ONCE_INIT;
static void shadow_key_init(void) { pthread_key_create(&shadow_key, free); }

static struct shadow_stack *shadow_get(void)
{
    if (!shadow && (shadow = calloc(1, sizeof *shadow))) {
        pthread_once(&shadow_once, shadow_key_init);
        pthread_setspecific(shadow_key, shadow);   /* freed at thread exit */
    }
    return shadow;
}

uint64_t cutap_missing_status(uint32_t id)
{
    int layer = cutap_call_layer(id);
    if (layer < CUTAP_FIRST_LIB_LAYER || layer >= CUTAP_FIRST_LIB_LAYER + CUTAP_LIB_LAYERS)
        return CUTAP_CUDA_ERROR_NOT_FOUND;
    if (id < CUTAP_STATIC_COUNT && cutap_fn(id)->nostatus)
        return 0;
    return cutap_layers[layer - CUTAP_FIRST_LIB_LAYER].unavailable;
}

/* A function the trampoline cannot run (not resolved, or missing from the
 * library bound): the caller gets cutap_missing_status of its id, through
 * this, so that the call is recorded like one made. Set by
 * cutap_tramp_enter just before it returns this address, read when the
 * caller's jump gets here: nothing runs on the thread in between. */
#define missing_status (cutap_tls.missing_status)
static uint64_t missing(void) { return missing_status; }

void *cutap_tramp_enter(struct cutap_tramp_ctx *ctx, void **retslot, uint64_t *regs)
{
    int ready = ctx->id < CUTAP_STATIC_COUNT ? cutap_id_ready(ctx->id)
                : atomic_load_explicit(&cutap_driver_state, memory_order_acquire) == 1 || !cutap_driver_ensure();
    void *real = ready ? __atomic_load_n(&ctx->real, __ATOMIC_ACQUIRE) : NULL;
    if (!real) {
        missing_status = cutap_missing_status(ctx->id);
        real = (void *)missing;
    }
    /* Export-table slot calls a runtime copy makes only because cutap asked
     * it to report its calls (TOOLS_TLS#2, twice a report on CUDA 13):
     * the instrument's, run without a frame (resolve/rt_hooks.c learns
     * their call sites). */
    if (ctx->id >= CUTAP_STATIC_COUNT) {
        if (CUTAP_UNLIKELY(atomic_load_explicit(&cutap_induced_n, memory_order_relaxed)) &&
            cutap_induced_site(*retslot))
            return real;
        cutap_tls.last_slot_ret = *retslot;
        cutap_tls.last_slot_id = ctx->id;
    }
    uint8_t mask = atomic_load_explicit(&cutap_mask[ctx->id], memory_order_relaxed);
    if (!mask)
        return real;   /* nothing to record: run it without a frame */
    /* --runtime=cupti: the libcupti cutap subscribed through calling an
     * export-table slot: the instrument's call, not the program's */
    uint32_t co = atomic_load_explicit(&cutap_cupti_object, memory_order_relaxed);
    if (CUTAP_UNLIKELY(co) && ctx->id >= CUTAP_STATIC_COUNT && cutap_object_of(*retslot) == co)
        return real;
    /* Only the recorder, counting, and a result that cannot be an error
     * (cutap_call_is_error): the call is counted here and runs without a
     * frame (no shadow frame, callbacks or return hook), unless it is to be
     * timed. */
    if (__atomic_load_n(&cutap_fast_kind, __ATOMIC_RELAXED) == 2 && !cutap_rt_cupti &&
        mask == atomic_load_explicit(&cutap_fast_mask, memory_order_relaxed) && real != (void *)missing &&
        (ctx->id >= CUTAP_STATIC_COUNT || !cutap_fn(ctx->id)->typed) && cutap_rec_count_untyped(ctx->id))
        return real;
    if (!shadow_get())
        return real;
    if (shadow->top >= SHADOW_DEPTH)
        return real;   /* too deep to follow: still correct, not recorded */
    struct cutap_thread *t = &cutap_tls;
    struct shadow_frame *fr = &shadow->f[shadow->top++];
    fr->ret = *retslot;
    fr->mask = mask;
    memcpy(fr->regs, regs, sizeof fr->regs);
    cutap_call_t *c = &fr->call.c;
    c->id = ctx->id;
    c->layer = (uint16_t)cutap_call_layer(ctx->id);
    c->flags = CUTAP_CALL_UNTYPED;
    c->nargs = 6;
    c->depth = t->depth;
    c->args = fr->regs;
    c->result = 0;
    c->fn = real;
    c->parent = t->current;
    c->t0 = c->t1 = 0;
    /* Only the recorder, tracing: its record without the callbacks, as
     * for a runtime copy's report (origin none). */
    fr->fused = __atomic_load_n(&cutap_fast_kind, __ATOMIC_RELAXED) == 1 && real != (void *)missing &&
                cutap_record_report_begin(c, 0, &fr->rec, fr->aux);
    if (!fr->fused) {
        diag_note(1, ctx->id);
        memset(fr->call.scratch, 0, sizeof fr->call.scratch);
        run_pre(&fr->call, &fr->mask, 0);   /* an untyped call cannot be skipped */
    }
    t->depth++;
    t->current = c;
    *retslot = (void *)cutap_tramp_return;
    return real;
}

void *cutap_hook_caller(void)
{
    const cutap_call_t *h = cutap_tls.current;
    if (!h || h->layer != CUTAP_LAYER_HIDDEN || !shadow || !shadow->top)
        return NULL;
    const struct shadow_frame *fr = &shadow->f[shadow->top - 1];
    return &fr->call.c == h ? fr->ret : NULL;
}

void *cutap_tramp_exit(uint64_t rax)
{
    /* The frame stays on the stack until the post callbacks are done: an
     * untyped call they make pushes above it instead of over it. */
    struct shadow_frame *fr = &shadow->f[shadow->top - 1];
    struct cutap_thread *t = &cutap_tls;
    t->depth--;
    t->current = fr->call.c.parent;
    fr->call.c.result = rax;
    if (fr->fused)
        cutap_record_report_end(&fr->call.c, fr->rec, fr->aux);
    else
        run_post(&fr->call, fr->mask);
    void *ret = fr->ret;
    shadow->top--;
    return ret;
}

/* Calls cutap learns of at entry and exit without calling them itself
 * (CUPTI's runtime callbacks for a statically linked cudart): the same
 * callbacks, depth and parent as an intercepted call; never skipped. */
void cutap_external_enter(struct cutap_external *x, uint32_t id, uint64_t *args, uint32_t nargs, uint16_t flags,
                          void *origin)
{
    struct cutap_thread *t = &cutap_tls;
    cutap_call_t *c = &x->call.c, *h = t->current;
    /* CUPTI runs its runtime callbacks from inside a call the runtime makes
     * through an export table (TOOLS_RUNTIME_CALLBACK_HOOKS#1, recorded as
     * layer hidden when that table is wrapped). That hook returns right
     * after the callback, while the runtime call has just begun: the call
     * takes the hook's place (its depth, its parent), and the hook's frame
     * is told to leave it current when it returns. */
    x->hook = h && h->layer == CUTAP_LAYER_HIDDEN;
    x->mask = id < CUTAP_MAX_IDS ? atomic_load_explicit(&cutap_mask[id], memory_order_relaxed) : 0;
    c->id = id;
    c->layer = (uint16_t)cutap_call_layer(id);
    c->flags = flags | CUTAP_CALL_REPORTED;
    c->nargs = nargs;
    c->depth = x->hook ? h->depth : t->depth;
    c->args = args;
    c->result = 0;
    c->fn = origin;
    c->parent = x->hook ? h->parent : t->current;
    c->t0 = c->t1 = 0;
    memset(x->call.scratch, 0, sizeof x->call.scratch);
    if (x->mask)
        run_pre(&x->call, &x->mask, 0);
    t->depth++;
    if (x->hook)
        h->parent = c;       /* the hook's return makes c current, at c's depth + 1 */
    else
        t->current = c;
}

void cutap_external_exit(struct cutap_external *x, uint64_t result)
{
    struct cutap_thread *t = &cutap_tls;
    cutap_call_t *h = t->current;
    t->depth--;
    if (h && h != &x->call.c && h->layer == CUTAP_LAYER_HIDDEN && h->parent == &x->call.c)
        h->parent = x->call.c.parent;   /* inside the exit hook: its return restores x's parent */
    else
        t->current = x->call.c.parent;
    x->call.c.result = result;
    if (x->mask)
        run_post(&x->call, x->mask);
}

/* Calls cutap makes for the caller itself (the ioctl layer's libc
 * wrappers, resolve/ioctl.c): the callbacks, depth and parent of any
 * intercepted call; a pre callback may skip the call (the caller then
 * gets call.c.result). Returns 1 when skipped. */
int cutap_native_enter(struct cutap_external *x, uint32_t id, uint64_t *args, uint32_t nargs, void *fn)
{
    struct cutap_thread *t = &cutap_tls;
    cutap_call_t *c = &x->call.c;
    x->hook = 0;
    x->mask = atomic_load_explicit(&cutap_mask[id], memory_order_relaxed);
    c->id = id;
    c->layer = (uint16_t)cutap_call_layer(id);
    c->flags = 0;
    c->nargs = nargs;
    c->depth = t->depth;
    c->args = args;
    c->result = 0;
    c->fn = fn;
    c->parent = t->current;
    c->t0 = c->t1 = 0;
    memset(x->call.scratch, 0, sizeof x->call.scratch);   /* (every client's: as in cutap_dispatch) */
    int skip = x->mask ? run_pre(&x->call, &x->mask, 1) : 0;
    t->depth++;
    t->current = c;
    return skip;
}

void cutap_native_exit(struct cutap_external *x, uint64_t result)
{
    struct cutap_thread *t = &cutap_tls;
    t->depth--;
    t->current = x->call.c.parent;
    x->call.c.result = result;
    if (x->mask)
        run_post(&x->call, x->mask);
}

/* A fixup's work that makes calls of its own (starting CUPTI in cuInit's):
 * they nest in the call the fixup follows, whose time, read after the
 * fixups, includes them. */
void cutap_run_inside(cutap_call_t *call, void (*fn)(void))
{
    struct cutap_thread *t = &cutap_tls;
    uint32_t depth = t->depth;
    cutap_call_t *cur = t->current;
    t->depth = call->depth + 1;
    t->current = call;
    fn();
    t->depth = depth;
    t->current = cur;
}

unsigned cutap_thread_depth(void)
{
    return cutap_tls.depth;
}
