"""Generates tests/gpu/generated/procaddr_table.tsv: the cuGetProcAddress
version table as text (base, version, flavour, export), which the GPU suite
checks row by row against a real driver (tests/gpu/procaddr_check.c)."""
import cuda_model


def generate(model):
    out = [cuda_model.banner("procaddr_tsv_generator.py", "#", "")]
    for base, ver, fl, exp in model.versions:
        out.append("%s\t%d\t%s\t%s" % (base, ver, fl or "-", exp))
    return "\n".join(out) + "\n"


OUTPUT = "tests/gpu/generated/procaddr_table.tsv"
