#!/bin/sh
# Rebuilds book/standard_book.db from GPS Shogi's opening book (joseki.dat, OSL
# WeightedBook, Debian package gpsshogi-data, GPL-2+: 58 818 positions and 73 498 moves
# from real games) with the project's own tools and GPS Shogi's own engine:
#   1. convert joseki.dat to DB2016 (weights become counts, weight-0 moves dropped, the
#      positions left without moves with them);
#   2. prune: keep what games from the start position reach within PLIES (10) plies,
#      following the book's moves and the opponent's deviations into book positions
#      (joseki.dat drops GPS's never-play moves as weight 0, but keeps the positions after
#      them);
#   3. think: search every leaf (a book move into a position the pruned book lacks) with
#      gpsusi through the engine pool, to a fixed depth (its LimitDepth, GPS_DEPTH), its own
#      book off, with a byoyomi (60 s) so long that the clock never decides, and
#      `--engine-newgame` so that each leaf is searched from a fresh start whichever of the
#      ENGINES processes gets it (THINKER=hayanagi searches the leaves and the thin
#      positions with Hayanagi's own search at NODES nodes instead: measured worse, see
#      book/README.md);
#   4. minimax (colour-flipped twins joined): every book move gets the back-propagated
#      score, and its depth becomes the distance to the leaf;
#   5. the first SHIP_PLIES (4) plies of that: against gpsusi, which plays from this same
#      joseki.dat, the 8- and 10-ply cuts measured below no book, the 4-ply cut level
#      with it (book/README.md, "Proof in games");
#   6. learn: in every position Hayanagi met within LEARN_PLIES (10) plies of its own
#      games against gpsusi (RECORDS: the s27 and s28 files of book/records, 1836 games of
#      earlier measurements; the book learned from them is the prior of step 8), the move
#      whose results beat Hayanagi's mean in the same match by most, shrunk by 100 prior
#      games, among the moves played in 20 games or more (docs/book_making.md, "learn");
#   7. the learned positions, and the thought 4-ply cut where nothing was learned (merge,
#      prefer-first): the book that shipped before the grown one, IN of step 8;
#   8. grow: the book as a tree of games (docs/book_making.md, "grow"), rebuilt with
#      `--games 0` from GROW_RECORDS: the records of book/records played at today's
#      settings (s28, s29: Hayanagi at byoyomi 200 ms against gpsusi with its book; the s27
#      files are left out: gpsusi lost many of those games on time, Hayanagi scored 73-90 %
#      there against 45-70 % since) with Hayanagi's names made the player's, and every
#      game of book/grow-records (played by `book grow` itself); learned moves are scored
#      by their lower confidence bound (CONFIDENCE standard errors), and the start position
#      keeps ROOT_MOVES (7g7f, 2g2f) only (`--root-moves`: the records' other first moves
#      still count as games, they are not listed nor played there);
#   9. the replies layer (REPLIES_PLY 5; 0: none): every position one legal move off the
#      tree, up to SFEN move number REPLIES_PLY, searched by gpsusi as in step 3 (`book
#      think --frontier replies`), so that an opponent's first deviations are answered
#      from the book (book/README.md measures it); the node counts gpsusi reports vary
#      from run to run at a fixed depth (its moves, scores and depths do not), so they are
#      dropped from the provenance comments;
#  9b. the line-replies layer (LINES_PLY 9; 0: none): on the lines each colour plays
#      (its best book move, every listed move of the other side), every position one
#      legal move of the other side off them, up to SFEN move LINES_PLY, searched the
#      same way (`book think --frontier line-replies`, black's lines, then white's), so
#      that an opponent's deviations up to move 8 are answered on the lines Hayanagi
#      actually plays;
#  9c. the predicted layer (PREDICT_PLY 13; 0: none): on the lines each colour plays,
#      followed past the book through every reply the book answers and the other side's
#      PREDICT_K likeliest moves (Hayanagi's own search, MultiPV PREDICT_K to depth
#      PREDICT_DEPTH), the positions the book lacks, answered by Hayanagi's own search to
#      depth PREDICT_ANSWER_DEPTH in this process (`book think --frontier predicted`,
#      black's lines, then white's), PREDICT_ROUNDS (3) times, each round answering one
#      more level of predicted replies, so that Hayanagi stays in its book past an
#      opponent's first deviations; the last round also follows every legal move of the
#      other side up to SFEN move WIDE_BLACK (4) on black's lines and WIDE_WHITE (5) on
#      white's (`--all-replies-to`), for the quiet early moves no prediction names;
#  10. what ships is written sorted (on-the-fly ready) and checked.
# Deterministic: fixed inputs (the log starts with joseki.dat's and the records' SHA-256
# and gpsusi's version), a fixed depth, each leaf searched as if first, the provenance date
# SOURCE_DATE_EPOCH (joseki.dat's modification time unless set), and learning that is a
# pure function of the records: three runs, with one engine process and with two, shipped
# the same bytes for steps 1-5 (the analyses differed only in a few node counts that gpsusi
# reports on a timer; book/README.md), a fourth, with steps 6-7 added, gave step 5 the same
# bytes again, and steps 6-7 rerun gave the same file. About 6 minutes of one core, and
# about 20 more for step 9 and 20 for step 9b (two gpsusi processes in step 9b), and
# about 90 minutes for step 9c's three rounds (two threads: 14 minutes, 50, then 27).
# Usage, from the repository root after `make`:
#   book/make_book.sh [HAYANAGI] [WORKDIR]
set -eu
H=${1:-build/hayanagi}
W=${2:-/tmp/hayanagi_book_work}
JOSEKI=${JOSEKI:-/usr/share/gpsshogi-data/data/joseki.dat}
GPSUSI=${GPSUSI:-/usr/games/gpsusi}
THINKER=${THINKER:-gpsusi}
GPS_DEPTH=${GPS_DEPTH:-6}
NODES=${NODES:-1500000}
PLIES=${PLIES:-10}
SHIP_PLIES=${SHIP_PLIES:-4}
LEARN_PLIES=${LEARN_PLIES:-10}
RECORDS=${RECORDS:-"book/records/s27-*.csa book/records/s28-*.csa"}
GROW_RECORDS=${GROW_RECORDS:-"book/records/s28-*.csa book/records/s29*.csa book/grow-records/*.csa"}
CONFIDENCE=${CONFIDENCE:-1}
ROOT_MOVES=${ROOT_MOVES:-7g7f,2g2f}
REPLIES_PLY=${REPLIES_PLY:-5}
LINES_PLY=${LINES_PLY:-9}
PREDICT_PLY=${PREDICT_PLY:-13}
PREDICT_K=${PREDICT_K:-3}
PREDICT_DEPTH=${PREDICT_DEPTH:-10}
PREDICT_ANSWER_DEPTH=${PREDICT_ANSWER_DEPTH:-11}
PREDICT_ROUNDS=${PREDICT_ROUNDS:-3}
WIDE_BLACK=${WIDE_BLACK:-4}
WIDE_WHITE=${WIDE_WHITE:-5}
ENGINES=${ENGINES:-1}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(stat -c %Y "$JOSEKI")}
export SOURCE_DATE_EPOCH
LOG=book/make_book.log
mkdir -p "$W"
# gpsusi writes the options it is given into its global configuration file; put it back
GPS_CONF=${GPS_CONF:-/usr/share/gpsshogi-data/gpsusi.conf}
if [ -f "$GPS_CONF" ] && [ -w "$GPS_CONF" ]; then
    cp "$GPS_CONF" "$W/gpsusi.conf.saved"
    trap 'cp "$W/gpsusi.conf.saved" "$GPS_CONF"' EXIT
    # a shell runs the EXIT trap on a signal only if the signal's trap exits
    trap 'exit 130' INT
    trap 'exit 143' TERM
