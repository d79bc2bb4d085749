"""Generates cli/generated/known_names.c: every function cutap knows (the
driver's exports, then each layer's functions, typed or not) with its layer
number, for the `cutap` command, which checks at start that a -e filter
selects at least one of them (cli/run/options.c)."""
import cuda_model


def generate(model):
    out = [cuda_model.banner("cli_names_generator.py"),
           '#include "cli.h"\n',
           "const struct cli_known_name cli_known_names[] = {"]
    for f in model.functions:
        out.append('    {"%s", 0},' % f.name)
    for l in model.layers:
        for f in l.functions:
            out.append('    {"%s", %d},' % (f.name, l.index))
    out.append("};")
    out.append("const unsigned cli_nknown_names = sizeof cli_known_names / sizeof cli_known_names[0];")
    return "\n".join(out) + "\n"


OUTPUT = "cli/generated/known_names.c"
