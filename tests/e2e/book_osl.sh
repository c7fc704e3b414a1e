#!/usr/bin/env bash
# GPS Shogi's joseki.dat (OSL WeightedBook, package gpsshogi-data) through the CLI:
# detected by content, read with its weight-0 moves dropped or kept (--keep-zero),
# converted, looked up (the start position's weights are those gpsusi prints, see
# tests/unit/test_osl.c); a damaged copy is refused with its byte offset, never read as
# an empty book or another format.
. "$(dirname "$0")/lib.sh"
J=/usr/share/gpsshogi-data/data/joseki.dat
T=$(mktemp -d /tmp/hayanagi_book_osl.XXXXXX)
trap 'rm -rf "$T"' EXIT
out=$("$HAYANAGI" book info "$J" 2>&1); expect_status "info" 0 $?
expect_contains "info format" "$out" "OSL WeightedBook"
expect_contains "info positions" "$out" "positions  30298"
expect_contains "info note" "$out" "osl: 58818 states, 73498 moves; 30298 positions, 37233 moves kept"
out=$("$HAYANAGI" book info --keep-zero "$J" 2>&1); expect_status "info keep-zero" 0 $?
expect_contains "keep-zero positions" "$out" "positions  58818"
out=$("$HAYANAGI" book convert "$J" "$T/j.db" 2>&1); expect_status "convert" 0 $?
expect_contains "convert" "$out" "30298 positions, 37233 moves"
out=$("$HAYANAGI" book lookup "$T/j.db" startpos 2>&1); expect_status "lookup" 0 $?
expect_contains "lookup 7g7f" "$out" "7g7f   3c3d     none   none       8194"
expect_contains "lookup 2g2f" "$out" "2g2f   8c8d     none   none       1805"
# damaged copies: one byte short, a bad piece code in the first board
head -c 11469231 "$J" > "$T/short.dat"
out=$("$HAYANAGI" book info "$T/short.dat" 2>&1); expect_status "short" 1 $?
expect_contains "short" "$out" "not a book we know"
out=$("$HAYANAGI" book info --from osl "$T/short.dat" 2>&1); expect_status "short --from osl" 1 $?
expect_contains "short --from osl" "$out" "byte 4: 58818 states and 73498 moves need 11469232 bytes, the file has 11469231"
cp "$J" "$T/bad.dat"
# the boards start at 16 + 16 * 58818 + 12 * 73498 = 1823080: make the first piece's ptype 1
printf '\000\001\000\021' | dd of="$T/bad.dat" bs=1 seek=1823080 conv=notrunc 2>/dev/null
out=$("$HAYANAGI" book info "$T/bad.dat" 2>&1); expect_status "bad piece" 1 $?
expect_contains "bad piece" "$out" "byte 1823080: state 0: bad piece code 1"
finish
