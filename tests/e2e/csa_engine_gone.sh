#!/usr/bin/env bash
# csa_engine_gone.sh - `hayanagi csa` whose engine stops reading at usinewgame (it closes
# its stdin, then exits): the next write to its pipe fails, and the client resigns the
# game (%TORYO, what the scripted server's "resign" scenario waits for), says why and ends
# the session normally (util/long_job.h: SIGPIPE is ignored for the run). It
# used to die of SIGPIPE, silently, with status 141.
. "$(dirname "$0")/lib.sh"
csa_setup

cat > "$tmp/gone.sh" <<'SH'
#!/bin/sh
while read -r l; do
    case "$l" in
    usi) echo "id name Gone"; echo usiok ;;
    isready) echo readyok ;;
    usinewgame) exec 0<&-; sleep 20; exit 0 ;;
    esac
done
SH
start_server resign
out=$("$HAYANAGI" csa --host 127.0.0.1 --port "$port" --id hayanagi-test --password pw \
    --game hay-1-0 --keepalive 0 --engine "sh $tmp/gone.sh" 2>&1)
expect_status "engine gone" 0 $?
server_status "engine gone (the server waits for %TORYO)"
# which write fails first depends on when the engine reads usinewgame: position and go (then
# "the engine is gone"), or the stop after the clock ran out ("did not answer stop in time")
case "$out" in
*"game g1: the engine is gone: resigned"* | *"game g1: the engine did not answer stop in time: resigned"*) ;;
*) fail "engine gone: no resignation said: $out" ;;
esac
expect_contains "engine gone: the game" "$out" "game g1 vs rival as black: LOSE by RESIGN, 0 moves"
finish