fi
: > "$LOG"
# step CMD...: runs CMD, its output (less progress lines) to the terminal and the log; a
# failing step stops the script with its exit status (a pipeline's status is tee's, so the
# command's own is passed through a file; `|| st=$?` because under `set -e` a bare failing
# command would end the group before it wrote its status)
step() {
    echo "\$ $*" >> "$LOG"
    { st=0; "$@" 2>&1 || st=$?; echo "$st" > "$W/step.status"; } | grep -v '^\(reading\|writing\|thinking\|minimax\)' | tee -a "$LOG"
    status=$(cat "$W/step.status")
    if [ "$status" != 0 ]; then
        echo "make_book.sh: step failed (exit $status): $*" | tee -a "$LOG" >&2
        exit "$status"
    fi
}
# shellcheck disable=SC2086
sha256sum "$JOSEKI" $RECORDS $GROW_RECORDS | sort -k2 -u >> "$LOG"
"$GPSUSI" --version 2>/dev/null | head -1 >> "$LOG" || true
# 1. joseki.dat -> DB2016 (the format is found by content)
step "$H" book convert "$JOSEKI" "$W/joseki.db"
# 2. what games from the start position reach, up to ply $PLIES
step "$H" book prune --max-ply "$PLIES" --through-legal --quiet "$W/joseki.db" "$W/pruned.db"
# 3. leaves and thin positions searched (the journal makes a killed run resumable)
echo "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH THINKER=$THINKER" >> "$LOG"
if [ "$THINKER" = gpsusi ]; then
    # gpsusi saves the options it is given in its gpsusi.conf, so every option it relies
    # on is passed; it has no `go nodes`, and its node limit is checked on a timer, so the
    # budget is a depth
    set --
    i=0
    while [ "$i" -lt "$ENGINES" ]; do
        set -- "$@" --engine "$GPSUSI"
        i=$((i + 1))
    done
    step nice "$H" book think "$W/pruned.db" "$W/thought.db" "$@" --engine-newgame --engine-option BookDepth=0 \
        --engine-option LimitDepth="$GPS_DEPTH" --engine-option Thread=1 --go "byoyomi 60000" --multipv 1 --quiet
