#!/usr/bin/env bash
# `hayanagi match` with a clock per engine (time odds: --time1/2, --inc1/2, --byoyomi1/2):
# the options' checks, the go lines each engine receives (both sides' remaining times,
# each side's own increment, the mover's own byoyomi), a time loss judged against the
# loser's own clock and not the other's, a grace for each engine, --restart, the record's CSA V3.0
# $TIME+ / $TIME- lines, and --resume refusing a record played at other clocks. Scripted
# engines only; a few seconds.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the scripted engine (tests/e2e/data/scripted_engine.sh), SECONDS a move
fake() { echo "bash $(cd "$(dirname "$0")" && pwd)/data/scripted_engine.sh $1"; }

# run_match NAME EXPECTED_STATUS ARGS...: output in $out
run_match() {
    local name=$1 want=$2; shift 2
    out=$(timeout 50 "$HAYANAGI" match "$@" 2>&1)
    expect_status "$name" "$want" $?
}

# ---- each engine's options are checked as the common ones, named in the message ----
run_match "inc2 without time" 2 --engine a --engine b --inc2 100
expect_contains "inc2 without time" "$out" "engine 2: --inc2 needs a main time (--time2 or --time)"
run_match "inc1 and byoyomi1" 2 --engine a --engine b --time1 1000 --inc1 10 --byoyomi1 100
expect_contains "inc1 and byoyomi1" "$out" "engine 1: use either --inc1 (Fischer) or --byoyomi1, not both"
run_match "common inc, own byoyomi" 2 --engine a --engine b --time 1000 --inc 10 --byoyomi2 100
expect_contains "common inc, own byoyomi" "$out" "engine 2: use either --inc (Fischer) or --byoyomi2, not both"
run_match "nodes2 and time2" 2 --engine a --engine b --nodes2 100 --time2 1000
expect_contains "nodes2 and time2" "$out" "engine 2: --nodes2 cannot be combined with --byoyomi2, --time2 or --inc2"
run_match "bad byoyomi1" 2 --engine a --engine b --byoyomi1 0
expect_contains "bad byoyomi1" "$out" "--byoyomi1 expects an integer in 1..86400000, got '0'"
run_match "help" 0 --help
expect_contains "help" "$out" "--time1 MS, --inc1 MS, --byoyomi1 MS"

# ---- byoyomi odds: engine 1 at 100 ms, engine 2 at 2000 ms; both take 0.3 s a move ----
# Engine 1 loses on time in both games (0.3 s > 100 + 50 ms grace); engine 2 never does
# (0.3 s < 2000 ms). One clock for both could not give this: both would lose, or neither.
run_match "byoyomi odds" 0 --engine "$(fake 0.3)" --engine "$(fake 0.3)" --name fast --name slow --games 2 \
    --byoyomi1 100 --byoyomi2 2000 --grace 50 --log "$tmp/byo.log" --out "$tmp/byo.csa"
expect_contains "byoyomi odds header" "$out" "engine 1 byoyomi 100 ms; engine 2 byoyomi 2000 ms"
expect_contains "byoyomi odds result" "$out" "Result: fast vs slow: +0 =0 -2 (2 games)"
expect_contains "byoyomi odds time losses" "$out" "Time losses: fast 2, slow 0"
expect_contains "byoyomi odds ends" "$out" "Game ends: time 2"
# each engine is sent its own byoyomi, and only it
[ "$(grep -c ' e1 > go btime 0 wtime 0 byoyomi 100$' "$tmp/byo.log")" = 2 ] ||
    fail "byoyomi odds: engine 1's go lines: $(grep ' e1 > go' "$tmp/byo.log")"
[ "$(grep -c ' e2 > go btime 0 wtime 0 byoyomi 2000$' "$tmp/byo.log")" = 1 ] ||
    fail "byoyomi odds: engine 2's go lines: $(grep ' e2 > go' "$tmp/byo.log")"
