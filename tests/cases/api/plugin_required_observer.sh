#!/usr/bin/env bash
# Issue #29: a plugin built with -fvisibility=hidden (tests/plugins/
# observer.c) exports its entry points through cutap.h's declarations and
# loads; loaded after a limiter (apitest skips one cuDeviceGetCount) it
# sees every call, the skipped one flagged in pre and post, and cannot
# change what the caller gets (t_api: OK); its exit hook runs at exit;
# result kinds and status names come back for every kind of layer (api=ok:
# statuses, pointers, values, void, unknown; names of the driver's, the
# runtime's and the libraries' statuses, none for the NVTX layer or an
# unknown value); the time it wants (cutap_want_time) is read once per
# call and handed to it (timed=4: both calls, pre and post). A
# plugin listed twice is initialised once, with a warning. A required
# plugin ('+' before its path) that cannot be loaded, or whose init fails,
# stops the process before main (exit status 127, the reason on stderr),
# also after an optional listing of it failed; the exit hook runs in the
# registering process only (not in a forked child that exits);
# not required, the program runs on with a warning.
. "$(dirname "$0")/../../lib/init.sh"

command -v nm >/dev/null && { nm -D --defined-only "$T/observer.so" | grep -qw cutap_plugin_init \
    || { say "  observer.so (hidden visibility) does not export cutap_plugin_init"; exit 1; }; }
CUTAP_PLUGINS=$T/apitest.so:+$T/observer.so LD_PRELOAD=$LIB $T/t_api >"$WORK/o.out" 2>"$WORK/o.err" \
    || { cat "$WORK/o.out" "$WORK/o.err" >&2; exit 1; }
grep -qx OK "$WORK/o.out" || { cat "$WORK/o.out" >&2; exit 1; }
grep -qx 'observer: inits=1 pre=2 post=2 skipped_pre=1 skipped_post=1 api=ok timed=4' "$WORK/o.out" \
    || { say "  observer:"; cat "$WORK/o.out" "$WORK/o.err" >&2; exit 1; }

# listed twice: one init, a warning
CUTAP_PLUGINS=$T/observer.so:$T/observer.so LD_PRELOAD=$LIB $T/t_paths_pie plt >"$WORK/d.out" 2>"$WORK/d.err" || exit 1
grep -q '^observer: inits=1 ' "$WORK/d.out" && grep -q 'observer.so is listed twice' "$WORK/d.err" \
    || { say "  listed twice:"; cat "$WORK/d.out" "$WORK/d.err" >&2; exit 1; }

# required and missing: stops before main
CUTAP_PLUGINS=+$WORK/none.so:$T/observer.so LD_PRELOAD=$LIB $T/t_api >"$WORK/r.out" 2>"$WORK/r.err"
rc=$?
[ $rc = 127 ] && ! grep -q OK "$WORK/r.out" && grep -q "required plugin $WORK/none.so: .*stopping the process" "$WORK/r.err" \
    || { say "  required, missing: exit $rc"; cat "$WORK/r.out" "$WORK/r.err" >&2; exit 1; }
# required, its init fails: stops; not required: runs on, warned
OBSERVER_FAIL=3 CUTAP_PLUGINS=+$T/observer.so LD_PRELOAD=$LIB $T/t_paths_pie plt >"$WORK/f.out" 2>"$WORK/f.err"
rc=$?
[ $rc = 127 ] && grep -q 'cutap_plugin_init() returned 3; stopping' "$WORK/f.err" \
    || { say "  required, init fails: exit $rc"; cat "$WORK/f.err" >&2; exit 1; }
OBSERVER_FAIL=3 CUTAP_PLUGINS=$T/observer.so LD_PRELOAD=$LIB $T/t_paths_pie plt >"$WORK/g.out" 2>"$WORK/g.err" \
    || { say "  not required, init fails: the program did not run on"; exit 1; }
grep -q 'observer.so: cutap_plugin_init() returned 3' "$WORK/g.err" || { cat "$WORK/g.err" >&2; exit 1; }
# and under cutap trace the same stop (the reason on stderr, not only in the registry)
OBSERVER_FAIL=3 CUTAP_PLUGINS=+$T/observer.so "$CUTAP" trace -o "$WORK/t" -- $T/t_paths_pie plt >"$WORK/t.out" 2>"$WORK/t.err"
rc=$?
[ $rc = 127 ] && grep -q 'required plugin .*observer.so: cutap_plugin_init() returned 3' "$WORK/t.err" \
    || { say "  under cutap trace: exit $rc"; cat "$WORK/t.err" >&2; exit 1; }
# an optional listing that fails does not let a required one of the same plugin be skipped as "listed twice"
OBSERVER_FAIL=3 CUTAP_PLUGINS=$T/observer.so:+$T/observer.so LD_PRELOAD=$LIB $T/t_paths_pie plt >/dev/null 2>"$WORK/q.err"
[ $? = 127 ] || { say "  a failed optional listing let the required one pass"; cat "$WORK/q.err" >&2; exit 1; }
# the exit hook runs in the process that registered it, not in a forked child that exits
py=/usr/bin/python3
if [ -x $py ]; then
    CUTAP_PLUGINS=$T/observer.so LD_PRELOAD=$LIB $py -c '
import ctypes, os, sys
ctypes.CDLL("libcuda.so.1").cuInit(0)
pid = os.fork()
if pid == 0:
    sys.exit(0)
os.waitpid(pid, 0)' >"$WORK/fk.out" 2>&1 || { cat "$WORK/fk.out" >&2; exit 1; }
    [ "$(grep -c '^observer: ' "$WORK/fk.out")" = 1 ] || { say "  exit hooks after fork:"; cat "$WORK/fk.out" >&2; exit 1; }
fi
