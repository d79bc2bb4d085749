#!/usr/bin/env bash
# Issue #32: what the NVIDIA libraries read from the environment. The fake
# libcuda logs each getenv and secure_getenv it makes (FAKE_GETENV_LOG,
# from the asking side: four in its constructor, before cutap's core is
# loaded; FAKE_SYNC_DIES and a secure_getenv of CUDA_CACHE_PATH in
# cuCtxSynchronize). Under cutap trace, `report --env` (csv) lists exactly
# those, name, value and how many times, asked by libcuda.so.1, the early
# ones marked, the library's answers as bare (getenv("X=Y") = "Z" from
# its constructor, before libcutap's, and getenv("")); never the program's own lookup (t_nvtx's EXPECT_NVTX) nor
# cutap's; json parses; 64 early lookups kept and the rest said lost; a
# child forked before CUDA started does not repeat its parent's; the JSON lines, SQLite and Parquet (where
# libduckdb is) exports carry the same lookups. CUTAP_ENV=0, and cutap stat, record none (report
# --env: status 1, says why); the program's output is as bare.
. "$(dirname "$0")/../../lib/init.sh"

export FAKE_SLOW=cuDriverGetVersion:1   # a value to read back (1 ns more a call)
export X=Y=Z                            # getenv("X=Y") is "Z", also before libcutap's constructor ran
for prog in "t_gpu 2 1" "t_nvtx"; do
    n=${prog%% *}
    rm -rf "$WORK/$n" "$WORK/$n.log" "$WORK/$n.bare.log"
    FAKE_GETENV_LOG=$WORK/$n.bare.log $T/$prog >"$WORK/$n.bare" 2>/dev/null || { say "  $n failed bare"; exit 1; }
    FAKE_GETENV_LOG=$WORK/$n.log EXPECT_NVTX=1 "$CUTAP" trace -o "$WORK/$n" -- $T/$prog >"$WORK/$n.out" 2>"$WORK/$n.err" \
        || { say "  $n failed under cutap"; cat "$WORK/$n.err" >&2; exit 1; }
    [ "$n" = t_nvtx ] || cmp -s "$WORK/$n.bare" "$WORK/$n.out" || { say "  $n: output changed"; exit 1; }
    "$CUTAP" report --env --format csv "$WORK/$n" >"$WORK/$n.csv" || { say "  $n: report --env failed"; exit 1; }
    "$CUTAP" report --env --format json "$WORK/$n" >"$WORK/$n.json" && "$CUTAP" report --env "$WORK/$n" >"$WORK/$n.txt" \
        || { say "  $n: report --env json/text failed"; exit 1; }
    "$CUTAP" export --format jsonl -o "$WORK/$n.jsonl" "$WORK/$n" || exit 1
    "$CUTAP" export --format sqlite -o "$WORK/$n.db" "$WORK/$n" 2>/dev/null || rm -f "$WORK/$n.db"
    if [ -n "${CUTAP_DUCKDB_LIB:-}" ]; then
        "$CUTAP" export --format parquet -o "$WORK/$n.pq" "$WORK/$n" || exit 1
        python3 "$TL/duckdb_sql.py" --json "SELECT name, value, secure FROM read_parquet('$WORK/$n.pq/env/*.parquet')" \
            >"$WORK/$n.pq.json" || exit 1
    fi
    python3 - "$WORK/$n" <<'PY' || exit 1
import collections, csv, json, sys
d = sys.argv[1]
def lookups(path):
    c = collections.Counter()
    for line in open(path):
        fn, name, value = line.rstrip("\n").split(" ", 2)
        c[(name, None if value == "(unset)" else value, fn == "secure_getenv")] += 1
    return c
want = lookups(d + ".log")
# the answers the library got: as bare (cutap's getenv is glibc's)
if want != lookups(d + ".bare.log"):
    sys.exit("  %s: the library got %s under cutap, %s bare" % (d, sorted(want.items()),
                                                            sorted(lookups(d + ".bare.log").items())))
if want[("X=Y", "Z", False)] != 1:
    sys.exit("  getenv(\"X=Y\") was not answered \"Z\": %s" % sorted(want.items()))
got = collections.Counter()
early = set()
for r in csv.DictReader(open(d + ".csv")):
    if not r["object"].endswith("/libcuda.so.1"):
        sys.exit("  a lookup asked by %s: %s" % (r["object"], r["name"]))
    got[(r["name"], r["value"] if r["set"] == "1" else None, r["secure"] == "1")] += int(r["lookups"])
    if r["early"] == "1":
        early.add(r["name"])
if got != want:
    sys.exit("  %s: report --env %s, the library's own log %s" % (d, sorted(got.items()), sorted(want.items())))
if not {"FAKE_SLOW", "FAKE_BLOCK"} <= early:
    sys.exit("  the constructor's lookups are not marked early: %s" % sorted(early))
if any(k[0] in ("EXPECT_NVTX", "FAKE_GETENV_LOG") or k[0].startswith("CUTAP_") for k in got):
    sys.exit("  another caller's lookup recorded")
rows = json.load(open(d + ".json"))
if sum(r["lookups"] for r in rows) != sum(want.values()):
    sys.exit("  json rows disagree")
