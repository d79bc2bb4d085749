"""Generates the recorder's fast paths (issue #13): src/generated/fast_driver.c,
src/generated/fast_<layer>.c (one per layer, like the wrappers) and
src/generated/fast_table.c (cutap_fast_trace[] and cutap_fast_count[], per
static id, NULL where there is none).

While the built-in recorder is the only client of an id, refresh (src/core/
dispatch.c) points the id's cutap_hot entry at one of these instead of the
typed slow path, so that the exported front jumps straight here with the
caller's registers: no argument array, no call description, no plan
lookup, no thunk. Each function has the exact signature of the export and
knows at generation time what the general path finds at run time: the
record's size, where its argument words and capture headers go, the
capture headers themselves, whether the result is a status, which argument
is a kernel to name. Trace mode writes the same record as the general path
(src/record/calls.c, rec_begin/rec_end), counting mode counts an untimed
call as count_fast does; whatever these do not handle (the id's first call
in the file, a full chunk, a timed count) goes to cutap_slow_<name>.

What a fast path reads is kept to few lines (issue #27: in a program that
runs its own code between two CUDA calls most of them are misses): the
thread's state through %fs (its offset on cutap_hotline, with the clock's
mode, not in the GOT), the real function from the id's slot of the
front's table (the line the entry just loaded), the record. A trace fast
path is handed out to an id already named in the file only, so it does
not check.

Functions get a fast path when they are typed, return no float, and capture
nothing or only up to two 4- or 8-byte outputs (the recorder's SIMPLE
plans: cuCtxGetCurrent, cudaGetDevice, cuMemAlloc, cuDeviceGetAttribute,
...); the others (strings, structures in or out) keep the general path."""
import cuda_model
from gen_common import captures, pfn_type, proto, result_to_word, struct_defs, to_word
from lib_table_generator import is_status
from table_generator import func_arg

FIRST_ROOM = 24          # bytes of argument words in a record's first slot
SLOT = 64


def simple(f):
    """The outputs of f the fast path captures [(arg, size)], or None when
    f must keep the general path."""
    if not f.typed or f.ret_abi in ("float", "double"):
        return None
    caps = captures(f)
    if len(caps) > 2 or any(k != "CUTAP_CAP_OUT_BYTES" or s not in (4, 8) for _, k, s in caps):
        return None
    return [(a, s) for a, _, s in caps]


def nslots(nargs, ncap):
    b = 8 * nargs + 16 * ncap
    return 1 if b <= FIRST_ROOM else 1 + (b - FIRST_ROOM + SLOT - 1) // SLOT


# The functions that enqueue GPU work (src/record/gpu.c's work_filter, the
# same globs): under `trace --gpu` each also has the join's client, and
# takes its variant cutap_tg_<name> (cutap_fast_trace_gpu[]), which notes
# the call's place for CUPTI's callbacks around the real call
# (cutap_fp_gpu_pre/post, src/record/gpu_join.c) instead of the general
# path (issue #31: 214 ns of cutap's code a launch against 60). A function
# the filter takes that has no variant only takes the general path.
GPU_WORK = ("cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset", "cudaLaunch", "__cudaLaunch", "cudaGraphLaunch",
            "cudaMemcpy", "cudaMemset")
GPU_NOT = ("cuLaunchHostFunc", "cudaLaunchHostFunc")


def gpu_work(name):
    return name.startswith(GPU_WORK) and not name.startswith(GPU_NOT)


def one(f, nostatus, karg, layer):
    """f's trace fast path, its --gpu variant where f enqueues GPU work
    (the same, with the join's notes: layer, the C constant of f's layer,
    is handed to them) and its counting fast path."""
    out = trace_path(f, nostatus, karg, None)
    if gpu_work(f.name):
        out += trace_path(f, nostatus, karg, layer)
    return out + count_path(f, nostatus)


def call_parts(f):
    """What every fast path of f says: the real call (as a declaration of
    cutap_res), the general path's call, whether f returns nothing, and
    the return statement."""
    args = ", ".join(p.name for p in f.params)
    real = "((%s)CUTAP_FP_REAL(CUTAP_ID_%s))(%s)" % (pfn_type(f), f.name, args)
    void = f.ret_abi == "void"
    res_decl = "%s;" % real if void else "%s cutap_res = %s;" % (f.ret_abi, real)
    return res_decl, "cutap_slow_%s(%s)" % (f.name, args), void, "" if void else "    return cutap_res;\n"


