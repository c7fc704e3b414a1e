#!/bin/sh
# Rebuilds book/standard_book.db from GPS Shogi's opening book (joseki.dat, OSL
# WeightedBook, Debian package gpsshogi-data, GPL-2+: 58 818 positions and 73 498 moves
# from real games) with the project's own tools:
#   1. convert joseki.dat to DB2016 (weights become counts, weight-0 moves dropped, the
#      positions left without moves with them);
#   2. prune: keep what games from the start position reach within 24 plies, following the
#      book's moves and the opponent's deviations into book positions (joseki.dat drops
#      GPS's never-play moves as weight 0, but keeps the positions after them);
#   3. think: search every leaf (a book move into a position the pruned book lacks) with
#      Hayanagi at a fixed node count;
#   4. minimax (colour-flipped twins joined): every book move gets the back-propagated
#      score, and its depth becomes the distance to the leaf;
#   5. the result is written sorted (on-the-fly ready) and checked.
# Every step's output goes to book/make_book.log. Deterministic: fixed inputs, fixed node
# counts, each position searched alone with a cleared hash. About 15 minutes of two cores.
# Usage, from the repository root after `make`:
#   book/make_book.sh [HAYANAGI] [WORKDIR]
set -eu
H=${1:-build/hayanagi}
W=${2:-/tmp/hayanagi_book_work}
JOSEKI=${JOSEKI:-/usr/share/gpsshogi-data/data/joseki.dat}
NODES=${NODES:-50000}
LOG=book/make_book.log
mkdir -p "$W"
: > "$LOG"
step() { echo "\$ $*" >> "$LOG"; "$@" 2>&1 | grep -v '^\(reading\|writing\|thinking\|minimax\)' | tee -a "$LOG"; }
sha256sum "$JOSEKI" >> "$LOG"
# 1. joseki.dat -> DB2016 (--from osl where the tree still has that flag; otherwise the
#    format is found by content)
if "$H" book info --from osl "$JOSEKI" > /dev/null 2>&1; then
    step "$H" book convert --from osl "$JOSEKI" "$W/joseki.db"
else
    step "$H" book convert "$JOSEKI" "$W/joseki.db"
fi
# 2. what games from the start position reach, up to ply 24
step "$H" book prune --max-ply 24 --through-legal --quiet "$W/joseki.db" "$W/pruned.db"
# 3. every leaf searched by Hayanagi (the journal makes a killed run resumable)
step nice "$H" book think "$W/pruned.db" "$W/thought.db" --nodes "$NODES" --multipv 1 --threads 2 --quiet
# 4. leaf scores back-propagated, colour-flipped twins joined
step "$H" book minimax --flipped --quiet "$W/thought.db" "$W/minimax.db"
cp "$W/minimax.db" book/standard_book.db
step "$H" book check book/standard_book.db
step "$H" book info book/standard_book.db
for line in "startpos" "startpos moves 7g7f" "startpos moves 2g2f"; do
    # shellcheck disable=SC2086
    step "$H" book lookup book/standard_book.db $line
done
