#!/usr/bin/env bash
# `hayanagi book ...` from the command line on the real ShogiHome, rshogi, YBB and Apery
# files: info, lookup (memory and on the fly), sort, check, convert, bad input, Ctrl-C.
. "$(dirname "$0")/lib.sh"
R=../shared/refdata
T=$(mktemp -d /tmp/hayanagi_book_cli.XXXXXX)
trap 'rm -rf "$T"' EXIT

out=$("$HAYANAGI" book info $R/db/shogihome/yaneuraou.db 2>&1); expect_status "info" 0 $?
expect_contains "info positions" "$out" "positions  5"
expect_contains "info moves" "$out" "moves      18 (3.60 per position)"
expect_contains "info ply range" "$out" "ply range  1..1"
expect_contains "info sorted" "$out" "sorted     yes"
expect_contains "info histogram" "$out" "no score         10"
out=$("$HAYANAGI" book info $R/ybb/shogihome/yaneuraou.ybb 2>&1); expect_status "info ybb" 0 $?
expect_contains "info ybb format" "$out" "YBB (YANE-BINBOOK-V1)"
out=$("$HAYANAGI" book info $R/apery/shogihome/apery.bin 2>&1); expect_status "info apery" 0 $?
expect_contains "info apery positions" "$out" "positions  19"
expect_contains "info apery walk" "$out" "0 collisions, 0 keys not reached"

# lookup: a board diagram and a table; a transposition reached at another ply still hits.
out=$("$HAYANAGI" book lookup $R/db/shogihome/yaneuraou.db startpos 2>&1); expect_status "lookup" 0 $?
expect_contains "lookup diagram" "$out" "  L  N  S  G  K  G  S  N  L  i"
expect_contains "lookup first move" "$out" "  1  2g2f   3c3d       63     27        935"
expect_contains "lookup choice" "$out" "engine would play 2g2f (ponder 3c3d)"
out=$("$HAYANAGI" book lookup $R/db/shogihome/yaneuraou.db startpos moves 2g2f 3c3d 7g7f 2>&1)
expect_status "lookup transposition" 0 $?
expect_contains "lookup transposition moves" "$out" "2b8h+"
out=$("$HAYANAGI" book lookup --on-the-fly $R/db/shogihome/yaneuraou-bom-crlf.db sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2 2>&1)
expect_status "lookup on the fly" 0 $?
expect_contains "lookup on the fly moves" "$out" "8c8d   none     none   none        400"
out=$("$HAYANAGI" book lookup $R/db/shogihome/yaneuraou.db startpos moves 9g9f 2>&1); expect_status "lookup miss" 3 $?
expect_contains "lookup miss text" "$out" "not in the book"
out=$("$HAYANAGI" book lookup $R/db/shogihome/yaneuraou.db startpos moves 9g9e 2>&1); expect_status "lookup bad move" 2 $?
out=$("$HAYANAGI" book lookup $R/apery/shogihome/apery.bin startpos moves 2g2f 3c3d 7g7f 2>&1)
expect_status "lookup apery" 0 $?
expect_contains "lookup apery" "$out" "4c4d   none      -30    256         69"

# sort + on the fly: an unsorted book is refused on the fly until sorted.
err=$("$HAYANAGI" book lookup --on-the-fly $R/db/rshogi/book_backprop_check_in.db startpos 2>&1)
expect_status "unsorted on the fly" 1 $?
expect_contains "unsorted message" "$err" "not sorted"
"$HAYANAGI" book sort $R/db/rshogi/book_backprop_check_in.db "$T/sorted.db" >/dev/null 2>&1; expect_status "sort" 0 $?
out=$("$HAYANAGI" book lookup --on-the-fly "$T/sorted.db" sfen 4k4/9/5R3/9/9/9/9/9/K8 b - 4 2>&1)
expect_status "sorted on the fly" 0 $?
expect_contains "sorted on the fly moves" "$out" "4c5c"

# convert: ShogiHome's columns reproduce ShogiHome's own re-save byte for byte.
"$HAYANAGI" book convert --shogihome-columns $R/db/shogihome/yaneuraou-bom-crlf.db "$T/copy.db" >/dev/null 2>&1
expect_status "convert db" 0 $?
cmp -s "$T/copy.db" $R/db/shogihome/yaneuraou-copy.db || fail "convert: output differs from yaneuraou-copy.db"
"$HAYANAGI" book convert $R/ybb/shogihome/yaneuraou.ybb "$T/from-ybb.db" >/dev/null 2>&1; expect_status "convert ybb" 0 $?
"$HAYANAGI" book convert --from apery $R/apery/shogihome/apery.bin "$T/from-apery.db" >/dev/null 2>&1
expect_status "convert apery" 0 $?
out=$("$HAYANAGI" book info "$T/from-apery.db" 2>&1)
expect_contains "apery converted" "$out" "positions  19"
err=$("$HAYANAGI" book convert $R/db/shogihome/yaneuraou.db "$T/out.ybb" 2>&1); expect_status "convert to ybb" 2 $?
[ -e "$T/out.ybb" ] && fail "convert to ybb left a file"

# DB2016 -> DB2016 with comments: the same bytes, and no notice of anything dropped (the
# comments are statistics in the IR, but no game or win total is there to lose)
printf '#YANEURAOU-DB2016 1.00\nsfen %s\n#a comment\n7g7f 3c3d 50 10 3\n' \
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1" > "$T/commented.db"
out=$("$HAYANAGI" book convert "$T/commented.db" "$T/commented_out.db" 2>&1); expect_status "db to db" 0 $?
cmp -s "$T/commented.db" "$T/commented_out.db" || fail "db to db: the output differs from the input"
expect_not_contains "db to db: nothing is unsupported" "$out" "Unsupported"
# an SBK's game and win totals are still said to be dropped
out=$("$HAYANAGI" book convert $R/sbk/shogihome/shogigui02.sbk "$T/from-sbk.db" 2>&1); expect_status "sbk to db" 0 $?
expect_contains "sbk to db: totals dropped" "$out" "Unsupported: game and win totals"

