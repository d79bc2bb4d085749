#!/usr/bin/env bash
# Issue #27 on the device machine: the recording cost per call in each
# affinity, the CPU-bound PyTorch step, and the readers' rates on the
# host's cores.
#   tests/gpu/issue27.sh cost|step|ab|step3|readers [CYCLES]
# cost:    build/gpu/overhead CYCLES (default 5) pinned to core 0 and to
#          cores 0-3 (taskset): bare, pass, stat, trace (page helper away,
#          the default), tsame (CUTAP_PAGES=same), tidle (CUTAP_PAGES=idle),
#          trace0 (no helper), a bare CUPTI subscriber, and stat2/trace2
#          (another build side by side, where build/old/libcutap.so is: e.g.
#          the commit before a change, built and carried); then, with
#          RTMIXED=1, bench/gpu/rtmixed.sh 9 pinned to core 4 and to cores
#          0-3 (issue #25's ratio inside one process)
# step:    bench/gpu/run.sh CYCLES (default 5), the CPU-bound table only, on
#          one core (4) and on four (4-7): bare, trace, CUPTI (BENCH_MODES)
# ab:      build/gpu/abcall CYCLES (triples, default 42) 2 pinned to core 0
#          and to cores 0-3: each process compares its own windows with
#          cutap's client off, on, and a bare CUPTI subscriber on
#          (AB_PINS other cores; ABCALL_POLLUTE=KB caches cooled between
#          calls; ABCALL_DEPTH=N from N frames deep: bench/gpu/abcall.c;
#          AB_OLD_TAR=FILE.tar.gz: another build (git archive) alternated
#          with this one, AB_ROUNDS times)
# step3:   the CPU-bound PyTorch step the same way (torch_steps.py
#          STEP_AB3=CYCLES, default 120, windows of STEP_W=20 steps), under
#          cutap trace with the CUPTI subscriber injected, STEP3_PROCS
#          (default 2) processes pinned to core 4 and to cores 4-7
#          (STEP3_PINS); AB_OLD_TAR as for ab (old and new builds
#          alternate AB_ROUNDS times, default 2, each summed up on its
#          own); STEP3_CUTAP="stat" (or "trace --ring 1M", ...)
#          runs another recording (default "trace"); STEP_AB3_ON,
#          STEP_AB3_CONTROL and STEP_AB3_WAY2=diagclock (the third way is
#          cutap with a counter for its clock, not CUPTI) pass through
#          (torch_steps.py); ABCALL_WAY2 likewise for ab (abcall.c)
# readers: a 3 M-call trace on the fake driver, then dump and the JSON
#          exports at CUTAP_THREADS=1, 2, 4, 8, 16, best of 3, outputs
#          compared with one thread's
set -u
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
what=${1:-cost}
cyc=${2:-5}
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi -L 2>/dev/null | grep -c '^GPU') x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(nproc) cores"
# AB_OLD_TAR's tree built in $O (ab, step3)
build_old() {
  O=$(mktemp -d /tmp/cutap-old.XXXXXX)
  tar -xzf "$AB_OLD_TAR" -C "$O" && (cd "$O" && make -s -j"$(nproc)" lib >/dev/null 2>&1) || { echo "cannot build $AB_OLD_TAR"; return 1; }
}
case $what in
cost)
  tests/gpu/build.sh >/dev/null || exit 1
  for pin in 0 0-3; do
    echo "-- build/gpu/overhead $cyc, pinned to $pin"
    old=; [ -f build/old/libcutap.so ] && old=$PWD/build/old/libcutap.so
    env LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUTAP_LIBRARY=$PWD/build/libcutap.so \
      ${old:+CUTAP_LIBRARY2=$old} CUTAP_REF_LIB=$PWD/build/gpu/libcupti_ref.so taskset -c $pin build/gpu/overhead "$cyc"
  done
  [ -n "${RTMIXED:-}" ] && for pin in 4 0-3; do RTCALL_PIN=$pin bench/gpu/rtmixed.sh 9; done ;;