def trace_path(f, nostatus, karg, gpu_layer):
    caps = simple(f)
    prefix = "cutap_tr_" if gpu_layer is None else "cutap_tg_"
    n = len(f.params)
    res_decl, slow, void, ret = call_parts(f)
    ret_slow = "%s;\n        return;" % slow if void else "return %s;" % slow
    res_word = "0" if void else result_to_word(f, "cutap_res")
    rf = "CUTAP_RF_NOSTATUS" if nostatus else "0"
    ok = "1" if nostatus or void else "(uint32_t)cutap_res == 0"
    out = []
    out.append("CUTAP_SLOW %s\n{" % proto(f, prefix + f.name))
    out.append("    __seg_fs struct cutap_thread *cutap_t = CUTAP_FS_TLS;")
    out.append("    struct cutap_rec_call *cutap_r;")
    out.append("    if (__builtin_expect(!cutap_fp_reserve_fs(cutap_t, %d, &cutap_r), 0)) {\n        %s\n    }"
               % (nslots(n, len(caps)), ret_slow))
    if n or caps:
        out.append("    uint64_t *cutap_w = (uint64_t *)(void *)((char *)cutap_r + offsetof(struct cutap_rec_call, words));")
    for i, p in enumerate(f.params):
        out.append("    cutap_w[%d] = %s;" % (i, to_word(p, p.name)))
    for k, (a, s) in enumerate(caps):
        out.append("    cutap_w[%d] = CUTAP_FP_CAP(%d, 0, CUTAP_CAPS_NONE);" % (n + 2 * k, a))
    out.append("    uint32_t cutap_d = cutap_t->depth;")
    out.append("    uint32_t cutap_dnc = (uint32_t)(uint16_t)cutap_d | %du << 16 | %du << 24;" % (n, len(caps)))
    out.append("    memcpy(&cutap_r->depth, &cutap_dnc, sizeof cutap_dnc);")
    out.append("    cutap_r->t0 = cutap_rec_clock();")
    out.append("    __atomic_store_n((uint64_t *)(void *)cutap_r, CUTAP_REC_CALL | (uint64_t)(%s) << 8 | "
               "(uint64_t)%d << 16 | (uint64_t)CUTAP_ID_%s << 32, __ATOMIC_RELEASE);"
               % (rf, nslots(n, len(caps)), f.name))
    out.append("    cutap_t->depth = cutap_d + 1;")
    if gpu_layer is not None:
        out.append("    uint64_t cutap_g = cutap_fp_gpu_pre(CUTAP_ID_%s, %s, cutap_r);" % (f.name, gpu_layer))
    out.append("    " + res_decl)
    out.append("    uint64_t cutap_t1 = cutap_rec_clock();")
    out.append("    cutap_t->depth = cutap_d;")
    out.append("    cutap_r->t1 = cutap_t1;")
    out.append("    cutap_r->result = %s;" % res_word)
    if gpu_layer is not None:
        out.append("    if (cutap_g)")
        out.append("        cutap_fp_gpu_post(cutap_g, %s);" % res_word)
    if caps or karg >= 0:
        out.append("    if (%s) {" % ok)
        for k, (a, s) in enumerate(caps):
            pa = f.params[a].name
            out.append("        if (%s) {" % pa)
            out.append("            memcpy(&cutap_w[%d], (const void *)%s, %d);" % (n + 2 * k + 1, pa, s))
            out.append("            cutap_w[%d] = CUTAP_FP_CAP(%d, %d, CUTAP_CAPS_OK);" % (n + 2 * k, a, s))
            out.append("        }")
        if karg >= 0:
            out.append("        if (!cutap_no_kernel_names)")
            out.append("            cutap_fp_name_function(%s);" % to_word(f.params[karg], f.params[karg].name))
        out.append("    }")
    out.append("    __atomic_store_n(&cutap_r->flags, (uint8_t)(%s | CUTAP_RF_DONE), __ATOMIC_RELEASE);" % rf)
    out.append(ret + "}")
    return out