# check: every problem with its line; exit 1.
printf '#YANEURAOU-DB2016 1.00\nsfen %s\n7g7f 3c3d 0 0 1\n7g7e none 0 0 1\nsfen bad\n2g2f\n' \
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1" > "$T/bad.db"
out=$("$HAYANAGI" book check "$T/bad.db" 2>&1); expect_status "check bad" 1 $?
expect_contains "check illegal move" "$out" "bad.db:4: illegal move 7g7e"
expect_contains "check bad sfen" "$out" "bad.db:5: bad sfen"
expect_contains "check summary" "$out" "2 problem(s)"
out=$("$HAYANAGI" book check $R/db/shogihome/yaneuraou.db 2>&1); expect_status "check good" 0 $?
expect_contains "check ambiguity note" "$out" "3 move line(s) have empty columns"
# check reads every format the other verbs read, not only DB2016 (an SBK was read as text
# and gave 111 "move line outside an entry")
out=$("$HAYANAGI" book check $R/sbk/shogihome/shogigui01.sbk 2>&1); expect_status "check sbk" 0 $?
expect_contains "check sbk summary" "$out" "shogigui01.sbk (ShogiGUI/ShogiHome SBK): 69 positions, 69 moves checked, 0 problem(s)"
expect_not_contains "check sbk: not read as text" "$out" "outside an entry"
out=$("$HAYANAGI" book check $R/ybb/shogihome/yaneuraou.ybb 2>&1); expect_status "check ybb" 0 $?
expect_contains "check ybb summary" "$out" "5 positions, 18 moves checked, 0 problem(s)"
out=$("$HAYANAGI" book check $R/apery/shogihome/apery.bin 2>&1); expect_status "check apery" 0 $?
expect_contains "check apery summary" "$out" "19 positions, 21 moves checked, 0 problem(s)"
# one byte of a move changed (0x08 -> 0x18 at offset 263): the SBK reader's bad move is a problem
cp $R/sbk/shogihome/shogigui01.sbk "$T/flip.sbk"
printf '\x18' | dd of="$T/flip.sbk" bs=1 seek=263 conv=notrunc 2>/dev/null
out=$("$HAYANAGI" book check "$T/flip.sbk" 2>&1); expect_status "check damaged sbk" 1 $?
expect_contains "check damaged sbk: the bad move" "$out" "1 bad move(s)"
expect_not_contains "check damaged sbk: counted" "$out" " 0 problem(s)"
err=$("$HAYANAGI" book info $R/db/shogihome/yaneuraou-invalid-header.db 2>&1); expect_status "invalid header" 1 $?
expect_contains "invalid header message" "$err" "yaneuraou-invalid-header.db:1: unsupported header"
err=$("$HAYANAGI" book info "$T/missing.db" 2>&1); expect_status "missing file" 1 $?
err=$("$HAYANAGI" book frobnicate 2>&1); expect_status "unknown verb" 2 $?
err=$("$HAYANAGI" book gen-synthetic 10x "$T/x.db" 2>&1); expect_status "gen-synthetic bad count" 2 $?
err=$("$HAYANAGI" book gen-synthetic 10 "$T/x.db" -1 2>&1); expect_status "gen-synthetic bad seed" 2 $?
[ ! -e "$T/x.db" ] || fail "gen-synthetic wrote a file for bad arguments"
head -c 5000 /dev/urandom > "$T/garbage.db"
"$HAYANAGI" book info "$T/garbage.db" >/dev/null 2>&1; st=$?
[ "$st" = 0 ] || [ "$st" = 1 ] || fail "garbage: exit status $st"

# Ctrl-C during a long write leaves the previous output untouched and no temporary file:
# the interrupt is sent once the temporary file is open, i.e. while the writer runs.
if [ -z "${HAYANAGI_SANITIZED:-}" ]; then
    "$HAYANAGI" book gen-synthetic 200000 "$T/src.db" >/dev/null 2>&1 || fail "gen-synthetic"
    echo "previous content" > "$T/big.db"
    "$HAYANAGI" book convert "$T/src.db" "$T/big.db" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 400); do writing_output $pid "$T/big.db" && break; sleep 0.01; done
    kill -INT $pid 2>/dev/null
    wait $pid 2>/dev/null
    [ "$(cat "$T/big.db")" = "previous content" ] || fail "Ctrl-C: the target was changed"
    ls "$T"/big.db.tmp.* >/dev/null 2>&1 && fail "Ctrl-C: a temporary file was left behind"
    "$HAYANAGI" book convert "$T/src.db" "$T/big.db" >/dev/null 2>&1 || fail "convert after Ctrl-C"
    out=$("$HAYANAGI" book info "$T/big.db" 2>&1)
    expect_contains "synthetic book" "$out" "sorted     yes"
fi
# help: every verb the book command accepts is listed, and each listed verb is known
help=$("$HAYANAGI" book help 2>&1); expect_status "book help" 0 $?
for v in info lookup sort check convert build merge minimax think expand import-losses records openings; do
    expect_contains "book help lists $v" "$help" "hayanagi book $v "
    out=$("$HAYANAGI" book "$v" 2>&1)
    expect_not_contains "book $v is a verb" "$out" "unknown verb"
done
out=$("$HAYANAGI" book frobnicate 2>&1); expect_status "unknown verb" 2 $?
expect_contains "unknown verb message" "$out" "unknown verb 'frobnicate'"
finish
