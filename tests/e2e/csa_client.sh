#!/usr/bin/env bash
# csa_client.sh - `hayanagi csa` against the scripted CSA server tests/csa/server.py
# (loopback only, each run stops itself): a full game with the built-in engine, white
# with moves already played on a Fischer clock with a scripted engine (the clock sent to
# the engine, the floodgate comment, ponder hit and miss), garbage, a server that closes
# mid-game, a slow one, a bad Game_Summary, a refused login, a draw, an illegal relay,
# an entering-king declaration, the resignation threshold, the password's sources.
. "$(dirname "$0")/lib.sh"
csa_setup
fake="$py $here/csa/fake_engine.py"
common=(--host 127.0.0.1 --id hayanagi-test --password pw --game hay-1-0 --keepalive 0)

# --help and usage errors
out=$("$HAYANAGI" csa --help)
expect_contains "help" "$out" "--rival-books DIR"
out=$(env -u HAYANAGI_CSA_PASSWORD "$HAYANAGI" csa --host h --id i 2>&1)
expect_status "missing password" 2 $?
expect_contains "missing password" "$out" "no password: give --password-file FILE, set HAYANAGI_CSA_PASSWORD"
expect_contains "help: ps" "$("$HAYANAGI" csa --help)" "sees it (ps)"
out=$("$HAYANAGI" csa --host h --id i --password p --port 0 2>&1)
expect_status "bad port" 2 $?
expect_contains "bad port" "$out" "--port"

# 1. A full game with the built-in engine: black, byoyomi 500 ms (Time_Unit 1msec)
start_server full
mkdir -p "$tmp/rec"
printf 'an earlier session\n' > "$tmp/full.log" # --log appends
out=$("$HAYANAGI" csa "${common[@]}" --port "$port" --records "$tmp/rec" --margin-ms 100 --log "$tmp/full.log" \
    --option USI_Hash=16 2>&1)
expect_status "full game" 0 $?
server_status "full game"
expect_contains "full game" "$out" "game g1 vs rival as black: WIN by RESIGN, 5 moves"
expect_contains "full game byoyomi" "$(cat "$tmp/full.log")" "byoyomi 400"
[ "$(head -1 "$tmp/full.log")" = "an earlier session" ] || fail "--log truncated the earlier session's log"
# the engine's lines carry the UTC time of day, as the server's lines beside them
grep -q '^[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9][0-9][0-9] csa > usi$' "$tmp/full.log" ||
    fail "--log: the engine's lines do not start with the time of day: $(grep ' csa > usi$' "$tmp/full.log")"
out=$("$HAYANAGI" book records "$tmp/rec/g1.csa" 2>&1)
expect_contains "record reads back" "$out" "5 moves	black	TORYO	hayanagi-test vs rival"
expect_contains "record times" "$(cat "$tmp/rec/g1.csa")" "T0"
# the clock as the Game_Summary set it (Total_Time 0, Byoyomi 500 ms for both): CSA V3's $TIME
expect_contains "record clock" "$(cat "$tmp/rec/g1.csa")" '$TIME:0+0.5+0'

# 2. White, three moves already played, Fischer 60 s + 5 s, the scripted engine
start_server white-fischer
rm -f "$tmp/engine.log"
out=$(FAKE_ENGINE_LOG="$tmp/engine.log" "$HAYANAGI" csa "${common[@]}" --port "$port" --records "$tmp/rec" \
    --engine "$fake 8c8d:42:2f2e 8d8e:10:6i7h 4a3b:5" --ponder --floodgate-comments --margin-ms 100 \
    --rival-books "$tmp/rival" 2>&1)
expect_status "white fischer" 0 $?
server_status "white fischer"
expect_contains "white fischer" "$out" "as white: WIN by TIME_UP, 8 moves"
elog=$(cat "$tmp/engine.log")
expect_contains "opponent option" "$elog" "setoption name USI_Opponent value none none computer rival"
expect_contains "rival books" "$elog" "setoption name RivalBookDir value $(realpath "$tmp/rival")"
expect_contains "max moves" "$elog" "setoption name MaxMovesToDraw value 256"
expect_contains "first clock" "$elog" "position startpos moves 2g2f 3c3d 7g7f
go btime 48000 wtime 58900 binc 5000 winc 5000"
expect_contains "ponder clock" "$elog" "go ponder btime 48000 wtime 61900 binc 5000 winc 5000"
expect_contains "ponderhit" "$elog" "ponderhit"
expect_contains "ponder miss" "$elog" "stop
position startpos moves 2g2f 3c3d 7g7f 8c8d 2f2e 8d8e 3i4h
go btime 51000 wtime 65900 binc 5000 winc 5000"
out=$("$HAYANAGI" book records "$tmp/rec/g1.csa" 2>&1)
expect_contains "white record" "$out" "8 moves	white	TIME_UP"
expect_contains "our score comment" "$(cat "$tmp/rec/g1.csa")" "'** -42"

