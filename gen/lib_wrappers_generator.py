"""Generates src/generated/lib_<layer>_wrappers.c, one file per runtime or
library layer (gen/layers.py): the same typed wrappers as the driver's
(wrappers_generator.py), one exported function per typed export."""
from wrappers_generator import wrappers


def generate_all(model):
    return {"src/generated/lib_%s_wrappers.c" % l.cname: wrappers(l.model, "lib_wrappers_generator.py")
            for l in model.layers}
