"""Layer 1, "hidden": the undocumented function tables the driver hands out
through cuGetExportTable, by UUID. Calls through a wrapped table are
recorded as "<TABLE>#<slot>" (slot 0 is the size word), with dynamic ids:
the tables have no declared functions, so FUNCTIONS is empty and the rules
are per table.

Data only (gen/specs/README.md). The generator hidden_tables_generator.py
turns "tables" into src/common/generated/hidden_tables.h: the known UUIDs and
their names (src/common/export_tables.c, used by libcutap.so and the cutap
command) and the tables wrapped when CUTAP_HIDDEN is unset
(src/resolve/exporttable.c).

tables: one entry per known UUID, in this order:
  uuid          the 16 bytes in memory order, as hex (what cutap prints)
  name          as used by public reverse-engineering work (ZLUDA, Wine,
                cricket) and NVIDIA's own names where known; None: unnamed
                (recorded and named by its UUID)
  nosize_slots  0: word 0 is the table's size in bytes; n > 0: the table
                has no size word and n function slots
  wrap          handed out as a wrapped copy when CUTAP_HIDDEN is unset:
                real-GPU runs showed the copy changes no workload's result
                (tests/gpu/hidden_probe.sh; H100, driver 580.159.04,
                2026-11-21; the table in docs/HIDDEN_API.md)
  why           the evidence
"""

LAYER = {
    "name": "hidden",
    "number": 1,
    "tables": [
        {"uuid": "6bd5fb6c5bf4e74a8987d93912fd9df9", "name": "CUDART_INTERFACE", "nosize_slots": 0, "wrap": True,
         "why": "the runtime hashes its address (INTEGRITY_CHECK): wrapped only once src/resolve/integrity.c has "
                "matched the driver's integrity answer in the process; copies passed on the GPU (docs/HIDDEN_API.md)"},
        {"uuid": "a094798c2e742e7493f20800200c0a66", "name": "TOOLS_RUNTIME_CALLBACK_HOOKS", "nosize_slots": 0,
         "wrap": True, "why": "copy safe on the GPU (docs/HIDDEN_API.md)"},
        {"uuid": "42d85a8123f6cb478298f6e78a3aecdc", "name": "TOOLS_TLS", "nosize_slots": 0, "wrap": True,
         "why": "copy safe on the GPU (docs/HIDDEN_API.md)"},
        {"uuid": "c693336e1121df11a8c368f355d89593", "name": "CONTEXT_LOCAL_STORAGE", "nosize_slots": 3,
         "wrap": True, "why": "word 0 is a pointer, no size word; 3 slots known; copy safe on the GPU"},
        {"uuid": "d4082055bde6704b8d34ba123c66e1f2", "name": "INTEGRITY_CHECK", "nosize_slots": 0, "wrap": True,
         "why": "as CUDART_INTERFACE; slot 1's answer is recomputed for the copies (src/resolve/integrity.c)"},
        {"uuid": "263e88607cd2614392f6bbd5006dfa7e", "name": "CONTEXT_CHECKS", "nosize_slots": 0, "wrap": True,
         "why": "copy safe on the GPU (docs/HIDDEN_API.md)"},
        {"uuid": "0ca50b8c1004929a89a7d0df10e77286", "name": "CTX_CREATE_BYPASS", "nosize_slots": 0, "wrap": False,
         "why": "no workload asked for it on the GPU (docs/HIDDEN_API.md): a copy was never tried, observed only"},
        {"uuid": "b10541e1f7c7c74a9f64f223be99f1e2", "name": "TOOLS_DEVICE", "nosize_slots": 0, "wrap": False,
         "why": "no workload asked for it on the GPU (docs/HIDDEN_API.md): a copy was never tried, observed only"},
        {"uuid": "21318c60971432488ca641ff7324c8f2", "name": "TOOLS_CONTEXT", "nosize_slots": 0, "wrap": True,
         "why": "copy safe on the GPU (docs/HIDDEN_API.md)"},
        {"uuid": "6e163fbeb958444d835ce182aff1991e", "name": "TOOLS_MODULE", "nosize_slots": 0, "wrap": False,
         "why": "no workload asked for it on the GPU (docs/HIDDEN_API.md): a copy was never tried, observed only"},
        {"uuid": "bfdb432dbf3c5a4a945eb34029e81e75", "name": "TOOLS_MEMORY", "nosize_slots": 0, "wrap": False,
         "why": "no workload asked for it on the GPU (docs/HIDDEN_API.md): a copy was never tried, observed only"},
        {"uuid": "1406180d72d6cb47ab6eb963e51bf4c6", "name": "TOOLS_RM", "nosize_slots": 0, "wrap": False,
         "why": "no workload asked for it on the GPU (docs/HIDDEN_API.md): a copy was never tried, observed only"},
        {"uuid": "9af0707b8e2dd84c8e4eb994c82ddc35", "name": "VIDEO_INTEROP", "nosize_slots": 0, "wrap": False,
         "why": "no workload asked for it on the GPU (docs/HIDDEN_API.md): a copy was never tried, observed only"},
        {"uuid": "f8cff95121468b4eb9e2fb469e7c0dd9", "name": None, "nosize_slots": 0, "wrap": True,
         "why": "asked for by CUDA 13 runtimes before cuInit; copy safe on the GPU (docs/HIDDEN_API.md)"},
        {"uuid": "69a28e9f24498b47b030c5da330ea4e9", "name": None, "nosize_slots": 0, "wrap": True,
         "why": "copy safe on the GPU (docs/HIDDEN_API.md)"},
        {"uuid": "1734dc26800d47458726c0f1e7dd8bca", "name": None, "nosize_slots": 0, "wrap": True,
         "why": "called by cuBLAS; copy safe on the GPU (docs/HIDDEN_API.md)"},
        # The fake driver's test tables (tests/fake/fake_core.c): one with a
        # size word, one without.
        {"uuid": "fa4e0001000000000000000000000001", "name": "FAKE_SIZED", "nosize_slots": 0, "wrap": True,
         "why": "the tests' fake driver"},
        {"uuid": "fa4e0002000000000000000000000002", "name": "FAKE_NOSIZE", "nosize_slots": 2, "wrap": True,
         "why": "the tests' fake driver"},
    ],
    "handled_in": [
        ("src/resolve/exporttable.c", "policy_says_wrap",
         "the CUTAP_HIDDEN policy (unset: the tables with wrap True; observe; all; a list of names or UUIDs) "
         "and the wrapped copies; a table of unknown length is observed only"),
        ("src/common/export_tables.c", "cutap_known_table",
         "the UUID -> name lookup (libcutap.so and the cutap command)"),
    ],
}
