#!/usr/bin/env bash
# Calls through the two export tables cutap can only observe
# (CUDART_INTERFACE, 12 slots; INTEGRITY_CHECK, 2: docs/HIDDEN_API.md),
# counted without touching them: tests/gpu/table_count.c, preloaded alone
# (no cutap), puts hardware execute breakpoints in counting mode on the
# functions the slots point to. x86 has 4 debug address registers, so each
# workload runs 4 times: CUDART_INTERFACE #1-#4, #5-#8, #9-#12,
# INTEGRITY_CHECK #1-#2. Then torch_step once more under
# `cutap trace --runtime=cupti`, counting the 4 slots it called most.
#   tests/gpu/table_count.sh [WORKLOAD...]   (or TABLE_COUNT_WORKLOADS="...")
# TABLE_COUNT_CUTAP=0 leaves out the cutap run; TABLE_COUNT_BARE=1 adds a
# run without the counter per workload, to compare outputs with.
#
# What is counted: executions of each slot's function by the process that
# loaded the counter and its threads, made before or after (perf inherit +
# inherit_thread). Processes it execs or spawns load the counter themselves
# (LD_PRELOAD is inherited) and write their own lines: the table sums them
# and says how many processes had calls. Forked children that do not exec
# (Python multiprocessing workers, DataLoader workers) are not counted:
# they do not run the constructor again, and with inherit_thread they do not
# inherit the events (on a kernel before 5.13, without inherit_thread, they
# do and their counts join their parent's when they exit); a forked child
# of a process that has initialised CUDA cannot use CUDA anyway. None of
# the workloads here forks a CUDA-using child.
# A count is an upper bound of the calls through the table: it counts every
# execution of the function's first instruction, also direct calls from
# inside libcuda; two slots pointing to one function count the same
# executions (the counter's notes say "same as").
set -u
cd "$(dirname "$0")/../.."
B=build/gpu W=tests/gpu/workloads C=build/cutap
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $B
gcc -O2 -shared -fPIC -Wall -Wextra tests/gpu/table_count.c -o $B/libtable_count.so -ldl ||
  { echo "libtable_count.so: build failed"; exit 1; }
TC=$PWD/$B/libtable_count.so
for f in vecadd_static vecadd_shared cublas_gemm; do
  [ -f $B/$f ] || { tests/gpu/build.sh >/dev/null || exit 1; break; }
done
R=$(mktemp -d /tmp/cutap-tblcnt.XXXXXX)
trap 'rm -rf "$R"' EXIT
declare -A CMD=([vecadd_static]="$B/vecadd_static" [vecadd_shared]="$B/vecadd_shared" [cublas_gemm]="$B/cublas_gemm"
  [torch_step]="python3 $W/torch_step.py" [torch_conv_graph]="python3 $W/torch_conv_graph.py"
  [jax_step]="python3 $W/jax_step.py")
ORDER=${TABLE_COUNT_WORKLOADS:-vecadd_static vecadd_shared cublas_gemm torch_step torch_conv_graph jax_step}
[ $# -gt 0 ] && ORDER="$*"
PASSES=("CUDART_INTERFACE#1,CUDART_INTERFACE#2,CUDART_INTERFACE#3,CUDART_INTERFACE#4"
  "CUDART_INTERFACE#5,CUDART_INTERFACE#6,CUDART_INTERFACE#7,CUDART_INTERFACE#8"
  "CUDART_INTERFACE#9,CUDART_INTERFACE#10,CUDART_INTERFACE#11,CUDART_INTERFACE#12"
  "INTEGRITY_CHECK#1,INTEGRITY_CHECK#2")
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" \
  "$(uname -r) perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)"

# One run of workload $1 with the counter on slots $3, as pass $2 (counts
# to $R/$1.$2.cnt, stdout $R/$1.$2.out); the rest: a prefix command.
# The counter goes first in LD_PRELOAD: a library later in the list (cutap)
# is initialised before it.
count() {
  local n=$1 p=$2 slots=$3 t0; shift 3
  t0=$(date +%s%N)
  TABLE_COUNT_OUT="$R/$n.$p.cnt" TABLE_COUNT_SLOTS="$slots" timeout 300 "$@" sh -c \
    'LD_PRELOAD="$0${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@"' "$TC" ${CMD[$n]} >"$R/$n.$p.out" 2>"$R/$n.$p.err"
  echo $? >"$R/$n.$p.rc"
  echo "$slots" >"$R/$n.$p.slots"
  echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$R/$n.$p.ms"
  touch "$R/$n.$p.cnt"
}

for n in $ORDER; do
  [ -n "${CMD[$n]:-}" ] || { echo "$n: unknown workload"; continue; }
  if [ "${TABLE_COUNT_BARE:-0}" = 1 ]; then
    timeout 300 ${CMD[$n]} >"$R/$n.bare.out" 2>"$R/$n.bare.err"; echo $? >"$R/$n.bare.rc"
  fi
  for i in "${!PASSES[@]}"; do count "$n" "p$i" "${PASSES[$i]}"; done
