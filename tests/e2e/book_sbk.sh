#!/usr/bin/env bash
# `hayanagi book info/lookup/convert` on ShogiHome's real SBK files, the db <-> sbk round
# trip, and the engine playing from an .sbk BookFile.
. "$(dirname "$0")/lib.sh"
S=../shared/refdata/sbk/shogihome
T=$(mktemp -d /tmp/hayanagi_book_sbk.XXXXXX)
trap 'rm -rf "$T"' EXIT

out=$("$HAYANAGI" book info $S/shogigui02.sbk 2>&1); expect_status "info" 0 $?
expect_contains "info format" "$out" "ShogiGUI/ShogiHome SBK"
expect_contains "info states" "$out" "states     132 (132 indexed, 1 roots, 0 not reached), ids == index"
expect_contains "info author" "$out" "author     (none)"
out=$("$HAYANAGI" book info $S/shogigui01.sbk 2>&1); expect_status "info 01" 0 $?
expect_contains "info 01 author" "$out" "author     Kubo, Ryosuke"
expect_contains "info 01 evals" "$out" "3 engine analysis record(s)"

out=$("$HAYANAGI" book lookup $S/shogigui02.sbk startpos 2>&1); expect_status "lookup" 0 $?
expect_contains "lookup entry" "$out" "book entry: 4 move(s), ply 1"
expect_contains "lookup weight" "$out" "7g7f"
out=$("$HAYANAGI" book lookup $S/shogigui02.sbk sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 2>&1); expect_status "lookup miss" 3 $?

out=$("$HAYANAGI" book convert --quiet $S/shogigui01.sbk $T/01.db 2>&1); expect_status "01 to db" 0 $?
expect_contains "01 to db analyses" "$out" "Unsupported: 3 engine analyses (SBookEval) are not kept in DB2016"
out=$("$HAYANAGI" book convert --quiet $S/shogigui01.sbk $T/01.sbk 2>&1); expect_status "01 to sbk" 0 $?
expect_not_contains "01 to sbk: nothing unsupported" "$out" "Unsupported"
out=$("$HAYANAGI" book info $T/01.sbk 2>&1); expect_status "info 01 re-written" 0 $?
expect_contains "analyses kept" "$out" "3 engine analysis record(s)"

out=$("$HAYANAGI" book convert --quiet $S/shogigui02.sbk $T/a.db 2>&1); expect_status "to db" 0 $?
expect_contains "to db unsupported" "$out" "Unsupported: game and win totals and evaluation marks are not kept in DB2016 (move counts are"
out=$("$HAYANAGI" book convert --quiet $T/a.db $T/b.sbk 2>&1); expect_status "to sbk" 0 $?
expect_contains "to sbk" "$out" "wrote $T/b.sbk"
out=$("$HAYANAGI" book convert --quiet $T/b.sbk $T/c.db 2>&1); expect_status "back to db" 0 $?
cmp -s $T/a.db $T/c.db || fail "db -> sbk -> db changed the book"
out=$("$HAYANAGI" book convert --quiet ../shared/refdata/db/shogihome/yaneuraou.db $T/y.sbk 2>&1)
expect_status "db with ponders" 0 $?
expect_contains "ponder unsupported" "$out" "Unsupported:"
expect_contains "ponder unsupported 2" "$out" "ponder"

# the engine plays from an .sbk book (BookDepthLimit 0: SBK moves have no depth here)
cp $S/shogigui02.sbk $T/book.sbk
out=$(printf 'usi\nsetoption name BookDir value %s\nsetoption name BookFile value book.sbk\nsetoption name BookDepthLimit value 0\nisready\nposition startpos\ngo btime 1000 wtime 1000\nquit\n' "$T" | timeout 20 "$HAYANAGI" 2>&1)
expect_contains "engine book loaded" "$out" "book loaded $T/book.sbk (132 positions, "
expect_contains "engine book move" "$out" "bestmove"
finish
