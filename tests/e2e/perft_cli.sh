#!/usr/bin/env bash
# `hayanagi perft` from the command line: numbers, output format and bad input.
. "$(dirname "$0")/lib.sh"

out=$("$HAYANAGI" perft startpos 3); expect_status "perft startpos" 0 $?
expect_contains "perft startpos 3" "$(echo "$out" | tail -1)" "nodes 25470 time "
expect_contains "perft nps field" "$(echo "$out" | tail -1)" " nps "

out=$("$HAYANAGI" perft --divide startpos 2)
[ "$(echo "$out" | grep -c ': 30$')" = 30 ] || fail "divide: every root move of the start position has 30 replies"
expect_contains "divide total" "$(echo "$out" | tail -1)" "nodes 900 "
expect_contains "divide lists 7g7f" "$out" "7g7f: 30"

out=$("$HAYANAGI" perft --stats startpos 3)
expect_contains "stats" "$out" "captures 59 promotions 30 checks 48 mates 0"

# The SFEN may be one argument or its fields; 593 moves is the known maximum.
out=$("$HAYANAGI" perft sfen "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1" 1)
expect_contains "593 moves, quoted sfen" "$out" "nodes 593 "
out=$("$HAYANAGI" perft sfen R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1 1)
expect_contains "593 moves, split sfen" "$out" "nodes 593 "

err=$("$HAYANAGI" perft sfen "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1" 2 2>&1)
expect_status "bad sfen exits non-zero" 1 $?
expect_contains "bad sfen names the piece" "$err" "unknown piece 'X'"
err=$("$HAYANAGI" perft sfen "P3k4/9/9/9/9/9/9/9/4K4 b - 1" 1 2>&1)
expect_status "illegal position exits non-zero" 1 $?
expect_contains "illegal position reason" "$err" "cannot move"
err=$("$HAYANAGI" perft startpos 0 2>&1); expect_status "depth 0" 2 $?
err=$("$HAYANAGI" perft startpos abc 2>&1); expect_status "depth abc" 2 $?
err=$("$HAYANAGI" perft --bogus startpos 1 2>&1); expect_status "unknown option" 2 $?
err=$("$HAYANAGI" perft 2>&1); expect_status "no arguments" 2 $?
err=$("$HAYANAGI" nosuchcommand 2>&1); expect_status "unknown command" 2 $?
finish