[ "$(grep -c ' > go' "$tmp/byo.log")" = 3 ] || fail "byoyomi odds: 3 go lines expected: $(grep ' > go' "$tmp/byo.log")"
rec=$(cat "$tmp/byo.csa")
expect_contains "byoyomi odds record, game 1" "$rec" $'N+fast\nN-slow\n$EVENT:hayanagi match, game 1 of 2'
expect_contains "byoyomi odds record, game 1 clocks" "$rec" $'$TIME+:0+0.1+0\n$TIME-:0+2+0\n'"'time control: engine 1 byoyomi 100 ms; engine 2 byoyomi 2000 ms"
expect_contains "byoyomi odds record, game 2 clocks" "$rec" $'$TIME+:0+2+0\n$TIME-:0+0.1+0\n'
expect_contains "byoyomi odds record, time loss" "$rec" "'fast: no bestmove within 150 ms (100 ms allowed + 50 ms grace)"
expect_not_contains "byoyomi odds record, slow" "$rec" "'slow: no bestmove"

# ---- a grace for each engine: both take 0.3 s at byoyomi 100 ms; engine 1 has 500 ms of
# grace (--grace1), engine 2 the common 50 ms: only engine 2 loses on time ----
run_match "grace odds" 0 --engine "$(fake 0.3)" --engine "$(fake 0.3)" --name lax --name strict --games 2 \
    --byoyomi 100 --grace 50 --grace1 500 --out "$tmp/grace.csa"
expect_contains "grace odds result" "$out" "Result: lax vs strict: +2 =0 -0 (2 games)"
expect_contains "grace odds time losses" "$out" "Time losses: lax 0, strict 2"
expect_contains "grace odds record" "$(cat "$tmp/grace.csa")" "'strict: no bestmove within 150 ms (100 ms allowed + 50 ms grace)"
run_match "grace2 alone" 0 --engine "$(fake 0.3)" --engine "$(fake 0.3)" --name A --name B --games 1 \
    --byoyomi 100 --grace2 500
expect_contains "grace2 alone" "$out" "Time losses: A 1, B 0"
run_match "bad grace2" 2 --engine a --engine b --grace2 -1
expect_contains "bad grace2" "$out" "--grace2 expects an integer in 0..60000, got '-1'"

# ---- --restart2: a new process of engine 2 for every game, engine 1 kept: in 3 games
# engine 2 is sent `usi` 3 times and quits twice between games, engine 1 once; no restart
# is reported (they are no failures) ----
run_match "restart2" 0 --engine "$(fake 0)" --engine "$(fake 0)" --name kept --name fresh --games 3 \
    --byoyomi 1000 --restart2 --log "$tmp/restart.log"
[ "$(grep -c ' e1 > usi$' "$tmp/restart.log")" = 1 ] || fail "restart2: engine 1 started $(grep -c ' e1 > usi$' "$tmp/restart.log") times"
[ "$(grep -c ' e2 > usi$' "$tmp/restart.log")" = 3 ] || fail "restart2: engine 2 started $(grep -c ' e2 > usi$' "$tmp/restart.log") times"
expect_contains "restart2 games" "$out" "(3 games)"
expect_contains "restart2 no failure" "$out" "Crashes: kept 0, fresh 0 (restarts 0, 0)"
run_match "restart" 0 --engine "$(fake 0)" --engine "$(fake 0)" --games 2 --byoyomi 1000 --restart --log "$tmp/restart_both.log"
[ "$(grep -c ' > usi$' "$tmp/restart_both.log")" = 4 ] || fail "restart: $(grep -c ' > usi$' "$tmp/restart_both.log") starts, 4 expected"

# ---- Fischer odds: 10 s + 100 ms against 60 s + 1 s ----
run_match "fischer odds" 0 --engine "$(fake 0)" --engine "$(fake 0)" --name A --name B --games 2 \
    --time 60000 --inc 1000 --time1 10000 --inc1 100 --log "$tmp/fis.log" --out "$tmp/fis.csa"
