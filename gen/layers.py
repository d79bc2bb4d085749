"""The runtime and library layers, as read from their specs (gen/specs/,
layer number 2 on): a view kept for scripts that import it (tests/lib/layer_exports.py,
for the exports case). It holds no rules of its own: change gen/specs/<layer>.py.

  LAYERS       each layer's LAYER dict (name, parses, exports, sonames,
               prefixes, exclude_prefixes, unavailable, device_arrays, ...:
               gen/spec.py LAYER_KEYS), in layer-number order
  FIRST_LAYER  the number of the first (0 driver, 1 hidden)
"""
import spec

LAYERS = [s.layer for s in spec.library_layers()]
FIRST_LAYER = spec.FIRST_LIB_LAYER