else
    # the leaves and the positions with fewer than 2 book moves, MultiPV 2, in this process
    step nice "$H" book think "$W/pruned.db" "$W/thought.db" --nodes "$NODES" --threads "$ENGINES" --hash 64 \
        --multipv 2 --quiet
fi
# 4. leaf scores back-propagated, colour-flipped twins joined
step "$H" book minimax --flipped --quiet "$W/thought.db" "$W/minimax.db"
# 5. the shipped cut: the first $SHIP_PLIES plies (the opponent's deviations into book
#    positions followed, as in step 2)
step "$H" book prune --max-ply "$SHIP_PLIES" --through-legal --quiet "$W/minimax.db" "$W/ship.db"
# 6. the moves that scored best for Hayanagi in its own games
# shellcheck disable=SC2086
step "$H" book learn --player 'hayanagi*' --max-ply "$LEARN_PLIES" --min-games 20 --prior 100 --quiet \
    $RECORDS "$W/learned.db"
# 7. learned positions first, the thought cut elsewhere
step "$H" book merge "$W/learned.db" "$W/ship.db" --policy prefer-first --quiet "$W/learned_cut.db"
# 8. the tree of games: every record a file of its own directory, the player named grow-player
rm -rf "$W/grow" && mkdir -p "$W/grow"
# shellcheck disable=SC2086
for f in $GROW_RECORDS; do
    sed 's/^N\([+-]\)hayanagi-.*/N\1grow-player/' "$f" > "$W/grow/$(basename "$f")"
done
# the first move: only ROOT_MOVES are listed (and valued) at the start position; the
# records also open 1g1f, which won 124 of 152 games against gpsusi at 120 ms and was
# never tried against anything else: an overlay's move, not a default book's
# (book/README.md)
step "$H" book grow "$W/learned_cut.db" "$W/grown.db" --records "$W/grow" --games 0 --confidence "$CONFIDENCE" \
    --root-moves "$ROOT_MOVES" --quiet