# the exports: a JSON lines "env" line, an SQLite env row, a Parquet env row per lookup
import os, sqlite3
def check(what, rows):
    c = collections.Counter((n, v, bool(sec)) for n, v, sec in rows)
    if c != want:
        sys.exit("  %s: %s %s, the library's own log %s" % (d, what, sorted(c.items()), sorted(want.items())))
check("JSON lines", [(x["name"], x["value"], x["secure"]) for x in map(json.loads, open(d + ".jsonl"))
                     if x["type"] == "env"])
if os.path.exists(d + ".db"):
    check("SQLite", sqlite3.connect(d + ".db").execute("SELECT name, value, secure FROM env").fetchall())
if os.path.exists(d + ".pq.json"):
    check("Parquet", [(n, v, sec == "true") for n, v, sec in json.load(open(d + ".pq.json"))])
print("  %s: %d lookups of %d names, %d early" % (d.rsplit("/", 1)[1], sum(want.values()), len(want), len(early)))
PY
done
grep -q "FAKE_SLOW  *\"cuDriverGetVersion:1\"" "$WORK/t_gpu.txt" || { say "  text report lacks FAKE_SLOW's value"; cat "$WORK/t_gpu.txt" >&2; exit 1; }
grep -q "secure_getenv" "$WORK/t_gpu.txt" || { say "  text report does not mark the secure_getenv"; exit 1; }
# kept before recording starts: the first 64 (77 made: 13 lost, said so);
# a child forked before CUDA started records none of its parent's
rm -rf "$WORK/many" "$WORK/fk"
FAKE_GETENV_MANY=70 "$CUTAP" trace -o "$WORK/many" -- $T/t_gpu 1 1 >/dev/null 2>"$WORK/many.err" || exit 1
n=$("$CUTAP" report --env --format csv "$WORK/many" | awk -F, 'NR > 1 && $12 == 1 {n += $9} END {print n + 0}')
[ "$n" = 64 ] && grep -q "13 lookups of the environment by NVIDIA libraries before CUDA started were not kept" \
    "$WORK/many.err" || { say "  70 early lookups: $n kept (want 64), or the loss not said"; cat "$WORK/many.err" >&2; exit 1; }
"$CUTAP" trace -o "$WORK/fk" -- $T/t_fork early >"$WORK/fk.out" 2>/dev/null || exit 1
child=$(sed -n 's/^child \([0-9]*\):.*/\1/p' "$WORK/fk.out"); parent=$(sed -n 's/^parent \([0-9]*\):.*/\1/p' "$WORK/fk.out")
"$CUTAP" report --env --format csv "$WORK/fk" >"$WORK/fk.csv" || exit 1
[ -n "$child" ] && [ -n "$parent" ] && ! awk -F, -v c="$child" 'NR > 1 && $2 == c' "$WORK/fk.csv" | grep -q . \
    && awk -F, -v p="$parent" 'NR > 1 && $2 == p' "$WORK/fk.csv" | grep -q FAKE_SLOW \
    || { say "  fork before CUDA: the child ($child) has its parent's ($parent) early lookups, or the parent none"; cat "$WORK/fk.csv" >&2; exit 1; }
# NVIDIA's libraries by file name (libcutap.so's table, through ctypes)
python3 - "$LIB" <<'PY' || exit 1
import ctypes, sys
f = ctypes.CDLL(sys.argv[1]).cutap_front_nvidia_lib
f.argtypes = [ctypes.c_char_p]
yes = ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcudart.so.13", "torch/lib/libcudart-d0da41ae.so.11.0",
       "nvidia/cu13/lib/libcublas.so.13", "libcublasLt.so.13", "libcudnn_ops.so.9", "libnccl.so.2",
       "libnvidia-ml.so.1", "libcupti.so.2025.3.1", "libnvrtc-builtins.so.13.0", "libcusparseLt.so.0",
       "libnvJitLink.so.13", "libcufftw.so.12", "libnvvm.so.4", "libnvshmem_host.so.3", "libcutensornet.so.2"]
no = ["/usr/lib/x86_64-linux-gnu/libc.so.6", "libcudax.so", "libtorch_cuda.so", "libcupy.so", "libcudarts.so",
      "", "python3.11", "libcal-dbus.so.1", "libnvidiax.so"]
bad = [p for p in yes if not f(p.encode())] + [p for p in no if f(p.encode())]
if bad:
    sys.exit("  cutap_front_nvidia_lib wrong for %s" % bad)
PY
# off: CUTAP_ENV=0, and counting mode
rm -rf "$WORK/off" "$WORK/st"
CUTAP_ENV=0 "$CUTAP" trace -o "$WORK/off" -- $T/t_gpu 1 1 >/dev/null 2>&1 || exit 1
"$CUTAP" report --env "$WORK/off" >/dev/null 2>&1; [ $? = 1 ] || { say "  CUTAP_ENV=0: lookups recorded"; exit 1; }
"$CUTAP" stat -o "$WORK/st" -- $T/t_gpu 1 1 >/dev/null 2>&1 || exit 1
"$CUTAP" report --env "$WORK/st" >/dev/null 2>&1; [ $? = 1 ] || { say "  cutap stat recorded lookups"; exit 1; }
