#!/usr/bin/env bash
# csa_learn.sh - `hayanagi csa --learn` (docs/csa.md, "Learning between games"): after a
# loss the opponent's overlay demotes our losing book move, and the next game against the
# same opponent from the same position plays the book's other move. The main book has two
# moves at the start, 7g7f (score 50) and 2g2f (score 10): with BookEvalDiff 0 the engine
# always plays 7g7f until the overlay of "rival" says otherwise. tests/csa/learn_server.py
# plays the two games (loopback only) and checks our first move in each.
. "$(dirname "$0")/lib.sh"
csa_setup
START="lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
printf '#YANEURAOU-DB2016 1.00\nsfen %s\n7g7f 3c3d 50 32 10\n2g2f 8c8d 10 32 5\n' "$START" > "$tmp/main.db"

# usage: --learn needs the overlays and the records
out=$("$HAYANAGI" csa --host 127.0.0.1 --id i --password p --learn 2>&1)
expect_status "--learn alone" 2 $?
expect_contains "--learn alone: why" "$out" "--learn needs --rival-books"

csa_server learn_server.py "$tmp/port"
out=$("$HAYANAGI" csa --host 127.0.0.1 --port "$port" --id hayanagi-test --password pw --game hay-1-0 --keepalive 0 \
    --games 2 --records "$tmp/rec" --rival-books "$tmp/rivals" --learn --main-book "$tmp/main.db" --margin-ms 100 \
    --option BookDir="$tmp" --option BookFile=main.db --option BookEvalDiff=0 --option USI_Hash=16 2>&1)
expect_status "two games" 0 $?
server_status "two games"
expect_contains "learned after the loss" "$out" "our 7g7f demoted at $START"
[ -f "$tmp/rivals/rival.db" ] || fail "no overlay written for the opponent 'rival'"
expect_contains "overlay: 2g2f first" "$(cat "$tmp/rivals/rival.db" 2> /dev/null)" "2g2f"
[ "$(ls "$tmp/rec" | wc -l)" = 2 ] || fail "expected 2 records, found: $(ls "$tmp/rec")"
finish
