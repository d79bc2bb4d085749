"""PyTorch training steps per second (bench/gpu/run.sh runs it bare and
under cutap, alternately).

    torch_steps.py [STEPS [WIDTH [BATCH]]]

An MLP of 4 Linear layers of WIDTH (default 512), batch BATCH (default
256), SGD with momentum. By default a step is a few dozen small kernels
and about 520 driver calls in ~1 ms, so the CPU, not the GPU, sets the
pace: the case where an interposer shows most. WIDTH 2048, BATCH 1024
makes the GPU set the pace, as in most real training. 100 warm-up steps, then 7 windows of STEPS steps
(default 300), each ending with a synchronisation. Prints the fastest
window as "steps_per_s <v>": the window least disturbed by the rest of
the machine (the spread between processes of the same mode was ~10 %).

STEP_AB=N (bench/gpu/step_ab.sh): an A/B inside one process instead. The
process runs under cutap (preloaded); after the warm-up, 2N windows of
STEPS steps in the order off, on, on, off, ... where "off" turns cutap's
recording client off through the public API (cutap_enable(client,
CUTAP_ID_ALL, 0): the calls then cost only the interposer's pass-through)
and "on" turns it back on. The recording client is the only one cutap
registered (a probe client registered here must get id 1; with id 0
nothing was recording, so "on" and "off" are the same: the control that
measures the windows' own noise). Prints "ab_ratio <r>" per pair, on/off
steps per second, and "ab_median <m>". Comparing windows of one process
removes the spread between processes (ASLR, which cores, the GPU's state)
that decides cross-process medians.

STEP_AB3=N (tests/gpu/issue27.sh step3): three ways inside one process,
N triples. The process runs under cutap trace with the bare CUPTI
subscriber of tests/gpu injected (CUDA_INJECTION64_PATH; its path also in
CUTAP_REF_LIB): windows of STEPS steps with "off" (cutap's client off,
CUPTI's domains off), "cutap" (the client on) and "cupti" (the
subscriber's domains on, cupti_ref_enable), in an order that cycles
through the six permutations. Prints "ab3 <cutap/off> <cupti/off>" per
triple (steps per second), "ab3_median" of each, and per way the
medians of the process's user and system CPU time, minor faults and
context switches per step ("ab3_usage"). STEP_AB3_ON=GLOBS
(comma-separated, "!" negates, on the names): "cutap" turns the client
on only for the ids they select when the windows start, to share the
cost out.
With STEP_AB3_CONTROL=1, "cutap" changes nothing (the control: the
windows' own noise). With STEP_AB3_WAY2=diagclock, the third way is
cutap on with a counter standing for its clock (CUPTI stays off): the
share of cutap's cost that is reading the clock."""
import ctypes
import fnmatch
import os
import resource
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    w = int(sys.argv[2]) if len(sys.argv) > 2 else 512
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 256
    dev = torch.device("cuda", 0)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(w, w), nn.ReLU(), nn.Linear(w, w), nn.ReLU(),
                          nn.Linear(w, w), nn.ReLU(), nn.Linear(w, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, w, device=dev)
    y = torch.randint(0, 10, (batch,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        opt.step()

    for _ in range(100):
        step()
    torch.cuda.synchronize()
    triples = int(os.environ.get("STEP_AB3", "0"))
    if triples:
        ab3(step, steps, triples)
        return
    pairs = int(os.environ.get("STEP_AB", "0"))
    if pairs:
        ab(step, steps, pairs)
        return
    rates = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
        rates.append(steps / (time.perf_counter() - t))
    print("steps_per_s %.1f" % max(rates))


def window(step, steps):
    t = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    return steps / (time.perf_counter() - t)


def cutap_api():
    """cutap's public API in this process (libcutap.so preloaded)."""
    lib = ctypes.CDLL(None)
    lib.cutap_register.restype = ctypes.c_int
    lib.cutap_register.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.cutap_enable.restype = ctypes.c_int
    lib.cutap_enable.argtypes = [ctypes.c_int, ctypes.c_uint32, ctypes.c_int]
    lib.cutap_call_count.restype = ctypes.c_uint32
    lib.cutap_call_name.restype = ctypes.c_char_p
    lib.cutap_call_name.argtypes = [ctypes.c_uint32]
    return lib


def rclk_cell():
    """libcutap_core.so's cutap_rclk (how the record clock is read: 1 the
    time-stamp counter, 3 the diagnostic counter), found with nm: a local
    symbol, poked by this benchmark only."""
    base = path = None
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()
            if len(p) >= 6 and p[5].endswith("/libcutap_core.so") and int(p[2], 16) == 0:
                base, path = int(p[0].split("-")[0], 16), p[5]
                break
    out = subprocess.run(["nm", path or "/nonexistent"], capture_output=True, text=True).stdout
    addr = [int(l.split()[0], 16) for l in out.splitlines()
            if l.endswith(" cutap_rclk") and len(l.split()) == 3 and l.split()[1] in "bBdD"]
    if base is None or len(addr) != 1:
        print("ab_error cannot find cutap_rclk")
        sys.exit(1)
    cell = ctypes.c_int.from_address(base + addr[0])
    if cell.value != 1:
        print("ab_error the record clock is not the time-stamp counter (%d)" % cell.value)
        sys.exit(1)
    return cell


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def ab(step, steps, pairs):
    lib = cutap_api()
    probe = lib.cutap_register(b"ab-probe", None, None, None)
    if probe not in (0, 1):
        print("ab_error %d clients registered before the probe: which records is unknown" % probe)
        sys.exit(1)
    print("ab_recording %d" % probe)   # 1: client 0 records; 0: nothing to turn off (control)

    def set_on(on):
        if probe == 1 and lib.cutap_enable(0, 0xFFFFFFFF, on) != 0:
            print("ab_error cutap_enable failed")
            sys.exit(1)

    ratios = []
    for i in range(pairs):
        order = (0, 1) if i % 2 == 0 else (1, 0)
        r = {}
        for on in order:
            set_on(on)
            r[on] = window(step, steps)
        set_on(1)
        ratios.append(r[1] / r[0])
        print("ab_ratio %.4f on %.1f off %.1f" % (r[1] / r[0], r[1], r[0]))
    print("ab_median %.4f" % median(ratios))


def ab3(step, steps, triples):
    lib = cutap_api()
    # STEP_AB3_ON: the ids whose names the globs select ("!" negates), taken
    # once after the warm-up (a filter left on the client would also turn
    # on ids made later, in any window)
    globs = [g for g in os.environ.get("STEP_AB3_ON", "").split(",") if g]
    only = None
    if globs:
        pos = [g for g in globs if not g.startswith("!")]
        neg = [g[1:] for g in globs if g.startswith("!")]
        only = []
        for i in range(lib.cutap_call_count()):
            name = (lib.cutap_call_name(i) or b"").decode(errors="replace")
            if (not pos or any(fnmatch.fnmatchcase(name, g) for g in pos)) and \
               not any(fnmatch.fnmatchcase(name, g) for g in neg):
                only.append(i)
    control = os.environ.get("STEP_AB3_CONTROL") == "1"
    if lib.cutap_register(b"ab3-probe", None, None, None) != 1:
        print("ab_error cutap's recording client is not client 0 alone")
        sys.exit(1)
    # RTLD_NOLOAD: the referee the driver injected, not a second copy
    ref = ctypes.CDLL(os.environ["CUTAP_REF_LIB"], mode=os.RTLD_NOW | os.RTLD_NOLOAD)
    ref.cupti_ref_enable.restype = ctypes.c_int
    ref.cupti_ref_enable.argtypes = [ctypes.c_int]
    # STEP_AB3_WAY2=diagclock: the third way is cutap on with a counter for
    # its clock (CUTAP_RCLK_DIAG), CUPTI off: what the clock reads cost
    rclk = rclk_cell() if os.environ.get("STEP_AB3_WAY2") == "diagclock" else None

    def set_way(w):   # 0 off, 1 cutap, 2 cupti (or cutap with the counter clock)
        on = (w == 1 or (w == 2 and rclk is not None)) and not control
        if rclk is not None:
            if rclk.value not in (1, 3):   # the counter forbidden meanwhile: never put it back
                print("ab_error the record clock changed (%d)" % rclk.value)
                sys.exit(1)
            rclk.value = 3 if w == 2 else 1
        ok = lib.cutap_enable(0, 0xFFFFFFFF, int(on and only is None)) == 0
        if ok and on and only is not None:
            ok = all(lib.cutap_enable(0, i, 1) == 0 for i in only)
        if not ok or ref.cupti_ref_enable(int(w == 2 and rclk is None)) != 0:
            print("ab_error cannot switch to way %d" % w)
            sys.exit(1)

    perms = ((0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 2, 1), (2, 1, 0), (1, 0, 2))
    rc, ru = [], []
    usage = {0: [], 1: [], 2: []}   # per window, per step: user us, system us, minor faults, switches
    for i in range(triples):
        r = {}
        for w in perms[i % 6]:
            set_way(w)
            u0 = resource.getrusage(resource.RUSAGE_SELF)
            r[w] = window(step, steps)
            u1 = resource.getrusage(resource.RUSAGE_SELF)
            usage[w].append(((u1.ru_utime - u0.ru_utime) * 1e6 / steps, (u1.ru_stime - u0.ru_stime) * 1e6 / steps,
                             (u1.ru_minflt - u0.ru_minflt) / steps, (u1.ru_nvcsw - u0.ru_nvcsw) / steps,
                             (u1.ru_nivcsw - u0.ru_nivcsw) / steps))
        rc.append(r[1] / r[0])
        ru.append(r[2] / r[0])
        print("ab3 %.4f %.4f off %.1f" % (rc[-1], ru[-1], r[0]))
    set_way(0)
    for w, name in ((0, "off"), (1, "cutap"), (2, "cupti")):
        cols = list(zip(*usage[w]))
        print("ab3_usage %s user_us %.1f sys_us %.1f minflt %.2f vcsw %.2f ivcsw %.2f (per step, medians)"
              % ((name,) + tuple(median(c) for c in cols)))
    print("ab3_median %.4f %.4f" % (median(rc), median(ru)))


if __name__ == "__main__":
    main()
