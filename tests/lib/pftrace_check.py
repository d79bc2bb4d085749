#!/usr/bin/env python3
"""pftrace_check.py TRACE.pftrace CALLS.jsonl: checks a Perfetto protobuf
export (cutap export --format perfetto-proto) against the JSON lines export
of the same trace, with a protobuf wire decoder of its own (no schema, no
code shared with the encoder). Every call and range of the JSON lines is a
slice begun on its thread's track (names resolved through each sequence's
interned names), every finished one ended, the marks instants; each
sequence's timestamps never go back; the slices nest as the calls' depths
say. With GPU activity (cutap trace --gpu): every "type":"gpu" line with a
time is a slice on a track of no thread (named as the line's name), and
each one that names its launching call ends a flow (terminating_flow_ids)
that the launching call's slice begins (flow_ids). Prints "calls=N
bytes_per_call=B" on success, exits 1 with the differences otherwise."""
import collections
import json
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field, value) of a message: ints for varints, bytes for the rest."""
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            sys.exit("pftrace_check: wire type %d" % wt)
        out.append((f, v))
    return out


def get(fs, f, default=None):
    for k, v in fs:
        if k == f:
            return v
    return default


def main():
    data = open(sys.argv[1], "rb").read()
    tracks = {}            # uuid -> (pid, tid) or name
    defaults = {}          # sequence -> default track
    names = collections.defaultdict(dict)   # sequence -> iid -> name
    begins = collections.Counter()          # (tid, name)
    begin_ts = collections.Counter()        # (tid, name, ts) on thread tracks
    end_ts = collections.Counter()          # (tid, ts) on thread tracks
    cats = collections.defaultdict(set)     # sequence -> interned category iids
    cleared = set()
    instants = collections.Counter()
    ends = 0
    last_ts = {}
    stacks = collections.defaultdict(list)  # track -> open (name, begin ts)
    thread_ends = []                        # (tid, name, begin ts, end ts) of ended thread slices
    depth_of = collections.Counter()        # (tid, name, depth)
    flows_begun, flows_ended = collections.Counter(), collections.Counter()
    bad = []
    for f, pkt in fields(data):
        if f != 1:
            bad.append("top-level field %d" % f)
            continue
        p = fields(pkt)
        td = get(p, 60)
        if td is not None:
            t = fields(td)
            th = get(t, 4)
            if th is not None:
                tracks[get(t, 1)] = ("thread", get(fields(th), 1), get(fields(th), 2))
            else:
                tracks[get(t, 1)] = ("other", None, None)
            continue
        seq = get(p, 10)
        flags = get(p, 13, 0)
        if flags & 1:
            cleared.add(seq)
        d = get(p, 59)
        if d is not None:
            defaults[seq] = get(fields(get(fields(d), 11)), 11)
        interned = get(p, 12)
        if interned is not None:
            for k, v in fields(interned):
                if k == 2:
                    e = fields(v)
                    names[seq][get(e, 1)] = get(e, 2).decode("utf-8", "replace")
                elif k == 1:
                    cats[seq].add(get(fields(v), 1))
        ev = get(p, 11)
        if ev is None:
            continue
        e = fields(ev)
        ts = get(p, 8)
        # interned names or categories, or the sequence's default track: the
        # sequence must have been cleared first and the packet must say it
        # needs that state (else trace_processor skips it)
        needs = get(e, 10) is not None or get(e, 3) is not None or get(e, 11) is None
        if needs and (seq not in cleared or not flags & 2):
            bad.append("event on sequence %d without cleared/needs-incremental-state flags" % seq)
        for k, v in e:
            if k == 3 and v not in cats[seq]:
                bad.append("category iid %d not interned on sequence %d" % (v, seq))
        if ts < last_ts.get(seq, 0):
            bad.append("sequence %d goes back in time at %d" % (seq, ts))
        last_ts[seq] = ts
        track = get(e, 11, defaults.get(seq))
        kind, pid, tid = tracks.get(track, (None, None, None))
        if kind is None:
            bad.append("event on an undescribed track %s" % track)
            continue
        typ = get(e, 9)
        for k, v in e:
            if k in (47, 48):
                (flows_begun if k == 47 else flows_ended)[int.from_bytes(v, "little")] += 1
        if typ in (1, 3):
            iid, inline = get(e, 10), get(e, 23)
            if inline is not None:
                name = inline.decode("utf-8", "replace")
            elif iid in names[seq]:
                name = names[seq][iid]
            else:
                bad.append("name iid %s not interned on sequence %d" % (iid, seq))
                continue
            if typ == 3:
                instants[(tid, name)] += 1
            else:
                begins[(tid if kind == "thread" else None, name)] += 1
                if kind == "thread":
                    depth_of[(tid, name, len(stacks[track]))] += 1
                    begin_ts[(tid, name, ts)] += 1
                stacks[track].append((name, ts))
        elif typ == 2:
            ends += 1
            if not stacks[track]:
                bad.append("an end without a begin on track %s" % track)
            else:
                name, t0 = stacks[track].pop()
                if kind == "thread":
                    thread_ends.append((tid, name, t0, ts))
    want_b, want_i, want_d = collections.Counter(), collections.Counter(), collections.Counter()
    want_bt, want_et = collections.Counter(), collections.Counter()
    finished = calls = gpu_flows = 0
    # a call or push/pop range that never ended is ended by the slice it is
    # nested in, or by the next one of its thread starting outside it: an
    # end of the exporter's choosing, after its begin, not one of the file's
    never_ended = collections.Counter()
    for line in open(sys.argv[2]):
        x = json.loads(line)
        if x.get("type") == "gpu" and x.get("dur_ns") is not None:
            label = (x["name"] if x["kind"] == "kernel" else
                     "[CUDA memcpy %s]" % x["copy"] if x["kind"] == "memcpy" else "[CUDA memset]")
            want_b[(None, label)] += 1
            finished += 1
            gpu_flows += x.get("call") is not None
            continue
        if x.get("type") not in ("call", "range", "mark"):
            continue
        calls += 1
        if x["type"] == "mark":
            want_i[(x["tid"], x["name"])] += 1
            continue
        nested = x["type"] == "call" or x.get("nested", True)
        want_b[(x["tid"] if nested else None, x["name"])] += 1
        if nested:
            want_d[(x["tid"], x["name"], x["depth"])] += 1
            want_bt[(x["tid"], x["name"], x["t_ns"])] += 1
            if x.get("dur_ns") is not None:
                want_et[(x["tid"], x["t_ns"] + x["dur_ns"])] += 1
        if x.get("dur_ns") is not None or not nested:
            finished += 1
        else:
            never_ended[(x["tid"], x["name"], x["t_ns"])] += 1
    closed_by_exporter = 0
    for tid, name, t0, ts in thread_ends:
        if never_ended[(tid, name, t0)]:
            never_ended[(tid, name, t0)] -= 1
            closed_by_exporter += 1
            if ts < t0:
                bad.append("a slice that never ended is closed before its begin (tid %d, %s)" % (tid, name))
        else:
            end_ts[(tid, ts)] += 1
    for what, got, want in (("slices", begins, want_b), ("instants", instants, want_i), ("depths", depth_of, want_d),
                            ("begin times", begin_ts, want_bt), ("end times", end_ts, want_et)):
        if got != want:
            diff = (got - want) + (want - got)
            bad.append("%s differ: %s" % (what, list(diff.items())[:6]))
    if sum(flows_ended.values()) != gpu_flows or any(v != 1 for v in flows_ended.values()):
        bad.append("%d flows ended on GPU slices for %d GPU records with a launching call" %
                   (sum(flows_ended.values()), gpu_flows))
    if flows_ended != flows_begun:
        bad.append("flows begun and ended differ: %s" %
                   list(((flows_ended - flows_begun) + (flows_begun - flows_ended)).items())[:6])
    if ends - closed_by_exporter != finished:
        bad.append("%d ends for %d finished calls and ranges" % (ends, finished))
    if bad:
        print("\n".join("  " + s for s in bad[:20]), file=sys.stderr)
        sys.exit(1)
    print("calls=%d bytes_per_call=%.1f" % (calls, len(data) / max(calls, 1)))


if __name__ == "__main__":
    main()