# drop_node_counts IN OUT: IN without the node counts of its #think comments (gpsusi
# reports them on a timer, so they vary at a fixed depth; its moves, scores and depths do
# not)
drop_node_counts() {
    sed 's/^\(#think engine=.*\); nodes=[0-9]*; date=/\1; date=/' "$1" > "$2"
}
# 9. the replies layer (gpsusi at GPS_DEPTH, one process, each position as if first)
if [ "$REPLIES_PLY" -gt 0 ]; then
    step nice "$H" book think "$W/grown.db" "$W/replies.db" --engine "$GPSUSI" --engine-newgame \
        --engine-option BookDepth=0 --engine-option LimitDepth="$GPS_DEPTH" --engine-option Thread=1 \
        --go "byoyomi 60000" --multipv 1 --frontier replies --max-ply "$REPLIES_PLY" --quiet
    drop_node_counts "$W/replies.db" "$W/replies.tmp"
    mv "$W/replies.tmp" "$W/replies.db"
else
    cp "$W/grown.db" "$W/replies.db"
fi
# 9b. the line-replies layer: black's lines, then white's (gpsusi as in step 9, two
#     processes: each position is searched as if first, so the split does not matter)
cp "$W/replies.db" "$W/lines.db"
if [ "$LINES_PLY" -gt 0 ]; then
    for side in black white; do
        step nice "$H" book think "$W/lines.db" "$W/lines_$side.db" --engine "$GPSUSI" --engine "$GPSUSI" \
            --engine-newgame --engine-option BookDepth=0 --engine-option LimitDepth="$GPS_DEPTH" \
            --engine-option Thread=1 --go "byoyomi 60000" --multipv 1 --frontier line-replies --eval-diff 100000 \
            --frontier-side "$side" --max-ply "$LINES_PLY" --quiet
        drop_node_counts "$W/lines_$side.db" "$W/lines.db"
    done
fi
# 9c. the predicted layer: black's lines, then white's (predictions and answers by
#     Hayanagi's search in this process: one thread a position, the hash cleared, so the
#     same on every run and with any number of threads)
#     PREDICT_ROUNDS times: each round answers one more level of predicted replies, the
#     last one also every legal move of the other side early on (WIDE_BLACK, WIDE_WHITE) (the
#     rounds share one file of predictions, so a round searches only the new ones; it is
#     this run's: a file of an earlier build would be refused, or could hold its moves)
if [ "$PREDICT_PLY" -gt 0 ]; then
    rm -f "$W/predictions.db"
    for round in $(seq "$PREDICT_ROUNDS"); do
        for side in black white; do
            wide=
            if [ "$round" = "$PREDICT_ROUNDS" ]; then
                if [ "$side" = black ]; then wide="--all-replies-to $WIDE_BLACK"; else wide="--all-replies-to $WIDE_WHITE"; fi
            fi
            # shellcheck disable=SC2086
            step nice "$H" book think "$W/lines.db" "$W/predicted_$side$round.db" --depth "$PREDICT_ANSWER_DEPTH" \
                --threads 2 --multipv 1 --frontier predicted --eval-diff 100000 --frontier-side "$side" \
                --max-ply "$PREDICT_PLY" --predict "$PREDICT_K" --predict-depth "$PREDICT_DEPTH" \
                --predictions "$W/predictions.db" $wide --quiet
            cp "$W/predicted_$side$round.db" "$W/lines.db"
        done
    done
fi
# 10. sorted and checked
step "$H" book sort --quiet "$W/lines.db" "$W/final.db"
cp "$W/final.db" book/standard_book.db
sha256sum book/standard_book.db >> "$LOG"
step "$H" book check book/standard_book.db
step "$H" book info book/standard_book.db
for line in "startpos" "startpos moves 7g7f" "startpos moves 2g2f" "startpos moves 7g7f 3c3d" \
    "startpos moves 2g2f 8c8d"; do
    # shellcheck disable=SC2086
    step "$H" book lookup book/standard_book.db $line
done
