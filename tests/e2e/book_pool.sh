#!/usr/bin/env bash
# `book think` / `book expand` with external USI engines (docs/book_making.md, "The
# searcher: in this process or external engines"), and two rules of its "think" section: a
# resumed run thinks what an uninterrupted one would, and an illegal book move is no
# candidate. Engines are made on the spot: build/hayanagi
# processes, /usr/games/gpsusi (no MultiPV, byoyomi only), and small shell scripts that
# crash in the search, hang, print garbage, take 3 s to say readyok, or crash once.
. "$(dirname "$0")/lib.sh"
R=../shared/refdata
T=$(mktemp -d /tmp/hayanagi_book_pool.XXXXXX)
gps_conf_save
trap 'rm -rf "$T"; gps_conf_restore' EXIT
H=$(cd "$(dirname "$HAYANAGI")" && pwd)/$(basename "$HAYANAGI")
NOBOOK="--engine-option USI_OwnBook=false" # the engine's own book would answer without a search
NODES=3000

# A book with a few dozen short positions and leaves, from real records; NT of them.
"$HAYANAGI" book build --from $R/csa/json-kifu-format/*.csa --max-ply 8 --quiet "$T/bb.db" > /dev/null 2>&1
expect_status "build the test book" 0 $?
"$HAYANAGI" book think "$T/bb.db" "$T/u.db" --nodes 30000 --multipv 2 --quiet > "$T/u.out" 2>&1
expect_status "uninterrupted" 0 $?
NT=$(sed -n 's/.*; \([0-9]*\) positions needed a search.*/\1/p' "$T/u.out")
[ "${NT:-0}" -ge 30 ] || fail "the test book has ${NT:-no} targets, 30 or more wanted"
Y=$R/db/rshogi/book_backprop_yo_in.db # 5 targets at multipv 2

# wait_journal FILE N PID: waits (up to 300 s) until FILE holds N positions or PID is gone,
# so that an interruption lands mid-run whatever the machine's speed
wait_journal() {
    for _ in $(seq 6000); do
        local n
        n=$(grep -c '^sfen ' "$1" 2>/dev/null)
        [ "${n:-0}" -ge "$2" ] && return 0
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# ---- the fake engines ----
cat > "$T/crash.sh" <<'SH'
#!/bin/sh
# answers the handshake, then dies in the search with a word on stderr
while read -r cmd rest; do
  case "$cmd" in
    usi) echo "id name FakeCrash"; echo "option name MultiPV type spin default 1 min 1 max 8"; echo usiok ;;
    isready) echo readyok ;;
    go) echo "info depth 1 seldepth 1"; echo "fatal: simulated crash in the search" >&2; exit 3 ;;
    quit) exit 0 ;;
  esac
done
SH
cat > "$T/hang.sh" <<'SH'
#!/bin/sh
while read -r cmd rest; do
  case "$cmd" in
    usi) echo "id name FakeHang"; echo usiok ;;
    isready) echo readyok ;;
    go) echo "hanging now" >&2; sleep 600 ;;
  esac
done
SH
cat > "$T/garbage.sh" <<'SH'
#!/bin/sh
while read -r cmd rest; do
  case "$cmd" in
    usi) echo "id name FakeGarbage"; echo usiok ;;
    isready) echo readyok ;;
    go) printf '\001\377#$%%garbage\n'; echo "info depth x score cp"; echo "info depth 3 score cp 10 pv 9z9z 5e5d"
        echo "bestmove 5e5d" ;;
    quit) exit 0 ;;
  esac
done
SH
cat > "$T/noready.sh" <<'SH'
#!/bin/sh
# answers usi, never readyok
while read -r cmd rest; do
  case "$cmd" in
    usi) echo "id name FakeNoReady"; echo usiok ;;
    quit) exit 0 ;;
  esac
done
SH
cat > "$T/slowready.sh" <<'SH'
#!/bin/bash
# the real engine behind a pipe that holds `isready` back for 3 s (a long NNUE load)
{ while IFS= read -r l; do [ "$l" = isready ] && sleep 3; printf '%s\n' "$l"; done; } | "$1"
SH
cat > "$T/once.sh" <<'SH'
#!/bin/sh
# the first start crashes in its first search; every later start is the real engine
if mkdir "$2" 2>/dev/null; then exec sh "$(dirname "$0")/crash.sh"; fi
exec "$1"
SH

cat > "$T/poison.sh" <<'SH'
#!/bin/sh
# the real engine ($1), except that the engine dies on any position whose SFEN holds $2
f=$(mktemp -u /tmp/hayanagi_poison.XXXXXX); mkfifo "$f"
"$1" < "$f" &
epid=$!
exec 3> "$f"
rm -f "$f"
while IFS= read -r l; do
  case "$l" in "position "*"$2"*) echo "fatal: poisoned position" >&2; kill $epid; exit 4 ;; esac
  printf '%s\n' "$l" >&3
done
SH

