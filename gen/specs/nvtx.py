"""Layer 13, NVTX: what cutap does with the NVTX functions.

NVTX has no library to wrap: `cutap trace` makes libcutap.so the NVTX
injection library (NVTX_INJECTION64_PATH); each copy of NVTX in the process
calls InitializeInjectionNvtx2 and cutap fills its function tables with its
wrappers of these functions (src/resolve/nvtx.c). Nothing is exported, and
the "real" functions behind the wrappers are cutap's own stand-ins.

Data only (gen/specs/README.md; keys: gen/spec.py LAYER_KEYS and
FUNCTION_KEYS). `/usr/bin/python3 gen/spec.py show NAME` prints every rule
of a function.

nvtx_injection: the NVTX callback modules whose function tables cutap
fills, and how their slots map to functions: every constant
<cbid_prefix><Suffix> of the header's enum (nvtx3/nvtxDetail/nvtxTypes.h)
is slot <value> of the module's table and holds nvtx<Suffix>, except the
names listed in "skip". nvtx_slots_generator.py writes the maps into
src/resolve/generated/nvtx_slots.h (the macros named by "macro").

nvtx_range (per function): what the reader (cli/read/nvtx.c, NVTX ranges
in docs/FORMAT.md) makes of a recorded call; nvtx_roles_generator.py
writes cli/generated/nvtx_roles.inc from it:
  op       push, pop (push/pop ranges per thread and domain), start, end
           (start/end ranges, matched by id), mark, register (a registered
           string, naming later ranges)
  domain   the parameter holding the domain handle; None: the default domain
  arg      the parameter holding the message (or, for end, the range id)
  message  string (a captured const char *), attributes (a captured
           nvtxEventAttributes_t, whose message may be a registered
           string), wide (a wide string: not captured), None
"""

LAYER = {
    "name": "nvtx",
    "number": 13,
    "parses": [(["nvtx3/nvToolsExt.h"], [])],
    "exports": None,
    "sonames": [],
    "prefixes": ["nvtx"],
    "unavailable": None,
    # every result is a value (levels, ids, handles): no status codes
    "status_types": [],
    "device_arrays": False,
    "nvtx_injection": [
        {"module": "CORE", "cbid_prefix": "NVTX_CBID_CORE_", "macro": "CUTAP_NVTX_CORE_IDS",
         "skip": ["INVALID", "SIZE", "FORCE_INT"]},
        {"module": "CORE2", "cbid_prefix": "NVTX_CBID_CORE2_", "macro": "CUTAP_NVTX_CORE2_IDS",
         "skip": ["INVALID", "SIZE", "FORCE_INT"]},
    ],
    "handled_in": [
        ("src/resolve/nvtx.c", "InitializeInjectionNvtx2",
         "the injection entry point: fills each NVTX copy's CORE and CORE2 tables (src/resolve/generated/nvtx_slots.h)"),
        ("src/resolve/nvtx.c", "real_nothing",
         "the stand-in of every function not given another below: does nothing, returns 0"),
        ("cli/read/nvtx.c", "rd_build_ranges",
         "the reader turns the nvtx_range calls into ranges and marks (cli/generated/nvtx_roles.inc)"),
    ],
}

