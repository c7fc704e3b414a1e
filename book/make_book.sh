#!/bin/sh
# Rebuilds book/standard_book.db from GPS Shogi's opening book (joseki.dat, OSL
# WeightedBook, Debian package gpsshogi-data, GPL-2+: 58 818 positions and 73 498 moves
# from real games) with the project's own tools and Hayanagi's own search:
#   1. convert joseki.dat to DB2016 (weights become counts, weight-0 moves dropped, the
#      positions left without moves with them);
#   2. prune: keep what games from the start position reach within PLIES (10) plies, following the
#      book's moves and the opponent's deviations into book positions (joseki.dat drops
#      GPS's never-play moves as weight 0, but keeps the positions after them);
#   3. think: search every leaf (a book move into a position the pruned book lacks) and every
#      thin position (fewer than 2 book moves) with Hayanagi's own search in this process,
#      MultiPV 2 at a fixed node count (NODES, about 1.3 s of one core each, some 6 times
#      what the engine searches in a 200 ms game move): the engine's best moves join GPS's,
#      so where Hayanagi's deep search prefers a move the joseki lack, the book has it
#      (THINKER=gpsusi searches the leaves with gpsusi through the engine pool instead, the
#      recipe of the first joseki book);
#   4. minimax (colour-flipped twins joined): every book move gets the back-propagated
#      score, and its depth becomes the distance to the leaf;
#   5. what ships is the first SHIP_PLIES plies of that (all of them by default), written
#      sorted (on-the-fly ready) and checked. book/README.md has the matches.
# Deterministic: fixed inputs (the log starts with joseki.dat's SHA-256), a fixed node
# count, and each position searched from a cleared hash on one thread, so neither the
# order nor the number of threads (THREADS) changes an answer; the provenance date is
# SOURCE_DATE_EPOCH, joseki.dat's modification time unless set. Two runs give the same
# bytes (book/README.md). About 45 minutes of one core (THREADS=2: half that).
# Usage, from the repository root after `make`:
#   book/make_book.sh [HAYANAGI] [WORKDIR]
set -eu
H=${1:-build/hayanagi}
W=${2:-/tmp/hayanagi_book_work}
JOSEKI=${JOSEKI:-/usr/share/gpsshogi-data/data/joseki.dat}
GPSUSI=${GPSUSI:-/usr/games/gpsusi}
THINKER=${THINKER:-hayanagi}
NODES=${NODES:-1500000}
PLIES=${PLIES:-10}
SHIP_PLIES=${SHIP_PLIES:-$PLIES}
THREADS=${THREADS:-1}
GPS_NODES=${GPS_NODES:-50000}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(stat -c %Y "$JOSEKI")}
export SOURCE_DATE_EPOCH
LOG=book/make_book.log
mkdir -p "$W"
: > "$LOG"
step() { echo "\$ $*" >> "$LOG"; "$@" 2>&1 | grep -v '^\(reading\|writing\|thinking\|minimax\)' | tee -a "$LOG"; }
sha256sum "$JOSEKI" >> "$LOG"
"$GPSUSI" --version 2>/dev/null | head -1 >> "$LOG" || true
# 1. joseki.dat -> DB2016 (the format is found by content)
step "$H" book convert "$JOSEKI" "$W/joseki.db"
# 2. what games from the start position reach, up to ply $PLIES
step "$H" book prune --max-ply "$PLIES" --through-legal --quiet "$W/joseki.db" "$W/pruned.db"
# 3. leaves and thin positions searched (the journal makes a killed run resumable)
echo "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH THINKER=$THINKER" >> "$LOG"
if [ "$THINKER" = gpsusi ]; then
    # gpsusi saves the options it is given in its gpsusi.conf, so every option it relies
    # on is passed; it has no `go nodes`, and its node limit is not exact
    step nice "$H" book think "$W/pruned.db" "$W/thought.db" --engine "$GPSUSI --node-count-hard-limit $GPS_NODES" \
        --engine-option BookDepth=0 --engine-option LimitDepth=10 --engine-option Thread=1 --go "byoyomi 60000" \
        --multipv 1 --quiet
else
    step nice "$H" book think "$W/pruned.db" "$W/thought.db" --nodes "$NODES" --threads "$THREADS" --hash 64 \
        --multipv 2 --quiet
fi
# 4. leaf scores back-propagated, colour-flipped twins joined
step "$H" book minimax --flipped --quiet "$W/thought.db" "$W/minimax.db"
# 5. the shipped cut: the first $SHIP_PLIES plies (the opponent's deviations into book
#    positions followed, as in step 2)
step "$H" book prune --max-ply "$SHIP_PLIES" --through-legal --quiet "$W/minimax.db" "$W/ship.db"
cp "$W/ship.db" book/standard_book.db
step "$H" book check book/standard_book.db
step "$H" book info book/standard_book.db
for line in "startpos" "startpos moves 7g7f" "startpos moves 2g2f" "startpos moves 7g7f 3c3d" \
    "startpos moves 2g2f 8c8d"; do
    # shellcheck disable=SC2086
    step "$H" book lookup book/standard_book.db $line
done