# 3. Garbage mid-game: the game ends, the record says %CHUDAN, no crash
start_server garbage
out=$("$HAYANAGI" csa "${common[@]}" --port "$port" --records "$tmp/rec" --engine "$fake 7g7f" 2>&1)
expect_status "garbage" 0 $?
server_status "garbage"
expect_contains "garbage" "$out" "protocol error: not a CSA game message 'this is not CSA'"
expect_contains "garbage" "$out" "CHUDAN, 1 moves"
expect_contains "garbage record" "$(cat "$tmp/rec/g1.csa")" "%CHUDAN"

# 4. The server closes the connection mid-game
start_server close
out=$("$HAYANAGI" csa "${common[@]}" --port "$port" --records "$tmp/rec" --engine "$fake 7g7f 2g2f" 2>&1)
expect_status "close" 0 $?
server_status "close"
expect_contains "close" "$out" "the server closed the connection"
expect_contains "close" "$out" "CHUDAN, 3 moves"

# 5. A slow server: silent for seconds, kept alive with empty lines
start_server slow
out=$("$HAYANAGI" csa --host 127.0.0.1 --id hayanagi-test --password pw --game hay-1-0 --keepalive 1 \
    --port "$port" --engine "$fake 7g7f 2g2f" 2>&1)
expect_status "slow" 0 $?
server_status "slow"
expect_contains "slow" "$out" "WIN by RESIGN, 3 moves"

# 6. A Game_Summary we cannot read: REJECT, with the line and the reason
start_server bad-summary
out=$("$HAYANAGI" csa "${common[@]}" --port "$port" --engine "$fake" --max-failures 1 2>&1)
expect_status "bad summary" 1 $?
server_status "bad summary"
expect_contains "bad summary" "$out" "position block line 2"

# 7. A refused login ends the session
start_server login-refused
out=$("$HAYANAGI" csa "${common[@]}" --port "$port" --engine "$fake" 2>&1)
expect_status "login refused" 1 $?
server_status "login refused"
expect_contains "login refused" "$out" "login refused: LOGIN:incorrect"
# --log - is the standard error (util/log_file.h), never a file named "-"
start_server login-refused
mkdir "$tmp/logdash"
hay=$(realpath "$HAYANAGI")
out=$(cd "$tmp/logdash" && "$hay" csa "${common[@]}" --port "$port" --engine "$fake" --log - 2>&1 > /dev/null)
expect_status "login refused, --log -" 1 $?
server_status "login refused, --log -"
expect_contains "--log -: the dialogue on stderr" "$out" "> LOGIN hayanagi-test"
[ -e "$tmp/logdash/-" ] && fail "csa --log - made a file named -"

# 8. A draw by repetition, as the server declares it
start_server draw
out=$("$HAYANAGI" csa "${common[@]}" --port "$port" --records "$tmp/rec" --engine "$fake 7g7f 2g2f" 2>&1)
expect_status "draw" 0 $?
server_status "draw"
expect_contains "draw" "$out" "DRAW by SENNICHITE, 3 moves"
expect_contains "draw record" "$(cat "$tmp/rec/g1.csa")" "%SENNICHITE"

# 9. The server relays an illegal move of the opponent
start_server illegal-relay
out=$("$HAYANAGI" csa "${common[@]}" --port "$port" --engine "$fake 7g7f 2g2f" 2>&1)
expect_status "illegal relay" 0 $?
server_status "illegal relay"
expect_contains "illegal relay" "$out" "the opponent's move is not legal here"

# 10. A position where we may declare: %KACHI by the 27-point rule, without the engine
start_server kachi
out=$("$HAYANAGI" csa "${common[@]}" --port "$port" --records "$tmp/rec" --engine "$fake" 2>&1)
expect_status "kachi" 0 $?
server_status "kachi"
expect_contains "kachi" "$out" "WIN by JISHOGI, 0 moves"
expect_contains "kachi record" "$(cat "$tmp/rec/g1.csa")" "%KACHI"

# 11. The resignation threshold: the engine's move is not sent at -5000 with --resign 3000
start_server resign
out=$("$HAYANAGI" csa "${common[@]}" --port "$port" --engine "$fake 7g7f:-5000" --resign 3000 2>&1)
expect_status "resign" 0 $?
server_status "resign"
expect_contains "resign" "$out" "LOSE by RESIGN, 0 moves"

