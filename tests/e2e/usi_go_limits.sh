#!/usr/bin/env bash
# The engine never leaves a GUI waiting (docs/usi.md, "Commands" (go) and "Time management"):
# - every go, malformed or with zero limits, gets exactly one bestmove without any stop
#   (a bad field is named in an info string and replaced by its least value);
# - zero time is the least time: only infinite and ponder wait for stop, and depth 1 is
#   always searched;
# - setoption Hash during a search does not end it (the table is resized afterwards);
# - a closing info line (depth seldepth score nodes nps time pv) comes right before every
#   bestmove, also when a node or time limit cut the search short.
# Each go runs in an engine of its own whose input then ends: at the end of input a bounded
# search finishes and answers, while one that waits for stop never does (timeout ends it),
# so no check here depends on the machine's speed.
. "$(dirname "$0")/lib.sh"
run() { timeout 60 "$HAYANAGI"; }
one_go() { printf '%s\n' "setoption name USI_OwnBook value false" "position ${2:-startpos}" "go $1" | run; }
count() { echo "$2" | grep -c "$1"; }
CLOSING='^info depth [0-9]+ seldepth [0-9]+ score (cp|mate) -?[0-9]+( lowerbound| upperbound)?( multipv 1)? nodes [0-9]+ nps [0-9]+ hashfull [0-9]+ time [0-9]+'
# closing NAME OUTPUT: the line before every bestmove is a closing info line.
closing() {
    echo "$2" | grep -q '^bestmove ' || { fail "$1: no bestmove"; return; }
    echo "$2" | awk -v re="$CLOSING" '/^bestmove /{ if (prev !~ re) bad = 1 } { prev = $0 } END { exit bad }' ||
        fail "$1: no closing info line before bestmove: $(echo "$2" | grep -B1 '^bestmove ' | head -2 | tr '\n' '|')"
}

# Malformed fields: an info string naming the field, then exactly one bestmove.
while IFS='|' read -r args field; do
    out=$(one_go "$args")
    [ "$(count '^bestmove ' "$out")" = 1 ] || fail "go $args: exactly one bestmove (got $(count '^bestmove ' "$out"))"
    expect_contains "go $args: names the field" "$out" "info string go: $field"
    closing "go $args" "$out"
done <<'EOF'
btime -1000|btime
btime abc|btime
depth -3|depth
nodes -1|nodes
byoyomi x1|byoyomi
movetime -5|movetime
wtime 1000 btime|btime
depth|depth
nodes 5x|nodes
binc -1 winc -1|binc
EOF

# Zero limits are the least, not infinity.
for args in "btime 0 wtime 0" "btime 0 wtime 0 byoyomi 0" "byoyomi 0" "movetime 0" "nodes 0" "depth 0" \
            "btime 0 wtime 0 binc 0 winc 0"; do
    out=$(one_go "$args")
    [ "$(count '^bestmove ' "$out")" = 1 ] || fail "go $args: exactly one bestmove (got $(count '^bestmove ' "$out"))"
    expect_not_contains "go $args: nothing to complain about" "$out" "info string go:"
    closing "go $args" "$out"
done

# Zero time: after 7g7f 3c3d 8h2b+ white takes the horse back (3a2b or 8b2b, hand-checked).
# The clock once ended the search before depth 1, and the watchdog (which answers when a
# first search in a new process cannot finish depth 1 in time) played 1c1d, the first
# legal move; now the clock waits for depth 1 and the watchdog's move is the best capture.
for args in "btime 0 wtime 0" "btime 0 wtime 0 binc 1000 winc 1000" "byoyomi 0" "movetime 0"; do
    out=$(one_go "$args" "startpos moves 7g7f 3c3d 8h2b+")
    move=$(echo "$out" | awk '/^bestmove/ {print $2}')
    case "$move" in 3a2b | 8b2b) ;; *) fail "go $args after 8h2b+: bestmove '$move', expected a recapture (3a2b or 8b2b)" ;; esac
done

# go mate 0 is the least time too (not "until stop"); a bad mate time as well.
for args in "mate 0" "mate abc" "mate -5"; do
    out=$(one_go "$args")
    [ "$(count '^checkmate ' "$out")" = 1 ] || fail "go $args: exactly one checkmate answer"
done
out=$(one_go "mate abc")
expect_contains "go mate abc: names the field" "$out" "info string go: mate"

# setoption Hash during go infinite: the search goes on until stop; one bestmove.
out=$(printf '%s\n' "setoption name USI_OwnBook value false" isready "position startpos" "go infinite" \
      "setoption name Hash value 16" "marker-after-hash" stop isready | run)
