#!/usr/bin/env bash
# Issue #31, found on the H200 (jax_step, NCCL, 2-rank DDP): what the
# Perfetto exports make of records that do not follow each other.
#  - GPU records of one stream that overlap in time (CUPTI reports XLA's
#    host-to-host copies so; the fake with FAKE_CUPTI_OVERLAP=1): each goes
#    to a lane of its stream ("GPU 0 stream 7 overlap 1"), so that no
#    track of either export holds two slices that overlap without nesting,
#    and the protobuf's sequences stay in time order (pftrace_check.py);
#    every record is still drawn, with its flow.
#  - an NVTX range pushed inside a call and never popped, as NCCL 2.28's
#    ncclCommInitRankConfig does (mk_trace phantom): ended by the protobuf
#    export where the call returned, not at the thread's next call, which
#    made the sequence go back in time when the call's end followed.
. "$(dirname "$0")/../../lib/init.sh"

n=ov
rm -f "$WORK/$n".*
FAKE_CUPTI_OVERLAP=1 gpu_run $n 3 2 || { say "  cutap trace --gpu failed"; tail -5 "$WORK/$n.err" >&2; exit 1; }
D=$WORK/$n
"$CUTAP" export --format jsonl -o "$D.jsonl" "$D" && "$CUTAP" export --format perfetto -o "$D.pf.json" "$D" \
    && "$CUTAP" export --format perfetto-proto -o "$D.pftrace" "$D" || { say "  an export failed"; exit 1; }
python3 "$TL/pftrace_check.py" "$D.pftrace" "$D.jsonl" >/dev/null || { say "  perfetto-proto: overlapping GPU records"; exit 1; }
python3 - "$D" <<'PY' || exit 1
import collections, json, sys
d = sys.argv[1]
gpu = [json.loads(l) for l in open(d + ".jsonl") if '"type":"gpu"' in l]
# the records as the files have them: some of one stream overlap (else
# this case tests nothing)
by_stream = collections.defaultdict(list)
for x in gpu:
    by_stream[(x["device"], x["stream"])].append((x["t_ns"], x["t_ns"] + x["dur_ns"]))
overlaps = 0
for v in by_stream.values():
    v.sort()
    overlaps += sum(1 for a, b in zip(v, v[1:]) if b[0] < a[1])
if not overlaps:
    sys.exit("  the fake made no overlapping records")
ev = json.load(open(d + ".pf.json"))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
tracks = collections.defaultdict(list)
for e in ev:
    if e.get("cat") == "gpu" and e["ph"] == "X":
        tracks[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
if sum(len(v) for v in tracks.values()) != len(gpu):
    sys.exit("  Perfetto JSON: %d GPU slices for %d records" % (sum(len(v) for v in tracks.values()), len(gpu)))
for k, v in tracks.items():
    v.sort()
    for a, b in zip(v, v[1:]):
        if a[0] < b[0] < a[1] < b[1]:
            sys.exit("  Perfetto JSON: slices overlap on track %s" % names.get(k))
lanes = [v for v in names.values() if " overlap " in v]
if not lanes:
    sys.exit("  no overlap track named")
print("  %d overlapping pairs in the files; %d GPU tracks, %d of them overlap lanes" %
      (overlaps, len(tracks), len(lanes)))
PY
# an NVTX range never popped inside a call
mkdir -p "$WORK/ph" && "$T/mk_trace" phantom "$WORK/ph" || exit 1
"$CUTAP" export --format perfetto-proto -o "$WORK/ph.pftrace" "$WORK/ph" \
    && "$CUTAP" export --format jsonl -o "$WORK/ph.jsonl" "$WORK/ph" || { say "  phantom: an export failed"; exit 1; }
python3 "$TL/pftrace_check.py" "$WORK/ph.pftrace" "$WORK/ph.jsonl" >/dev/null || { say "  phantom range: perfetto-proto"; exit 1; }
say "  phantom range: in time order"
