#!/usr/bin/env bash
# Issue #25: a static runtime copy's reported calls are written three ways,
# with the same records: in place from the recorder's template (the
# default: typed functions with simple outputs or none), by the recorder's
# fused path (CUTAP_NO_FASTPATH=1: no in-place writing) and through the
# callbacks (CUTAP_NO_FUSED=1). t_static_rt's calls cover outputs taken
# and not (a failing cudaMalloc), by-value structs, a kernel handle named
# after the launch, calls nested 70 deep and four threads; without
# address randomisation (the records hold stack addresses), each thread's
# records in order (dump's lines, times and thread ids left out; the
# address of a struct a driver call passes by value, which lies in the
# frame of the path that took it, too; and every address in the worker
# threads' records: they race for the fake driver's allocations).
. "$(dirname "$0")/../../lib/init.sh"

norand="setarch $(uname -m) -R"
$norand true 2>/dev/null || norand=""
# (names of one length: the trace directory is in the environment, which
# moves the stack)
for v in inplace:0:0 fusedpa:1:0 callbck:0:1; do
    IFS=: read -r name nfp nf <<<"$v"
    rm -rf "$WORK/ip_$name"
    CUTAP_NO_FASTPATH=$nfp CUTAP_NO_FUSED=$nf $norand "$CUTAP" trace -o "$WORK/ip_$name" -- $T/t_static_rt \
        >"$WORK/ip_$name.out" 2>"$WORK/ip_$name.err" || { say "  $name: cutap trace failed"; tail -3 "$WORK/ip_$name.err" >&2; exit 1; }
    # per thread (in order of first appearance), its lines in the dump's order
    "$CUTAP" dump "$WORK/ip_$name" | awk '
        match($0, /^[0-9.]+ \[[0-9]+\/[0-9]+\] /) {
            tid = substr($0, RSTART, RLENGTH); sub(/^[0-9.]+ \[[0-9]+\//, "", tid); sub(/\] $/, "", tid)
            line = substr($0, RLENGTH + 1); gsub(/ <[^>]*>/, "", line)
            # a driver call'"'"'s struct passed by value: at an address of the path'"'"'s own frame
            if (line ~ /^ *cu[A-Z]/) gsub(/@0x[0-9a-f]+/, "@", line)
            if (!(tid in seen)) { seen[tid] = ++nt }
            # the worker threads race for the fake allocator'"'"'s addresses
            if (seen[tid] > 1) gsub(/0x[0-9a-f]+/, "0x", line)
            out[seen[tid], ++n[seen[tid]]] = line
        }
        END { for (t = 1; t <= nt; t++) for (i = 1; i <= n[t]; i++) print t, out[t, i] }' >"$WORK/ip_$name.txt" || exit 1
done
n=$(grep -c ' cudaMalloc(' "$WORK/ip_inplace.txt")
[ "$n" -ge 200 ] || { say "  only $n cudaMalloc records in place"; exit 1; }
grep -q ' cudaLaunchKernel(' "$WORK/ip_inplace.txt" || { say "  no cudaLaunchKernel record"; exit 1; }
cmp -s "$WORK/ip_inplace.out" "$WORK/ip_fusedpa.out" && cmp -s "$WORK/ip_inplace.out" "$WORK/ip_callbck.out" \
    || { say "  the program's output changed between the ways"; exit 1; }
diff "$WORK/ip_fusedpa.txt" "$WORK/ip_inplace.txt" >&2 || { say "  in place and fused differ"; exit 1; }
diff "$WORK/ip_callbck.txt" "$WORK/ip_inplace.txt" >&2 || { say "  in place and callbacks differ"; exit 1; }
