"""Generates src/generated/cupti_rt_cbid.c: which CUPTI runtime callback ids
carry the signature of the pinned headers (CUDA 13.0).

With a statically linked cudart (`--runtime=cupti`), the runtime the program
carries may be of another major than the generated signatures: an nvcc 12
program's runtime reports cudaStreamGetCaptureInfo with 3 parameters, not
13.0's 7. CUPTI numbers each (function, signature) pair once and never
renumbers: cupti_runtime_cbid.h names them <function>_v<version>, a new
signature getting a new id (cudaStreamGetCaptureInfo_v10010 = 324,
cudaStreamGetCaptureInfo_v12030 = 461). So the one id of a function whose
parameters match the pinned headers is its newest one in the pinned
cupti_runtime_cbid.h; a report under any other id is recorded untyped
(src/resolve/rt_calls.c), its parameter struct never read."""
import os
import re

import cuda_model

LINE = re.compile(r"^\s*CUPTI_RUNTIME_TRACE_CBID_(\w+)_v(\d+)\s*=\s*(\d+),")


def newest(path):
    """{function name: (version, cbid)} of the newest id of each name."""
    out = {}
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        name, ver, cbid = m.group(1), int(m.group(2)), int(m.group(3))
        if name not in out or ver > out[name][0]:
            out[name] = (ver, cbid)
    return out


def generate(model):
    path = os.path.join(cuda_model.CUDA_INCLUDE, "cupti_runtime_cbid.h")
    ids = sorted(cbid for _, cbid in newest(path).values())
    top = max(ids) + 1
    out = [cuda_model.banner("cupti_cbid_generator.py"), "#include <stdint.h>\n",
           '#include "resolve_internal.h"   /* the declarations (resolve/rt_calls.c reads these) */\n',
           "/* Bit c: runtime callback id c carries the parameters of the pinned",
           " * headers (the newest id of its function in cupti_runtime_cbid.h). */",
           "const uint32_t cutap_rt_cbid_count = %d;" % top,
           "const uint8_t cutap_rt_cbid_current[%d] = {" % ((top + 7) // 8)]
    bits = [0] * ((top + 7) // 8)
    for c in ids:
        bits[c // 8] |= 1 << (c % 8)
    for i in range(0, len(bits), 12):
        out.append("    " + ", ".join("0x%02x" % b for b in bits[i:i + 12]) + ",")
    out.append("};")
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/cupti_rt_cbid.c"
