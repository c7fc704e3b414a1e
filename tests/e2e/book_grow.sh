#!/usr/bin/env bash
# book grow: self-play with this binary at fixed nodes (short games: --max-moves 60), on a
# two-position book. Checks: the counts at the root equal the games played; --games 0
# rebuilds OUT byte for byte; a run killed with -9 resumes without losing or repeating a
# game; K = 1 grows the book; a crashing opponent and a missing IN leave OUT and DIR as
# they were; foreign and broken records in DIR are skipped and named, a match-style file
# of several games counts each game; --nodes-jitter budgets are in the records, within
# bounds and replayed by the same seed; a grace for each side; --widen makes the player leave the listed moves,
# counting book grow's own games only;
# on a terminal the game lines never share the progress bar's line.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
# tests/e2e/data/grow_in.db: the start position with 7g7f and 2g2f (scores 30 and 20),
# and 3c3d after 7g7f
cp "$(dirname "$0")/data/grow_in.db" "$T/in.db"
common=(--opponent "$HAYANAGI" --nodes 300 --max-moves 60 --quiet)
grow() { "$HAYANAGI" book grow "$T/in.db" "$@" "${common[@]}"; }
# root counts: the sum of the count column of `book lookup OUT startpos`
root_games() { "$HAYANAGI" book lookup "$1" startpos | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^([1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i])$/ { s += $6 } END { print s + 0 }'; }

out=$(grow "$T/out.db" --records "$T/rec" --games 4 --concurrency 2 --expand-after 1 --seed 3 2>&1)
expect_status "grow 4 games" 0 $?
expect_contains "grow summary" "$out" "4 games from $T/rec"
[ "$(ls "$T/rec" | wc -l)" = 4 ] || fail "grow: 4 record files expected, got $(ls "$T/rec")"
[ "$(root_games "$T/out.db")" = 4 ] || fail "grow: root counts $(root_games "$T/out.db"), expected 4"
out=$("$HAYANAGI" book lookup "$T/out.db" startpos); expect_contains "grow lookup evidence" "$out" "grow "
n_in=$(grep -c '^sfen' "$T/in.db"); n_out=$(grep -c '^sfen' "$T/out.db")
[ "$n_out" -gt $((n_in + 10)) ] || fail "grow K=1: $n_out positions, expected many more than $n_in"
grep -q '^#grow 7g7f: \|^#grow 2g2f: ' "$T/out.db" || fail "grow: no evidence comment at the root"

# --games 0: byte for byte the same OUT
"$HAYANAGI" book grow "$T/in.db" "$T/again.db" --records "$T/rec" --games 0 --expand-after 1 --quiet >/dev/null 2>&1
expect_status "grow --games 0" 0 $?
cmp -s "$T/out.db" "$T/again.db" || fail "grow --games 0: OUT differs from the playing run's"

# --nodes-jitter (default 10 %): each record names both budgets, within 300 +- 30; the same
# --seed replays the same budgets and, the engines being deterministic at fixed nodes, the
# same games; another seed other budgets; jitter 0 writes no budgets
moves_of() { for f in "$1"/grow-*.csa; do grep '^[+-][0-9]' "$f" | cut -c1-7 | tr '\n' ' '; echo; done; }
budgets_of() { grep -h "^'time control" "$1"/grow-*.csa; }
grep -q "^'time control: nodes 300; this game: black nodes [0-9]*, white nodes [0-9]*$" "$T/rec/grow-000000.csa" \
    || fail "grow jitter: no budgets in the record: $(grep "^'time" "$T/rec/grow-000000.csa")"
# the 8 budgets of the 4 games, one a line
budget_list() { budgets_of "$1" | sed 's/.*this game: //' | tr ',' '\n' | awk '{ print $NF }'; }
[ "$(budget_list "$T/rec" | wc -l)" = 8 ] || fail "grow jitter: 8 budgets expected: $(budgets_of "$T/rec")"
bad=$(budget_list "$T/rec" | awk '$1 < 270 || $1 > 330')
[ -z "$bad" ] || fail "grow jitter: budgets outside 270..330: $bad"
[ "$(budget_list "$T/rec" | sort -u | wc -l)" -ge 6 ] || fail "grow jitter: budgets repeat: $(budgets_of "$T/rec")"
for r in j1 j2; do
    grow "$T/$r.db" --records "$T/$r" --games 4 --seed 5 >/dev/null 2>&1 || fail "grow jitter run $r"
done
[ "$(budgets_of "$T/j1")" = "$(budgets_of "$T/j2")" ] || fail "grow jitter: the same seed gave other budgets"
[ "$(moves_of "$T/j1")" = "$(moves_of "$T/j2")" ] || fail "grow jitter: the same seed gave other games"
[ "$(moves_of "$T/j1" | sort -u | wc -l)" -ge 2 ] || fail "grow jitter: all 4 games the same"
grow "$T/j3.db" --records "$T/j3" --games 4 --seed 6 >/dev/null 2>&1 || fail "grow jitter run seed 6"
[ "$(budgets_of "$T/j1")" != "$(budgets_of "$T/j3")" ] || fail "grow jitter: another seed gave the same budgets"
grow "$T/j4.db" --records "$T/j4" --games 2 --nodes-jitter 0 >/dev/null 2>&1 || fail "grow jitter 0"
[ "$(budgets_of "$T/j4" | sort -u)" = "'time control: nodes 300" ] || fail "grow jitter 0: $(budgets_of "$T/j4")"
"$HAYANAGI" book grow "$T/in.db" "$T/x.db" --records "$T/rec" --games 0 --nodes-jitter 101 >/dev/null 2>&1
expect_status "grow bad jitter" 2 $?
# a clock per side (match/clock.h, as match's --byoyomi2): the player at fixed nodes, the
# opponent on its own byoyomi; each record states the opponent's clock on its colour
grow "$T/c.db" --records "$T/c" --games 2 --opponent-byoyomi 250 --grace 2000 >/dev/null 2>&1 || fail "grow clocks"
grep -q '^N+grow-player$' "$T/c/grow-000000.csa" || fail "grow clocks: game 1 not the player's black"
grep -qx '$TIME-:0+0.25+0' "$T/c/grow-000000.csa" || fail "grow clocks: game 1: $(grep '^\$TIME' "$T/c/grow-000000.csa")"
grep -qx '$TIME+:0+0.25+0' "$T/c/grow-000001.csa" || fail "grow clocks: game 2: $(grep '^\$TIME' "$T/c/grow-000001.csa")"
grep -q "^'time control: byoyomi 250 ms; engine 1 nodes 300; this game: black nodes [0-9]*$" "$T/c/grow-000000.csa" ||
    fail "grow clocks: $(grep "^'time" "$T/c/grow-000000.csa")"
out=$("$HAYANAGI" book grow "$T/in.db" "$T/x.db" --records "$T/c" --games 3 --opponent "$HAYANAGI" --player-inc 100 2>&1)
expect_status "grow player-inc without time" 2 $?
expect_contains "grow player-inc without time" "$out" "the player: --player-inc needs a main time (--player-time or --time)"
out=$("$HAYANAGI" book grow "$T/in.db" "$T/x.db" --records "$T/c" --games 3 --opponent "$HAYANAGI" \
    --opponent-nodes 10 --opponent-time 1000 2>&1)
expect_status "grow opponent nodes and time" 2 $?
expect_contains "grow opponent nodes and time" "$out" "the opponents: --opponent-nodes cannot be combined with"
# a grace for each side: an opponent (data/scripted_engine.sh) that takes 0.3 s a move at
# byoyomi 100 ms loses on time with 50 ms of grace, not with --opponent-grace 1000 (it then
# resigns at its fifth ply), whatever the common value
scripted="bash $(cd "$(dirname "$0")" && pwd)/data/scripted_engine.sh"
slow_grow() {
    "$HAYANAGI" book grow "$T/in.db" "$T/$1.db" --records "$T/$1" --games 1 --opponent "$scripted 0.3" \
        --player-nodes 300 --opponent-byoyomi 100 --quiet "${@:2}" >/dev/null 2>&1 || fail "grow grace $1"
}
slow_grow g1 --opponent-grace 1000
grep -qx '%TORYO' "$T/g1/grow-000000.csa" || fail "grow --opponent-grace 1000: $(grep '^%\|^.fake' "$T/g1/grow-000000.csa")"
slow_grow g2 --grace 1000 --opponent-grace 50
grep -qx '%TIME_UP' "$T/g2/grow-000000.csa" || fail "grow --opponent-grace 50: $(grep '^%' "$T/g2/grow-000000.csa")"
grep -q "^'fake: no bestmove within 150 ms (100 ms allowed + 50 ms grace)" "$T/g2/grow-000000.csa" ||
    fail "grow --opponent-grace 50: $(grep "^'" "$T/g2/grow-000000.csa")"
"$HAYANAGI" book grow "$T/in.db" "$T/x.db" --records "$T/c" --games 0 --player-grace 60001 >/dev/null 2>&1
expect_status "grow bad player-grace" 2 $?
# --opponent-swap-clocks (fairy-stockfish reads btime/wtime the wrong way round): the
# opponent, white in game 1 on 60 s + 1 s against the player at fixed nodes, is told its
# own figures as black's; the player's go lines stay as they were
"$HAYANAGI" book grow "$T/in.db" "$T/sw.db" --records "$T/sw" --games 1 --player-nodes 300 \
    --opponent "sh -c 'tee -a $T/sw.log | $scripted 0'" --opponent-time 60000 --opponent-inc 1000 \
    --opponent-swap-clocks --quiet >/dev/null 2>&1 || fail "grow --opponent-swap-clocks"
go1=$(grep -m1 '^go' "$T/sw.log")
[ "$go1" = "go btime 60000 wtime 0 binc 1000 winc 0" ] || fail "grow --opponent-swap-clocks: the opponent's first go: '$go1'"
grep -q '^N-fake$' "$T/sw/grow-000000.csa" || fail "grow --opponent-swap-clocks: the opponent is not white"
# --widen 2: the root lists 7g7f and 2g2f; in game 3 (the player black again, N = 2 games,
# 2 < 2 sqrt(2)) the player searches the other 28 moves only, so its first move is neither
grow "$T/w.db" --records "$T/w" --games 4 --widen 2 >/dev/null 2>&1 || fail "grow --widen"
first=$(grep -m1 '^+[0-9]' "$T/w/grow-000002.csa" | cut -c1-7)
grep -q '^N+grow-player$' "$T/w/grow-000002.csa" || fail "grow --widen: game 3 not the player's black"
case "$first" in +7776FU|+2726FU|"") fail "grow --widen: game 3 opened with '$first', a listed move" ;; esac
grep -m1 '^+[0-9]' "$T/w/grow-000000.csa" | grep -q '^+7776FU\|^+2726FU' || fail "grow --widen: game 1 left the book"
# widening counts book grow's own games only ($EVENT:hayanagi book grow, game N): the 4
# games above, each copied twice as another program's match records, put 8 games through
# the root, whose k <= 5 moves are below 2 sqrt(8) = 5.7, yet none of them is grow's, so
# the tree plays a listed move in the next game (the player black); the same copies left
# as grow's games make the player search the unlisted moves instead
listed=$( { printf '+7776FU\n+2726FU\n'; grep -h -m1 '^+[0-9]' "$T"/w/grow-*.csa | cut -c1-7; } | sort -u)
for kind in imported own; do
    mkdir -p "$T/w-$kind"
    for f in "$T"/w/grow-*.csa; do
        for c in a b; do
            if [ "$kind" = imported ]; then
                sed 's/^\$EVENT:hayanagi book grow, game \([0-9]*\)$/$EVENT:hayanagi match, game \1 of 4/' "$f"
            else
                cat "$f"
            fi > "$T/w-$kind/$c-$(basename "$f")"
        done
    done
    out=$(grow "$T/w-$kind.db" --records "$T/w-$kind" --games 9 --widen 2 2>&1) || fail "grow --widen over $kind games"
    grep -q '^N+grow-player$' "$T/w-$kind/grow-000000.csa" || fail "grow --widen over $kind games: not the player's black"
    first=$(grep -m1 '^+[0-9]' "$T/w-$kind/grow-000000.csa" | cut -c1-7)
    if [ "$kind" = imported ]; then
        expect_contains "grow --widen over imported games" "$out" "holds 8 games from the start position (0 played by book grow"
        echo "$listed" | grep -qx -- "$first" || fail "grow --widen over imported games: opened with '$first', not listed ($listed)"
    else
        expect_contains "grow --widen over grow's games" "$out" "holds 8 games from the start position (8 played by book grow"
        echo "$listed" | grep -qx -- "$first" && fail "grow --widen over grow's games: opened with '$first', a listed move"
    fi