# ---- two build/hayanagi processes as the engines ----
out=$("$HAYANAGI" book think "$T/bb.db" "$T/two.db" --engine "$H" --engine "$H" $NOBOOK --nodes $NODES --multipv 2 2>"$T/two.err")
expect_status "two engines" 0 $?
# (an external engine keeps its hash, so a position's lines can come from different
# iterations; a move named twice counts once, and a few positions may get one move)
expect_contains "two engines summary" "$out" "$NT positions needed a search (0 done before, $NT searched now,"
expect_contains "two engines progress" "$(cat "$T/two.err")" "engines #1 "
expect_contains "two engines progress names both" "$(cat "$T/two.err")" " #2 "
# provenance: the engine's id name, the budget, depth, nodes and the date, as a comment
prov=$(grep -c '^#think engine=Hayanagi [0-9.]*; budget=nodes 3000; depth=[0-9]*; nodes=[0-9]*; date=20' "$T/two.db")
[ "$prov" = "$NT" ] || fail "two engines: $NT provenance comments expected, got $prov"
[ -e "$T/two.db.journal" ] && fail "two engines: journal left behind"
# minimax keeps the provenance (the usual think-minimax round)
out=$("$HAYANAGI" book minimax "$T/two.db" "$T/two_mm.db" --quiet 2>&1); expect_status "minimax after think" 0 $?
[ "$(grep -c '^#think engine=Hayanagi' "$T/two_mm.db")" = "$NT" ] || fail "minimax dropped the provenance comments"
# the book reads back (readers that do not know the comment skip it)
out=$("$HAYANAGI" book lookup "$T/two.db" startpos moves 7g7f 2>&1); expect_status "two engines lookup" 0 $?

# ---- --engine-newgame: every position searched as if first, so the split does not matter ----
# Without it an external engine keeps its hash from one position to the next, and which
# engine gets which position depends on timing. With isready + usinewgame before each
# position (Hayanagi clears its hash and history there) two engines give one engine's
# answers; SOURCE_DATE_EPOCH fixes the provenance date, so the files are equal byte for byte.
for n in 1 2; do
    set --
    for _ in $(seq $n); do set -- "$@" --engine "$H"; done
    out=$(SOURCE_DATE_EPOCH=1700000000 "$HAYANAGI" book think "$T/bb.db" "$T/ng$n.db" "$@" $NOBOOK --engine-newgame \
        --nodes $NODES --multipv 2 --quiet 2>&1)
    expect_status "--engine-newgame with $n engine(s)" 0 $?
    # every PV the engine printed replays (a cut search once glued a sibling's line after
    # the move: "4g4f 4a3b 7i7h 7c7d 7i7h")
    case "$out" in *"bad engine line"*) fail "--engine-newgame with $n engine(s): $out" ;; esac
done
cmp -s "$T/ng1.db" "$T/ng2.db" || fail "--engine-newgame: two engines answered otherwise than one ($(diff "$T/ng1.db" "$T/ng2.db" | grep -c '^[<>]') lines differ)"
[ "$(grep -c 'date=2023-11-14T22:13:20Z' "$T/ng1.db")" = "$NT" ] || fail "SOURCE_DATE_EPOCH: not the provenance date"
# in this process the same holds (each slot clears its hash), whatever --threads
SOURCE_DATE_EPOCH=1700000000 "$HAYANAGI" book think "$T/bb.db" "$T/ip1.db" --nodes $NODES --multipv 2 --threads 1 --quiet > /dev/null 2>&1
SOURCE_DATE_EPOCH=1700000000 "$HAYANAGI" book think "$T/bb.db" "$T/ip2.db" --nodes $NODES --multipv 2 --threads 2 --quiet > /dev/null 2>&1
cmp -s "$T/ip1.db" "$T/ip2.db" || fail "in-process think: --threads 2 answered otherwise than --threads 1"

# ---- gpsusi: no MultiPV, byoyomi only ----
out=$("$HAYANAGI" book think $Y "$T/gps.db" --engine /usr/games/gpsusi --engine-option BookDepth=0 \
      --go "btime 0 wtime 0 byoyomi 300" --multipv 2 2>"$T/gps.err")
expect_status "gpsusi" 0 $?
expect_contains "gpsusi summary" "$out" "5 positions needed a search (0 done before, 5 searched now, 5 moves added)"
expect_contains "gpsusi no multipv said" "$(cat "$T/gps.err")" "has no MultiPV option: it gives one move per position"
[ "$(grep -c 'has no MultiPV' "$T/gps.err")" = 1 ] || fail "gpsusi: the MultiPV warning is said more than once"
expect_contains "gpsusi provenance" "$(cat "$T/gps.db")" "#think engine=gpsshogi"
expect_contains "gpsusi budget" "$(cat "$T/gps.db")" "budget=go btime 0 wtime 0 byoyomi 300"
out=$("$HAYANAGI" book think $Y "$T/x.db" --go "byoyomi 100" --multipv 2 2>&1)
expect_status "--go without --engine" 2 $?

