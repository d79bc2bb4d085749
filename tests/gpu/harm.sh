#!/usr/bin/env bash
# Issue #24 on the real driver (device machine, never CI):
#   tests/gpu/harm.sh
# 1. A program managing its process as daemons do (tests/gpu/workloads/
#    daemon.c): closes every descriptor and puts a data file of its own on
#    cutap's old numbers; closes 0-2 first; forbids the time-stamp
#    counter. Bare, under LD_PRELOAD + CUTAP_TRACE, cutap trace and cutap
#    stat: same output and status, the data file untouched, every call
#    recorded.
# 2. File-size limits: cutap trace of vecadd_static under ulimit -f 300, of
#    the PyTorch step under ulimit -f 4096: as bare.
# 3. Probes for the driver (ctypes.CDLL(None)) before and after libcuda is
#    opened locally, then globally: as bare.
# 4. Start-up: bench/startup side by side with build-before/libcutap.so
#    when it was carried; `import torch` + the first CUDA call, bare /
#    trace / stat, 5 rounds interleaved (median seconds).
# Prints one line per check and "harm: PASSED" or "harm: FAILED".
set -u
cd "$(dirname "$0")/../.."
B=build/gpu W=tests/gpu/workloads C=build/cutap L=$PWD/build/libcutap.so
R=$(mktemp -d /tmp/cutap-harm.XXXXXX)
FAIL=0
ok() { printf '%-58s %s\n' "$1" "$2"; [ "$2" = ok ] || FAIL=1; }
[ -x $B/daemon ] || tests/gpu/build.sh >/dev/null || exit 1

# 1. daemons
for m in fds std tsc plain; do
    rm -f "$R/d.$m".*
    $B/daemon $m "$R/data.bare" >"$R/$m.bare" 2>&1; rb=$?
    [ $m = std ] && cp "$R/data.bare" "$R/$m.bare"
    if [ $m = tsc ] && [ $rb != 0 ]; then ok "daemon tsc: bare run fails ($rb): not checked" ok; continue; fi
    for mode in env trace stat; do
        case $mode in
        env) CUTAP_TRACE=$R/$m.env LD_PRELOAD=$L $B/daemon $m "$R/data.$mode" >"$R/$m.$mode" 2>"$R/$m.$mode.err" ;;
        trace) $C trace -o "$R/$m.tr" -- $B/daemon $m "$R/data.$mode" >"$R/$m.$mode" 2>"$R/$m.$mode.err" ;;
        stat) $C stat -o "$R/$m.st" -- $B/daemon $m "$R/data.$mode" >"$R/$m.$mode" 2>"$R/$m.$mode.err" ;;
        esac
        rc=$?
        [ $m = std ] && cp "$R/data.$mode" "$R/$m.$mode"
        if [ $rc = $rb ] && cmp -s "$R/$m.bare" "$R/$m.$mode"; then r=ok; else r="FAIL (status $rc, bare $rb; $(head -c 200 "$R/$m.$mode"))"; fi
        ok "daemon $m under $mode: as bare ($(head -1 "$R/$m.bare"))" "$r"
    done
    # every call of the traced run recorded, no loss
    n=$($C report --format csv "$R/$m.tr" 2>/dev/null | awk -F, '$2 ~ /^cuMemcpy(HtoD|DtoH)/ {n += $3} END {print n + 0}')
    lost=$($C report "$R/$m.tr" 2>&1 | grep -c 'not recorded\|stopped')
    [ "$n" = 2 ] && [ "$lost" = 0 ] && r=ok || r="FAIL ($n copies recorded, $lost loss lines)"
    ok "daemon $m: both copies recorded, no loss" "$r"
done

# 2. file-size limits
for w in "300 $B/vecadd_static" "4096 python3 $W/torch_step.py"; do
    set -- $w; lim=$1; shift
    (ulimit -f $lim; exec "$@") >"$R/f.bare" 2>&1; rb=$?
    (ulimit -f $lim; exec $C trace -o "$R/f.$lim" -- "$@") >"$R/f.trace" 2>"$R/f.err"; rc=$?
    if [ $rc = $rb ] && cmp -s "$R/f.bare" "$R/f.trace"; then r=ok; else r="FAIL (status $rc, bare $rb)"; fi
    ok "ulimit -f $lim: cutap trace $(basename "$1") as bare" "$r"
    grep -q 'File too large' "$R/f.err" && echo "    (said: $(grep -m1 'recording stopped' "$R/f.err" | cut -c1-150))"
done

# 3. probes for the driver
probe='import ctypes; g = ctypes.CDLL(None); a = hasattr(g, "cuInit"); ctypes.CDLL("libcuda.so.1"); b = hasattr(g, "cuInit"); ctypes.CDLL("libcuda.so.1", mode=ctypes.RTLD_GLOBAL); print(a, b, hasattr(g, "cuInit"))'
bare=$(python3 -c "$probe" 2>&1) got=$(CUTAP_TRACE=$R/probe LD_PRELOAD=$L python3 -c "$probe" 2>&1)
[ "$bare" = "$got" ] && r=ok || r="FAIL (under cutap: $got)"
ok "ctypes probes of cuInit: $bare" "$r"

# 4. start-up
if [ -f build-before/libcutap.so ]; then
    build/bench/startup 5 "$PWD/build-before/libcutap.so" | sed 's/^/    /'
else
    build/bench/startup 5 | sed 's/^/    /'
fi
python3 - "$C" <<'PY'
import statistics, subprocess, sys, time
cmd = ["python3", "-c", "import torch; torch.zeros(1, device='cuda'); torch.cuda.synchronize()"]
modes = {"bare": [], "trace": [sys.argv[1], "trace", "-o", "/tmp/cutap-harm-torch", "--"], "stat": [sys.argv[1], "stat", "-o", "/tmp/cutap-harm-torch.txt", "--force", "--"]}
t = {m: [] for m in modes}
for r in range(5):
    for m, pre in modes.items():
        subprocess.run(["rm", "-rf", "/tmp/cutap-harm-torch"])
        t0 = time.monotonic(); subprocess.run(pre + cmd, check=True, capture_output=True); t[m].append(time.monotonic() - t0)
b = statistics.median(t["bare"])
for m in modes:
    med = statistics.median(t[m])
    print("    import torch + first CUDA call, %-5s median %.3f s (%.3f..%.3f)  %+.1f %%" % (m, med, min(t[m]), max(t[m]), 100 * (med / b - 1)))
PY
echo "harm: $([ $FAIL = 0 ] && echo PASSED || echo FAILED)"
exit $FAIL