done

# kill -9 in the middle, then the same command: 8 games, the first ones untouched
# (started directly, not through the function, so that $! is the process itself)
"$HAYANAGI" book grow "$T/in.db" "$T/k.db" --records "$T/krec" --games 8 --expand-after 2 "${common[@]}" >/dev/null 2>&1 &
gp=$!; pids="$gp"
for _ in $(seq 1 300); do [ "$(ls "$T/krec" 2>/dev/null | grep -c '^grow-.*\.csa$')" -ge 2 ] && break; sleep 0.1; done
kill -9 "$gp" 2>/dev/null; wait "$gp" 2>/dev/null
before=$(ls "$T/krec" | grep -c '^grow-.*\.csa$')
[ "$before" -ge 2 ] && [ "$before" -lt 8 ] || fail "grow kill: $before games before the kill (expected 2..7)"
sums=$(cd "$T/krec" && md5sum grow-*.csa)
out=$(grow "$T/k.db" --records "$T/krec" --games 8 --expand-after 2 2>&1)
expect_status "grow resume" 0 $?
expect_contains "grow resume count" "$out" "holds $before games"
[ "$(ls "$T/krec" | grep -c '^grow-.*\.csa$')" = 8 ] || fail "grow resume: $(ls "$T/krec" | wc -l) files, expected 8"
(cd "$T/krec" && echo "$sums" | md5sum -c --quiet) || fail "grow resume: a game written before the kill changed"
[ "$(root_games "$T/k.db")" = 8 ] || fail "grow resume: root counts $(root_games "$T/k.db"), expected 8"

