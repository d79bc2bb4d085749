"""Generates include/generated/cutap_ids.h: one call id per driver export."""
import cuda_model


def generate(model):
    out = [cuda_model.banner("ids_generator.py"),
           "#ifndef CUTAP_GENERATED_IDS_H\n#define CUTAP_GENERATED_IDS_H\n",
           "/* Call ids of the driver exports, sorted by name. Stable for one",
           " * header version only: use cutap_lookup() across versions. */",
           "enum cutap_call_id {"]
    for i, f in enumerate(model.functions):
        out.append("    CUTAP_ID_%s = %d," % (f.name, i))
    out.append("    CUTAP_DRIVER_COUNT = %d" % len(model.functions))
    out.append("};\n")
    out.append("#define CUTAP_HEADER_CUDA_VERSION %d\n" % model.header_version)
    out.append("#endif")
    return "\n".join(out) + "\n"


OUTPUT = "include/generated/cutap_ids.h"
