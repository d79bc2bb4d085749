#!/usr/bin/env bash
# Issue #30: one option table (cli/opttab.c) for every command. Every
# option it lists (`cutap help --options`), long and short form, is named
# in its command's --help, in the man page's section of that command
# (.SS cutap CMD, hyphens escaped), in the command's docs page
# (docs/cutap-CMD.md, whose Options block is the --help verbatim) and
# offered by the bash completion
# (contrib/cutap.bash, which asks the table); the commands parse exactly
# the table's options (an option of the table is accepted by getopt: not
# "unrecognized"; one of another command is refused as such). The README
# and cutap --version agree on the trace format and plugin API versions;
# the README is at most 300 lines.
. "$(dirname "$0")/../../lib/init.sh"

"$CUTAP" help --options >"$WORK/opts" || { say "  cutap help --options failed"; exit 1; }
[ "$(wc -l <"$WORK/opts")" -ge 60 ] || { say "  only $(wc -l <"$WORK/opts") options listed"; exit 1; }
. contrib/cutap.bash
fail=0
complete_words() {   # complete_words CMD PREFIX: the completion's offers
    COMP_WORDS=("$CUTAP" "$1" "$2"); COMP_CWORD=2; COMPREPLY=(); _cutap; printf '%s\n' "${COMPREPLY[@]}"
}
while read -r cmd a b; do
    "$CUTAP" "$cmd" --help >"$WORK/help" 2>&1 || { say "  cutap $cmd --help: status $?"; fail=1; continue; }
    awk -v c="$cmd" '$0 == ".SS cutap " c {on = 1; next} /^\.S[SH]/ {on = 0} on' docs/cutap.1 >"$WORK/man"
    [ -s "$WORK/man" ] || { say "  the man page has no section .SS cutap $cmd"; fail=1; }
    page=docs/cutap-$cmd.md
    [ -f "$page" ] || { say "  no $page"; fail=1; }
    complete_words "$cmd" - >"$WORK/comp"
    for o in $a $b; do
        o=${o%,}; o=${o%%=*}; o=${o%%[*}
        grep -qF -- "$o" "$WORK/help" || { say "  cutap $cmd --help does not name $o"; fail=1; }
        grep -qF -- "${o//-/\\-}" "$WORK/man" || { say "  man page, cutap $cmd: no ${o//-/\\-}"; fail=1; }
        [ ! -f "$page" ] || grep -qF -- "$o" "$page" || { say "  $page does not name $o"; fail=1; }
        grep -qxF -- "$o" "$WORK/comp" || { say "  the completion of cutap $cmd does not offer $o"; fail=1; }
        # the parser takes it (a usage error may follow for its value or the operands, never "unrecognized")
        "$CUTAP" "$cmd" "$o" x y z >/dev/null 2>"$WORK/err" </dev/null
        if grep -qE "unrecognized option|unknown option|invalid option|is an option of" "$WORK/err"; then
            say "  cutap $cmd does not parse $o: $(head -1 "$WORK/err")"; fail=1
        fi
    done
done <"$WORK/opts"
# each page's Options block is its command's --help, verbatim (gen/help_pages.py writes it)
for cmd in trace stat report dump export ps run freeze; do
    "$CUTAP" "$cmd" --help >"$WORK/h.$cmd"
    sed -n '/^<!-- BEGIN cutap --help/,/^<!-- END cutap --help -->$/p' "docs/cutap-$cmd.md" | sed '1,2d;$d' | sed '$d' >"$WORK/p.$cmd"
    diff "$WORK/p.$cmd" "$WORK/h.$cmd" >&2 || { say "  docs/cutap-$cmd.md (<) is not cutap $cmd --help (>): run gen/help_pages.py"; fail=1; }
done
# an option of another command is said as such
"$CUTAP" trace --time-all -- true 2>&1 | grep -q "cutap trace: --time-all is an option of cutap stat" \
    || { say "  trace --time-all not said to be stat's"; fail=1; }
# the completion of a value comes from the table
[ "$(COMP_WORDS=("$CUTAP" report --sort ''); COMP_CWORD=3; COMPREPLY=(); _cutap; echo "${COMPREPLY[*]}")" = \
  "self total calls avg max med errors name" ] || { say "  report --sort values not completed"; fail=1; }
# versions
v=$("$CUTAP" --version)
fmt=$(sed -n 's/.*trace format \([0-9]*\).*/\1/p' <<<"$v"); api=$(sed -n 's/.*plugin API \([0-9]*\).*/\1/p' <<<"$v")
grep -q "trace format version ($fmt)" README.md && grep -q "plugin API version ($api)" README.md \
    || { say "  README and --version ($v) disagree"; fail=1; }
# sizes: what export --help says a perfetto-proto call takes, its page's prose says too
n=$("$CUTAP" export --help | sed -n 's/.*perfetto-proto.*about \([0-9]*\) bytes.*/\1/p')
[ -n "$n" ] && sed '/^<!-- BEGIN cutap --help/,$d' docs/cutap-export.md | tr '\n' ' ' | grep -q "about $n bytes a call" \
    || { say "  export --help (about '$n' bytes a call) and docs/cutap-export.md disagree"; fail=1; }
[ "$(wc -l <README.md)" -le 300 ] || { say "  README.md: $(wc -l <README.md) lines"; fail=1; }
exit $fail
