#!/usr/bin/env bash
# `hayanagi match`: argument checking, games between our engine and itself, scripted fake
# engines that play illegal moves, resign, declare falsely, hang or crash, interruption by
# SIGINT, and short matches between the peers fairy-stockfish and gpsusi (skipped, with a
# message, when a binary is missing). Every CSA record written is replayed move by move
# through our own `position` command, so each recorded move is checked for legality.
# Keeps well under 60 s.
. "$(dirname "$0")/lib.sh"

FAIRY=${FAIRY:-/usr/games/fairy-stockfish}
GPSUSI=${GPSUSI:-/usr/games/gpsusi}
OPENINGS="$(dirname "$0")/data/openings_small.txt"
tmp=$(mktemp -d)
gps_conf_save
trap 'rm -rf "$tmp"; gps_conf_restore' EXIT

# A scripted USI engine. MODE decides what it does on `go`.
cat > "$tmp/fake.sh" <<'EOF'
mode=$1
while IFS= read -r line; do
    case "$line" in
    usi) echo "id name fake-$mode"; echo "option name Dummy type spin default 1 min 0 max 9"; echo usiok ;;
    isready) echo readyok ;;
    go*)
        case $mode in
        illegal) echo "bestmove 5e5d" ;;
        garbage) echo "bestmove ???" ;;
        resign) echo "bestmove resign" ;;
        win) echo "bestmove win" ;;
        slow) sleep 0.4; echo "bestmove resign" ;;
        hang) sleep 1000 ;;
        crash) exit 3 ;;
        esac ;;
    quit) exit 0 ;;
    esac
done
EOF

# check_csa NAME FILE GAMES: the file holds GAMES games, each ends with a '%' line, and
# every game's moves replay legally from the start position.
check_csa() {
    local name=$1 file=$2 want=$3
    [ -s "$file" ] || { fail "$name: no record written"; return; }
    [ "$(head -1 "$file")" = "V2.2" ] || fail "$name: first line is not V2.2"
    local games ends
    games=$(($(grep -c '^/$' "$file") + 1))
    ends=$(grep -c '^%' "$file")
    [ "$games" = "$want" ] || fail "$name: $games games in the record, expected $want"
    [ "$ends" = "$want" ] || fail "$name: $ends end markers, expected $want"
    # CSA -> "position startpos moves ..." lines, tracking the board to see promotions.
    awk '
    function start(   f) {
        delete b; moves = ""; root = ""
        split("KY KE GI KI OU KI GI KE KY", back, " ")
        for (f = 1; f <= 9; f++) { b[f "1"] = back[10 - f]; b[f "9"] = back[10 - f]; b[f "3"] = "FU"; b[f "7"] = "FU" }
        b["82"] = "HI"; b["22"] = "KA"; b["88"] = "KA"; b["28"] = "HI"
    }
    function emit() { if (root != "") print root (moves != "" ? " moves" moves : ""); root = "" }
    BEGIN { split("FU P KY L KE N GI S KI G KA B HI R", t, " "); for (i = 1; i < 14; i += 2) drop[t[i]] = t[i + 1]
            split("FU KY KE GI KA HI", u, " "); for (i in u) plain[u[i]] = 1
            split("TO NY NK NG UM RY", p, " "); for (i in p) promoted[p[i]] = 1
            ranks = "abcdefghi" }
    /^\/$/ { emit(); next }
    /^PI$/ { start(); root = "startpos"; next }
    /^P[1-9]/ { start(); root = "unsupported-root"; next }
    /^[+-][0-9][0-9][0-9][0-9][A-Z][A-Z]$/ {
        from = substr($0, 2, 2); to = substr($0, 4, 2); pc = substr($0, 6, 2)
        dst = substr(to, 1, 1) substr(ranks, substr(to, 2, 1), 1)
        if (from == "00") mv = drop[pc] "*" dst
        else mv = substr(from, 1, 1) substr(ranks, substr(from, 2, 1), 1) dst ((b[from] in plain) && (pc in promoted) ? "+" : "")
        b[to] = pc; delete b[from]; moves = moves " " mv
    }
    END { emit() }' "$file" > "$tmp/replay.txt"
    [ "$(wc -l < "$tmp/replay.txt")" = "$want" ] || fail "$name: $(wc -l < "$tmp/replay.txt") replayable games"
    local n=0 line out
    while IFS= read -r line; do
        n=$((n + 1))
        out=$(printf 'position %s\nsfen\nquit\n' "$line" | timeout 20 "$HAYANAGI" 2>&1)
        case "$out" in *"info string position"*) fail "$name: game $n does not replay: $(echo "$out" | grep 'info string position')" ;; esac
        case "$out" in *sfen*) ;; *) fail "$name: game $n: no sfen answer" ;; esac
    done < "$tmp/replay.txt"
}

