# bash completion for cutap (installed by `make install`). The options and
# the values they take come from the cutap being completed (`cutap help
# --options CMD`: the table its commands parse with), so they cannot drift.
_cutap()
{
    local cur prev cmd
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cmd=${COMP_WORDS[1]}
    local layers="driver hidden runtime cublas cublasLt cudnn nccl cufft curand cusparse cusolver nvrtc nvJitLink nvtx nvml ioctl"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "trace stat report dump export ps freeze run help --version --help" -- "$cur"))
        return
    fi
    if [ "$cmd" = help ]; then
        COMPREPLY=($(compgen -W "--options trace stat report dump export ps freeze run" -- "$cur"))
        return
    fi
    # after "--", the command being run: complete it as a command
    local i
    for ((i = 2; i < COMP_CWORD; i++)); do
        if [ "${COMP_WORDS[i]}" = "--" ]; then
            if [ $((i + 1)) -eq "$COMP_CWORD" ]; then
                COMPREPLY=($(compgen -c -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return
        fi
    done
    # the table: lines "CMD [-x, ]--name[=ARG]" (ARG: a word like DIR, or values a|b|c)
    local table line opts="" arg=""
    table=$("${COMP_WORDS[0]}" help --options "$cmd" 2>/dev/null) || return
    while read -r line; do
        line=${line#* }
        local short="" long=$line
        if [[ $long == -?,\ * ]]; then short=${long%%,*}; long=${long#*, }; fi
        local name=${long%%[=[]*} a=""
        [[ $long == *=* ]] && a=${long#*=} && a=${a%]}
        opts+=" $short $name"
        if [ "$prev" = "$name" ] || { [ -n "$short" ] && [ "$prev" = "$short" ]; }; then
            [[ $long == *"[="* ]] || arg=${a:-none}
        fi
    done <<<"$table"
    case $arg in
        "") ;;
        none) ;;
        *"|"*) COMPREPLY=($(compgen -W "${arg//|/ }" -- "$cur")); return ;;
        FILE|DIR) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        FILTER)
            if [[ $cur == layer=* ]]; then
                COMPREPLY=($(compgen -P layer= -W "$layers" -- "${cur#layer=}"))
            fi
            return ;;
        *) return ;;
    esac
    case $cmd in trace|stat|run) opts+=" --" ;; esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.cutap' -- "$cur"))
    fi
}
complete -F _cutap cutap