# ---- faults, each beside one good engine ----
out=$("$HAYANAGI" book think $Y "$T/c.db" --engine "sh $T/crash.sh" --engine "$H" $NOBOOK --nodes $NODES --multipv 2 2>"$T/c.err")
expect_status "crashing engine" 0 $?
expect_contains "crashing engine: all done" "$out" "5 searched now"
expect_contains "crashing engine reported" "$(cat "$T/c.err")" "simulated crash in the search"
# it is retired after repeated failures, unless the good engine finished the five positions
# before the crashing one had failed often enough (a race the load decides): then it did none
case "$(cat "$T/c.err")" in
*"retired after repeated failures"*) ;;
*) expect_contains "crashing engine did nothing" "$(tr '\r' '\n' < "$T/c.err" | grep 'thinking 5/5' | tail -1)" "#1 0 (" ;;
esac
expect_contains "crashing engine: last stderr" "$(cat "$T/c.err")" "last stderr line: fatal: simulated crash in the search"
expect_not_contains "crashing engine: nothing of it stored" "$(cat "$T/c.db")" "FakeCrash"

# (the timeout is for every engine: small searches keep the good one far inside it on a slow machine)
out=$("$HAYANAGI" book think $Y "$T/h.db" --engine "sh $T/hang.sh" --engine "$H" --engine-timeout 3000 $NOBOOK --nodes 300 \
      --multipv 2 2>"$T/h.err")
expect_status "hanging engine" 0 $?
expect_contains "hanging engine: all done" "$out" "5 searched now"
expect_contains "hanging engine timed out" "$(cat "$T/h.err")" "no bestmove within 3000 ms"

out=$("$HAYANAGI" book think $Y "$T/g.db" --engine "sh $T/garbage.sh" --engine "$H" $NOBOOK --nodes $NODES --multipv 2 2>"$T/g.err")
expect_status "garbage engine" 0 $?
expect_contains "garbage engine: all done" "$out" "5 searched now"
expect_contains "garbage engine refused" "$(cat "$T/g.err")" "no legal move in its answer"
# the first ignored lines are shown with the reason and the position, the rest counted
expect_contains "garbage engine: line shown" "$(cat "$T/g.err")" "engine #1 (FakeGarbage): ignored info depth x score cp ("
expect_contains "garbage engine: illegal PV shown" "$(cat "$T/g.err")" "engine #1 (FakeGarbage): ignored info depth 3 score cp 10 pv 9z9z 5e5d (PV move 1 is not legal"
expect_contains "garbage engine: then counted" "$(cat "$T/g.err")" "further ones are only counted"
[ "$(grep -c ': ignored ' "$T/g.err")" = 3 ] || fail "garbage engine: $(grep -c ': ignored ' "$T/g.err") ignored lines shown, expected 3"
expect_not_contains "garbage engine: nothing of it stored" "$(cat "$T/g.db")" "FakeGarbage"
grep -q '9z9z\|5e5d' "$T/g.db" && fail "garbage engine: its moves were stored"

out=$("$HAYANAGI" book think $Y "$T/s.db" --engine "bash $T/slowready.sh $H" $NOBOOK --nodes $NODES --multipv 2 2>"$T/s.err")
expect_status "slow readyok" 0 $?
expect_contains "slow readyok: all done" "$out" "5 searched now"

out=$("$HAYANAGI" book think $Y "$T/o.db" --engine "sh $T/once.sh $H $T/once.state" $NOBOOK --nodes $NODES --multipv 2 2>"$T/o.err")
expect_status "crash once" 0 $?
expect_contains "crash once: all done" "$out" "5 searched now"
expect_contains "crash once: restarted" "$(cat "$T/o.err")" "restarting"
expect_contains "crash once: position re-queued" "$out" "1 positions re-queued after engine failures"

# a position on which every engine dies is skipped after 3 failures; the engines live on
P="p1ppppppp/1p7/9/7P1" # one of the 5 targets of $Y
out=$("$HAYANAGI" book think $Y "$T/x.db" --engine "sh $T/poison.sh $H $P" --engine "sh $T/poison.sh $H $P" $NOBOOK \
      --nodes $NODES --multipv 2 2>"$T/x.err")
expect_status "poisoned position" 0 $?
expect_contains "poisoned position: the others done" "$out" "5 positions needed a search (0 done before, 4 searched now"
expect_contains "poisoned position: skipped" "$out" "1 positions skipped"
expect_contains "poisoned position: named" "$(cat "$T/x.err")" "skipped: the engines failed on it 3 times"
expect_not_contains "poisoned position: no engine retired" "$(cat "$T/x.err")" "retired"
grep -q "$P" "$T/x.db" && fail "poisoned position: it was stored"

