#!/usr/bin/env bash
# Issue #24 item 8: cutap ps --pid P reads the directory named by P's
# CUTAP_TRACE, which P's user chose. Run by root, it must not let that user
# lead it into root's files: the directory must pass the checks of
# trace -o (ours, not a symbolic link, reached through no other user's
# link, its parent nobody else's, writable by nobody else), else ps
# refuses, saying why, and reads nothing; in a directory that passes,
# only our files are read, no link followed. A directory of ours is read
# as before. Needs root (files of another user: uid 12345).
. "$(dirname "$0")/../../lib/init.sh"

[ "$(id -u)" = 0 ] || { say "  not root: cannot make another user's files: skipped"; exit 77; }
export LD_LIBRARY_PATH=$FL:$LD_LIBRARY_PATH
EVIL=12345
rel=$WORK/release
on_exit 'touch "$rel"'
wait_ready() { for _ in $(seq 200); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.05; done; say "  $1: never ready"; return 1; }

# root's trace, in a directory only root may read: a process blocked in a call
mkdir -p "$WORK/base" && chmod 0755 "$WORK/base"
FAKE_BLOCK=cuCtxSynchronize:$rel "$CUTAP" trace -o "$WORK/base/secret" -- $T/t_ranks 1 >"$WORK/s.out" 2>&1 &
wait_ready "$WORK/s.out" || exit 1
for _ in $(seq 200); do "$CUTAP" ps "$WORK/base/secret" 2>/dev/null | grep -q 'cuCtxSynchronize() <running' && break; sleep 0.05; done
"$CUTAP" ps "$WORK/base/secret" >"$WORK/s.ps" 2>&1 || { cat "$WORK/s.ps" >&2; exit 1; }
P=$(sed -n 's/^process \([0-9]*\) .*/\1/p' "$WORK/s.ps")
secret_file=$(ls "$WORK/base/secret"/*.cutap | head -1)
[ -n "$P" ] && [ -f "$secret_file" ] || { say "  no traced process"; cat "$WORK/s.ps" >&2; exit 1; }

# its own directory: read as before
"$CUTAP" ps --pid "$P" >"$WORK/own.ps" 2>&1 && grep -q 'cuCtxSynchronize() <running' "$WORK/own.ps" \
    || { say "  ps --pid of a process tracing into our directory:"; cat "$WORK/own.ps" >&2; exit 1; }

# Another user's links and directories, each named by a process's
# CUTAP_TRACE (the process itself need not be traced).
mkdir -p "$WORK/sticky" "$WORK/theirs" "$WORK/open" "$WORK/ours"
chmod 1777 "$WORK/sticky"; chmod 0777 "$WORK/open"; chmod 0700 "$WORK/ours"
ln -s "$WORK/base" "$WORK/sticky/via"                 # a leading component: .../via/secret
ln -s "$WORK/base/secret" "$WORK/sticky/last"         # the directory itself
ln -s "$secret_file" "$WORK/theirs/x.cutap"
ln -s "$secret_file" "$WORK/open/x.cutap"
chown -h $EVIL "$WORK/sticky/via" "$WORK/sticky/last"
chown $EVIL "$WORK/theirs"
sleeper() {   # DIR: a process whose CUTAP_TRACE is DIR; its pid in $S
    env CUTAP_TRACE="$1" sleep 60 & S=$!
    on_exit "kill $S 2>/dev/null"
    # until env has run: the forked shell's environment has no CUTAP_TRACE
    for _ in $(seq 200); do tr '\0' '\n' <"/proc/$S/environ" | grep -q '^CUTAP_TRACE=' && return; sleep 0.02; done
    say "  the sleeper never had CUTAP_TRACE"; exit 1
}
refused() {   # DIR WHY
    sleeper "$1"
    "$CUTAP" ps --pid "$S" >"$WORK/r.out" 2>"$WORK/r.err"; rc=$?
    [ $rc = 1 ] && [ ! -s "$WORK/r.out" ] \
        && grep -qF "cutap ps: refusing to read $1, the trace directory of process $S (its CUTAP_TRACE): $2" "$WORK/r.err" \
        && grep -qF 'run it as the directory' "$WORK/r.err" \
        || { say "  CUTAP_TRACE=$1: exit $rc, want 1 and '$2'; stdout:"; cat "$WORK/r.out" >&2; say "  stderr:"; cat "$WORK/r.err" >&2; exit 1; }
}
refused "$WORK/sticky/via/secret" "it is reached through $WORK/sticky/via, a symbolic link of another user"
refused "$WORK/sticky/last" "it is a symbolic link"
refused "$WORK/theirs" "it belongs to another user"
refused "$WORK/theirs/sub" "its parent directory belongs to another user"
refused "$WORK/open" "it is writable by other users"

# A directory of ours, holding what another user could have put there: a
# link to root's trace, and a copy of it that is theirs. Neither is read.
ln -s "$secret_file" "$WORK/ours/link.cutap"
cp "$secret_file" "$WORK/ours/copy.cutap" && chown $EVIL "$WORK/ours/copy.cutap"
sleeper "$WORK/ours"
"$CUTAP" ps --pid "$S" >"$WORK/o.out" 2>"$WORK/o.err"; rc=$?
[ $rc = 1 ] && ! grep -q cuCtxSynchronize "$WORK/o.out" \
    && grep -qF "$WORK/ours/link.cutap: a symbolic link: not followed" "$WORK/o.err" \
    && grep -qF "$WORK/ours/copy.cutap: belongs to another user: not read" "$WORK/o.err" \
    && grep -qF "cutap ps: nothing to read in $WORK/ours" "$WORK/o.err" \
    || { say "  files of another user: exit $rc"; cat "$WORK/o.out" "$WORK/o.err" >&2; exit 1; }
# ...while our own file there is read
cp "$secret_file" "$WORK/ours/mine.cutap"
"$CUTAP" ps --pid "$S" >"$WORK/o.out" 2>"$WORK/o.err" \
    || { say "  our own file in our directory not read"; cat "$WORK/o.out" "$WORK/o.err" >&2; exit 1; }

# cutap ps DIR, a directory named by the user running it, is unchanged
"$CUTAP" ps "$WORK/sticky/last" 2>&1 | grep -q 'cuCtxSynchronize() <running' || { say "  ps DIR changed"; exit 1; }
touch "$rel"; wait "$(jobs -p | head -1)" 2>/dev/null
exit 0