# Ctrl-C or SIGTERM (a background job ignores SIGINT): nothing new is finished, the games kept, OUT written, 130
"$HAYANAGI" book grow "$T/in.db" "$T/i.db" --records "$T/irec" --games 40 "${common[@]}" >/dev/null 2>&1 &
ip=$!; pids="$pids $ip"
for _ in $(seq 1 300); do [ "$(ls "$T/irec" 2>/dev/null | grep -c '^grow-.*\.csa$')" -ge 1 ] && break; sleep 0.1; done
kill -TERM "$ip"; wait "$ip"; st=$?
expect_status "grow interrupted" 130 "$st"
kept=$(ls "$T/irec" | grep -c '^grow-.*\.csa$')
[ "$kept" -ge 1 ] && [ "$kept" -lt 40 ] || fail "grow interrupted: $kept games kept"
[ "$(root_games "$T/i.db")" = "$kept" ] || fail "grow interrupted: OUT counts $(root_games "$T/i.db"), $kept games kept"

# foreign records: another start position, a broken file, a text file; a two-game file counts 2
cp -r "$T/rec" "$T/rec2"
{ cat "$T/rec/grow-000000.csa"; echo /; tail -n +2 "$T/rec/grow-000001.csa"; } > "$T/rec2/match.csa"
cat > "$T/rec2/handicap.csa" <<'EOF'
V2.2
N+a
N-b
PI82HI22KA
-
-3334FU
%TORYO
EOF
printf 'V2.2\nPI\n+\n+7776FU\n-9999ZZ\n%%TORYO\n' > "$T/rec2/broken.csa"
echo notes > "$T/rec2/notes.txt"
out=$("$HAYANAGI" book grow "$T/in.db" "$T/f.db" --records "$T/rec2" --games 0 --expand-after 1 2>&1)
expect_status "grow foreign" 0 $?
expect_contains "grow foreign counted" "$out" "holds 6 games"
expect_contains "grow foreign named" "$out" "handicap.csa:"
expect_contains "grow broken named" "$out" "broken.csa:"
expect_contains "grow text named" "$out" "notes.txt: skipped"
[ "$(root_games "$T/f.db")" = 6 ] || fail "grow foreign: root counts $(root_games "$T/f.db"), expected 6"