# an engine that never says readyok is retired within one handshake deadline (--engine-startup)
# without blaming a position, and the message counts what the (empty) journal holds (the
# `timeout` only guards against a hang)
for lim in "--engine-startup 1000"; do
    rm -f "$T/n.db.journal"
    out=$(timeout 100 "$HAYANAGI" book think $Y "$T/n.db" --engine "sh $T/noready.sh" $lim --nodes 300 --multipv 2 2>&1)
    expect_status "no readyok ($lim)" 1 $?
    expect_contains "no readyok ($lim): why" "$out" "waiting for readyok: timed out"
    expect_contains "no readyok ($lim): retired" "$out" "retired: it never completed a handshake"
    expect_contains "no readyok ($lim): empty journal" "$out" "the journal $T/n.db.journal holds no position yet"
    expect_not_contains "no readyok ($lim): no position blamed" "$out" "skipped"
    [ "$(grep -c 'waiting for readyok' <<< "$out")" = 2 ] ||
        fail "no readyok ($lim): $(grep -c 'waiting for readyok' <<< "$out") failures said, expected 1 (and its line in the summary)"
done

# ---- Ctrl-C with external engines, then every engine dying, then the resume ----
# The three runs must have the same options (the journal is bound to them): one engine
# command that is Hayanagi until $T/dead exists, then crash.sh.
printf '#!/bin/sh\n[ -e "%s/dead" ] && exec sh "%s/crash.sh"\nexec "%s" "$@"\n' "$T" "$T" "$H" > "$T/switch.sh"
SW="sh $T/switch.sh"
"$HAYANAGI" book think "$T/bb.db" "$T/k.db" --engine "$SW" --engine "$SW" $NOBOOK --nodes 200000 --multipv 2 --quiet \
    > "$T/k.out" 2>&1 &
pid=$!; wait_journal "$T/k.db.journal" 1 $pid || fail "Ctrl-C with engines: nothing journaled"
kill -INT $pid; wait $pid
expect_status "Ctrl-C with engines" 130 $?
[ -e "$T/k.db" ] && fail "Ctrl-C with engines wrote its output"
[ -e "$T/k.db.journal" ] || fail "Ctrl-C with engines lost its journal"
expect_contains "Ctrl-C message" "$(cat "$T/k.out")" "run the same command again to resume"
cp "$T/k.db.journal" "$T/k.saved"
done_before=$(grep -c '^sfen ' "$T/k.db.journal")
touch "$T/dead"
out=$("$HAYANAGI" book think "$T/bb.db" "$T/k.db" --engine "$SW" --engine "$SW" $NOBOOK --nodes 200000 --multipv 2 \
      --quiet 2>&1)
expect_status "every engine dies" 1 $?
expect_contains "every engine dies: said" "$out" "every engine failed"
expect_contains "every engine dies: names them" "$out" "engine #2 '$SW'"
expect_contains "every engine dies: why" "$out" "simulated crash"
[ -e "$T/k.db" ] && fail "every engine dies: an output was written"
cmp -s "$T/k.db.journal" "$T/k.saved" || fail "every engine dies: the journal changed"
expect_contains "every engine dies: what the journal keeps" "$out" "the journal $T/k.db.journal keeps the $done_before position"
rm "$T/dead"
out=$("$HAYANAGI" book think "$T/bb.db" "$T/k.db" --engine "$SW" --engine "$SW" $NOBOOK --nodes 200000 --multipv 2 \
      --quiet 2>&1)
expect_status "resume with engines" 0 $?
expect_contains "resume with engines: done before" "$out" "$NT positions needed a search ($done_before done before, $((NT - done_before)) searched now"

# ---- a resumed run gives the uninterrupted run's book (targets come from IN as given) ----
"$HAYANAGI" book think "$T/bb.db" "$T/r.db" --nodes 30000 --multipv 2 --quiet > /dev/null 2>&1 &
pid=$!; wait_journal "$T/r.db.journal" 3 $pid || fail "interrupted: the run ended before 3 positions were journaled"
kill -INT $pid; wait $pid
expect_status "interrupted" 130 $?
n_before=$(grep -c '^sfen ' "$T/r.db.journal")
out=$("$HAYANAGI" book think "$T/bb.db" "$T/r.db" --nodes 30000 --multipv 2 --quiet 2>&1)
expect_status "resumed" 0 $?
expect_contains "resumed: same targets" "$out" "$NT positions needed a search ($n_before done before"
expect_contains "resumed: same size" "$out" "$(grep -o 'wrote [^:]*: [0-9]* positions, [0-9]* moves' "$T/u.out" | sed 's/^wrote [^:]*//')"
diff <(grep -v '^#' "$T/u.db") <(grep -v '^#' "$T/r.db") > /dev/null || fail "resumed book differs from the uninterrupted one"

