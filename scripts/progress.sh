# Progress of a long bash script's steps (build-orb), as orbbench.progress
# shows a suite's: "[i/n] WHAT ... (elapsed 1m02s, about 13m10s left)"
# on stderr, one line per step. The estimate scales the time spent by the
# steps' expected shares, given up front (a compile takes most of a
# build), since the steps' times differ by a hundredfold.
# usage: . scripts/progress.sh; progress_plan W1 W2 ...; progress_step WHAT
progress_plan() {
    PROGRESS_WEIGHTS=("$@")
    PROGRESS_I=0
    PROGRESS_T0=$SECONDS
}
progress_duration() {
    local s=$1
    if [ "$s" -lt 60 ]; then echo "${s}s"
    elif [ "$s" -lt 3600 ]; then printf '%dm%02ds\n' $((s / 60)) $((s % 60))
    else printf '%dh%02dm\n' $((s / 3600)) $((s % 3600 / 60)); fi
}
# progress_step WHAT: the next step begins; prints on stderr with PREFIX
# (default "progress: ").
progress_step() {
    local n=${#PROGRESS_WEIGHTS[@]} spent=$((SECONDS - PROGRESS_T0))
    local text left
    PROGRESS_I=$((PROGRESS_I + 1))
    text="elapsed $(progress_duration "$spent")"
    if [ "$PROGRESS_I" -gt 1 ] && [ "$spent" -gt 0 ]; then
        # awk: the shares are decimals.
        left=$(printf '%s\n' "${PROGRESS_WEIGHTS[@]}" | awk -v i="$PROGRESS_I" \
            -v s="$spent" '{ if (NR < i) d += $1; else r += $1 }
            END { if (d > 0) printf "%d", s / d * r }')
        [ -z "$left" ] || text="$text, about $(progress_duration "$left") left"
    fi
    echo "${PROGRESS_PREFIX-progress: }[$PROGRESS_I/$n] $1 ... ($text)" >&2
}
