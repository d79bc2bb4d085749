#!/usr/bin/env bash
# Issue #32, mappings: each mmap of a device file is named by the object
# the RM_MAP_MEMORY just before it on that thread asked for (the fake
# driver with FAKE_NV_MAPS maps HOPPER_USERMODE_A once at cuInit, and each
# cuMemAlloc_v2's NV01_MEMORY_LOCAL_USER), and every munmap or mremap of
# any part of a device mapping is recorded with what it maps and how much
# of it stays mapped, as is a mapping laid over one (MAP_FIXED: how libcuda
# 580 releases every device mapping, measured on the H100: anonymous
# PROT_NONE over it, the range kept reserved) as mmap_over: cuMemFree_v2
# unmaps a mapping of 4 pages or more in pieces: its last page, a page in
# the middle, the second piece moved by mremap and unmapped there, then the
# first piece released as libcuda does, and that reservation unmapped (not
# recorded: no device memory there any more) (tests/fake/fake_maps.c);
# 12 allocations on 4 threads (t_ioctl driver), 4 of them of 1 MiB. The
# output is unchanged; an anonymous mapping resized by mremap in a process
# that holds device mappings (Python's mmap.resize) passes through,
# unrecorded, with its contents.
. "$(dirname "$0")/../../lib/init.sh"

nvk_env
export FAKE_NV_MAPS=1
nvk_run maps driver || exit 1
"$CUTAP" report --tree --format csv "$WORK/maps" >"$WORK/tree.csv" || exit 1
for p in 'cuInit > mmap(HOPPER_USERMODE_A),ioctl,mmap(HOPPER_USERMODE_A),1,1,' \
         'cuMemAlloc_v2 > mmap(NV01_MEMORY_LOCAL_USER),ioctl,mmap(NV01_MEMORY_LOCAL_USER),1,12,' \
         'cuMemFree_v2 > munmap(NV01_MEMORY_LOCAL_USER),ioctl,munmap(NV01_MEMORY_LOCAL_USER),1,20,' \
         'cuMemFree_v2 > mremap(NV01_MEMORY_LOCAL_USER),ioctl,mremap(NV01_MEMORY_LOCAL_USER),1,4,' \
         'cuMemFree_v2 > mmap_over(NV01_MEMORY_LOCAL_USER),ioctl,mmap_over(NV01_MEMORY_LOCAL_USER),1,4,'; do
    grep -q "^$p" "$WORK/tree.csv" || { say "  no '$p'"; cat "$WORK/tree.csv" >&2; exit 1; }
done
# no unnamed mapping call
grep -Eq '(^|> )(mmap|munmap|mremap|mmap_over),' "$WORK/tree.csv" && { say "  an unnamed mapping call"; grep -E 'mmap|mremap' "$WORK/tree.csv" >&2; exit 1; }
"$CUTAP" dump "$WORK/maps" >"$WORK/maps.dump" || exit 1
# 1 MiB: the last page (1,044,480 bytes stay), the middle page (1,040,384
# stay), the second piece of 520,192 bytes moved and grown by a page, then
# gone (0), the first piece (0)
for s in 'mmap(fd=[0-9]*, dev=nvidia0, length=4096, prot=PROT_WRITE, flags=MAP_SHARED, offset=0, addr=0x[0-9a-f]*, hMemory=0x[0-9a-f]*, maps=HOPPER_USERMODE_A (usermode registers: the work-submission doorbell)) = 0' \
         'mmap(fd=[0-9]*, dev=nvidia0, length=1048576, .*maps=NV01_MEMORY_LOCAL_USER (video memory, through BAR1)) = 0' \
         'munmap(addr=0x[0-9a-f]*, length=4096, dev=nvidia0, hMemory=0x[0-9a-f]*, maps=NV01_MEMORY_LOCAL_USER (video memory, through BAR1), left=1044480) = 0' \
         'munmap(addr=0x[0-9a-f]*, length=4096, dev=nvidia0, .*, left=1040384) = 0' \
         'mremap(old_address=0x[0-9a-f]*, old_size=520192, new_size=524288, flags=MREMAP_MAYMOVE, new_address=0x[0-9a-f]*, dev=nvidia0, hMemory=0x[0-9a-f]*, maps=NV01_MEMORY_LOCAL_USER (video memory, through BAR1), addr=0x[0-9a-f]*) = 0' \
         'munmap(addr=0x[0-9a-f]*, length=524288, dev=nvidia0, .*, left=0) = 0' \
         'mmap_over(addr=0x[0-9a-f]*, length=520192, prot=PROT_NONE, flags=MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS, fd=-1, dev=nvidia0, hMemory=0x[0-9a-f]*, maps=NV01_MEMORY_LOCAL_USER (video memory, through BAR1), left=0) = 0' \
         'RM_MAP_MEMORY(.*status=NV_OK, mapFd=[0-9]*) = NV_OK'; do
    [ "$(grep -c "$s" "$WORK/maps.dump")" -ge 1 ] || { say "  dump lacks: $s"; grep -E 'map' "$WORK/maps.dump" | head >&2; exit 1; }