before=$(echo "$out" | sed -n '1,/unknown command .marker-after-hash./p')
expect_not_contains "no bestmove at setoption Hash" "$before" "bestmove"
[ "$(count '^bestmove ' "$out")" = 1 ] || fail "Hash during infinite: exactly one bestmove after stop"
expect_contains "Hash deferred" "$out" "info string hash: 16 MB once the running search has ended"
expect_contains "alive after the resize" "$out" "readyok"
# USI_Hash the same way, during a ponder search.
out=$(printf '%s\n' "setoption name USI_OwnBook value false" "position startpos" "go ponder btime 0 wtime 0 byoyomi 1000" \
      "setoption name USI_Hash value 8" "marker-after-hash" stop | run)
before=$(echo "$out" | sed -n '1,/unknown command .marker-after-hash./p')
expect_not_contains "no bestmove at setoption USI_Hash" "$before" "bestmove"
[ "$(count '^bestmove ' "$out")" = 1 ] || fail "USI_Hash during ponder: exactly one bestmove after stop"

# The closing info line: a node limit cuts the last iteration short, yet the line before
# bestmove counts every node (at least the limit) with a pv.
out=$(one_go "nodes 30000")
closing "go nodes" "$out"
last=$(echo "$out" | grep -B1 '^bestmove ' | head -1)
nodes=$(echo "$last" | sed -n 's/.* nodes \([0-9]*\) .*/\1/p')
[ -n "$nodes" ] && [ "$nodes" -ge 30000 ] || fail "go nodes 30000: closing line counts $nodes nodes: $last"
expect_contains "go nodes: closing pv" "$last" " pv "
# On the clock, with MultiPV, a single legal move, a mate found at the root, a declaration,
# no legal move (resign), a ponder stopped, and a book move.
out=$(one_go "btime 0 wtime 0 byoyomi 100")
closing "byoyomi 100" "$out"
out=$(printf '%s\n' "setoption name MultiPV value 2" "setoption name USI_OwnBook value false" "position startpos" \
      "go depth 4" | run)
closing "multipv" "$out"
out=$(one_go "btime 10000 wtime 10000" "sfen 8k/9/9/9/9/9/9/8r/K8 b - 1")
closing "single move" "$out"
expect_contains "single move pv" "$(echo "$out" | grep -B1 '^bestmove ' | head -1)" " pv 9i8i"
out=$(one_go "btime 1000 wtime 1000" "sfen 3sks3/9/4S4/9/1+B7/9/9/9/9 b S2rb4g4n4l18p 1")
closing "root mate" "$out"
expect_contains "root mate line" "$out" "bestmove 8e5b"
out=$(one_go "btime 1000 wtime 1000" "sfen +P+P+P+P1+P+P+P+P/7+P+P/4K4/9/9/9/9/9/4k4 b 2R2B 1")
closing "declaration" "$out"
expect_contains "declaration" "$out" "bestmove win"
out=$(one_go "btime 1000 wtime 1000" "sfen 4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1")
closing "resign" "$out"
expect_contains "resign" "$out" "bestmove resign"
out=$(printf '%s\n' "setoption name USI_OwnBook value false" "position startpos" "go ponder btime 0 wtime 0 byoyomi 1000" stop | run)
closing "ponder stop" "$out"
out=$(printf '%s\n' isready "position startpos" "go btime 60000 wtime 60000" | run)
expect_contains "book hit" "$out" "info string book hit"
closing "book move" "$out"

# go nodes N stops within the documented overshoot (docs/usi.md, "go nodes"): exactly N
# with one thread, at most 65 nodes per helper thread past N with several; nodes 0 and
# negative counts are one node. Polled every 1024 calls by the main thread, nodes 1, 0
# and -5 each searched 946 nodes and nodes 2000 searched 2792.
# last_nodes OUTPUT: the nodes of the closing info line
last_nodes() { echo "$1" | grep '^info depth' | tail -1 | sed -n 's/.* nodes \([0-9]*\) .*/\1/p'; }
for threads in 1 3; do
    for n in 1 0 -5 100 2000 30000; do
        out=$(printf '%s\n' "setoption name USI_OwnBook value false" "setoption name Threads value $threads" \
              "position startpos moves 7g7f 3c3d" "go nodes $n" | run)
        got=$(last_nodes "$out")
        want=$n; [ "$n" -lt 1 ] && want=1
        max=$((want + 65 * (threads - 1)))
        [ -n "$got" ] && [ "$got" -ge "$want" ] && [ "$got" -le "$max" ] ||
            fail "go nodes $n with $threads thread(s): searched ${got:-no} nodes, expected $want..$max"
        [ "$threads" = 1 ] && [ "${got:-}" != "$want" ] && fail "go nodes $n, one thread: ${got:-no} nodes, not exactly $want"
    done
done
finish
