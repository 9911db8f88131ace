# Progress of a long bash script's steps (build-orb), as orbbench.progress
# shows a suite's: "[i/n] WHAT ... (elapsed 1m02s, about 13m10s left)"
# on stderr, one line per step. The estimate scales the time spent by the
# steps' expected shares, given up front (a compile takes most of a
# build), since the steps' times differ by a hundredfold.
# Inside a long step (progress_wait PID, while the step's command runs)
# the line goes on: on a terminal it is rewritten in place each second,
# the estimate counting down through the step's share; elsewhere (a log,
# a pipe) it is printed again every ORBBENCH_PROGRESS_EVERY seconds
# (default 30: a compile is long). Before any other line, progress_break
# ends the live line.
# The lines go to the stderr the script had when it sourced this (a
# copy, PROGRESS_FD), even from a step whose output goes to its log.
# usage: . scripts/progress.sh; progress_plan W1 W2 ...; progress_step WHAT
exec {PROGRESS_FD}>&2
progress_plan() {
    PROGRESS_WEIGHTS=("$@")
    PROGRESS_I=0
    PROGRESS_T0=$SECONDS
    PROGRESS_LIVE=0
}
progress_duration() {
    local s=$1
    if [ "$s" -lt 60 ]; then echo "${s}s"
    elif [ "$s" -lt 3600 ]; then printf '%dm%02ds\n' $((s / 60)) $((s % 60))
    else printf '%dh%02dm\n' $((s / 3600)) $((s % 3600 / 60)); fi
}
# progress_timing: "elapsed 1m02s, about 13m10s left": the time spent
# before this step over the shares of the steps done, times the shares
# still to come (this one's included), less what this step has taken.
progress_timing() {
    local spent=$((SECONDS - PROGRESS_T0)) in_step=$((SECONDS - ${PROGRESS_STEP_T0:-$SECONDS}))
    local text left
    text="elapsed $(progress_duration "$spent")"
    if [ "$PROGRESS_I" -gt 1 ] && [ "$((spent - in_step))" -gt 0 ]; then
        # awk: the shares are decimals.
        left=$(printf '%s\n' "${PROGRESS_WEIGHTS[@]}" | awk -v i="$PROGRESS_I" \
            -v s="$((spent - in_step))" -v t="$in_step" \
            '{ if (NR < i) d += $1; else r += $1 }
            END { if (d > 0) { l = s / d * r - t; if (l < 1) l = -1; printf "%d", l } }')
        # A step past its estimate says so rather than "about 0s left".
        if [ "$left" = -1 ]; then text="$text, longer than estimated"
        elif [ -n "$left" ]; then text="$text, about $(progress_duration "$left") left"; fi
    fi
    echo "$text"
}
# progress_show LINE: on a terminal the line redrawn in place, else a
# line of its own.
progress_show() {
    if [ -t "$PROGRESS_FD" ]; then
        printf '\r%s\033[K' "$1" >&"$PROGRESS_FD"
        PROGRESS_LIVE=1
    else
        echo "$1" >&"$PROGRESS_FD"
    fi
}
# progress_step WHAT: the next step begins; prints on stderr with PREFIX
# (default "progress: ").
progress_step() {
    local n=${#PROGRESS_WEIGHTS[@]}
    progress_break
    PROGRESS_I=$((PROGRESS_I + 1))
    PROGRESS_WHAT=$1
    PROGRESS_STEP_T0=$SECONDS
    PROGRESS_SHOWN=$SECONDS
    local line="${PROGRESS_PREFIX-progress: }[$PROGRESS_I/$n] $1 ... ($(progress_timing))"
    progress_show "$line"
}
# progress_tick: the step's line again, when it is due (each second on a
# terminal, else every ORBBENCH_PROGRESS_EVERY seconds).
progress_tick() {
    local every=1 n
    [ "${PROGRESS_I:-0}" -gt 0 ] || return 0
    n=${#PROGRESS_WEIGHTS[@]}
    [ -t "$PROGRESS_FD" ] || every=${ORBBENCH_PROGRESS_EVERY:-30}
    [ $((SECONDS - PROGRESS_SHOWN)) -ge "$every" ] || return 0
    PROGRESS_SHOWN=$SECONDS
    local line="${PROGRESS_PREFIX-progress: }[$PROGRESS_I/$n] $PROGRESS_WHAT ... ($(progress_timing))"
    progress_show "$line"
}
# progress_wait PID: tick while PID (a child of this shell) runs; then
# return, leaving its status to `wait PID`. Sleeps in the background, so
# that a signal's trap runs at once.
progress_wait() {
    while kill -0 "$1" 2>/dev/null; do
        sleep 1 &
        wait $! || true
        progress_tick
    done
}
# progress_break: end a live line (a terminal) before another line.
progress_break() {
    if [ "${PROGRESS_LIVE:-0}" = 1 ]; then
        printf '\n' >&"$PROGRESS_FD"
        PROGRESS_LIVE=0
    fi
}