# --confidence, by hand (--max-ply 1: each root move valued by its own results, G 4, prior
# 1/2 from score 0): 2g2f 3 wins of 3, q = (3 + 2) / 7 = 0.714 (550 cp); 7g7f 14 of 20,
# q = (14 + 2) / 24 = 0.667 (416 cp). Z = 1 takes one standard error of n + 4 results:
# 2g2f 0.714 - sqrt(0.714 * 0.286 / 7) = 0.544 (105 cp), 7g7f 0.667 - sqrt(0.667 * 0.333 / 24)
# = 0.570 (170 cp): the 20 games outrank the 3, and the root is valued by 7g7f's q
mkdir -p "$T/zrec"
printf '#YANEURAOU-DB2016 1.00\nsfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n7g7f none 0 0 1\n2g2f none 0 0 1\n' > "$T/zin.db"
for k in 1 2 3; do printf 'V2.2\nN+grow-player\nN-x\nPI\n+\n+2726FU\n%%TORYO\n' > "$T/zrec/a$k.csa"; done
for k in $(seq 1 20); do
    if [ "$k" -le 14 ]; then tail='%%TORYO'; else tail='-3334FU\n%%TORYO'; fi
    printf "V2.2\nN+grow-player\nN-x\nPI\n+\n+7776FU\n$tail\n" > "$T/zrec/b$k.csa"
