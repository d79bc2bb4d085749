"""Generates include/generated/cutap_ids.h: one call id per driver export,
then one per function of each runtime and library layer (gen/specs/),
and the layer numbers."""
import cuda_model
import spec


def generate(model):
    out = [cuda_model.banner("ids_generator.py"),
           "#ifndef CUTAP_GENERATED_IDS_H\n#define CUTAP_GENERATED_IDS_H\n",
           "/* Call ids: the driver exports sorted by name, then each layer's",
           " * functions sorted by name. Stable for one header version only: use",
           " * cutap_lookup() across versions. */",
           "enum cutap_call_id {"]
    for i, f in enumerate(model.functions):
        out.append("    CUTAP_ID_%s = %d," % (f.name, i))
    out.append("    CUTAP_DRIVER_COUNT = %d," % len(model.functions))
    n = len(model.functions)
    for l in model.layers:
        for f in l.functions:
            out.append("    CUTAP_ID_%s = %d," % (f.name, n))
            n += 1
    out.append("    CUTAP_STATIC_COUNT = %d" % n)
    out.append("};\n")
    out.append("/* Layers above the driver (cutap_layer_t). */")
    out.append("enum cutap_lib_layer {")
    for l in model.layers:
        out.append("    CUTAP_LAYER_%s = %d," % (l.name.upper(), l.index))
    out.append("    CUTAP_LAYER_COUNT = %d" % (model.layers[-1].index + 1))
    out.append("};")
    out.append("#define CUTAP_LIB_LAYERS %d" % len(model.layers))
    # Layers of cutap's own, below the driver, after the generated ones:
    # no library, no generated entry points; their ids are dynamic ones
    # with signatures of cutap's (src/resolve/ioctl_decode.c).
    native = ["ioctl"]
    n = model.layers[-1].index + 1
    for i, name in enumerate(native):
        out.append("#define CUTAP_LAYER_%s %d" % (name.upper(), n + i))
    out.append("#define CUTAP_NLAYERS %d   /* every layer, those above included */" % (n + len(native)))
    out.append("#define CUTAP_LAYER_NAMES \\")
    out.append("    {%s}" % ", ".join('"%s"' % s for s in [l.name for l in spec.layers()] + native))
    out.append("\n#define CUTAP_HEADER_CUDA_VERSION %d\n" % model.header_version)
    out.append("#endif")
    return "\n".join(out) + "\n"


OUTPUT = "include/generated/cutap_ids.h"
