#!/usr/bin/env bash
# How many plies games against fairy-stockfish stay in a book: plays GAMES games of
# Hayanagi (alpha-beta, playing from BOOK) against fairy-stockfish at fixed nodes from the
# start position (colours alternate; the book's random choice varies the games), then
# replays each game and reports the first ply whose position BOOK lacks. BookDepthLimit
# is 0 so that shallow (e.g. minimaxed) entries are played; BookSeed 1 makes runs repeat.
# Usage: bench/book_coverage.sh BOOK [GAMES] [NODES]
set -eu
label=$1
book=$(readlink -f "$1")
games=${2:-20}
nodes=${3:-20000}
bin=${HAYANAGI:-build/hayanagi}
fsf=${FAIRY:-/usr/games/fairy-stockfish}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" match --engine "$bin" --engine "$fsf" --games "$games" --nodes "$nodes" --max-moves 60 \
    --option1 BookDir="$(dirname "$book")" --option1 BookFile="$(basename "$book")" \
    --option1 BookSeed=1 --option1 BookDepthLimit=0 --log "$dir/log" >/dev/null 2>&1
# the last position sent to either engine in each game holds the whole game
awk '/ e1 > usinewgame/ { if (line != "") print line; line = "" }
     / e[12] > position startpos/ { sub(/.* e[12] > position startpos( moves)?/, ""); line = $0 }
     END { if (line != "") print line }' "$dir/log" > "$dir/games"
total=0 n=0 min=9999 max=0
while read -r moves; do
    set -- $moves
    ply=0
    played=""
    while :; do
        if ! "$bin" book lookup "$book" startpos ${played:+moves $played} >/dev/null 2>&1; then break; fi
        [ $# -eq 0 ] && break
        played="$played $1"; shift; ply=$((ply + 1))
    done
    total=$((total + ply)); n=$((n + 1))
    [ "$ply" -lt "$min" ] && min=$ply
    [ "$ply" -gt "$max" ] && max=$ply
done < "$dir/games"
positions=$(grep -c '^sfen ' "$book" || true)
awk -v t="$total" -v n="$n" -v lo="$min" -v hi="$max" -v p="$positions" -v b="$label" \
    'BEGIN { printf "%s: %d positions; %d games: %.1f plies in book on average (min %d, max %d)\n", b, p, n, t / n, lo, hi }'
