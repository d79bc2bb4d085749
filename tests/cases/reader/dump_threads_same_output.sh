#!/usr/bin/env bash
# `cutap dump` and the JSON lines and Perfetto JSON exports format blocks
# of calls on several threads and write them in order (cli/parallel.c,
# issue #27), the perfetto-proto export encodes on one worker while the
# calling thread reads: the output is byte for byte the one thread's
# (CUTAP_THREADS=1), whatever the number of threads, on a trace of several
# processes and layers (strings, errors, demangled kernel names, runtime
# copies' reports named by object, NVTX ranges) long enough to make many
# blocks, with --pid, --no-demangle and -e; and a reader that goes away
# (`| head`) ends a dump without an error. The same with dump's memo of
# finished calls' texts (cli/memo.c) turned off (CUTAP_MEMO=0):
# the memo changes no byte; nor in the JSON exports and SQLite, which
# decode through it too.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" trace -o "$WORK/dt" -- sh -c "$T/t_record mix 6000; $T/t_record kernels; $T/t_static_rt; $T/t_layers; $T/t_nvtx; $T/t_record errors" \
    >"$WORK/dt.out" 2>"$WORK/dt.err" || { say "  traced run failed"; tail -5 "$WORK/dt.err" >&2; exit 1; }
n=$("$CUTAP" report --format csv "$WORK/dt" 2>/dev/null | awk -F, 'NR > 1 {n += $3} END {print n + 0}')
[ "$n" -ge 16384 ] || { say "  only $n calls: too few for several blocks"; exit 1; }
pid=$("$CUTAP" dump "$WORK/dt" | sed -n 's/^[0-9.]* \[\([0-9]*\)\/.*/\1/p' | sort -u | sed -n 2p)
for opts in "" "--no-demangle" "--pid $pid" "-e layer=driver"; do
    # shellcheck disable=SC2086
    CUTAP_THREADS=1 "$CUTAP" dump $opts "$WORK/dt" >"$WORK/one" 2>"$WORK/one.err" || { say "  dump $opts failed"; exit 1; }
    [ -s "$WORK/one" ] || { say "  dump $opts printed nothing"; exit 1; }
    # shellcheck disable=SC2086
    CUTAP_MEMO=0 CUTAP_THREADS=1 "$CUTAP" dump $opts "$WORK/dt" >"$WORK/nomemo" 2>/dev/null || { say "  dump $opts (no memo) failed"; exit 1; }
    cmp -s "$WORK/one" "$WORK/nomemo" || { say "  dump $opts: the memo changed the output"; diff "$WORK/nomemo" "$WORK/one" | head -5 >&2; exit 1; }
    for th in 2 3 8 ""; do
        # shellcheck disable=SC2086
        CUTAP_THREADS=$th "$CUTAP" dump $opts "$WORK/dt" >"$WORK/many" 2>"$WORK/many.err" \
            || { say "  dump $opts, CUTAP_THREADS=$th failed"; cat "$WORK/many.err" >&2; exit 1; }
        cmp -s "$WORK/one" "$WORK/many" || { say "  dump $opts, CUTAP_THREADS=$th: not the one thread's output"; diff "$WORK/one" "$WORK/many" | head -5 >&2; exit 1; }
        cmp -s "$WORK/one.err" "$WORK/many.err" || { say "  dump $opts, CUTAP_THREADS=$th: other messages"; exit 1; }
    done
done
# a reader that goes away: no error, no hang
CUTAP_THREADS=4 timeout 60 "$CUTAP" dump "$WORK/dt" 2>"$WORK/head.err" | head -3 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] && [ ! -s "$WORK/head.err" ] || { say "  dump | head: exit $rc, $(cat "$WORK/head.err")"; exit 1; }
for fmt in jsonl perfetto perfetto-proto; do
    CUTAP_THREADS=1 "$CUTAP" export --format $fmt -o "$WORK/one.$fmt" "$WORK/dt" 2>/dev/null || { say "  export $fmt failed"; exit 1; }
    [ $fmt = perfetto-proto ] || grep -q '"range"\|"ph":"X"' "$WORK/one.$fmt" || { say "  export $fmt: no calls or ranges"; exit 1; }
    [ $fmt != perfetto-proto ] || [ "$(stat -c %s "$WORK/one.$fmt")" -gt 300000 ] || { say "  export $fmt: too small"; exit 1; }
    for th in 2 3 ""; do
        rm -f "$WORK/many.$fmt"
        CUTAP_THREADS=$th "$CUTAP" export --format $fmt -o "$WORK/many.$fmt" "$WORK/dt" 2>/dev/null \
            || { say "  export $fmt, CUTAP_THREADS=$th failed"; exit 1; }
        cmp -s "$WORK/one.$fmt" "$WORK/many.$fmt" || { say "  export $fmt, CUTAP_THREADS=$th: not the one thread's output"; exit 1; }
    done
done
# the memo of decoded calls off: the same exports
for fmt in jsonl perfetto sqlite; do
    [ $fmt = sqlite ] && ! "$CUTAP" export --format sqlite -o "$WORK/probe.db" "$WORK/dt" >/dev/null 2>&1 && continue
    rm -f "$WORK/m1.$fmt" "$WORK/m0.$fmt"
    "$CUTAP" export --format $fmt -o "$WORK/m1.$fmt" "$WORK/dt" 2>/dev/null || { say "  export $fmt failed"; exit 1; }
    CUTAP_MEMO=0 "$CUTAP" export --format $fmt -o "$WORK/m0.$fmt" "$WORK/dt" 2>/dev/null || { say "  export $fmt (no memo) failed"; exit 1; }
    if [ $fmt = sqlite ]; then
        python3 - "$WORK/m1.$fmt" "$WORK/m0.$fmt" <<'PY' || { say "  export sqlite: the memo changed the database"; exit 1; }
import sqlite3, sys
a, b = (list(sqlite3.connect(p).iterdump()) for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY
    else
        cmp -s "$WORK/m1.$fmt" "$WORK/m0.$fmt" || { say "  export $fmt: the memo changed the output"; exit 1; }
    fi
done
