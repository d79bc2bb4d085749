#!/usr/bin/env bash
# Every API export of the real driver (580) and every export of the
# runtime and libraries (pinned lists in gen/exports/, the names with
# each layer's prefixes from gen/layers.py; and those of the older majors'
# libraries that their headers declare and 13.0 dropped, from
# gen/snapshots/) is exported by libcutap.so,
# plus dlsym/dlvsym, the public API, InitializeInjectionNvtx2 (the
# NVTX injection entry point), the exec family (noted in the trace
# registry, src/front/exec.c), the ioctl layer's libc functions
# (src/front/io.c), prctl/syscall (a process forbidding the
# time-stamp counter, src/front/forbid.c), cuptiActivityRegisterCallbacks
# and cuptiSubscribe(_v2) (the program's own CUPTI activity client and
# subscriber, src/front/cupti_watch.c),
# getenv/secure_getenv (the NVIDIA libraries' lookups, src/front/env.c), and
# nothing else.
. "$(dirname "$0")/../../lib/init.sh"

nm -D --defined-only "$LIB" | awk '{print $3}' | sort >"$WORK/ours"
grep -v '^cudbg' gen/libcuda-580.159.04-exports.txt | sort >"$WORK/driver"
/usr/bin/python3 "$TL/layer_exports.py" | sort >"$WORK/layers"
sort -m "$WORK/driver" "$WORK/layers" >"$WORK/api"
missing=$(comm -13 "$WORK/ours" "$WORK/api")
[ -z "$missing" ] || { say "  not exported: $missing"; exit 1; }
extra=$(comm -23 "$WORK/ours" "$WORK/api" | grep -v -e '^cutap_' -e '^dlsym$' -e '^dlvsym$' \
    -e '^InitializeInjectionNvtx2$' -e '^cuEventCreateFromEGLSync$' \
    -e '^execl[ep]\?$' -e '^execv\(e\|p\|pe\)\?$' -e '^fexecve$' -e '^posix_spawnp\?$' \
    -e '^ioctl$' -e '^\(__\)\?open\(at\)\?\(64\)\?\(_2\)\?$' -e '^close\(_range\)\?$' -e '^dup[23]\?$' \
    -e '^mmap\(64\)\?$' -e '^munmap$' -e '^mremap$' -e '^fcntl\(64\)\?$' -e '^prctl$' -e '^syscall$' \
    -e '^cuptiActivityRegisterCallbacks$' -e '^cuptiSubscribe\(_v2\)\?$' -e '^getenv$' -e '^secure_getenv$')
[ -z "$extra" ] || { say "  exported but not API: $extra"; exit 1; }
# the core is dlopened: thread-local storage of its own would come from
# glibc's small static-TLS surplus, which the program's own later dlopens
# need (a library with initial-exec TLS then fails to load); everything
# per thread lives in the front's cutap_tls
if command -v readelf >/dev/null && readelf -lW "$B/libcutap_core.so" | grep -q ' TLS '; then
    say "  libcutap_core.so has a TLS segment"; readelf -lW "$B/libcutap_core.so" | grep TLS >&2; exit 1
fi
say "  $(wc -l <"$WORK/driver") driver entry points and $(wc -l <"$WORK/layers") runtime/library functions exported"