# 12. The password (docs/csa.md, "The password"). From a file: its first line, the CR LF
# stripped, ahead of HAYANAGI_CSA_PASSWORD; the variable is not the engine's to inherit.
printf 's3cret\r\nsecond line\n' > "$tmp/pw"
chmod 600 "$tmp/pw"
login=(--host 127.0.0.1 --id hayanagi-test --game hay-1-0 --keepalive 0 --resign 3000)
start_server resign s3cret
out=$(HAYANAGI_CSA_PASSWORD=fromenv "$HAYANAGI" csa "${login[@]}" --port "$port" --password-file "$tmp/pw" \
    --engine "env > $tmp/engine.env; exec $fake 7g7f:-5000" 2>&1)
expect_status "password file" 0 $?
server_status "password file"
expect_contains "password file" "$out" "LOSE by RESIGN, 0 moves"
grep -q '^PATH=' "$tmp/engine.env" || fail "password file: the engine's environment was not recorded"
grep -q HAYANAGI_CSA_PASSWORD "$tmp/engine.env" && fail "password file: the engine inherited HAYANAGI_CSA_PASSWORD"
# from the environment when neither option is given
start_server resign fromenv
out=$(HAYANAGI_CSA_PASSWORD=fromenv "$HAYANAGI" csa "${login[@]}" --port "$port" \
    --engine "env > $tmp/engine.env; exec $fake 7g7f:-5000" 2>&1)
expect_status "password from the environment" 0 $?
server_status "password from the environment"
grep -q HAYANAGI_CSA_PASSWORD "$tmp/engine.env" && fail "password from the environment: the engine inherited it"
# a pipe (no mode to check) and a lone LF
start_server resign piped
out=$("$HAYANAGI" csa "${login[@]}" --port "$port" --password-file <(printf 'piped\n') \
    --engine "$fake 7g7f:-5000" 2>&1)
expect_status "password from a pipe" 0 $?
server_status "password from a pipe"
# the refusals, before any connection (port 1 would refuse one)
chmod 640 "$tmp/pw"
out=$("$HAYANAGI" csa "${login[@]}" --port 1 --password-file "$tmp/pw" 2>&1)
expect_status "password file readable by the group" 2 $?
expect_contains "password file readable by the group" "$out" \
    "--password-file $tmp/pw: permissions 0640 are too open: group or others may read or change the password (chmod 600 $tmp/pw)"
chmod 604 "$tmp/pw"
out=$("$HAYANAGI" csa "${login[@]}" --port 1 --password-file "$tmp/pw" 2>&1)
expect_status "password file readable by others" 2 $?
expect_contains "password file readable by others" "$out" "permissions 0604 are too open"
chmod 600 "$tmp/pw"
out=$("$HAYANAGI" csa "${login[@]}" --port 1 --password-file "$tmp/pw" --password pw 2>&1)
expect_status "both password options" 2 $?
expect_contains "both password options" "$out" "--password and --password-file are exclusive"
out=$("$HAYANAGI" csa "${login[@]}" --port 1 --password-file "$tmp/nopw" 2>&1)
expect_status "missing password file" 2 $?
expect_contains "missing password file" "$out" "--password-file $tmp/nopw: No such file or directory"
: > "$tmp/pw"
out=$("$HAYANAGI" csa "${login[@]}" --port 1 --password-file "$tmp/pw" 2>&1)
expect_status "empty password file" 2 $?
expect_contains "empty password file" "$out" "the first line is empty"
printf 'two words\n' > "$tmp/pw"
out=$("$HAYANAGI" csa "${login[@]}" --port 1 --password-file "$tmp/pw" 2>&1)
expect_status "password with a blank" 2 $?
expect_contains "password with a blank" "$out" "the password (--password-file) may not hold blanks"

# 13. A file where the records directory is asked for is refused, not taken for one
: > "$tmp/afile"
out=$("$HAYANAGI" csa "${common[@]}" --port 1 --records "$tmp/afile" --engine "$fake" --max-failures 1 2>&1)
expect_status "records is a file" 1 $?
expect_contains "records is a file" "$out" "--records $tmp/afile: exists and is not a directory"
out=$("$HAYANAGI" csa "${common[@]}" --port 1 --rival-books "$tmp/afile/sub" --engine "$fake" --max-failures 1 2>&1)
expect_status "rival books under a file" 1 $?
expect_contains "rival books under a file" "$out" "--rival-books $tmp/afile/sub: $tmp/afile exists and is not a directory"

finish