def count_path(f, nostatus):
    res_decl, slow, void, ret = call_parts(f)
    out = []
    # count: the untimed call here; the countdown's sample in its own
    # function, so that this one keeps few registers across the call
    err = "0" if nostatus or void else "(uint32_t)cutap_res != 0"
    sparams = ", ".join(["struct cutap_counter *cutap_c"] + [
        ("%s%s" if p.abi.endswith("*") else "%s %s") % (p.abi, p.name) for p in f.params])
    out.append("static __attribute__((noinline, cold)) %s cutap_cs_%s(%s)\n{" % (f.ret_abi, f.name, sparams))
    out.append("    uint64_t cutap_t0 = cutap_fp_sample_begin(CUTAP_ID_%s, cutap_c);" % f.name)
    out.append("    struct cutap_thread *cutap_t = &cutap_tls;")
    out.append("    cutap_t->depth++;")
    out.append("    " + res_decl)
    out.append("    cutap_t->depth--;")
    out.append("    cutap_fp_sample_end(CUTAP_ID_%s, cutap_c, cutap_t0, %s);" % (f.name, err))
    out.append(ret + "}")
    cs_at = len(out)
    out.append("CUTAP_SLOW %s\n{" % proto(f, "cutap_ct_" + f.name))
    out.append("    __seg_fs struct cutap_thread *cutap_t = CUTAP_FS_TLS;")
    out.append("    struct cutap_counter *cutap_c;")
    out.append("    int cutap_how = cutap_fp_counter(cutap_t, CUTAP_ID_%s, &cutap_c);" % f.name)
    sargs = ", ".join(["cutap_c"] + [p.name for p in f.params])
    pargs = ", ".join(p.name for p in f.params)
    params = ", ".join(("%s%s" if p.abi.endswith("*") else "%s %s") % (p.abi, p.name) for p in f.params) or "void"
    # an id's first calls and a slow id's are timed by cutap_cs_ too, from
    # a function of their own (the arguments pass straight through, so the
    # untimed path keeps no more registers); the general path only while
    # the thread has no counter or countdown
    cs_call = ("{\n        cutap_cs_%s(%s);\n        return;\n    }" if void else "return cutap_cs_%s(%s);") % (f.name, sargs)
    out.insert(cs_at, "static __attribute__((noinline, cold)) %s cutap_cu_%s(%s)\n{\n"
               "    struct cutap_counter *cutap_c = cutap_fp_counter_untagged(CUTAP_ID_%s);\n"
               "    if (cutap_c)\n        %s\n    %s\n}" % (f.ret_abi, f.name, params, f.name, cs_call,
                                                          ("%s;" if void else "return %s;") % slow))
    out.append("    if (__builtin_expect(!cutap_how, 0)) {\n        %s\n    }"
               % (("cutap_cu_%s(%s);\n        return;" if void else "return cutap_cu_%s(%s);") % (f.name, pargs)))
    if void:
        out.append("    if (__builtin_expect(cutap_how == 2, 0)) {\n        cutap_cs_%s(%s);\n        return;\n    }"
                   % (f.name, sargs))
    else:
        out.append("    if (__builtin_expect(cutap_how == 2, 0))\n        return cutap_cs_%s(%s);" % (f.name, sargs))
    # the depth put back from a register, not decremented in memory: two
    # read-modify-writes of one word a call chain each call to the last
    # through store forwarding (issue #27: the counted call's cost). As
    # the trace paths do, this assumes what the real call does to the
    # depth it undoes (every intercepted call inside it nests); a call
    # left open inside (a longjmp out of a nested one) is not carried out.
    out.append("    uint32_t cutap_d = cutap_t->depth;")
    out.append("    cutap_t->depth = cutap_d + 1;")
    out.append("    " + res_decl)
    out.append("    cutap_t->depth = cutap_d;")
    out.append("    cutap_fp_count(cutap_c, %s);" % err)
    out.append(ret + "}")
    return out


def source(model, entries, generator, layer):
    out = [cuda_model.banner(generator),
           "#include <stddef.h>",
           "#include <string.h>\n",
           '#include "record_internal.h"\n',
           "#pragma GCC diagnostic ignored \"-Wmissing-prototypes\"\n",
           struct_defs(model)]
    for f, _, _ in entries:
        out.append("CUTAP_SLOW %s;" % proto(f, "cutap_slow_" + f.name))
    out.append("")
    for f, nostatus, karg in entries:
        out += one(f, nostatus, karg, layer)
    return "\n".join(out) + "\n"


def generate_all(model):
    files = {}
    driver = [(f, False, func_arg(f)) for f in model.functions if simple(f) is not None]
    files["src/generated/fast_driver.c"] = source(model, driver, "fastpath_generator.py", "CUTAP_LAYER_DRIVER")
    names = [f.name for f, _, _ in driver]
    for l in model.layers:
        ents = [(f, not is_status(f), -1) for f in l.functions if simple(f) is not None]
        files["src/generated/fast_%s.c" % l.cname] = source(l.model, ents, "fastpath_generator.py",
                                                             "CUTAP_LAYER_%s" % l.name.upper())
        names += [f.name for f, _, _ in ents]
    out = [cuda_model.banner("fastpath_generator.py"), '#include "record_internal.h"\n']
    gnames = [n for n in names if gpu_work(n)]
    for n in names:
        out.append("extern void cutap_tr_%s(void), cutap_ct_%s(void);" % (n, n))
    for n in gnames:
        out.append("extern void cutap_tg_%s(void);" % n)
    for arr, pre, ns in (("cutap_fast_trace", "cutap_tr_", names), ("cutap_fast_count", "cutap_ct_", names),
                         ("cutap_fast_trace_gpu", "cutap_tg_", gnames)):
        out.append("\nvoid *const %s[CUTAP_STATIC_COUNT] = {" % arr)
        for n in ns:
            out.append("    [CUTAP_ID_%s] = (void *)%s%s," % (n, pre, n))
        out.append("};")
    files["src/generated/fast_table.c"] = "\n".join(out) + "\n"
    return files