done
for s in 'munmap(.*left=1044480' 'munmap(.*left=1040384' 'munmap(.*length=524288, dev=nvidia0, .*left=0' \
         'mmap_over(.*length=520192, .*dev=nvidia0, .*left=0'; do
    n=$(grep -c "$s" "$WORK/maps.dump")
    [ "$n" = 4 ] || { say "  $n of $s, not 4"; exit 1; }
done
# the reservations left where the first pieces were: unmapped unrecorded
grep -q 'munmap(.*length=520192' "$WORK/maps.dump" && { say "  a reservation's munmap recorded"; exit 1; }
n=$(grep -c 'munmap(addr=0x[0-9a-f]*, length=4096, dev=nvidia0, .*, left=0) = 0' "$WORK/maps.dump")
[ "$n" = 8 ] || { say "  $n whole unmappings of one page, not 8"; exit 1; }
# the mapping fd of each RM_MAP_MEMORY is the descriptor of the mmap after it
python3 - "$WORK/maps.dump" <<'PY' || exit 1
import re, sys
last = {}
bad = 0
for line in open(sys.argv[1]):
    m = re.search(r"\[(\d+)/(\d+)\]\s+RM_MAP_MEMORY\(.*mapFd=(\d+)", line)
    if m:
        last[m.group(2)] = m.group(3)
        continue
    m = re.search(r"\[(\d+)/(\d+)\]\s+mmap\(fd=(\d+), .*maps=", line)
    if m and last.pop(m.group(2), None) != m.group(3):
        bad += 1
if bad:
    print("  %d mmaps not after an RM_MAP_MEMORY for their descriptor" % bad); sys.exit(1)
PY
# an anonymous mremap in a process with device mappings: passed through
cat >"$WORK/anon.py" <<'PY'
import ctypes, mmap
cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
m = mmap.mmap(-1, 1 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m[:5] = b"hello"
m.resize(4 << 20)
m[(4 << 20) - 3:] = b"end"
print(bytes(m[:5]), len(m), bytes(m[-3:]))
PY
LD_LIBRARY_PATH=$B/fake LD_PRELOAD=$NVK python3 "$WORK/anon.py" >"$WORK/anon.bare" 2>&1 || { say "  bare anon.py failed"; cat "$WORK/anon.bare" >&2; exit 1; }
LD_LIBRARY_PATH=$B/fake LD_PRELOAD=$NVK "$CUTAP" trace -o "$WORK/anon" -- python3 "$WORK/anon.py" >"$WORK/anon.out" 2>"$WORK/anon.err" \
    || { say "  traced anon.py failed"; cat "$WORK/anon.err" >&2; exit 1; }
diff "$WORK/anon.bare" "$WORK/anon.out" >&2 || { say "  anon.py's output changed"; exit 1; }
grep -q "b'hello' 4194304 b'end'" "$WORK/anon.out" || { say "  anon.py: $(cat "$WORK/anon.out")"; exit 1; }
"$CUTAP" dump "$WORK/anon" >"$WORK/anon.dump" || exit 1
grep -q 'mmap(.*maps=HOPPER_USERMODE_A' "$WORK/anon.dump" || { say "  anon: no device mapping"; exit 1; }
grep -Eq ' (munmap|mremap|mmap_over)\(' "$WORK/anon.dump" && { say "  anon: a mapping of no device recorded"; grep -E 'munmap|mremap' "$WORK/anon.dump" >&2; exit 1; }
exit 0