done
if [ "${TABLE_COUNT_CUTAP:-1}" = 1 ] && [ -x $C ]; then
  # the 4 slots torch_step called most in its bare passes (or #1-#4)
  slots=$(cat "$R"/torch_step.p*.cnt 2>/dev/null | awk 'NF == 3 && $3 ~ /^[0-9]+$/ && $3 > 0 {n[$2] += $3}
    END {for (k in n) print n[k], k}' | sort -rn | head -4 | awk '{print $2}' | paste -sd, -)
  count torch_step cutap "${slots:-${PASSES[0]}}" $C trace --runtime=cupti -o "$R/torch_step.cutap.tr" --
  rm -rf "$R/torch_step.cutap.tr"
fi

python3 - "$R" $ORDER <<'EOF'
import collections, glob, os, re, sys
R, order = sys.argv[1], sys.argv[2:]

def read(path):
    """{slot: count} summed over processes, {slot: pids with calls}, pids
    that wrote counts, notes (pid left out)"""
    cnt, pids, wrote, notes = collections.Counter(), collections.defaultdict(set), set(), []
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) == 3 and "#" in f[1] and f[2].isdigit():
            cnt[f[1]] += int(f[2])
            wrote.add(f[0])
            if int(f[2]):
                pids[f[1]].add(f[0])
        elif len(f) > 2 and f[1] == "NOTE":
            notes.append(" ".join(f[2:]))
    return cnt, pids, wrote, notes

def text(p):
    return open(p, errors="replace").read() if os.path.exists(p) else ""

def slot_key(s):
    t, _, k = s.partition("#")
    return (t, int(k) if k.isdigit() else 0)

BAD = re.compile(r"failed|not counted|no libcuda|no cuGetExportTable|no table|size word")
print("== calls through the observe-only tables, no cutap (hardware execute breakpoints at the slots' functions)")
fmt = "%-17s %-5s %9s %6s %7s  %s"
print(fmt % ("workload", "out", "total", "procs", "s/pass", "calls per slot (nonzero; other slots counted 0)"))
bare_step = None
problems = []
for n in order:
    passes = sorted(glob.glob(os.path.join(R, n + ".p*.cnt")))
    if not passes:
        continue
    total, uncounted, outs, ok, ms, procs, wrote = collections.Counter(), [], set(), True, 0, 0, 0
    for p in passes:
        base = p[:-4]
        c, pi, w, notes = read(p)
        total.update(c)
        procs = max(procs, len(set().union(*pi.values())) if pi else 0)
        wrote = max(wrote, len(w))
        for s in text(base + ".slots").split()[0].split(","):
            if s not in c:
                uncounted.append(s)
        for m in sorted(set(x for x in notes if BAD.search(x))):
            problems.append("%s %s: %s" % (n, os.path.basename(base).split(".")[-1], m))
        out = text(base + ".out")
        outs.add(out)
        rc = text(base + ".rc").strip()
        if rc != "0" or not out.rstrip().endswith("OK"):
            ok = False
            problems.append("%s %s: rc %s, last line %r; stderr: %s" % (
                n, os.path.basename(base).split(".")[-1], rc, (out.rstrip().splitlines() or [""])[-1],
                " | ".join(text(base + ".err").strip().splitlines()[-3:])))
        ms = max(ms, int(text(base + ".ms").strip() or 0))
    bare = os.path.join(R, n + ".bare.out")
    if os.path.exists(bare):
        outs.add(text(bare))
    same = "same" if ok and len(outs) == 1 else "DIFF"
    called = sorted((k for k in total if total[k]), key=slot_key)
    print(fmt % (n, same, sum(total.values()), "%d/%d" % (procs, wrote), "%.1f" % (ms / 1000.0),
                 " ".join("%s=%d" % (k, total[k]) for k in called) or "-"))
    if uncounted:
        print("%17s uncounted: %s" % ("", ",".join(sorted(set(uncounted), key=slot_key))))
    if n == "torch_step":
        bare_step = total
cut = os.path.join(R, "torch_step.cutap.cnt")
if os.path.exists(cut):
    c, pi, w, notes = read(cut)
    out = text(os.path.join(R, "torch_step.cutap.out"))
    rc = text(os.path.join(R, "torch_step.cutap.rc")).strip()
    ref = text(os.path.join(R, "torch_step.p0.out"))
    same = "same" if rc == "0" and out.rstrip().endswith("OK") and (not ref or out == ref) else "DIFF"
    print("== torch_step under cutap trace --runtime=cupti (output %s, rc %s): slot: bare, with cutap" % (same, rc))
    for s in text(os.path.join(R, "torch_step.cutap.slots")).split()[0].split(","):
        print("  %-22s %8s %8s" % (s, bare_step[s] if bare_step is not None else "-", c[s] if s in c else "uncounted"))
    for m in sorted(set(notes)):
        if m.startswith("slot ") or BAD.search(m):
            print("  note: %s" % m)
seen = collections.OrderedDict()
for p in sorted(glob.glob(os.path.join(R, "*.cnt"))):
    for m in read(p)[3]:
        if m.startswith("slot ") or m.startswith("counting:"):
            seen.setdefault(m, None)
if seen:
    print("== where the slots point (all runs; 'same as': one function in two slots)")
    for m in list(seen)[:20]:
        print("  " + m)
if problems:
    print("== problems")
    for m in problems[:30]:
        print("  " + m)
print("columns: out = stdout equal in every pass (and the bare run with TABLE_COUNT_BARE=1), exit 0, last line OK;")
print("total = calls counted over all 14 slots (slots sharing a function count the same calls twice);")
print("procs = processes with calls / processes that wrote counts, the most in one pass (exec'd or spawned")
print("ones count for themselves; forked children that do not exec are not counted);")
print("s/pass = the slowest pass in seconds. A count is every execution of the slot's function, also from")
print("inside libcuda: an upper bound of the calls through the table.")
EOF
exit 0