# run_match NAME EXPECTED_STATUS ARGS...: runs a match with a time limit, output in $out.
run_match() {
    local name=$1 want=$2; shift 2
    out=$(timeout 50 "$HAYANAGI" match "$@" 2>&1)
    expect_status "$name" "$want" $?
}

# ---- argument checking: exit status 2 and a message naming the problem ----
run_match "no engines" 2
expect_contains "no engines" "$out" "exactly two --engine"
run_match "one engine" 2 --engine "$HAYANAGI"
run_match "three engines" 2 --engine a --engine b --engine c
run_match "zero games" 2 --engine a --engine b --games 0
expect_contains "zero games" "$out" "--games expects an integer in 1..1000000, got '0'"
run_match "bad number" 2 --engine a --engine b --byoyomi 10x
run_match "negative seed" 2 --engine a --engine b --seed -1
expect_contains "negative seed" "$out" "--seed expects a non-negative integer, got '-1'"
run_match "hex seed" 2 --engine a --engine b --seed 0x10
run_match "nodes and byoyomi" 2 --engine a --engine b --nodes 5 --byoyomi 100
expect_contains "nodes and byoyomi" "$out" "--nodes cannot be combined"
run_match "inc without time" 2 --engine a --engine b --inc 100
run_match "inc and byoyomi" 2 --engine a --engine b --time 1000 --inc 100 --byoyomi 100
run_match "jitter without nodes" 2 --engine a --engine b --byoyomi 100 --nodes-jitter 10
run_match "jitter over 100" 2 --engine a --engine b --nodes 100 --nodes-jitter 101
run_match "kif out" 2 --engine a --engine b --out x.kif
run_match "unknown flag" 2 --engine a --engine b --frobnicate 1
expect_contains "unknown flag" "$out" "unrecognized option '--frobnicate'"
run_match "missing value" 2 --engine a --engine b --games
run_match "bad option" 2 --engine a --engine b --option =3
run_match "bad rule" 2 --engine a --engine b --option EnteringKingRule=Whatever
expect_contains "bad rule" "$out" "unknown EnteringKingRule 'Whatever'"
run_match "help" 0 --help
expect_contains "help" "$out" "usage: hayanagi match"

# ---- runtime failures: exit status 1 ----
run_match "missing engine" 1 --engine /nonexistent/engine --engine "$HAYANAGI" --nodes 100
expect_contains "missing engine" "$out" "cannot start '/nonexistent/engine'"
run_match "engine without usiok" 1 --engine "sh -c 'exit 0'" --engine "$HAYANAGI" --nodes 100
expect_contains "engine without usiok" "$out" "waiting for usiok"
printf 'startpos\nstartpos moves 7g7f 7g7f\n' > "$tmp/bad_openings.txt"
run_match "bad openings" 1 --engine "$HAYANAGI" --engine "$HAYANAGI" --openings "$tmp/bad_openings.txt"
expect_contains "bad openings" "$out" "bad_openings.txt:2: position: move 2 '7g7f' is illegal"

# ---- our engine against itself: openings, both colours, concurrency, the record ----
run_match "self play" 0 --engine "$HAYANAGI" --engine "$HAYANAGI" --name A --name B --openings "$OPENINGS" \
    --games 4 --nodes 300 --max-moves 24 --concurrency 2 --option USI_Hash=16 --option1 NoSuchOption=1 \
    --out "$tmp/self.csa"
expect_contains "self play summary" "$out" "Result: A vs B: +0 =4 -0 (4 games), score 50.0%, Elo +0.0"
expect_contains "self play ends" "$out" "Game ends: move limit 4"
expect_contains "unknown option warned" "$out" "warning: engine 1 (Hayanagi"
expect_contains "unknown option warned" "$out" "has no option 'NoSuchOption'; not sent"
expect_contains "progress line" "$out" "game 4/4: B (black) - A (white): draw by move limit after 24 moves"
check_csa "self play" "$tmp/self.csa" 4
# Games 1 and 2 start from the first opening with colours swapped; game 3 from the second.
[ "$(grep -c '^N+A$' "$tmp/self.csa")" = 2 ] || fail "self play: A must have black twice"
[ "$(awk '/^PI$/{getline; getline; print}' "$tmp/self.csa" | tr '\n' ' ')" = "+7776FU +7776FU +7776FU +7776FU " ] ||
    fail "self play: games must start with the openings' first move"
