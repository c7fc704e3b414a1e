#!/usr/bin/env bash
# book report on the real records in ../shared/refdata (CSA and KIF) against a hand-made
# book (tests/e2e/data/report_book.db: 7g7f/2g2f, 3c3d/8c8d after 7g7f, 2g2f after
# 7g7f 3c3d, 8c8d after 2g2f, 2f2e after 2g2f 8c8d). Expected figures worked out by hand
# from the games' first moves (`book records --moves`):
#   multi-game-3 #1, floodgate, habu-fujii: 7g7f 3c3d 2g2f, then out (line end, +40)  3 plies x3
#   multi-game-3 #3 (7g7f 3c3d 2g2f 4c4d): the same                                 3 plies
#   multi-game-3 #2 7g7f 8c8d 7i6h: line end after 8c8d (-40 for white = +40)       2 plies
#   src03 2g2f 8c8d 2f2e: line end (+35)                                             3 plies
#   src04 5g5f: black deviates at once (book best 7g7f, +30)                         0 plies
#   example 2g2f 3c3d: white deviates (book best 8c8d, -25 for white = +25)          1 ply
#   jt201409130101 2g2f 8c8d 7g7f: black deviates (book best 2f2e, +35)              2 plies
# 9 games, 20 plies: mean 2.22, median 3; black 13 book moves, white 7; at plies 1/2/3:
# 8, 7, 5 games; scores 35 30 40 25 40 40 40 40 35: mean +36.1, median +40. Each side's
# own exit (the plies before its first move not from the book; the side that left at
# ply k: k, the other: its next move, none of which the book holds): black 4 x4 (the
# 7g7f 3c3d 2g2f games), 2, 4, 0, 2, 2 = 26, white 3 x4, 3, 3, 1, 1, 3 = 23.
. "$(dirname "$0")/lib.sh"
R=../shared/refdata
B=tests/e2e/data/report_book.db
out=$("$HAYANAGI" book report $B --records $R/csa/derived/multi-game-3.csa $R/csa/shogihome/book-source-src03.csa \
      $R/csa/shogihome/book-source-src04.csa "$R/csa/shogi-server/wdoor+floodgate-900-0+gps_normal+gps_l+20100507120007.csa" \
      $R/csa/json-kifu-format/example.csa $R/kif/python-shogi/habu-fujii-2006.kif \
      $R/kif/json-kifu-format/jt201409130101.kif --plies-at 1,2,3 --top 2 2>&1)
expect_status "report" 0 $?
expect_contains "report games" "$out" "records          7 file(s), 9 games, 0 bad records skipped"
expect_contains "report plies" "$out" "plies in book    mean 2.22, median 3.0"
expect_contains "report sides" "$out" "book moves       black 1.44, white 0.78 a game"
expect_contains "report own exit" "$out" "own book exit    black 2.89, white 2.56 plies a game"
expect_contains "report still" "$out" "still in book    ply 1: 88.9% ply 2: 77.8% ply 3: 55.6%"
expect_contains "report left" "$out" "black to move: 2 deviated, 1 at a line's end; white to move: 1 deviated, 5 at a line's end"
expect_contains "report score" "$out" "9 scored, black's view: mean +36.1, median +40.0"
expect_contains "report top exit" "$out" "      4     0  -         +40  lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL w - 4"
# moves played after the game left the book, from a position the book also holds: the
# book above plus the position after 2g2f 8c8d 7g7f 3c3d (2f2e), which both games below
# reach by other orders. Game 1 (2g2f 8c8d 7g7f 3c3d 2f2e) leaves at its third move (the
# book has 2f2e after 2g2f 8c8d), game 2 (7g7f 3c3d 2g2f 8c8d 2f2e) at the end of the line
# after 2g2f; both then play the book's 2f2e: 2 + 3 plies in book, black's later book
# moves 2 in 2 games, white's none; own exits black 2 and 5 (game 2 ends with its book
# move), white 3 and 3
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
{ cat $B; printf 'sfen lnsgkgsnl/1r5b1/p1pppp1pp/1p4p2/9/2P4P1/PP1PPPP1P/1B5R1/LNSGKGSNL b - 5\n2f2e none 50 1 1\n'; } > "$t/b.db"
printf 'V2.2\nPI\n+\n+2726FU\n-8384FU\n+7776FU\n-3334FU\n+2625FU\n%%TORYO\n/\nPI\n+\n+7776FU\n-3334FU\n+2726FU\n-8384FU\n+2625FU\n%%TORYO\n' > "$t/g.csa"
out=$("$HAYANAGI" book report "$t/b.db" --records "$t/g.csa" 2>&1)
expect_status "report later" 0 $?
expect_contains "report later plies" "$out" "plies in book    mean 2.50, median 2.5"
expect_contains "report later moves" "$out" "book moves later black 1.00, white 0.00 a game"
expect_contains "report later own exit" "$out" "own book exit    black 3.50, white 3.00 plies a game"
# --player: the same two games with names, alice black in the first (her exit 2) and white
# in the second (3); bob is both players' opponent; a third game of alice against herself
# is not counted for her
{ printf 'V2.2\nN+alice\nN-bob\nPI\n+\n+2726FU\n-8384FU\n+7776FU\n-3334FU\n+2625FU\n%%TORYO\n/\n'
  printf 'N+bob\nN-alice\nPI\n+\n+7776FU\n-3334FU\n+2726FU\n-8384FU\n+2625FU\n%%TORYO\n/\n'
  printf 'N+alice\nN-alice\nPI\n+\n+7776FU\n%%TORYO\n'; } > "$t/p.csa"
out=$("$HAYANAGI" book report "$t/b.db" --records "$t/p.csa" --player 'ali*' 2>&1)
expect_status "report player" 0 $?
expect_contains "report player exit" "$out" "player's exit    2.50 plies a game before the player's first move not from the book (2 games: 2.00 as black in 1, 3.00 as white in 1)"
expect_contains "report player both" "$out" "player           1 game(s) where both names match 'ali*' are not the player's"
out=$("$HAYANAGI" book report "$t/b.db" --records "$t/g.csa" 2>&1)
expect_not_contains "report no player" "$out" "player's exit"
# the records option may come first; --help; usage and file errors
out=$("$HAYANAGI" book report --records $R/csa/json-kifu-format/example.csa $B 2>&1); expect_status "report order" 0 $?
expect_contains "report order" "$out" "plies in book    mean 1.00, median 1.0"
out=$("$HAYANAGI" book report --help 2>&1); expect_status "report help" 0 $?
expect_contains "report help" "$out" "usage: hayanagi book report BOOK --records"
"$HAYANAGI" book report $B >/dev/null 2>&1; expect_status "report no records" 2 $?
"$HAYANAGI" book report $B --bogus x >/dev/null 2>&1; expect_status "report bad option" 2 $?
out=$("$HAYANAGI" book report $B --records /nonexistent.csa 2>&1); expect_status "report missing" 1 $?
expect_contains "report missing" "$out" "/nonexistent.csa"
finish
