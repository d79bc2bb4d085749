"""Generates src/generated/libcutap.map: the linker version script. It
exports exactly the intercepted names and the public API; everything else
is local. The node is anonymous on purpose: unversioned definitions satisfy
versioned references (dlsym@GLIBC_2.34) of preloaded-over objects."""
import cuda_model


def generate(model):
    out = [cuda_model.banner("exports_generator.py", "#", ""), "{", "  global:"]
    for f in model.functions:
        out.append("    %s;" % f.name)
    for l in model.layers:
        if l.spec["exports"] is None:
            continue   # NVTX: reached through the injection table only
        for f in l.functions:
            out.append("    %s;" % f.name)
    # InitializeInjectionNvtx2: cutap as the NVTX injection library (src/resolve/nvtx.c)
    out += ["    dlsym;", "    dlvsym;", "    InitializeInjectionNvtx2;",
            # the exec family: noted in the trace registry (src/core/exec.c)
            "    execve;", "    execv;", "    execvp;", "    execvpe;", "    execl;", "    execle;", "    execlp;",
            "    fexecve;", "    posix_spawn;", "    posix_spawnp;", "    cutap_*;", "  local:", "    *;", "};"]
    return "\n".join(out) + "\n"


OUTPUT = "src/generated/libcutap.map"
