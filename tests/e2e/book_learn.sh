#!/usr/bin/env bash
# book learn on the match records the shipped book learned from (the s27 and s28 files of book/records: 1836
# games of Hayanagi against gpsusi) and its command line. The figures were checked
# against an independent script over `book records --moves` (group means per file and
# colour, differences shrunk by 100 prior games; it scored the 4 games without a result as
# draws, which learn skips): the same 51 positions and moves.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
out=$("$HAYANAGI" book learn --player 'hayanagi*' --max-ply 10 --min-games 20 --prior 100 --quiet \
      book/records/s27-*.csa book/records/s28-*.csa "$T/l.db" 2>&1)
expect_status "learn" 0 $?
expect_contains "learn summary" "$out" "wrote $T/l.db: 51 positions, 51 moves; 51 chosen (10 where the chosen move is not the one played most), from 1832 sides played by 'hayanagi*' in 1836 games; 913 positions seen"
db=$(cat "$T/l.db")
expect_contains "learn start" "$db" "#learn 7g7f: 694 games, mean result 0.703, value +0.0017 (chosen)"
expect_contains "learn start 2g2f" "$db" "#learn 2g2f: 223 games, mean result 0.682, value -0.0042"
out=$("$HAYANAGI" book lookup "$T/l.db" startpos moves 7g7f 3c3d 2g2f 2>&1)
expect_contains "learn white choice" "$out" "engine would play 8c8d"
# SBK output; the same choices
"$HAYANAGI" book learn --player 'hayanagi*' --max-ply 10 --quiet book/records/s28-nobook.csa "$T/l.sbk" >/dev/null 2>&1
expect_status "learn sbk" 0 $?
out=$("$HAYANAGI" book info "$T/l.sbk" 2>&1); expect_contains "learn sbk info" "$out" "SBK"
# errors: usage, a player nobody is (the old output untouched), a record that is missing,
# an output named like a record
out=$("$HAYANAGI" book learn --help 2>&1); expect_status "learn help" 0 $?
expect_contains "learn help" "$out" "usage: hayanagi book learn --player PATTERN"
"$HAYANAGI" book learn book/records/s28-nobook.csa "$T/x.db" >/dev/null 2>&1; expect_status "learn no player" 2 $?
"$HAYANAGI" book learn --player x --min-games 0 book/records/s28-nobook.csa "$T/x.db" >/dev/null 2>&1
expect_status "learn min-games 0" 2 $?
echo keep > "$T/old.db"
out=$("$HAYANAGI" book learn --player Hayanagi --quiet book/records/s28-nobook.csa "$T/old.db" 2>&1)
expect_status "learn nobody" 1 $?
expect_contains "learn nobody" "$out" "no game with a result was played by a player matching 'Hayanagi'"
[ "$(cat "$T/old.db")" = keep ] || fail "learn nobody: the old output was changed"
out=$("$HAYANAGI" book learn --player 'hayanagi*' --quiet /nonexistent.csa "$T/x.db" 2>&1)
expect_status "learn missing record" 1 $?
expect_contains "learn missing record" "$out" "/nonexistent.csa"
[ -e "$T/x.db" ] && fail "learn missing record: output written"
"$HAYANAGI" book learn --player x book/records/s28-nobook.csa "$T/x.csa" >/dev/null 2>&1
expect_status "learn output named like a record" 2 $?
finish
