#!/usr/bin/env bash
# Issue #15: the ioctl layer's libc wrappers never harm the program, and
# are not fooled by what it does with descriptors and mappings
# (t_ioctl_harm): open() of bad path pointers stays EFAULT, and EINVAL
# where the flags are refused before the path is read (cutap looks at a
# path only once the kernel has read it, or once it is found readable);
# a device descriptor closed where
# no wrapper sees it (a forked child's closefrom) and its number reused for
# the child's trace file: no hang (the recorder's own file I/O passes
# through), nothing recorded for the wrong file; a vfork child closing its
# parent's descriptors before exec (subprocess does) leaves the parent's
# marks alone: its later requests are recorded (and those on a duplicate
# made by fcntl F_DUPFD); a device mapping replaced by MAP_FIXED is
# recorded so (mmap_over) and forgotten, one unmapped in pieces is followed
# piece by piece (both unmappings recorded, with what stays mapped), so a
# later munmap of other memory at that address is not taken for a device's;
# a signal handler that siglongjmps out of munmap (of ordinary memory,
# 2,000 times, while a device mapping exists) leaves nothing that makes
# another thread's munmap wait. Outputs are the bare
# runs' in every mode.
. "$(dirname "$0")/../../lib/init.sh"

nvk_env
for m in badpath stale vfork maps jump; do
    LD_PRELOAD=$NVK "$T/t_ioctl_harm" $m "$NVDEV" >"$WORK/$m.bare" 2>&1 || { say "  bare $m failed"; exit 1; }
    LD_PRELOAD=$NVK timeout 60 "$CUTAP" trace -o "$WORK/$m" -- "$T/t_ioctl_harm" $m "$NVDEV" >"$WORK/$m.out" 2>"$WORK/$m.err" \
        || { say "  $m under cutap: status $?"; cat "$WORK/$m.err" >&2; exit 1; }
    diff "$WORK/$m.bare" "$WORK/$m.out" >&2 || { say "  $m: output changed"; exit 1; }
done
grep -q '^jump: munmap after many jumps: 0$' "$WORK/jump.out" || { say "  jump: $(cat "$WORK/jump.out")"; exit 1; }
grep -q 'Bad address.*Bad address.*Bad address' "$WORK/badpath.out" || exit 1
grep -q 'O_TMPFILE|O_RDONLY, PROT_NONE page) -1 Invalid argument' "$WORK/badpath.out" || { cat "$WORK/badpath.out" >&2; exit 1; }
rows() { "$CUTAP" report --format csv -e layer=ioctl "$WORK/$1" | awk -F, -v n="$2" '$2 == n { print $3 }'; }
# stale: the parent's two requests, the child's one, on the right files
[ "$(rows stale RM_FREE)" = 3 ] && [ "$(rows stale open)" = 2 ] || { "$CUTAP" dump "$WORK/stale" >&2; exit 1; }
# vfork: the three requests of the parent, and one on its fcntl duplicate
[ "$(rows vfork RM_FREE)" = 4 ] || { say "  vfork: parent's requests lost"; "$CUTAP" dump "$WORK/vfork" >&2; exit 1; }
# maps: four device mappings; anonymous memory over the first (mmap_over),
# not its munmap; the second's two unmappings; the failed mremap over two
# device pages and a hole (recorded), then memory of another kind in the
# hole (neither its MAP_FIXED mapping nor its munmap recorded), the two
# pages' unmappings (8 KiB from its
# second page: 57,344 bytes stay; then the rest) and no other munmap
"$CUTAP" dump "$WORK/maps" >"$WORK/maps.dump" || exit 1
[ "$(rows maps mmap)" = 4 ] && [ "$(rows maps munmap)" = 4 ] && [ "$(rows maps mmap_over)" = 1 ] &&
    [ "$(rows maps mremap)" = 1 ] && grep -q '^mremap over a hole: Bad address$' "$WORK/maps.out" &&
    grep -q 'munmap(addr=0x[0-9a-f]*, length=8192, dev=nvidia0, left=57344) = 0' "$WORK/maps.dump" &&
    grep -q 'munmap(addr=0x[0-9a-f]*, length=65536, dev=nvidia0, left=0) = 0' "$WORK/maps.dump" \
    || { say "  maps"; cat "$WORK/maps.dump" >&2; exit 1; }