# ---- an illegal book move is no candidate (docs/book_making.md, "think") ----
cat > "$T/ill.db" <<'DB'
#YANEURAOU-DB2016 1.00
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
7g7f none 50 20 9
5e5d none 10 20 1
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2
3c3d none -50 17 1
8c8d none -50 17 1
DB
out=$("$HAYANAGI" book think "$T/ill.db" "$T/ill_out.db" --depth 2 --multipv 2 --quiet 2>&1)
expect_status "illegal candidate" 0 $?
expect_contains "illegal candidate: startpos is short" "$out" "3 positions needed a search"
sed -n '/^sfen lnsgkgsnl\/1r5b1\/ppppppppp\/9\/9\/9\/PPPPPPPPP/,/^sfen/p' "$T/ill_out.db" | grep -q '^#think' ||
    fail "illegal candidate: the start position was not thought"

# ---- the eval-window frontier ----
cat > "$T/ew.db" <<'DB'
#YANEURAOU-DB2016 1.00
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
7g7f none 50 10 1
2g2f none 40 10 1
5i5h none -100 10 1
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2
3c3d none -50 10 1
8c8d none -60 10 1
1c1d none -300 10 1
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL w - 2
8c8d none -40 10 1
DB
out=$("$HAYANAGI" book think "$T/ew.db" "$T/ew0.db" --depth 1 --multipv 3 --quiet 2>&1)
expect_contains "leaves: every leaf and short position" "$out" "6 positions needed a search"
out=$("$HAYANAGI" book think "$T/ew.db" "$T/ew1.db" --depth 1 --multipv 3 --frontier eval-window --eval-diff 20 --quiet 2>&1)
expect_status "eval-window" 0 $?
expect_contains "eval-window: our best, their moves within 20" "$out" "2 positions needed a search"
out=$("$HAYANAGI" book think "$T/ew.db" "$T/ew2.db" --depth 1 --multipv 3 --frontier eval-window --eval-diff 20 \
      --frontier-side both --quiet 2>&1)
expect_contains "eval-window both sides" "$out" "4 positions needed a search"
for side in "black 2" "white 3"; do # black moves at the root: black is the root's side
    set -- $side
    out=$("$HAYANAGI" book think "$T/ew.db" "$T/ew_$1.db" --depth 1 --multipv 3 --frontier eval-window --eval-diff 20 \
          --frontier-side $1 --quiet 2>&1)
    expect_contains "eval-window side $1" "$out" "$2 positions needed a search"
done
out=$("$HAYANAGI" book think "$T/ew.db" "$T/ew3.db" --depth 1 --multipv 3 --frontier eval-window 2>&1)
expect_status "eval-window without --eval-diff" 2 $?

# ---- the replies frontier: every legal move the book lacks, to --max-ply ----
# tests/e2e/data/grow_in.db: the start position (7g7f, 2g2f) and the position after 7g7f
# (3c3d). The start position has 30 legal moves (perft 1), 29 of them into positions the
# book lacks; after 7g7f white has 30, none held: 29 targets to ply 2 (the SFEN move
# number), 59 to ply 3
in_db="$(dirname "$0")/data/grow_in.db"
out=$("$HAYANAGI" book think "$in_db" "$T/rp2.db" --depth 1 --multipv 1 --frontier replies --max-ply 2 --quiet 2>&1)
expect_status "replies to ply 2" 0 $?
expect_contains "replies to ply 2" "$out" "29 positions needed a search"
out=$("$HAYANAGI" book think "$in_db" "$T/rp3.db" --depth 1 --multipv 1 --frontier replies --max-ply 3 --quiet 2>&1)
expect_contains "replies to ply 3" "$out" "59 positions needed a search"
# the answer to 9g9f, a move the book does not list, is in OUT
out=$("$HAYANAGI" book lookup "$T/rp3.db" startpos moves 9g9f 2>&1)
expect_contains "replies: 9g9f answered" "$out" "engine would play"
out=$("$HAYANAGI" book think "$in_db" "$T/rp.db" --depth 1 --multipv 1 --frontier replies 2>&1)
expect_status "replies without --max-ply" 2 $?
expect_contains "replies without --max-ply" "$out" "--frontier replies needs --max-ply P"

# ---- the line-replies frontier: the replies frontier on the lines one side plays ----
# ew.db again, window 100000 (every listed move of the other side). Black: its best move
# 7g7f, then all 30 legal replies of white there, none held: 30 targets to ply 3, none to
# ply 2 (they are at ply 3). White: all 30 legal moves of black at the root, 2 of them held
# (7g7f, 2g2f): 28 targets to ply 2; to ply 3 also the leaves after white's best replies
# 3c3d (after 7g7f) and 8c8d (after 2g2f): 30.
for case in "black 3 30" "black 2 0" "white 2 28" "white 3 30"; do
    set -- $case
    out=$("$HAYANAGI" book think "$T/ew.db" "$T/lr_$1_$2.db" --depth 1 --multipv 1 --frontier line-replies \
          --eval-diff 100000 --frontier-side $1 --max-ply $2 --quiet 2>&1)
    expect_status "line-replies $1 to ply $2" 0 $?
    expect_contains "line-replies $1 to ply $2" "$out" "$3 positions needed a search"
