#!/usr/bin/env bash
# csa_learn.sh - `hayanagi csa --learn` (docs/csa.md, "Learning between games"): after a
# loss the opponent's overlay demotes our losing book move, and the next game against the
# same opponent from the same position plays the book's other move. The main book has two
# moves at the start, 7g7f (score 50) and 2g2f (score 10): with BookEvalDiff 0 the engine
# always plays 7g7f until the overlay of "rival" says otherwise. tests/csa/learn_server.py
# plays the two games (loopback only) and checks our first move in each.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
if [ -z "$py" ]; then
    echo "skipped: python3 is missing"
    exit 0
fi
T=$(mktemp -d)
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2> /dev/null
    rm -rf "$T"
}
trap cleanup EXIT
START="lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
printf '#YANEURAOU-DB2016 1.00\nsfen %s\n7g7f 3c3d 50 32 10\n2g2f 8c8d 10 32 5\n' "$START" > "$T/main.db"

# usage: --learn needs the overlays and the records
out=$("$HAYANAGI" csa --host 127.0.0.1 --id i --password p --learn 2>&1)
expect_status "--learn alone" 2 $?
expect_contains "--learn alone: why" "$out" "--learn needs --rival-books"

"$py" "$here/csa/learn_server.py" "$T/port" 2> "$T/server.err" &
server_pid=$!
for _ in $(seq 1 100); do
    [ -s "$T/port" ] && break
    sleep 0.05
done
port=$(cat "$T/port" 2> /dev/null)
out=$("$HAYANAGI" csa --host 127.0.0.1 --port "$port" --id hayanagi-test --password pw --game hay-1-0 --keepalive 0 \
    --games 2 --records "$T/rec" --rival-books "$T/rivals" --learn --main-book "$T/main.db" --margin-ms 100 \
    --option BookDir="$T" --option BookFile=main.db --option BookEvalDiff=0 --option USI_Hash=16 2>&1)
expect_status "two games" 0 $?
rc=0
wait "$server_pid" || rc=$?
server_pid=""
[ "$rc" = 0 ] || fail "the server was not satisfied: $(cat "$T/server.err")"
expect_contains "learned after the loss" "$out" "our 7g7f demoted at $START"
[ -f "$T/rivals/rival.db" ] || fail "no overlay written for the opponent 'rival'"
expect_contains "overlay: 2g2f first" "$(cat "$T/rivals/rival.db" 2> /dev/null)" "2g2f"
[ "$(ls "$T/rec" | wc -l)" = 2 ] || fail "expected 2 records, found: $(ls "$T/rec")"
finish