FUNCTIONS = {
    "nvtxRangePushA": {
        "nvtx_range": {"op": "push", "domain": None, "arg": "message", "message": "string"},
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxRangePushA, real_push_msg);",
             "cutap's stand-in for the real function (there is no NVTX library): a per-thread push level"),
        ],
    },
    "nvtxRangePushW": {
        "nvtx_range": {"op": "push", "domain": None, "arg": "message", "message": "wide"},
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxRangePushW, real_push_msg);",
             "cutap's stand-in for the real function (there is no NVTX library): a per-thread push level"),
        ],
    },
    "nvtxRangePushEx": {
        "nvtx_range": {"op": "push", "domain": None, "arg": "eventAttrib", "message": "attributes"},
        "handled_in": [
            ("src/resolve/nvtx.c", "case CUTAP_ID_nvtxRangePushEx: return (cutap_nvtx_fn)range_push_ex;",
             "with an ASCII message, the NVTX table entry calls nvtxRangePushA's wrapper instead"),
            ("src/resolve/nvtx.c", "REAL(nvtxRangePushEx, real_push_msg);",
             "cutap's stand-in for the real function (there is no NVTX library): a per-thread push level"),
        ],
    },
    "nvtxDomainRangePushEx": {
        "nvtx_range": {"op": "push", "domain": "domain", "arg": "eventAttrib", "message": "attributes"},
        "handled_in": [
            ("src/resolve/nvtx.c", "case CUTAP_ID_nvtxDomainRangePushEx: return (cutap_nvtx_fn)domain_range_push_ex;",
             "with an ASCII message, the NVTX table entry first registers it (nvtxDomainRegisterStringA's wrapper) and passes the registered string"),
            ("src/resolve/nvtx.c", "REAL(nvtxDomainRangePushEx, real_domain_push);",
             "cutap's stand-in for the real function: a per-thread, per-domain push level"),
        ],
    },
    "nvtxRangePop": {
        "nvtx_range": {"op": "pop", "domain": None, "arg": None, "message": None},
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxRangePop, real_pop);",
             "cutap's stand-in for the real function: pops the per-thread level (-1 when none is open)"),
        ],
    },
    "nvtxDomainRangePop": {
        "nvtx_range": {"op": "pop", "domain": "domain", "arg": None, "message": None},
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxDomainRangePop, real_domain_pop);",
             "cutap's stand-in for the real function: pops the per-thread, per-domain level"),
        ],
    },
    "nvtxRangeStartA": {
        "nvtx_range": {"op": "start", "domain": None, "arg": "message", "message": "string"},
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxRangeStartA, real_start_msg);",
             "cutap's stand-in for the real function: a unique increasing range id"),
        ],
    },
    "nvtxRangeStartW": {
        "nvtx_range": {"op": "start", "domain": None, "arg": "message", "message": "wide"},
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxRangeStartW, real_start_msg);",
             "cutap's stand-in for the real function: a unique increasing range id"),
        ],
    },
    "nvtxRangeStartEx": {
        "nvtx_range": {"op": "start", "domain": None, "arg": "eventAttrib", "message": "attributes"},
        "handled_in": [
            ("src/resolve/nvtx.c", "case CUTAP_ID_nvtxRangeStartEx: return (cutap_nvtx_fn)range_start_ex;",
             "with an ASCII message, the NVTX table entry calls nvtxRangeStartA's wrapper instead"),
            ("src/resolve/nvtx.c", "REAL(nvtxRangeStartEx, real_start_msg);",
             "cutap's stand-in for the real function: a unique increasing range id"),
        ],
    },
    "nvtxDomainRangeStartEx": {
        "nvtx_range": {"op": "start", "domain": "domain", "arg": "eventAttrib", "message": "attributes"},
        "handled_in": [
            ("src/resolve/nvtx.c", "case CUTAP_ID_nvtxDomainRangeStartEx: return (cutap_nvtx_fn)domain_range_start_ex;",
             "with an ASCII message, the NVTX table entry first registers it (nvtxDomainRegisterStringA's wrapper) and passes the registered string"),
            ("src/resolve/nvtx.c", "REAL(nvtxDomainRangeStartEx, real_domain_start);",
             "cutap's stand-in for the real function: a unique increasing range id"),
        ],
    },
    "nvtxRangeEnd": {
        "nvtx_range": {"op": "end", "domain": None, "arg": "id", "message": None},
    },
    "nvtxDomainRangeEnd": {
        "nvtx_range": {"op": "end", "domain": "domain", "arg": "id", "message": None},
    },
    "nvtxMarkA": {
        "nvtx_range": {"op": "mark", "domain": None, "arg": "message", "message": "string"},
    },
    "nvtxMarkW": {
        "nvtx_range": {"op": "mark", "domain": None, "arg": "message", "message": "wide"},
    },
    "nvtxMarkEx": {
        "nvtx_range": {"op": "mark", "domain": None, "arg": "eventAttrib", "message": "attributes"},
        "handled_in": [
            ("src/resolve/nvtx.c", "case CUTAP_ID_nvtxMarkEx: return (cutap_nvtx_fn)mark_ex;",
             "with an ASCII message, the NVTX table entry calls nvtxMarkA's wrapper instead (recorded as nvtxMarkA with the string)"),
        ],
    },
    "nvtxDomainMarkEx": {
        "nvtx_range": {"op": "mark", "domain": "domain", "arg": "eventAttrib", "message": "attributes"},
        "handled_in": [
            ("src/resolve/nvtx.c", "case CUTAP_ID_nvtxDomainMarkEx: return (cutap_nvtx_fn)domain_mark_ex;",
             "with an ASCII message, the NVTX table entry first registers it (nvtxDomainRegisterStringA's wrapper) and passes the registered string"),
        ],
    },
    "nvtxDomainRegisterStringA": {
        "nvtx_range": {"op": "register", "domain": "domain", "arg": "string", "message": "string"},
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxDomainRegisterStringA, real_register_string);",
             "cutap's stand-in for the real function: a unique string handle"),
        ],
    },
    "nvtxDomainCreateA": {
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxDomainCreateA, real_domain_create);",
             "cutap's stand-in for the real function: a unique domain handle"),
        ],
    },
    "nvtxDomainCreateW": {
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxDomainCreateW, real_domain_create);",
             "cutap's stand-in for the real function: a unique domain handle"),
        ],
    },
    "nvtxDomainRegisterStringW": {
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxDomainRegisterStringW, real_register_string);",
             "cutap's stand-in for the real function: a unique string handle"),
        ],
    },
    "nvtxDomainResourceCreate": {
        "handled_in": [
            ("src/resolve/nvtx.c", "REAL(nvtxDomainResourceCreate, real_resource_create);",
             "cutap's stand-in for the real function: a unique resource handle"),
        ],
    },
}