grep -q "^-8384FU$" "$tmp/self.csa" || fail "self play: the second opening (7g7f 8c8d) is missing"
expect_contains "opening marked" "$(cat "$tmp/self.csa")" "'end of opening (4 moves)"

# ---- scripted engines: each outcome is adjudicated and counted against the right side ----
fake() { echo "bash $tmp/fake.sh $1"; }
N=(--name ours --name fake) # display names, in --engine order
run_match "illegal" 0 --engine "$HAYANAGI" --engine "$(fake illegal)" "${N[@]}" --nodes 300 --out "$tmp/illegal.csa"
expect_contains "illegal result" "$out" "+2 =0 -0 (2 games)"
expect_contains "illegal counted" "$out" "Illegal moves: ours 0, fake 2"
expect_contains "illegal in record" "$(cat "$tmp/illegal.csa")" "%ILLEGAL_MOVE"
expect_contains "illegal detail" "$(cat "$tmp/illegal.csa")" "'fake played an illegal move: 'bestmove 5e5d'"
check_csa "illegal" "$tmp/illegal.csa" 2
run_match "garbage" 0 --engine "$(fake garbage)" --engine "$HAYANAGI" --nodes 300
expect_contains "garbage result" "$out" "+0 =0 -2 (2 games)"
run_match "resign" 0 --engine "$HAYANAGI" --engine "$(fake resign)" "${N[@]}" --nodes 300 --out "$tmp/resign.csa"
expect_contains "resign result" "$out" "+2 =0 -0 (2 games)"
expect_contains "resign ends" "$out" "Game ends: resign 2"
[ "$(grep -c '^%TORYO$' "$tmp/resign.csa")" = 2 ] || fail "resign: two %TORYO expected"
run_match "false declaration" 0 --engine "$HAYANAGI" --engine "$(fake win)" "${N[@]}" --nodes 300
expect_contains "false declaration" "$out" "False declarations: ours 0, fake 2"
run_match "hang" 0 --engine "$(fake hang)" --engine "$HAYANAGI" --nodes 300 --move-timeout 300 --out "$tmp/hang.csa"
expect_contains "hang result" "$out" "+0 =0 -2 (2 games)"
expect_contains "hang time losses" "$out" "Time losses: fake-hang 2"
expect_contains "hang restarted" "$out" "(restarts 1, 0)"
expect_contains "hang in record" "$(cat "$tmp/hang.csa")" "%TIME_UP"
pgrep -f "$tmp/fake.sh hang" > /dev/null && fail "hang: a hung engine was left running"
run_match "slow" 0 --engine "$HAYANAGI" --engine "$(fake slow)" "${N[@]}" --nodes 300 --move-timeout 150
expect_contains "slow time losses" "$out" "Time losses: ours 0, fake 2"
expect_contains "slow not restarted" "$out" "(restarts 0, 0)"
# --nodes1: the first engine plays at fixed nodes, the second on the clock. The slow fake
# (0.4 s a move) would lose on time at byoyomi 100; at fixed nodes it only resigns.
# --log appends (docs/match.md): an earlier run's lines stay, this run's follow them.
printf 'an earlier run\n' > "$tmp/own_nodes.log"
run_match "own nodes" 0 --engine "$(fake slow)" --engine "$HAYANAGI" --name fake --name ours --nodes1 300 \
    --byoyomi 100 --grace 2000 --log "$tmp/own_nodes.log"
[ "$(head -1 "$tmp/own_nodes.log")" = "an earlier run" ] || fail "--log truncated the earlier run's log"
# each line's seconds count from this run's start (the match took seconds, not hours)
first=$(sed -n '2s/^\([0-9]*\)\.[0-9][0-9][0-9] .*/\1/p' "$tmp/own_nodes.log")
[ -n "$first" ] && [ "$first" -lt 60 ] || fail "--log: the first line is not seconds since the start: $(sed -n 2p "$tmp/own_nodes.log")"
expect_contains "own nodes result" "$out" "+0 =0 -2 (2 games)"
expect_contains "own nodes header" "$out" "byoyomi 100 ms; engine 1 nodes 300"
expect_contains "own nodes no time loss" "$out" "Time losses: fake 0, ours 0"
# The fake sleeps 0.4 s before each of its two resignations, so its mean cannot be less.
fake_mean=$(printf '%s\n' "$out" | sed -n 's/^Move time: fake mean \([0-9]*\)\.[0-9] ms, longest [0-9.]* ms (2 moves);.*/\1/p')
[ -n "$fake_mean" ] && [ "$fake_mean" -ge 400 ] || fail "own nodes: move time line wrong: $(printf '%s\n' "$out" | grep 'Move time')"
expect_contains "own nodes engine 1" "$(cat "$tmp/own_nodes.log")" "e1 > go nodes 300"
expect_not_contains "own nodes engine 1 clock" "$(grep ' e1 > go' "$tmp/own_nodes.log")" "byoyomi"
expect_contains "own nodes engine 2" "$(grep ' e2 > go' "$tmp/own_nodes.log")" "byoyomi 100"
expect_not_contains "own nodes engine 2 nodes" "$(grep ' e2 > go' "$tmp/own_nodes.log")" "nodes"
# --nodes-jitter: engine 1's budget differs from game to game within 10 % of 1000 (the
# draw is match_jittered_nodes, unit-tested in test_grow), engine 2 stays on the clock;
# the same seed gives the same budgets, the record names them.
run_match "jitter" 0 --engine "$HAYANAGI" --engine "$HAYANAGI" --name a --name b --option USI_OwnBook=false \
    --nodes1 1000 --byoyomi 100 --grace 2000 --nodes-jitter 10 --seed 5 --games 4 --max-moves 4 \
    --out "$tmp/jitter.csa" --log "$tmp/jitter.log"