done
# 9c9d after black's line 7g7f is answered; 3c3d after 2g2f (not black's best) is not
out=$("$HAYANAGI" book lookup "$T/lr_black_3.db" startpos moves 7g7f 9c9d 2>&1)
expect_contains "line-replies: 9c9d answered" "$out" "engine would play"
out=$("$HAYANAGI" book lookup "$T/lr_black_3.db" startpos moves 2g2f 3c3d 2>&1)
expect_contains "line-replies: off the line, not answered" "$out" "not in the book"
out=$("$HAYANAGI" book think "$T/ew.db" "$T/lr.db" --depth 1 --multipv 1 --frontier line-replies --max-ply 3 2>&1)
expect_status "line-replies without --eval-diff" 2 $?
expect_contains "line-replies without --eval-diff" "$out" "--frontier line-replies needs --eval-diff CP"
out=$("$HAYANAGI" book think "$T/ew.db" "$T/lr.db" --depth 1 --multipv 1 --frontier line-replies --eval-diff 5 2>&1)
expect_status "line-replies without --max-ply" 2 $?
expect_contains "line-replies without --max-ply" "$out" "--frontier line-replies needs --max-ply P"

# ---- the predicted frontier: one side's lines past the book, through predicted replies ----
# A book of the start position alone, black's move 7g7f. Black's line leaves the book at
# once; white's replies there are predicted by Hayanagi's own search, MultiPV 2 to depth 6
# with the hash cleared, which must be the two moves the engine ranks first over USI. So:
# exactly those two positions are targets to ply 3, none to ply 2, and the position after
# 7g7f (white to move) is never one (a prediction is not stored: the book would play it).
printf '#YANEURAOU-DB2016 1.00\nsfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n7g7f none 50 10 1\n' \
    > "$T/one.db"