expect_contains "fischer odds header" "$out" "engine 1 10000 ms + 100 ms/move; engine 2 60000 ms + 1000 ms/move"
expect_contains "fischer odds result" "$out" "(2 games)"
expect_contains "fischer odds time losses" "$out" "Time losses: A 0, B 0"
# game 1, A black: its first go has both full clocks and each side's own increment; B's
# first go has A's time less what A used, plus A's 100 ms, and B's own untouched 60 s
go1=$(grep ' w1 e1 > go' "$tmp/fis.log" | head -1 | sed 's/.* > //')
[ "$go1" = "go btime 10000 wtime 60000 binc 100 winc 1000" ] || fail "fischer odds: A's first go: '$go1'"
go2=$(grep ' w1 e2 > go' "$tmp/fis.log" | head -1 | sed 's/.* > //')
case "$go2" in
"go btime "*" wtime 60000 binc 100 winc 1000")
    bt=${go2#go btime }
    bt=${bt%% *}
    [ "$bt" -le 10100 ] && [ "$bt" -ge 9100 ] || fail "fischer odds: B's first go gives black $bt ms: '$go2'" ;;
*) fail "fischer odds: B's first go: '$go2'" ;;
esac
# game 2, B black: the increments follow the engines, not the colours
go3=$(grep ' w1 e2 > go' "$tmp/fis.log" | sed 's/.* > //' | grep '^go btime 60000 wtime 10' | head -1)
expect_contains "fischer odds game 2" "$go3" "binc 1000 winc 100"
rec=$(cat "$tmp/fis.csa")
expect_contains "fischer odds record game 1" "$rec" $'$TIME+:10+0+0.1\n$TIME-:60+0+1\n'
expect_contains "fischer odds record game 2" "$rec" $'$TIME+:60+0+1\n$TIME-:10+0+0.1\n'

# ---- --swap-clocks2: engine 2 (only) is told the figures the wrong way round ----
run_match "swap clocks" 0 --engine "$(fake 0)" --engine "$(fake 0)" --name A --name B --games 1 \
    --time 60000 --inc 1000 --time1 10000 --inc1 100 --swap-clocks2 --log "$tmp/swap.log"
go1=$(grep ' w1 e1 > go' "$tmp/swap.log" | head -1 | sed 's/.* > //')
[ "$go1" = "go btime 10000 wtime 60000 binc 100 winc 1000" ] || fail "swap clocks: A's first go: '$go1'"
go2=$(grep ' w1 e2 > go' "$tmp/swap.log" | head -1 | sed 's/.* > //')
case "$go2" in
"go btime 60000 wtime "*" binc 1000 winc 100") ;;
*) fail "swap clocks: B's first go: '$go2'" ;;
esac
expect_contains "swap clocks: no time loss" "$out" "Time losses: A 0, B 0"

# ---- one engine at fixed nodes, the other on its own Fischer clock ----
run_match "nodes and own clock" 0 --engine "$(fake 0)" --engine "$(fake 0)" --games 1 --nodes1 300 \
    --time2 5000 --inc2 200 --log "$tmp/mix.log" --out "$tmp/mix.csa"
expect_contains "nodes and own clock header" "$out" "5000 ms + 200 ms/move; engine 1 nodes 300"
expect_contains "nodes and own clock e1" "$(grep ' e1 > go' "$tmp/mix.log")" "go nodes 300"
expect_contains "nodes and own clock e2" "$(grep ' e2 > go' "$tmp/mix.log" | head -1)" "wtime 5000 binc 0 winc 200"
expect_contains "nodes and own clock record" "$(cat "$tmp/mix.csa")" $'\n$TIME-:5+0+0.2\n\'time control: 5000 ms + 200 ms/move; engine 1 nodes 300\n'
expect_not_contains "nodes and own clock record" "$(cat "$tmp/mix.csa")" "\$TIME+"

# ---- --resume: a record played at other clocks is refused and left alone ----
cp "$tmp/byo.csa" "$tmp/byo_keep.csa"
run_match "resume other clocks" 1 --engine "$(fake 0.3)" --engine "$(fake 0.3)" --name fast --name slow --games 2 \
    --byoyomi1 100 --byoyomi2 1000 --out "$tmp/byo.csa" --resume
expect_contains "resume other clocks" "$out" "were played at 'engine 1 byoyomi 100 ms; engine 2 byoyomi 2000 ms', not 'engine 1 byoyomi 100 ms; engine 2 byoyomi 1000 ms'"
cmp -s "$tmp/byo.csa" "$tmp/byo_keep.csa" || fail "resume other clocks: the record changed"
run_match "resume same clocks" 0 --engine "$(fake 0.3)" --engine "$(fake 0.3)" --name fast --name slow --games 2 \
    --byoyomi1 100 --byoyomi2 2000 --out "$tmp/byo.csa" --resume
expect_contains "resume same clocks" "$out" "Resuming: 2 of 2 games read back"
expect_contains "resume same clocks" "$out" "Time losses: fast 2, slow 0"
finish
