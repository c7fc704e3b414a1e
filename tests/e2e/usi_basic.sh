#!/usr/bin/env bash
# A USI transcript: handshake, position (good and bad), the perft/d/sfen extensions,
# unknown and oversized commands, and quit.
. "$(dirname "$0")/lib.sh"

out=$(printf '%s\n' usi isready "position startpos moves 7g7f 3c3d" sfen \
    "position startpos moves 7g7f 7g7f" sfen \
    "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 2g2f" sfen \
    "position sfen garbage" sfen "position" "position startpos moves 7g7f x9" \
    "position startpos" "perft 3" "perft 2 divide" "perft" d bogus quit | timeout 20 "$HAYANAGI")
expect_status "engine exits cleanly" 0 $?
expect_contains "usiok" "$out" "usiok"
expect_contains "id name" "$out" "id name Hayanagi"
expect_contains "readyok" "$out" "readyok"
expect_contains "position with moves" "$out" "sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"
expect_contains "illegal move named" "$out" "info string position: move 2 '7g7f' is illegal"
# After the bad command the previous position is kept, so the same SFEN is printed again.
[ "$(echo "$out" | grep -c '^sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3$')" = 2 ] ||
    fail "a rejected position must leave the previous one untouched"
expect_contains "sfen with moves" "$out" "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL w - 2"
expect_contains "bad sfen reason" "$out" "info string position: bad sfen:"
expect_contains "empty position" "$out" "info string position: expected 'startpos' or 'sfen'"
expect_contains "malformed move" "$out" "move 2 'x9' is malformed"
expect_contains "usi perft" "$out" "nodes 25470 "
expect_contains "usi perft divide" "$out" "nodes 900 "
expect_contains "usi perft usage" "$out" "info string perft: expected"
expect_contains "diagram" "$out" "  9  8  7  6  5  4  3  2  1"
expect_contains "unknown command" "$out" "info string unknown command 'bogus'"

# A 100 kB line and binary junk are ignored with a message, and the engine goes on.
out=$( { head -c 100000 /dev/zero | tr '\0' 'a'; echo; head -c 2000 /dev/urandom | tr -d '\n'; echo; echo isready; } |
    timeout 20 "$HAYANAGI")
expect_status "survives junk" 0 $?
expect_contains "long line reported" "$out" "info string command longer than"
expect_contains "still answers" "$out" "readyok"
finish
