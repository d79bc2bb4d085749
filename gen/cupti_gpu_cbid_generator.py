"""Generates src/generated/cupti_gpu_cbid.c: the CUPTI callback ids of the
driver and runtime functions that put work on the GPU (kernel launches,
graph launches, copies, memsets), every version of each (issue #31).

`cutap trace --gpu` (src/record/gpu_join.c) asks CUPTI for callbacks of
these ids only (cuptiEnableCallback: each entry callback's correlation id
is written with the call's place), or, where it cannot subscribe, for API
records of them (cuptiActivityEnableDriverApi / EnableRuntimeApi, with
external correlation ids): asking for every call's would cost a callback
or a record per call. The names: of the functions a CUPTI that refuses an
id does not know (an older one), which cutap then says it cannot join."""
import os
import re

import cuda_model

WORK = re.compile(r"^(cu|cuda)(Launch(?!HostFunc)\w*|GraphLaunch\w*|Memcpy\w*|Memset\w*)$")


def ids(path, prefix):
    line = re.compile(r"^\s*CUPTI_%s_TRACE_CBID_(\w+?)\s*=\s*(\d+)," % prefix)
    out = []
    for text in open(path):
        m = line.match(text)
        if not m:
            continue
        name = re.sub(r"_v\d+$", "", m.group(1)) if prefix == "RUNTIME" else m.group(1)
        if WORK.match(name):
            out.append((int(m.group(2)), m.group(1)))
    return sorted(out)


def table(name, rows):
    out = ["const uint16_t %s[%d] = {" % (name, len(rows))]
    for cbid, fn in rows:
        out.append("    %d,   /* %s */" % (cbid, fn))
    out.append("};")
    return out


def names(name, rows, runtime):
    """The function each id is of, by the name cutap records it under (a
    runtime id's without CUPTI's _vNNNNN version suffix; a driver id's
    _v2 is the function's own)."""
    out = ["const char *const %s[%d] = {" % (name, len(rows))]
    for _, fn in rows:
        out.append('    "%s",' % (re.sub(r"_v\d+$", "", fn) if runtime else fn))
    out.append("};")
    return out


def generate(model):
    inc = cuda_model.CUDA_INCLUDE
    drv = ids(os.path.join(inc, "cupti_driver_cbid.h"), "DRIVER")
    rt = ids(os.path.join(inc, "cupti_runtime_cbid.h"), "RUNTIME")
    out = [cuda_model.banner("cupti_gpu_cbid_generator.py"), "#include <stdint.h>\n",
           '#include "record_internal.h"   /* the declarations (record/gpu.c reads these) */\n',
           "/* The callback ids of the functions that put work on the GPU: launches,",
           " * graph launches, copies and memsets, every version (cupti_driver_cbid.h,",
           " * cupti_runtime_cbid.h). */",
           "const unsigned cutap_gpu_driver_ncbids = %d;" % len(drv)]
    out += table("cutap_gpu_driver_cbids", drv)
    out += names("cutap_gpu_driver_names", drv, False)
    out.append("const unsigned cutap_gpu_runtime_ncbids = %d;" % len(rt))
    out += table("cutap_gpu_runtime_cbids", rt)
    out += names("cutap_gpu_runtime_names", rt, True)
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/cupti_gpu_cbid.c"
