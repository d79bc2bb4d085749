"""Generates the fake runtime and libraries used by the tests, one per
runtime or library layer that has a library (gen/specs/; NVTX has none):

  tests/fake/generated/fake_<layer>.c    every function the real library
      exports with the layer's prefixes: typed ones with their signature,
      the others with the fake driver's fixed test signature
      (FAKE_UNTYPED_PARAMS); each records its argument words and counts its
      calls through fake_lib_call() (tests/fake/fake_lib_core.c), ids being
      the CUTAP_ID_ values (unique across layers); a few get behaviour that
      calls down (tests/fake/fake_lib_special.c).
  tests/fake/generated/fake_<layer>.map  its version script: every symbol in
      one version node named like the real library's (libcudart.so.13
      exports cudaMalloc@@libcudart.so.13), so that programs linked against
      the fake make versioned references, as they do against the real one.
      NCCL's and NVML's real libraries version nothing ("versioned" in
      their specs): neither do their fakes.
  tests/fake/generated/fakelibs.mk       the layers and sonames, for
      tests/tests.mk (each fake is built as $(BUILD)/fakelibs/<soname>).
"""
import cuda_model
from gen_common import fake_word, proto, struct_defs, word_to_result


def fake_layers(model):
    return [l for l in model.layers if l.spec["exports"] is not None]


def soname(layer):
    return layer.spec["sonames"][0]


def fake_c(layer):
    out = [cuda_model.banner("lib_fake_generator.py"), '#include "fake_lib_internal.h"\n',
           "#pragma GCC diagnostic ignored \"-Wmissing-prototypes\"\n", struct_defs(layer.model)]
    for f in layer.functions:
        if f.typed:
            n = len(f.params)
            out.append("FAKE_EXPORT %s\n{" % proto(f))
            out.append("    uint64_t fake_w[%d] = {%s};"
                       % (max(n, 1), ", ".join(fake_word(p, p.name) for p in f.params) or "0"))
            call = "fake_lib_call(CUTAP_ID_%s, fake_w, %d)" % (f.name, n)
            if f.ret_abi == "void":
                out.append("    (void)%s;\n}" % call)
            else:
                out.append("    return %s;\n}" % word_to_result(f, call))
        else:
            out.append("FAKE_EXPORT int %s(FAKE_UNTYPED_PARAMS)\n{" % f.name)
            out.append("    FAKE_UNTYPED_WORDS(a);")
            out.append("    return (int)fake_lib_call(CUTAP_ID_%s, a, 10);\n}" % f.name)
    out.append("\nconst char *const fake_lib_layer = \"%s\";" % layer.name)
    out.append("const uint32_t fake_lib_first = CUTAP_ID_%s;" % layer.functions[0].name)
    out.append("const uint32_t fake_lib_n = %d;" % len(layer.functions))
    out.append("const char *const fake_lib_names[%d] = {" % len(layer.functions))
    for f in layer.functions:
        out.append('    "%s",' % f.name)
    out.append("};")
    out.append("/* Own addresses, bound at link time (-Bsymbolic): what the library's")
    out.append(" * own symbol table gives, never cutap's wrappers. */")
    out.append("void *const fake_lib_addresses[%d] = {" % len(layer.functions))
    for f in layer.functions:
        out.append("    (void *)%s," % f.name)
    out.append("};")
    # The ids of a layer are consecutive, in the order of its sorted names
    # (lib_table_generator.py); the core indexes by id - fake_lib_first.
    last = layer.functions[-1].name
    out.append("_Static_assert(CUTAP_ID_%s - CUTAP_ID_%s == %d, \"ids of %s are consecutive\");"
               % (last, layer.functions[0].name, len(layer.functions) - 1, layer.name))
    return "\n".join(out) + "\n"


def version_map(layer):
    # "versioned" in the layer's spec: whether the real library puts its
    # exports in a version node named like its soname (nm -D on the CUDA
    # 13.0 toolkit's libraries; libnccl.so.2 and libnvidia-ml.so.1 do not)
    node = soname(layer) + " " if layer.spec["versioned"] else ""
    out = [cuda_model.banner("lib_fake_generator.py"), node + "{", "  global:"]
    out += ["    %s;" % f.name for f in layer.functions]
    out += ["    fake_lib_api;", "  local: *;", "};"]
    return "\n".join(out) + "\n"


def makefile(layers):
    out = [cuda_model.banner("lib_fake_generator.py", comment="#", end=""),
           "FAKELIB_LAYERS := %s" % " ".join(l.cname for l in layers)]
    for l in layers:
        out.append("fakelib_soname_%s := %s" % (l.cname, soname(l)))
    return "\n".join(out) + "\n"


def generate_all(model):
    layers = fake_layers(model)
    res = {}
    for l in layers:
        res["tests/fake/generated/fake_%s.c" % l.cname] = fake_c(l)
        res["tests/fake/generated/fake_%s.map" % l.cname] = version_map(l)
    res["tests/fake/generated/fakelibs.mk"] = makefile(layers)
    return res
