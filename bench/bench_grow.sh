#!/usr/bin/env bash
# bench/bench_grow.sh - what `book grow` costs over `match` playing the same games: games
# per hour (wall clock) and CPU seconds (the engines' included) of each, medians of
# GROW_BENCH_RUNS runs taken in turn, the ratios, the machine's core count and load. Run
# by `make bench` (never by `make test`).
#
# The same games: this binary against itself at fixed nodes (grow: --nodes-jitter 0), the
# player with its own book off in both, every game from the one opening "startpos moves
# 7g7f" (match --openings, grow --startmoves) and grow at --max-ply 1 on an empty book, so
# the tree never supplies a move (the opening covers ply 1; the hook is still asked at every
# player move). The script checks that both wrote the same moves, game by game.
#
# Settings: GROW_BENCH_GAMES (6), GROW_BENCH_NODES (3000), GROW_BENCH_MAX_MOVES (200),
# GROW_BENCH_RUNS (3), HAYANAGI (build/hayanagi).
set -eu
h=${HAYANAGI:-build/hayanagi}
games=${GROW_BENCH_GAMES:-6}
nodes=${GROW_BENCH_NODES:-3000}
max_moves=${GROW_BENCH_MAX_MOVES:-200}
runs=${GROW_BENCH_RUNS:-3}
case "$h" in /*) ;; *) h="$PWD/$h" ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
printf '#YANEURAOU-DB2016 1.00\n' >"$T/empty.db"
echo "startpos moves 7g7f" >"$T/open.txt"

# the moves of every game of the CSA files given, one game a line
moves_of() { awk 'FNR == 1 && s != "" { print s; s = "" } /^\/$/ { print s; s = ""; next } /^[+-][0-9]/ { s = s substr($0, 1, 7) " " } END { if (s != "") print s }' "$@"; }
# runs a command under /usr/bin/time; appends "wall cpu" to file $1
timed() {
    local f=$1
    shift
    /usr/bin/time -f '%e %U %S' -o "$T/t" "$@" >/dev/null 2>"$T/err" || {
        echo "bench_grow: failed: $*" >&2
        cat "$T/err" >&2
        exit 1
    }
    awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$T/t" >>"$f"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: >"$T/match.t"
: >"$T/grow.t"
for r in $(seq 1 "$runs"); do
    rm -rf "$T/m.csa" "$T/rec"
    timed "$T/match.t" "$h" match --engine "$h" --engine "$h" --option1 USI_OwnBook=false --games "$games" \
        --nodes "$nodes" --max-moves "$max_moves" --openings "$T/open.txt" --out "$T/m.csa"
    timed "$T/grow.t" "$h" book grow "$T/empty.db" "$T/out.db" --records "$T/rec" --games "$games" \
        --opponent "$h" --nodes "$nodes" --nodes-jitter 0 --max-moves "$max_moves" --max-ply 1 \
        --startmoves "$T/open.txt" --quiet
    if [ "$(moves_of "$T/m.csa")" != "$(moves_of "$T"/rec/grow-*.csa)" ]; then
        echo "bench_grow: run $r: match and grow played different games" >&2
        exit 1
    fi
done
plies=$(moves_of "$T/m.csa" | awk '{ n += NF } END { print n }')
mw=$(awk '{ print $1 }' "$T/match.t" | median)
mc=$(awk '{ print $2 }' "$T/match.t" | median)
gw=$(awk '{ print $1 }' "$T/grow.t" | median)
gc=$(awk '{ print $2 }' "$T/grow.t" | median)
echo "book grow vs match: $games games ($plies plies, identical moves in both) at nodes $nodes, medians of $runs runs"
echo "cores $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg)"
paste "$T/match.t" "$T/grow.t" | awk '{ printf "  run %d: match wall %.2f s cpu %.2f s, grow wall %.2f s cpu %.2f s\n", NR, $1, $2, $3, $4 }'
awk -v g="$games" -v mw="$mw" -v mc="$mc" -v gw="$gw" -v gc="$gc" 'BEGIN {
    printf "  match  %8.1f games/hour  wall %7.2f s  cpu %7.2f s\n", g * 3600 / mw, mw, mc
    printf "  grow   %8.1f games/hour  wall %7.2f s  cpu %7.2f s\n", g * 3600 / gw, gw, gc
    printf "  grow / match: wall %.3f, cpu %.3f (target: at most 1.05); grow - match: %.3f s wall a game\n",
        gw / mw, gc / mc, (gw - mw) / g
}'
