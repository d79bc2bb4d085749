"""Generates cli/generated/decode_layers.c (declared in cli/decode_tables.h):
the decoding tables of decode_generator.py for the runtime and library
layers (gen/layers.py), all in one set: every function by name with its
layer, parameters and result, and the enums and structs they reach, the
status enums of the results included (cublasStatus_t, ncclResult_t, ...:
no parameter needs most of them). Names are unique across the layers, and
the enums several layers share (cudaDataType_t, libraryPropertyType_t)
are one header's, so one set serves them all."""
from cuda_model import Model, _Builder, ci
from decode_generator import RESULT_KIND, Fn, tables
from gen_common import CAPTURE_RECORD_MAX
import lib_model


def result_enums(layer, scratch):
    """{result type as spelled: enum name} of the layer's functions that
    return an enum, from its headers (the model keeps only the result's
    spelling). The enums are described in scratch, named as the model
    names them (tag, else typedef name)."""
    b = _Builder(scratch)
    want = set(f.ret_spelled for f in layer.functions if f.typed and f.ret_kind == "enum")
    out = {}
    for headers, defines in layer.spec["parses"]:
        tu = lib_model._parse(headers, defines)
        for c in tu.cursor.walk_preorder():
            if c.kind != ci.CursorKind.FUNCTION_DECL or c.result_type.spelling not in want:
                continue
            t = b.info(c.result_type, 0)
            if t.kind == "enum" and t.name:
                out.setdefault(c.result_type.spelling, t.name)
    return out


def generate(model):
    enums, records, fns = {}, {}, []
    for l in model.layers:
        scratch = Model()
        ret = result_enums(l, scratch)
        for src in (scratch.enums, l.model.enums):
            for n, e in src.items():
                enums.setdefault(n, e)
        for n, r in l.model.records.items():
            records.setdefault(n, r)
        for f in l.functions:
            if not f.typed:
                fns.append(Fn(f, l.index, "DEC_UINT", None))
            elif f.ret_kind == "enum":
                fns.append(Fn(f, l.index, "DEC_ENUM", ret[f.ret_spelled]))
            else:
                fns.append(Fn(f, l.index, RESULT_KIND[f.ret_kind], None))
    # A struct passed by value is recorded as its address only: its
    # layout matters only up to the size a capture could hold.
    return tables("decode_layers_generator.py", fns, enums, records, "dec_layers", CAPTURE_RECORD_MAX)


OUTPUT = "cli/generated/decode_layers.c"
