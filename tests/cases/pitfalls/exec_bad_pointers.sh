#!/usr/bin/env bash
# Issue #24: the exec family's wrappers (execve, execv, execvp, execvpe,
# execl, execle, execlp, fexecve, posix_spawn, posix_spawnp) with bad
# pointers (NULL, (char *)1 and PROT_NONE paths, argv/envp arrays and
# strings inside them, strings and arrays running into a PROT_NONE page, a
# bad environ; posix_spawn*'s pid, file actions and attributes) return what
# they return bare (EFAULT), crash only where glibc itself crashes, and pass
# the file actions and attributes through unread (t_exec_fault): output
# and exit status are the bare run's under LD_PRELOAD with CUTAP_TRACE and
# with CUTAP_COUNT, cutap trace and cutap stat, exec notes made where the
# path and environment could be read (the registry holds them); and again
# under a seccomp filter that makes cutap's readability probe
# (rt_sigaction of SIGKILL) fail, where nothing is read and nothing noted.
. "$(dirname "$0")/../../lib/init.sh"

fail=0
for v in plain filtered; do
    arg=; [ $v = filtered ] && arg=filtered
    "$T/t_exec_fault" $arg >"$WORK/$v.bare" 2>"$WORK/$v.bare.err"
    bare=$?
    if [ $v = filtered ] && [ $bare = 77 ]; then
        say "  (no seccomp filter can be installed here: the filtered runs skipped)"; cat "$WORK/$v.bare.err" >&2; break
    fi
    [ $bare = 0 ] && grep -q 'execve path=one: rc=-1 errno=14 ' "$WORK/$v.bare" \
        || { say "  $v bare run: status $bare"; cat "$WORK/$v.bare.err" >&2; exit 1; }
    same() {   # same NAME STATUS: NAME's output and status are the bare run's
        [ "$2" = "$bare" ] || { say "  $v $1: status $2, bare $bare"; tail -5 "$WORK/$v.$1.err" >&2; return 1; }
        diff "$WORK/$v.bare" "$WORK/$v.$1" >&2 || { say "  $v $1: output changed (< bare, > cutap)"; return 1; }
    }
    CUTAP_TRACE="$WORK/$v.tr" LD_PRELOAD=$LIB "$T/t_exec_fault" $arg >"$WORK/$v.preload_trace" 2>"$WORK/$v.preload_trace.err"
    same preload_trace $? || fail=1
    CUTAP_COUNT="$WORK/$v.ct" LD_PRELOAD=$LIB "$T/t_exec_fault" $arg >"$WORK/$v.preload_count" 2>"$WORK/$v.preload_count.err"
    same preload_count $? || fail=1
    "$CUTAP" trace -o "$WORK/$v.cli.tr" -- "$T/t_exec_fault" $arg >"$WORK/$v.cli_trace" 2>"$WORK/$v.cli_trace.err"
    same cli_trace $? || fail=1
    "$CUTAP" stat -- "$T/t_exec_fault" $arg >"$WORK/$v.cli_stat" 2>"$WORK/$v.cli_stat.err"
    same cli_stat $? || fail=1
    # The wrappers were in play: with plain CUTAP_TRACE/CUTAP_COUNT the
    # registry exists and holds exec notes (of the calls whose path and
    # environment could be read: a bad argv is not cutap's to read); under
    # the filter, cutap can tell nothing readable and notes nothing.
    for d in tr ct; do
        r=$WORK/$v.$d/.cutap-procs
        [ -f "$r" ] || { say "  $v: no registry $r"; fail=1; continue; }
        if [ $v = plain ]; then
            grep -aq /bin/true "$r" || { say "  $v: no exec note in $r"; fail=1; }
        else
            ! grep -aq /bin/true "$r" || { say "  $v: an exec note in $r"; fail=1; }
        fi
    done
done
exit $fail
