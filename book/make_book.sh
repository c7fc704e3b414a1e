#!/bin/sh
# Rebuilds book/standard_book.db from GPS Shogi's opening book (joseki.dat, OSL
# WeightedBook, Debian package gpsshogi-data, GPL-2+: 58 818 positions and 73 498 moves
# from real games) with the project's own tools and GPS Shogi's own engine:
#   1. convert joseki.dat to DB2016 (weights become counts, weight-0 moves dropped, the
#      positions left without moves with them);
#   2. prune: keep what games from the start position reach within 20 plies, following the
#      book's moves and the opponent's deviations into book positions (joseki.dat drops
#      GPS's never-play moves as weight 0, but keeps the positions after them);
#   3. think: search every leaf (a book move into a position the pruned book lacks) with
#      gpsusi through the engine pool, at a fixed node count (its --node-count-hard-limit;
#      gpsusi has no `go nodes`), its own book off, with a byoyomi (60 s) so long that
#      the clock never decides (at `byoyomi 5000` a loaded machine made gpsusi stop on time
#      first, and a rerun gave other scores);
#   4. minimax (colour-flipped twins joined): every book move gets the back-propagated
#      score, and its depth becomes the distance to the leaf;
#   5. what ships is the first 8 plies of that (SHIP_PLIES), scored by the 20-ply analysis:
#      against gpsusi (which plays from this same joseki.dat) the whole book measured
#      -32 Elo and the 8-ply cut +2 against no book (book/README.md, "Proof in games");
#      written sorted (on-the-fly ready) and checked.
# Every step's output goes to book/make_book.log. Nearly deterministic with one engine:
# fixed inputs, a fixed node count on one gpsusi thread, the positions in a fixed order
# through one process; a rerun on a loaded machine still gave other answers for 14 of 2 826
# leaves (gpsusi's node limit is not exact), so 8 of 1 572 move lines differed (see
# book/README.md). With ENGINES=2 the split between the processes, and so the scores,
# vary too (gpsusi keeps its hash). About 17 minutes of one core.
# Usage, from the repository root after `make`:
#   book/make_book.sh [HAYANAGI] [WORKDIR]
set -eu
H=${1:-build/hayanagi}
W=${2:-/tmp/hayanagi_book_work}
JOSEKI=${JOSEKI:-/usr/share/gpsshogi-data/data/joseki.dat}
GPSUSI=${GPSUSI:-/usr/games/gpsusi}
NODES=${NODES:-50000}
PLIES=${PLIES:-20}
SHIP_PLIES=${SHIP_PLIES:-8}
ENGINES=${ENGINES:-1}
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
# 3. every leaf searched by gpsusi (the journal makes a killed run resumable). gpsusi saves
#    the options it is given in its gpsusi.conf, so every option it relies on is passed.
set --
i=0
while [ "$i" -lt "$ENGINES" ]; do
    set -- "$@" --engine "$GPSUSI --node-count-hard-limit $NODES"
    i=$((i + 1))
done
step nice "$H" book think "$W/pruned.db" "$W/thought.db" "$@" --engine-option BookDepth=0 \
    --engine-option LimitDepth=10 --engine-option Thread=1 --go "byoyomi 60000" --multipv 1 --quiet
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
