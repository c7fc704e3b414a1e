#!/usr/bin/env bash
# book build --scores-from-comments on real records (../shared/refdata): floodgate's
# "'** <score> <pv>" CSA comments and ShogiHome's KIF "*#評価値=" / "*#詰み=" comments,
# all from black's view, become the move's score from the mover's view, averaged over the
# games that give one (expected values read off the files by hand).
. "$(dirname "$0")/lib.sh"
R=../shared/refdata
T=$(mktemp -d /tmp/hayanagi_book_scores.XXXXXX)
trap 'rm -rf "$T"' EXIT
FG="$R/csa/shogi-server/wdoor+floodgate-900-0+gps_normal+gps_l+20100507120007.csa"
out=$("$HAYANAGI" book build --scores-from-comments --from "$FG" $R/kif/shogihome/book-source-with-score-src0*.kifu \
      --max-ply 12 --quiet "$T/s.db" 2>&1); expect_status "build scores" 0 $?
expect_contains "build scores summary" "$out" "scores from comments: 12 moves scored from 14 samples"
db=$(cat "$T/s.db")
# floodgate move 12, white 5a6b: "'** 267 ..." (black's view) is -267 for white
expect_contains "floodgate sign" "$db" "5a6b 5g5f -267 none 1"
# ShogiHome move 5, black 6g6f: -102 and -72 in two records: mean -87 for black
expect_contains "shogihome mean" "$db" "6g6f 8d8e -87 none 3"
expect_contains "samples" "$db" "#scores from comments: 2 samples"
# ShogiHome move 6, white 8d8e: -97 and -68 from black's view: +82.5 for white, rounded to 83
expect_contains "shogihome white" "$db" "8d8e 8h7g 83 none 3"
# mates: move 9 (black) "先手勝ち", move 10 (white) "後手勝ち": both +32000 for the mover
expect_contains "mate black" "$db" "1g1f 5a4b 32000 none 3"
expect_contains "mate white" "$db" "5a4b none 32000 none 3"
# floodgate's "'** 0" lines score 0; moves without a comment stay unscored
expect_contains "zero" "$db" "7g7f 8c8d 0 none 4"
expect_contains "unscored" "$db" "3c3d 6g6f none none 3"
# without the option nothing is scored
"$HAYANAGI" book build --from "$FG" --max-ply 12 --quiet "$T/n.db" >/dev/null 2>&1
expect_not_contains "no option" "$(cat "$T/n.db")" "-267"
finish