step)
  tests/gpu/build.sh >/dev/null || exit 1
  for pin in 4 4-7; do
    echo "-- CPU-bound PyTorch step pinned to $pin"
    SKIP_OVERHEAD=1 BENCH_CPU_ONLY=1 BENCH_PIN=$pin BENCH_MODES="${BENCH_MODES:-bare trace cupti}" bench/gpu/run.sh "$cyc" 2>/dev/null |
      sed -n '/steps\/s/,/nsys row/p'
  done ;;
ab)
  tests/gpu/build.sh >/dev/null || exit 1
  [ "$cyc" = 5 ] && cyc=42
  if [ -n "${AB_OLD_TAR:-}" ]; then
    # Another build side by side: AB_OLD_TAR is `git archive COMMIT | gzip`
    # of the tree to compare (an untracked file travels with the working
    # tree); built here, then old and new alternate AB_ROUNDS (default 3)
    # times a pinning, stat and cudaGetDevice rows only.
    build_old || exit 1
    for pin in ${AB_PINS:-0 0-3}; do
      for r in $(seq "${AB_ROUNDS:-3}"); do
        for v in old new; do
          L=$PWD/build/libcutap.so; [ $v = old ] && L=$O/build/libcutap.so
          echo "-- $v, build/gpu/abcall $cyc 2, pinned to $pin, round $r${ABCALL_POLLUTE:+, $ABCALL_POLLUTE KiB touched between calls}"
          env LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUTAP_LIBRARY=$L \
            CUTAP_REF_LIB=$PWD/build/gpu/libcupti_ref.so taskset -c $pin build/gpu/abcall "$cyc" 2 | grep -E '^(stat|trace) '
        done
      done
    done
    rm -rf "$O"
    exit 0
  fi
  for pin in ${AB_PINS:-0 0-3}; do
    echo "-- build/gpu/abcall $cyc 2, pinned to $pin${ABCALL_POLLUTE:+, $ABCALL_POLLUTE KiB touched between calls}${ABCALL_DEPTH:+, calls made $ABCALL_DEPTH frames deep}"
    env LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUTAP_LIBRARY=$PWD/build/libcutap.so \
      CUTAP_REF_LIB=$PWD/build/gpu/libcupti_ref.so taskset -c $pin build/gpu/abcall "$cyc" 2
  done ;;
