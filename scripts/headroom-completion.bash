# headroom-completion.bash — bash completion for headroom (make install puts it in
# <prefix>/share/bash-completion/completions/headroom). Commands and flags are read from
# the binary's own --help, kernels from `headroom list`, so they never go stale.
_headroom()
{
    local cur prev cmd
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cmd=${COMP_WORDS[1]}
    local bin=${COMP_WORDS[0]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$("$bin" --help 2>/dev/null | awk '/^  [a-z]/ { print $1 }') --help --version" -- "$cur"))
        return
    fi
    case $prev in
    --kernel|--kernels|--filter)
        COMPREPLY=($(compgen -W "$("$bin" list 2>/dev/null | awk 'NR > 1 && /^[a-z]/ { print $1 }') all" -- "$cur"))
        return ;;
    --out|--resume|--save|--ceilings|--wisdom|--models|--crossover|--kvcache|--decode|--config)
        COMPREPLY=($(compgen -f -- "$cur"))
        return ;;
    --format)
        COMPREPLY=($(compgen -W "table csv json markdown" -- "$cur"))
        return ;;
    --isa)
        COMPREPLY=($(compgen -W "generic avx2 avx512" -- "$cur"))
        return ;;
    --dtype|--kv-dtype)
        COMPREPLY=($(compgen -W "f32 bf16 f16 q8_0 q4_0" -- "$cur"))
        return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$("$bin" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _headroom headroom
