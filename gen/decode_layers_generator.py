"""Generates cli/generated/decode_layers.c (declared in cli/decode_tables.h):
the decoding tables of decode_generator.py for the runtime and library
layers (gen/specs/), all in one set: every function by name with its
layer, parameters and result, and the enums and structs they reach, the
status enums of the results included (cublasStatus_t, ncclResult_t, ...:
no parameter needs most of them; lib_model names each result's enum). Names are unique across the layers, and
the enums several layers share (cudaDataType_t, libraryPropertyType_t)
are one header's, so one set serves them all."""
from decode_generator import RESULT_KIND, Fn, tables
from gen_common import CAPTURE_RECORD_MAX


def generate(model):
    enums, records, fns = {}, {}, []
    for l in model.layers:
        for n, e in l.model.enums.items():
            enums.setdefault(n, e)
        for n, r in l.model.records.items():
            records.setdefault(n, r)
        for f in l.functions:
            if not f.typed:
                fns.append(Fn(f, l.index, "DEC_UINT", None))
            elif f.ret_kind == "enum":
                fns.append(Fn(f, l.index, "DEC_ENUM", f.ret_enum))
            else:
                fns.append(Fn(f, l.index, RESULT_KIND[f.ret_kind], None))
    # A struct passed by value is recorded as its address only: its
    # layout matters only up to the size a capture could hold.
    return tables("decode_layers_generator.py", fns, enums, records, "dec_layers", CAPTURE_RECORD_MAX)


OUTPUT = "cli/generated/decode_layers.c"