step3)
  tests/gpu/build.sh >/dev/null || exit 1
  [ "$cyc" = 5 ] && cyc=120
  W=$(mktemp -d /tmp/cutap-step3.XXXXXX)
  REF=$PWD/build/gpu/libcupti_ref.so
  echo "-- cutap ${STEP3_CUTAP:-trace}${STEP_AB3_ON:+, on only for '$STEP_AB3_ON'}${STEP_AB3_CONTROL:+, the control}"
  # with AB_OLD_TAR: old and new builds alternate AB_ROUNDS (default 2)
  # times, STEP3_PROCS processes each, and each is summed up on its own
  vers=new; rounds=1
  if [ -n "${AB_OLD_TAR:-}" ]; then build_old || exit 1; vers="old new"; rounds=${AB_ROUNDS:-2}; fi
  for pin in ${STEP3_PINS:-4 4-7}; do
    for r in $(seq "$rounds"); do
      for v in $vers; do
        L=$PWD/build/libcutap.so; [ $v = old ] && L=$O/build/libcutap.so
        for i in $(seq "${STEP3_PROCS:-2}"); do
          f=$pin.$v.$r.$i
          CUTAP_LIBRARY=$L CUDA_INJECTION64_PATH=$REF CUTAP_REF_LIB=$REF STEP_AB3=$cyc timeout 500 taskset -c $pin \
            build/cutap ${STEP3_CUTAP:-trace} -o "$W/t$f" -- python3 bench/gpu/torch_steps.py "${STEP_W:-20}" >"$W/o$f" 2>"$W/e$f"
          grep -q ab3_median "$W/o$f" || { echo "step3 $pin $v process $i failed:"; tail -5 "$W/o$f" "$W/e$f"; }
          sed -n 's/^ab3_usage/  '"$v"' round '"$r"' process '"$i"':/p' "$W/o$f"
        done
      done
    done
    way2=CUPTI; [ "${STEP_AB3_WAY2:-}" = diagclock ] && way2="trace, counter clock"
    for v in $vers; do
    [ "$vers" = new ] || echo "-- build: $v"
    cat "$W"/o$pin.$v.* | awk -v pin=$pin -v way2="$way2" '
      /^ab3 / {c[++n] = $2; u[n] = $3; off = off + $5}
      /^ab3_median/ {pm = pm sprintf(" %+.1f/%+.1f", ($2 - 1) * 100, ($3 - 1) * 100)}
      function sort(v,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t } }
      function med(v) { return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
      END {
        if (!n) { print "  no triples"; exit }
        sort(c); sort(u)
        k = int(n / 2 - 0.98 * sqrt(n)); if (k < 1) k = 1; j = int(n / 2 + 0.98 * sqrt(n)) + 1; if (j > n) j = n
        q1 = int(n / 4) + 1; q3 = int(3 * n / 4)
        printf "-- CPU-bound PyTorch step pinned to %s, %d triples, off %.1f steps/s on average\n", pin, n, off / n
        printf "  trace %+6.2f %% (95 %% interval %+.2f..%+.2f; quartiles %+.1f..%+.1f)\n", (med(c) - 1) * 100, (c[k] - 1) * 100, (c[j] - 1) * 100, (c[q1] - 1) * 100, (c[q3] - 1) * 100
        printf "  %s %+6.2f %% (95 %% interval %+.2f..%+.2f; quartiles %+.1f..%+.1f)\n", way2, (med(u) - 1) * 100, (u[k] - 1) * 100, (u[j] - 1) * 100, (u[q1] - 1) * 100, (u[q3] - 1) * 100
        printf "  per process (trace/CUPTI):%s\n", pm
        printf "  target (issue #27): trace <= 8 %%: %s; better than CUPTI: %s\n", (1 - med(c) <= 0.08) ? "met" : "NOT met", (med(c) > med(u)) ? "met" : "NOT met"
      }'
    done
  done
  rm -rf "$W" ${O:+"$O"} ;;
readers)
  make -s -j"$(nproc)" lib cli build/bench/passthrough build/fake/libcuda.so.1 >/dev/null || exit 1
  W=$(mktemp -d /tmp/cutap-i27.XXXXXX)
  trap 'rm -rf "$W"' EXIT
  LD_LIBRARY_PATH=build/fake build/cutap trace -o "$W/t" -- build/bench/passthrough --child $((3000000 / 7)) >/dev/null 2>&1
  n=$(build/cutap report --format csv "$W/t" 2>/dev/null | awk -F, 'NR > 1 {n += $3} END {print n + 0}')
  for r in dump jsonl perfetto; do
    out() { if [ $r = dump ]; then build/cutap dump "$W/t" >"$1"; else rm -f "$1"; build/cutap export --format $r -o "$1" "$W/t" 2>/dev/null; fi; }
    CUTAP_THREADS=1 out "$W/one"
    for th in 1 2 4 8 16; do
      best=
      for k in 1 2 3; do
        s=$(date +%s.%N); CUTAP_THREADS=$th out "$W/o"; e=$(date +%s.%N)
        best=$(awk -v s="$s" -v e="$e" -v b="$best" 'BEGIN {d = e - s; print (b == "" || d < b) ? d : b}')
      done
      cmp -s "$W/o" "$W/one" && same=same || same=DIFFERENT
      awk -v r=$r -v t=$th -v b="$best" -v n="$n" -v s=$same 'BEGIN {printf "%-9s threads %2d  %.3f s  %5.2f M calls/s  output %s\n", r, t, b, n / b / 1e6, s}'
    done
  done ;;
*) echo "usage: tests/gpu/issue27.sh cost|step|ab|step3|readers [CYCLES]"; exit 2 ;;
esac