predicted() {
    "$HAYANAGI" book think "$T/$1" "$T/$2" --depth 1 --multipv 1 --frontier predicted --eval-diff 0 \
        --frontier-side "$3" --max-ply "$4" --predict 2 --predict-depth 6 --quiet ${5:+--threads $5} "${@:6}" 2>&1
}
out=$(predicted one.db pr2.db black 2)
expect_contains "predicted, black to ply 2" "$out" "0 positions needed a search"
out=$(predicted one.db pr3.db black 3)
expect_contains "predicted, black to ply 3" "$out" "2 positions needed a search"
# usi_top K MOVES...: the first moves of the engine's K lines at depth 6 after startpos
# MOVES, over USI (quit would stop the search: it is sent once the bestmove is out)
usi_top() {
    local k=$1
    shift
    rm -f "$T/usi.out"
    {
        printf 'usi\nsetoption name USI_OwnBook value false\nsetoption name Threads value 1\nsetoption name MultiPV value %s\nisready\nusinewgame\nposition startpos moves %s\ngo depth 6\n' "$k" "$*"
        for _ in $(seq 6000); do
            grep -q '^bestmove' "$T/usi.out" 2>/dev/null && break
            sleep 0.05
        done
        echo quit
    } | "$HAYANAGI" > "$T/usi.out" 2>&1
    awk -v k="$k" '/^info depth 6 / { m = 1; for (i = 1; i < NF; i++) { if ($i == "multipv") m = $(i + 1); if ($i == "pv") p[m] = $(i + 1) } }
        END { for (i = 1; i <= k; i++) printf "%s ", p[i]; print "" }' "$T/usi.out"
}
# expect_answered DB WHAT "LINE" MOVES...: DB has a move after LINE followed by each move
expect_answered() {
    local db=$1 what=$2 line=$3 m
    shift 3
    for m in "$@"; do
        # shellcheck disable=SC2086
        out=$("$HAYANAGI" book lookup "$T/$db" startpos moves $line "$m" 2>&1)
        expect_contains "predicted: $line $m answered$what" "$out" "engine would play"
    done
}
top_7g7f=$(usi_top 2 7g7f)
set -- $top_7g7f
[ $# = 2 ] || fail "predicted: the engine's two best replies at depth 6 not found in: $(cat "$T/usi.out")"
expect_answered pr3.db "" "7g7f" "$@"
out=$("$HAYANAGI" book lookup "$T/pr3.db" startpos moves 7g7f 2>&1)
expect_contains "predicted: no prediction stored" "$out" "not in the book"
# the next run goes one level deeper: black's answers there, then two replies to each
out=$(predicted pr3.db pr5.db black 5)
expect_contains "predicted, second level" "$out" "4 positions needed a search"
# a rerun predicts the same moves: the same output, byte for byte (dates aside), and so
# does a run predicting (and answering) three positions at a time
predicted pr3.db pr5b.db black 5 > /dev/null
cmp -s <(grep -v '^#think' "$T/pr5.db") <(grep -v '^#think' "$T/pr5b.db") || fail "predicted: a rerun differs"
predicted pr3.db pr5t.db black 5 3 > /dev/null
cmp -s <(grep -v '^#think' "$T/pr5.db") <(grep -v '^#think' "$T/pr5t.db") || fail "predicted: --threads 3 differs"
# --predictions FILE keeps the predictions: the same outputs, and the next round (and a
# rerun) searches only the positions the file lacks
out=$(predicted one.db prc3.db black 3 "" --predictions "$T/pred.db")
expect_contains "predictions written" "$out" "predictions: 1 positions searched, 0 read from $T/pred.db"
cmp -s <(grep -v '^#think' "$T/pr3.db") <(grep -v '^#think' "$T/prc3.db") || fail "predictions: round 1 differs"
out=$(predicted pr3.db prc5.db black 5 "" --predictions "$T/pred.db")
expect_contains "predictions read" "$out" "predictions: 2 positions searched, 1 read from $T/pred.db"
cmp -s <(grep -v '^#think' "$T/pr5.db") <(grep -v '^#think' "$T/prc5.db") || fail "predictions: round 2 differs"
out=$(predicted pr3.db prc5b.db black 5 "" --predictions "$T/pred.db")
expect_contains "predictions all read" "$out" "predictions: 0 positions searched, 3 read from $T/pred.db"
cmp -s <(grep -v '^#think' "$T/pr5.db") <(grep -v '^#think' "$T/prc5b.db") || fail "predictions: a rerun differs"
# refused, and nothing written: another K, predictions this build would not make, a book
out=$("$HAYANAGI" book think "$T/pr3.db" "$T/prc_k.db" --depth 1 --multipv 1 --frontier predicted --eval-diff 0 \
    --frontier-side black --max-ply 5 --predict 3 --predict-depth 6 --predictions "$T/pred.db" 2>&1)
expect_status "predictions of another K" 1 $?
expect_contains "predictions of another K" "$out" "was predicted as 'predicted multipv=2 depth=6', not 'predicted multipv=3 depth=6'"
[ -e "$T/prc_k.db" ] && fail "predictions of another K: OUT written"
first=$(grep -m1 -A1 '^#predicted' "$T/pred.db" | tail -n 1 | cut -d' ' -f1)
sed "0,/^$first /s//1c1d /" "$T/pred.db" > "$T/pred_other.db"
cmp -s "$T/pred.db" "$T/pred_other.db" && fail "predictions: the changed file is the same"
out=$(predicted pr3.db prc_o.db black 5 "" --predictions "$T/pred_other.db")
expect_contains "predictions of another build" "$out" "this build predicts other moves at"
out=$(predicted pr3.db prc_b.db black 5 "" --predictions "$T/pr3.db")
expect_contains "predictions: a book" "$out" "not a file of predictions"
out=$(predicted pr3.db prc_n.db black 5 "" --predictions "$T/one.db")
expect_contains "predictions: a book without comments" "$out" "not a file of predictions (the position"
# The walk goes on through every move of the other side the book answers, listed or not
# (a replies layer's answers): after 7g7f 5a5b (unlisted) the book plays 2g2f, and white's
# two predicted replies there are answered.
cat > "$T/ans.db" <<'DB'
#YANEURAOU-DB2016 1.00
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
7g7f none 50 10 1
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2
3c3d none -50 10 1
sfen lnsg1gsnl/1r2k2b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3
2g2f none 50 10 1
DB
top=$(usi_top 2 7g7f 5a5b 2g2f)
set -- $top
[ $# = 2 ] || fail "predicted: the engine's two best replies at depth 6 not found in: $(cat "$T/usi.out")"
out=$(predicted ans.db pra.db black 5)
expect_status "predicted through an answered reply" 0 $?
expect_answered pra.db "" "7g7f 5a5b 2g2f" "$@"
# ... and through them where the position before is not in the book either: without the
# position after 7g7f, 5a5b (which the engine does not rank in its two best there) still
# leads back to the book's 2g2f, and white's replies to it are answered.
grep -v -e '^sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w' -e '^3c3d ' "$T/ans.db" > "$T/ans2.db"
case " $top_7g7f " in *" 5a5b "*) fail "predicted: 5a5b is among the engine's two best after 7g7f ($top_7g7f): the test proves nothing" ;; esac
out=$(predicted ans2.db pra2.db black 5)
expect_status "predicted through an answered reply off the book" 0 $?
expect_answered pra2.db " past a position off the book" "7g7f 5a5b 2g2f" "$@"
# --all-replies-to 2: at white's position of move 2 every legal move is followed, not only
# the two predicted: its 30 replies to 7g7f are the 30 targets, 5a5b among them (which the
# engine does not rank in its two best there); to move 1 it is the predicted walk as above.
out=$(predicted one.db prall.db black 3 "" --all-replies-to 2)
expect_contains "predicted, every reply to move 2" "$out" "30 positions needed a search"
# shellcheck disable=SC2086
expect_answered prall.db " (every reply)" "7g7f" 5a5b 1c1d 9c9d 4a3b $top_7g7f
out=$(predicted one.db prall1.db black 3 "" --all-replies-to 1)
expect_contains "predicted, every reply to move 1" "$out" "2 positions needed a search"
# white's side: black's listed move and its two predicted moves at the root, answered
out=$(predicted one.db prw.db white 2)
expect_status "predicted, white" 0 $?
out=$("$HAYANAGI" book lookup "$T/prw.db" startpos moves 7g7f 2>&1)
expect_not_contains "predicted, white: the listed move answered" "$out" "not in the book"
out=$("$HAYANAGI" book think "$T/one.db" "$T/prx.db" --depth 1 --multipv 1 --frontier line-replies --eval-diff 0 \
    --max-ply 3 --predict 2 2>&1)
expect_status "--predict without --frontier predicted" 2 $?
expect_contains "--predict without --frontier predicted" "$out" "--predict, --predict-depth, --all-replies-to and --predictions are for --frontier predicted"

# ---- --rethink-if on the provenance ----
out=$("$HAYANAGI" book think "$T/two.db" "$T/re0.db" --nodes $NODES --multipv 2 --quiet 2>&1)
base=$(echo "$out" | sed -n 's/.*; \([0-9]*\) positions needed a search.*/\1/p')
out=$("$HAYANAGI" book think "$T/two.db" "$T/re1.db" --nodes $NODES --multipv 2 --rethink-if "engine!=gpsshogi" --quiet 2>&1)
expect_status "rethink" 0 $?
again=$(echo "$out" | sed -n 's/.*; \([0-9]*\) positions needed a search.*/\1/p')
# every position with provenance is a target now; those already short were targets before
short_prov=$(awk '/^sfen/{if(p&&m<2)c++;p=0;m=0;next} /^#think/{p=1;next} /^#/{next} NF{m++} END{if(p&&m<2)c++;print c+0}' "$T/two.db")
# Which thought positions were already short depends on what the engines wrote into two.db,
# and a few positions (no second legal move, terminal) cannot be re-thought: so a range, with
# the exact figure only as the upper end. Doing nothing (again == base) still fails.
want=$((base + NT - short_prov))
[ "$again" -gt "$base" ] && [ "$again" -le "$want" ] && [ "$again" -ge $((want - 8)) ] ||
    fail "rethink: between $((want - 8)) and $want targets expected ($base + $NT - $short_prov), got $again"
out=$("$HAYANAGI" book think "$T/two.db" "$T/re2.db" --nodes $NODES --multipv 2 --rethink-if "engine=gpsshogi" --quiet 2>&1)
expect_contains "rethink matches nothing" "$out" "; $base positions needed a search"
out=$("$HAYANAGI" book think "$T/two.db" "$T/re3.db" --nodes $NODES --multipv 2 --rethink-if "colour=red" 2>&1)
expect_status "rethink bad condition" 2 $?

# ---- dynamic MultiPV: a margin wider than any score gap takes the maximum ----
out=$("$HAYANAGI" book think $Y "$T/m1.db" --depth 2 --multipv 1 --multipv-margin 100000 --multipv-max 3 --quiet 2>&1)
expect_contains "dynamic multipv in-process" "$out" "3 searched now, 9 moves added" # 3 leaves x 3
out=$("$HAYANAGI" book think $Y "$T/m2.db" --engine "$H" $NOBOOK --depth 2 --multipv 1 --multipv-margin 100000 --multipv-max 3 \
      --quiet 2>&1)
expect_contains "dynamic multipv with an engine" "$out" "3 searched now, 9 moves added"
out=$("$HAYANAGI" book think $Y "$T/m3.db" --engine "$H" $NOBOOK --depth 2 --multipv 2 --quiet 2>&1)
expect_contains "fixed multipv with an engine" "$out" "5 searched now, 10 moves added"

# ---- SBK output keeps the provenance as the position comment ----
out=$("$HAYANAGI" book think $Y "$T/p.sbk" --engine "$H" $NOBOOK --nodes $NODES --multipv 2 --quiet 2>&1)
expect_status "think to SBK" 0 $?
grep -aq 'think engine=Hayanagi' "$T/p.sbk" || fail "think to SBK: no provenance comment"
out=$("$HAYANAGI" book lookup "$T/p.sbk" startpos moves 7g7f 2>&1); expect_status "SBK reads back" 0 $?

# ---- expand with an external engine ----
cp "$(dirname "$0")/../../book/standard_book.db" "$T/ein.db"
out=$(timeout 300 "$HAYANAGI" book expand "$T/ein.db" "$T/eout.db" --playouts 300 --top 2 --nodes $NODES --tree-mb 32 \
      --engine "$H" $NOBOOK --quiet 2>&1)
expect_status "expand with an engine" 0 $?
expect_contains "expand with an engine: summary" "$out" "(2 positions thought"
grep -q '^#think engine=Hayanagi [0-9]' "$T/eout.db" || fail "expand with an engine: no provenance"
finish