done
for z in 0 1; do
    "$HAYANAGI" book grow "$T/zin.db" "$T/z$z.db" --records "$T/zrec" --games 0 --max-ply 1 --confidence $z --quiet \
        >/dev/null 2>&1 || fail "grow --confidence $z"
done
grep -qx '2g2f none 550 none 3' "$T/z0.db" && grep -qx '7g7f none 416 none 20' "$T/z0.db" \
    || fail "grow --confidence 0: $(grep -v '^#' "$T/z0.db")"
grep -qx '2g2f none 105 none 3' "$T/z1.db" && grep -qx '7g7f none 170 none 20' "$T/z1.db" \
    || fail "grow --confidence 1: $(grep -v '^#' "$T/z1.db")"
grep -q 'value 0.667 with the player to move' "$T/z1.db" || fail "grow --confidence 1: root value: $(grep '^#grow:' "$T/z1.db")"
grep -q '7g7f: 20 games +14 =0 -6, value 0.667, prior 0.500, lower bound 0.570' "$T/z1.db" \
    || fail "grow --confidence 1: evidence: $(grep '^#grow 7g7f' "$T/z1.db")"
out=$("$HAYANAGI" book lookup "$T/z1.db" startpos); expect_contains "grow --confidence plays" "$out" "engine would play 7g7f"
"$HAYANAGI" book grow "$T/zin.db" "$T/x.db" --records "$T/zrec" --games 0 --confidence -1 >/dev/null 2>&1
expect_status "grow bad confidence" 2 $?

# a crashing opponent: clear error, OUT and DIR as they were
echo keep > "$T/keep.db"
out=$("$HAYANAGI" book grow "$T/in.db" "$T/keep.db" --records "$T/crec" --games 2 --opponent false --nodes 300 2>&1)
expect_status "grow crashing opponent" 1 $?
expect_contains "grow crashing opponent" "$out" "engine 2 (false)"
[ "$(cat "$T/keep.db")" = keep ] || fail "grow crashing opponent: OUT changed"
[ -e "$T/crec" ] && fail "grow crashing opponent: DIR created"
out=$("$HAYANAGI" book grow "$T/in.db" "$T/keep.db" --records "$T/rec" --games 6 --opponent "sh -c 'exit 1'" \
      --nodes 300 2>&1)
expect_status "grow crashing opponent (sh)" 1 $?
[ "$(ls "$T/rec" | wc -l)" = 4 ] || fail "grow crashing opponent: DIR changed"
[ "$(cat "$T/keep.db")" = keep ] || fail "grow crashing opponent (sh): OUT changed"
# an opponent that starts, then dies at its first `go`: every game dropped with a note, exit 1
printf '#!/bin/sh\nwhile read -r l; do case "$l" in usi) echo "id name crasher"; echo usiok;; isready) echo readyok;; go*) exit 1;; quit) exit 0;; esac; done\n' > "$T/crasher.sh"
chmod +x "$T/crasher.sh"
out=$("$HAYANAGI" book grow "$T/in.db" "$T/keep.db" --records "$T/mrec" --games 2 --opponent "$T/crasher.sh" \
      --nodes 300 2>&1)