budgets=$(grep -o ' e1 > go nodes [0-9]*' "$tmp/jitter.log" | awk '{print $5}' | sort -un)
[ "$(printf '%s\n' "$budgets" | wc -l)" -ge 2 ] || fail "jitter: one budget for every game: $budgets"
for b in $budgets; do
    [ "$b" -ge 900 ] && [ "$b" -le 1100 ] || fail "jitter: budget $b outside 900..1100"
done
expect_not_contains "jitter engine 2 clock" "$(grep ' e2 > go' "$tmp/jitter.log")" "nodes"
[ "$(grep -c "^'time control: byoyomi 100 ms; engine 1 nodes 1000; this game: .* nodes [0-9]*$" "$tmp/jitter.csa")" = 4 ] ||
    fail "jitter: the record does not name each game's budget: $(grep "time control" "$tmp/jitter.csa")"
run_match "jitter again" 0 --engine "$HAYANAGI" --engine "$HAYANAGI" --name a --name b --option USI_OwnBook=false \
    --nodes1 1000 --byoyomi 100 --grace 2000 --nodes-jitter 10 --seed 5 --games 4 --max-moves 4 \
    --out "$tmp/jitter2.csa"
[ "$(grep "time control" "$tmp/jitter.csa")" = "$(grep "time control" "$tmp/jitter2.csa")" ] ||
    fail "jitter: the same seed drew other budgets"
run_match "crash" 0 --engine "$HAYANAGI" --engine "$(fake crash)" "${N[@]}" --nodes 300 --out "$tmp/crash.csa"
expect_contains "crash result" "$out" "+2 =0 -0 (2 games)"
expect_contains "crash counted" "$out" "Crashes: ours 0, fake 2 (restarts 0, 1)"
check_csa "crash" "$tmp/crash.csa" 2

# ---- Ctrl-C: the match stops, says so, and still writes the finished games ----
"$HAYANAGI" match --engine "$HAYANAGI" --engine "$HAYANAGI" --games 1000 --nodes 200 --max-moves 10 \
    --out "$tmp/int.csa" > "$tmp/int.txt" 2>&1 &
pid=$!
# Interrupt once a game has finished: the engines' start-up (hash allocation) takes
# seconds on a loaded or sanitized build, so a fixed sleep may strike before any game.
for _ in $(seq 600); do grep -q '^game 1/' "$tmp/int.txt" 2>/dev/null && break; sleep 0.2; done
kill -INT "$pid"
wait "$pid"
expect_status "interrupted" 130 $?
expect_contains "interrupted" "$(cat "$tmp/int.txt")" "Interrupted:"
[ -s "$tmp/int.csa" ] || fail "interrupted: no record written"

# ---- killed (SIGKILL, nothing runs after it): the record holds every game finished ----
# kill_after_two NAME GAMES: a self-play match of GAMES games into $tmp/NAME.csa, killed once
# its second game is announced (its lines in $tmp/NAME.txt)
kill_after_two() {
    "$HAYANAGI" match --engine "$HAYANAGI" --engine "$HAYANAGI" --games "$2" --nodes 200 --max-moves 10 \
        --out "$tmp/$1.csa" > "$tmp/$1.txt" 2>&1 &
    local pid=$!
    for _ in $(seq 600); do grep -q '^game 2/' "$tmp/$1.txt" 2>/dev/null && break; sleep 0.2; done
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
}
kill_after_two kill 1000
done_games=$(grep -c '^game ' "$tmp/kill.txt")
[ "$done_games" -ge 2 ] || fail "killed: only $done_games games finished before the kill"
# the record is rewritten after each game: it holds the games announced (or one more, when
# a game ended between the last line read and the kill)
rec_games=$(($(grep -c '^/$' "$tmp/kill.csa" 2>/dev/null) + 1))
[ "$rec_games" -ge "$done_games" ] && [ "$rec_games" -le $((done_games + 1)) ] ||
    fail "killed: $rec_games games in the record, $done_games announced"
check_csa "killed" "$tmp/kill.csa" "$rec_games"

# ---- --resume: a killed 6-game match goes on from its record; the old games stay as written ----
kill_after_two res 6
cp "$tmp/res.csa" "$tmp/res_before.csa"
before=$(($(grep -c '^/$' "$tmp/res_before.csa") + 1))
out=$("$HAYANAGI" match --engine "$HAYANAGI" --engine "$HAYANAGI" --games 6 --nodes 200 --max-moves 10 \
    --out "$tmp/res.csa" --resume 2>&1)
expect_status "resume" 0 $?
expect_contains "resume read back" "$out" "Resuming: $before of 6 games read back from $tmp/res.csa"
expect_contains "resume counts all" "$out" "(6 games)"
check_csa "resumed" "$tmp/res.csa" 6
[ "$(grep '^\$EVENT' "$tmp/res.csa" | sed 's/.*game \([0-9]*\) of 6/\1/' | tr '\n' ' ')" = "1 2 3 4 5 6 " ] ||
    fail "resume: games out of order: $(grep '^\$EVENT' "$tmp/res.csa" | tr '\n' ' ')"
head -c "$(($(wc -c < "$tmp/res_before.csa") - 1))" "$tmp/res_before.csa" | cmp -s - <(head -c "$(($(wc -c < "$tmp/res_before.csa") - 1))" "$tmp/res.csa") ||
    fail "resume: the games played before were not kept as written"
# refused: another number of games, a record of another program, no --out; the record stays
cp "$tmp/res.csa" "$tmp/res_keep.csa"
out=$("$HAYANAGI" match --engine "$HAYANAGI" --engine "$HAYANAGI" --games 8 --nodes 200 --out "$tmp/res.csa" --resume 2>&1)
expect_status "resume other --games" 1 $?
expect_contains "resume other --games" "$out" "a game of a match of 6 games, not 8 (--games)"
cmp -s "$tmp/res.csa" "$tmp/res_keep.csa" || fail "resume other --games: the record changed"
cp ../shared/refdata/csa/json-kifu-format/example.csa "$tmp/other.csa"
out=$("$HAYANAGI" match --engine "$HAYANAGI" --engine "$HAYANAGI" --games 2 --nodes 200 --out "$tmp/other.csa" --resume 2>&1)
expect_status "resume foreign record" 1 $?
expect_contains "resume foreign record" "$out" "not a record \`hayanagi match\` wrote"
"$HAYANAGI" match --engine a --engine b --resume > /dev/null 2>&1
expect_status "resume without --out" 2 $?

# ---- peers ----
if [ -x "$FAIRY" ]; then
    run_match "fairy self" 0 --engine "$FAIRY" --engine "$FAIRY" --games 2 --nodes 3000 --max-moves 160 \
        --openings "$OPENINGS" --out "$tmp/fairy.csa"
    expect_contains "fairy summary" "$out" "Result: Fairy-Stockfish"
    expect_contains "fairy summary" "$out" "(2 games)"
    expect_contains "fairy names" "$out" " #2"
    check_csa "fairy self" "$tmp/fairy.csa" 2
else
    echo "skipping fairy-stockfish games: $FAIRY not found (apt-get install fairy-stockfish)"
fi
if [ -x "$GPSUSI" ] && [ -x "$FAIRY" ]; then
    # gpsusi counts byoyomi in whole seconds unless given its byoyomi_extension; the grace
    # is generous here because this test checks the plumbing, not the clock.
    run_match "gpsusi" 0 --engine "$GPSUSI" --engine "$FAIRY" --games 2 --byoyomi 100 --grace 1000 \
        --go-extra1 "byoyomi_extension 100" --option1 Thread=1 --max-moves 30 --out "$tmp/gps.csa"
    expect_contains "gpsusi summary" "$out" "Result: gpsshogi"
    expect_contains "gpsusi summary" "$out" "(2 games)"
    expect_contains "gpsusi no time losses" "$out" "Time losses: gpsshogi"
    check_csa "gpsusi" "$tmp/gps.csa" 2
else
    echo "skipping gpsusi games: $GPSUSI or $FAIRY not found (apt-get install gpsshogi gpsshogi-data)"
fi
finish
