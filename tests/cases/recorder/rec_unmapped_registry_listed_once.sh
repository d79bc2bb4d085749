#!/usr/bin/env bash
# Issue #24 item 8: a process that started with cutap but could not map
# the registry (.cutap-procs, 1 MiB) left the exec note of its program
# unserved, so that the closing summary of cutap trace listed it as
# "not traced: not known" although it has a trace file, and when that
# file says it lost calls, listed it twice (losing calls, and not traced).
# Each process must be listed once, under its true state:
#  1. under address-space limits (ulimit -v) from where the program
#     cannot start to where everything fits, among them any where its
#     trace file is made but the registry cannot be mapped (the library
#     then serves its note through the file): a program with a
#     trace file is never "not traced", no pid is on two lines; nor is a
#     program that ran with cutap and made no call (no trace file);
#  2. a program that cannot open the registry at all (it runs as another
#     user: root's registry is 0600), whose trace file the summary finds:
#     traced, not listed as not traced (the summary matches the note with
#     the file of that pid made after it).
. "$(dirname "$0")/../../lib/init.sh"

# pids of the summary's loss lines, and of its "not traced" line
loss_pids() { sed -n 's/^cutap: process \([0-9]*\) (.*/\1/p' "$1"; }
nt_pids() { grep '^cutap: [0-9]* process.* not traced: ' "$1" | grep -o '(pid [0-9]*)' | tr -dc '0-9\n'; }
# IMAGE slots (kind 1) of a pid in a registry: the image could map it
image_slots() {
    python3 - "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
n = sum(1 for i in range(1, len(d) // 1024)
        if struct.unpack_from("<Ii", d, i * 1024)[0] == 1 and struct.unpack_from("<i", d, i * 1024 + 8)[0] == int(sys.argv[2]))
print(n)
PY
}
listed_once() {   # ERR FILE_PID (FILE_PID "" without a trace file)
    local dup
    dup=$( { loss_pids "$1" | sort -u; nt_pids "$1" | sort -u; } | sort | uniq -d)
    [ -z "$dup" ] || { say "  pid $dup listed twice:"; cat "$1" >&2; return 1; }
    if [ -n "$2" ] && nt_pids "$1" | grep -qx "$2"; then
        say "  process $2 has a trace file but is listed as not traced:"; cat "$1" >&2; return 1
    fi
}

# 1. address-space limits, 256 KiB apart (the window where the file fits
# but the registry does not is about 1 MiB wide), from 8 MiB until the
# registry is mapped too
hits=0
for ((v = 8192; v <= 131072; v += 256)); do
    d=$WORK/as.$v
    "$CUTAP" trace -o "$d" -- sh -c "ulimit -v $v; exec $T/t_record many 3" >/dev/null 2>"$d.err"
    f=$(ls "$d"/*.cutap 2>/dev/null | head -1)
    fpid=$(basename "${f:-x}" | sed -n 's/.*\.\([0-9]*\)\.cutap$/\1/p')
    listed_once "$d.err" "$fpid" || { say "  (ulimit -v $v)"; exit 1; }
    [ -n "$fpid" ] || { rm -rf "$d"; continue; }
    if [ "$(image_slots "$d/.cutap-procs" "$fpid")" = 0 ]; then
        hits=$((hits + 1))   # a trace file, no registry slot: the case of the issue
    elif grep -q '^cutap: 1 process traced into .*: 3 calls, ' "$d.err"; then
        break   # everything fits from here on
    fi
    rm -rf "$d"
done
# (Since the front maps the registry at start, before the core and the
# trace file, the window is usually gone: no hit is no failure.)
say "  $hits limits with a trace file and no registry mapped, up to $v KiB"
# ...and a program that makes no CUDA call (no trace file): once it runs
# with cutap loaded, it is not "not traced", whatever the limit
for ((w = 8192; w <= v; w += 256)); do
    "$CUTAP" trace -o "$WORK/t.$w" -- sh -c "ulimit -v $w; exec /bin/true" >/dev/null 2>"$WORK/t.err"; rc=$?
    if [ $rc = 0 ] && ! grep -q 'cannot be preloaded' "$WORK/t.err" && grep -q 'not traced' "$WORK/t.err"; then
        say "  /bin/true ran with cutap under ulimit -v $w, listed as not traced:"; cat "$WORK/t.err" >&2; exit 1
    fi
    rm -rf "$WORK/t.$w"
done

# 2. another user's program: the registry cannot be opened, the trace file
# can be made (the directory opened to it once cutap has checked it)
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
    say "  not root or no setpriv: part 2 skipped"; exit 0
fi
# (outside $WORK, which may be closed to other users)
o=$(mktemp -d /tmp/cutap-other.XXXXXX) && chmod 0755 "$o" && on_exit "rm -rf '$o'" || exit 1
d=$o/other
"$CUTAP" trace -o "$d" -- sh -c "chmod 0777 '$d'; exec setpriv --reuid=12345 --regid=12345 --clear-groups $T/t_record many 3" \
    >/dev/null 2>"$WORK/other.err" || { cat "$WORK/other.err" >&2; exit 1; }
f=$(ls "$d"/*.cutap 2>/dev/null | head -1)
fpid=$(basename "${f:-x}" | sed -n 's/.*\.\([0-9]*\)\.cutap$/\1/p')
[ -n "$fpid" ] && [ "$(stat -c %u "$f")" = 12345 ] && [ "$(image_slots "$d/.cutap-procs" "$fpid")" = 0 ] \
    || { say "  want a trace file of uid 12345 and no registry slot"; ls -la "$d" >&2; exit 1; }
listed_once "$WORK/other.err" "$fpid" || exit 1
grep -q '^cutap: 1 process traced into .*: 3 calls, ' "$WORK/other.err" && ! grep -q 'not traced' "$WORK/other.err" \
    || { cat "$WORK/other.err" >&2; exit 1; }
exit 0
