# peers/fairness_args.sh — sourced by each peer's fairness.sh: the flags they share.
# fairness_args "SHAPES" HELP_LINES ARGS...: --pairs N, --threads "1 2", --bind
# unpinned|pinned and shape names (words of SHAPES) into pairs, threads, bind and shapes
# (all of SHAPES when none is named); LOCK is the timing lock (HR_TIMING_LOCK). --help
# prints lines 2 to HELP_LINES of the script; anything else: one line, exit 2.
fairness_args() {
    local known=$1 help=$2
    shift 2
    LOCK=${HR_TIMING_LOCK:-/tmp/hr-timing.lock}
    pairs=3 threads="1 2" bind=unpinned shapes=()
    while [ $# -gt 0 ]; do
        case $1 in
        --pairs) pairs=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --bind) bind=$2; shift 2 ;;
        -h | --help) sed -n "2,${help}p" "$0"; exit 0 ;;
        *)
            [[ " $known " == *" $1 "* ]] || { echo "fairness.sh: unknown argument '$1' (--help)" >&2; exit 2; }
            shapes+=("$1")
            shift
            ;;
        esac
    done
    [ ${#shapes[@]} -gt 0 ] || read -ra shapes <<<"$known"
}
