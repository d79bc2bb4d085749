"""Generates src/generated/lib_<layer>_wrappers.c, one file per runtime or
library layer (gen/specs/): the same typed slow paths as the driver's
(wrappers_generator.py), one per typed function; the exported entries are
in assembly (fronts_generator.py)."""
from wrappers_generator import wrappers


def generate_all(model):
    return {"src/generated/lib_%s_wrappers.c" % l.cname: wrappers(l.model, "lib_wrappers_generator.py")
            for l in model.layers}
