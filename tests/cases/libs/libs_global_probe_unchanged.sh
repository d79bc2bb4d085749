#!/usr/bin/env bash
# A program asking the global scope whether a library is loaded
# (ctypes.CDLL(None), dlsym(RTLD_DEFAULT)) gets the same answer under
# cutap, whose own exports of those names must not say yes.
. "$(dirname "$0")/../../lib/init.sh"

command -v python3 >/dev/null || exit 77
want=$(libs_env python3 "$TL/global_probe.py") || exit 1
got=$(LD_PRELOAD=$LIB libs_env python3 "$TL/global_probe.py") || exit 1
[ "$want" = "$(printf 'False False\nFalse\nTrue')" ] || { say "  bare run not as expected: $(echo $want)"; exit 1; }
[ "$got" = "$want" ] || { say "  bare: $(echo $want) / under cutap: $(echo $got)"; exit 1; }