expect_status "grow opponent dying in game" 1 $?
expect_contains "grow opponent dying in game" "$out" "game dropped (an engine crashed or hung"
expect_contains "grow opponent dying in game" "$out" "every game against $T/crasher.sh was dropped"
[ -e "$T/mrec" ] && fail "grow opponent dying in game: DIR created"
[ "$(cat "$T/keep.db")" = keep ] || fail "grow opponent dying in game: OUT changed"
# unreadable IN, usage errors
out=$("$HAYANAGI" book grow "$T/none.db" "$T/keep.db" --records "$T/rec" --games 0 2>&1)
expect_status "grow missing IN" 1 $?
expect_contains "grow missing IN" "$out" "none.db"
"$HAYANAGI" book grow "$T/in.db" "$T/x.db" --records "$T/rec" --games 5 >/dev/null 2>&1
expect_status "grow no opponent" 2 $?
"$HAYANAGI" book grow "$T/in.db" "$T/x.db" --records "$T/rec" --games 0 --expand-after 0 >/dev/null 2>&1
expect_status "grow bad K" 2 $?
# book report's disagreements, on s28-book4.csa (200 games from the start position): 2g2f
# opened 70 of them and black scored 37/70 = 0.529 (counted with `book records --moves` and
# awk); a book score of -300 expects 1 / (1 + e^0.5) = 0.378, 0.151 apart: listed at margin
# 0.15, not at 0.16. 7g7f at +600 (0.731) stays within the margin.
printf '#YANEURAOU-DB2016 1.00\nsfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n7g7f none 600 10 1\n2g2f none -300 10 1\n' > "$T/sc.db"
out=$("$HAYANAGI" book report "$T/sc.db" --records book/records/s28-book4.csa --min-games 3 --disagreements "$T/dis.txt" 2>&1)
expect_status "report disagreements" 0 $?
expect_contains "report disagreements" "$out" "disagreements    1 book move(s)"
expect_contains "report disagreement 2g2f" "$out" "     70  0.529  0.378    -300  2g2f   lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1  (scored above its evaluation)"
[ "$(cat "$T/dis.txt")" = "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1" ] || fail "report --disagreements file: $(cat "$T/dis.txt")"
out=$("$HAYANAGI" book report "$T/sc.db" --records book/records/s28-book4.csa --min-games 3 --margin 0.16 2>&1)
expect_contains "report margin 0.16" "$out" "disagreements    0 book move(s)"
# On a terminal (script(1) gives one) the game lines are printed above the progress bar
# (util/progress.h, progress_line()): no line of the screen holds both the bar and a game.
# The screen's lines are the output cut at \r and \n (a \r starts the line over).
if command -v script > /dev/null; then
    script -qec "'$HAYANAGI' book grow '$T/in.db' '$T/tty.db' --records '$T/ttyrec' --games 4 --opponent '$HAYANAGI' \
        --nodes 300 --max-moves 60" /dev/null > "$T/tty.out" 2>&1
    expect_status "grow on a terminal" 0 $?
    tr '\r' '\n' < "$T/tty.out" > "$T/tty.lines"
    [ "$(grep -c 'game [0-9]/4: ' "$T/tty.lines")" = 4 ] ||
        fail "grow on a terminal: 4 game lines expected: $(grep -c 'game [0-9]/4: ' "$T/tty.lines")"
    grep -q '^grow \[' "$T/tty.lines" || fail "grow on a terminal: no progress bar drawn"
    grep 'game [0-9]/4: ' "$T/tty.lines" | grep -q 'grow \[' &&
        fail "grow on a terminal: a game line shares the bar's line: $(grep 'game [0-9]/4: ' "$T/tty.lines" | grep 'grow \[' | head -1)"
fi
out=$("$HAYANAGI" book grow --help 2>&1); expect_status "grow help" 0 $?
expect_contains "grow help" "$out" "usage: hayanagi book grow IN OUT"
finish
