# bash completion for cutap (installed by `make install`).
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
    case $prev in
        -o) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        -e)
            if [[ $cur == layer=* ]]; then
                COMPREPLY=($(compgen -P layer= -W "$layers" -- "${cur#layer=}"))
            fi
            return ;;
        --format)
            case $cmd in
                export) COMPREPLY=($(compgen -W "perfetto perfetto-proto sqlite jsonl" -- "$cur")) ;;
                *) COMPREPLY=($(compgen -W "text csv json" -- "$cur")) ;;
            esac
            return ;;
        --by) COMPREPLY=($(compgen -W "process thread rank object" -- "$cur")); return ;;
    esac
    local opts
    case $cmd in
        trace) opts="-o -e --runtime=all --runtime=symbols --runtime=cupti --no-nvtx --help --" ;;
        stat) opts="-o --force -e --time-all --runtime=all --runtime=symbols --runtime=cupti --help --" ;;
        report) opts="--format --by --tree --failed --errors --requests -e --from --to --help" ;;
        dump) opts="--pid --tid --failed --min-duration -t --absolute --no-demangle -e --from --to --help" ;;
        ps) opts="--help" ;;
        freeze) opts="--help" ;;
        export) opts="--format -o --force -e --from --to --help" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.cutap' -- "$cur"))
    fi
}
complete -F _cutap cutap
