#!/bin/sh
# Rebuilds book/standard_book.db from nothing but this repository and fairy-stockfish
# (Debian package fairy-stockfish). Every step is deterministic: the openings come from a
# seed, both engines play at fixed nodes on one thread, think searches to a fixed depth.
# About 20 minutes of one core (nice'd). Usage, from the repository root after `make`:
#   book/make_book.sh [HAYANAGI] [WORKDIR]
set -eu
H=${1:-build/hayanagi}
W=${2:-/tmp/hayanagi_book_work}
FS=${FAIRY_STOCKFISH:-/usr/games/fairy-stockfish}
mkdir -p "$W"
# 1. 60 random start lines of 2-4 plies
"$H" book openings --count 60 --plies 2-4 --seed 1 "$W/openings.txt"
# 2. 120 sparring games (each line twice, colours swapped), Hayanagi without its book
#    against fairy-stockfish, 20000 nodes a move, cut at move 60 (the book keeps 24 plies)
nice "$H" match --engine "$H" --engine "$FS" --name hayanagi --name fairy-stockfish \
    --option1 USI_OwnBook=false --nodes 20000 --games 120 --max-moves 60 --concurrency 1 \
    --openings "$W/openings.txt" --out "$W/sparring.csa"
# 3. count the moves of plies 1-24
"$H" book build --from "$W/sparring.csa" --max-ply 24 --quiet "$W/built.db"
# 4. search every position with fewer than 2 candidates and every leaf (to ply 25)
nice "$H" book think "$W/built.db" "$W/thought.db" --depth 10 --multipv 2 --max-ply 25 --threads 1 --quiet
# 5. back-propagate the leaf scores, colour-flipped twins joined
"$H" book minimax --flipped --quiet "$W/thought.db" "$W/minimax.db"
# 6. one more round near the start position: the new leaves of plies 1-8, then minimax
nice "$H" book think "$W/minimax.db" "$W/thought2.db" --depth 10 --multipv 2 --max-ply 8 --startmoves startpos \
    --threads 1 --quiet
"$H" book minimax --flipped --quiet "$W/thought2.db" "$W/minimax2.db"
cp "$W/minimax2.db" book/standard_book.db
"$H" book check book/standard_book.db
