#!/usr/bin/env bash
# Opponent overlays over USI (docs/usi.md, "Rival overlays") and `book rival-learn`
# (docs/book_making.md). The main book plays 7g7f at the start and, after 7g7f 3c3d, 2g2f
# (score 40; 6g6f at 0 is beyond BookEvalDiff 30, so the choice is fixed). The overlay of
# "gpsfish" plays 2g2f at the start: a rival overlay changes the first move played
# against that name and only that name. Then a loss with 2g2f after 7g7f 3c3d is learned
# for "gpsusi", and the engine plays 6g6f there against gpsusi only.
. "$(dirname "$0")/lib.sh"
HAYANAGI=$(cd "$(dirname "$HAYANAGI")" && pwd)/$(basename "$HAYANAGI") # one test runs elsewhere
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
START="lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
mkdir "$T/rivals" "$T/recs"
cat > "$T/main.db" <<EOT
#YANEURAOU-DB2016 1.00
sfen $START
7g7f 3c3d 0 32 10
sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3
2g2f 8c8d 40 32 5
6g6f none 0 32 3
EOT
printf '#YANEURAOU-DB2016 1.00\nsfen %s\n2g2f 8c8d 0 32 1\n' "$START" > "$T/rivals/gpsfish.db"
echo "not a book" > "$T/rivals/broken.db"

# engine SEED DIR OPPONENT MOVES: the engine's output for `go` after the moves
engine() {
    printf 'usi\nsetoption name BookDir value %s\nsetoption name BookFile value main.db\nsetoption name BookSeed value %s\nsetoption name RivalBookDir value %s\nsetoption name USI_Opponent value %s\nisready\nusinewgame\nposition startpos%s\ngo btime 0 wtime 0 byoyomi 100\nisready\nquit\n' \
        "$T" "$1" "$2" "$3" "${4:+ moves $4}" | "$HAYANAGI" 2>&1
}
bestmove() { echo "$1" | grep '^bestmove' | head -1; }

out=$("$HAYANAGI" usi <<< $'usi\nquit')
expect_contains "options listed" "$out" "option name RivalBookDir type string default <empty>"
expect_contains "options listed" "$out" "option name USI_Opponent type string default <empty>"

for seed in 1 2 3 4 5; do
    out=$(engine $seed "$T/rivals" "none none computer gpsfish")
    expect_contains "gpsfish overlay loaded" "$out" "info string rival overlay loaded $T/rivals/gpsfish.db (1 positions"
    expect_contains "gpsfish seed $seed" "$(bestmove "$out")" "bestmove 2g2f"
    expect_contains "gpsfish from the overlay" "$out" "info string rival overlay hit 2g2f"
    out=$(engine $seed "$T/rivals" "none none computer gpsfish2")
    expect_contains "other name seed $seed" "$(bestmove "$out")" "bestmove 7g7f"
    expect_contains "other name: none" "$out" "info string rival overlay none: no $T/rivals/gpsfish2.db (nor .sbk)"
done
out=$(engine 1 "$T/rivals" "gpsfish"); expect_contains "bare name" "$(bestmove "$out")" "bestmove 2g2f"
out=$(engine 1 "<empty>" "gpsfish"); expect_contains "no RivalBookDir" "$(bestmove "$out")" "bestmove 7g7f"
expect_not_contains "no RivalBookDir: silent" "$out" "rival overlay"
out=$(engine 1 "$T/rivals" "<empty>"); expect_contains "no opponent" "$(bestmove "$out")" "bestmove 7g7f"
# a relative RivalBookDir is resolved as BookDir is (here: the working directory)
out=$(cd "$T" && engine 1 rivals "none none computer gpsfish")
expect_contains "relative dir" "$(bestmove "$out")" "bestmove 2g2f"
# hostile names never leave the directory or reach another file
out=$(engine 1 "$T/rivals" "none none computer ../rivals/gpsfish")
expect_contains "hostile name" "$(bestmove "$out")" "bestmove 7g7f"
expect_contains "hostile name mapped" "$out" "no $T/rivals/%2E.%2Frivals%2Fgpsfish.db"
out=$(engine 1 "$T/rivals" "none none computer broken")
expect_contains "broken overlay reported" "$out" "info string rival overlay error"
expect_contains "broken overlay ignored" "$(bestmove "$out")" "bestmove 7g7f"
expect_contains "engine still answers" "$(echo "$out" | grep -c readyok)" "2"
# the overlay follows the options within one session
out=$(printf 'usi\nsetoption name BookDir value %s\nsetoption name BookFile value main.db\nsetoption name RivalBookDir value %s\nsetoption name USI_Opponent value gpsfish\nisready\nusinewgame\nposition startpos\ngo btime 0 wtime 0 byoyomi 100\nsetoption name USI_Opponent value none none human Someone Else\nusinewgame\nposition startpos\ngo btime 0 wtime 0 byoyomi 100\nquit\n' "$T" "$T/rivals" | "$HAYANAGI" 2>&1)
expect_contains "switch: first game" "$(echo "$out" | grep '^bestmove' | sed -n 1p)" "bestmove 2g2f"
expect_contains "switch: second game" "$(echo "$out" | grep '^bestmove' | sed -n 2p)" "bestmove 7g7f"
expect_contains "switch: name with spaces" "$out" "no $T/rivals/Someone%20Else.db"

# learning from a loss: hayanagi (black) resigned to gpsusi after 7g7f 3c3d 2g2f 8c8d
printf 'V2.2\nN+hayanagi-1.0\nN-gpsusi\nPI\n+\n+7776FU\n-3334FU\n+2726FU\n-8384FU\n%%TORYO\n' > "$T/lost.csa"
out=$(engine 1 "$T/rivals" "none none computer gpsusi" "7g7f 3c3d")
expect_contains "before learning" "$(bestmove "$out")" "bestmove 2g2f"
out=$("$HAYANAGI" book rival-learn --rival-books "$T/rivals" --opponent gpsusi --player 'hayanagi*' --book "$T/main.db" \
      --quiet "$T/lost.csa" 2>&1)
expect_status "rival-learn" 0 $?
expect_contains "rival-learn report" "$out" "1 of our losses demoted a move (0 already demoted)"
expect_contains "rival-learn report" "$out" "last demoted: 2g2f at sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3"
for seed in 1 2 3 4 5; do
    out=$(engine $seed "$T/rivals" "none none computer gpsusi" "7g7f 3c3d")
    expect_contains "after learning seed $seed" "$(bestmove "$out")" "bestmove 6g6f"
    out=$(engine $seed "$T/rivals" "none none computer gpsfish2" "7g7f 3c3d")
    expect_contains "another opponent seed $seed" "$(bestmove "$out")" "bestmove 2g2f"
done
# a second application: the same file
cp "$T/rivals/gpsusi.db" "$T/once.db"
"$HAYANAGI" book rival-learn --overlay "$T/rivals/gpsusi.db" --player 'hayanagi*' --book "$T/main.db" --quiet \
    "$T/lost.csa" > /dev/null 2>&1
expect_status "rival-learn again" 0 $?
cmp -s "$T/once.db" "$T/rivals/gpsusi.db" || fail "rival-learn again changed the overlay"

# before a round: a directory of the opponent's own records (its losses to anyone)
printf 'V2.2\nN+someone\nN-kristall\nPI\n+\n+5756FU\n-3334FU\n+5655FU\n%%TORYO\n' > "$T/recs/a.csa"
printf 'V2.2\nN+kristall\nN-another\nPI\n+\n+2726FU\n%%TORYO\n' > "$T/recs/b.csa"
echo "ignored" > "$T/recs/notes.txt"
out=$("$HAYANAGI" book rival-learn --rival-books "$T/rivals" --opponent kristall --quiet "$T/recs" 2>&1)
expect_status "rival-learn directory" 0 $?
expect_contains "rival-learn directory" "$out" "2 games: 1 opponent losses imported (2 positions)"
out=$(engine 1 "$T/rivals" "kristall"); expect_contains "imported line" "$(bestmove "$out")" "bestmove 5g5f"

# the command line
out=$("$HAYANAGI" book rival-learn --help 2>&1); expect_status "help" 0 $?
expect_contains "help" "$out" "usage: hayanagi book rival-learn"
"$HAYANAGI" book rival-learn --player x "$T/lost.csa" > /dev/null 2>&1; expect_status "no overlay" 2 $?
"$HAYANAGI" book rival-learn --overlay "$T/x.db" --rival-books "$T" --opponent a --player x "$T/lost.csa" > /dev/null 2>&1
expect_status "both overlay and dir" 2 $?
"$HAYANAGI" book rival-learn --rival-books "$T" --player x "$T/lost.csa" > /dev/null 2>&1
expect_status "dir without opponent" 2 $?
"$HAYANAGI" book rival-learn --overlay "$T/x.csa" --player x "$T/lost.csa" > /dev/null 2>&1
expect_status "overlay named like a record" 2 $?
"$HAYANAGI" book rival-learn --overlay "$T/x.db" --player x --max-ply=-1 "$T/lost.csa" > /dev/null 2>&1
expect_status "bad max-ply" 2 $?
out=$("$HAYANAGI" book rival-learn --overlay "$T/x.sbk" --player x --quiet "$T/lost.csa" 2>&1)
expect_status "sbk overlay" 1 $?
expect_contains "sbk overlay" "$out" "SBK cannot carry a demoted score"
cp "$T/rivals/gpsusi.db" "$T/before.db"
out=$("$HAYANAGI" book rival-learn --overlay "$T/rivals/gpsusi.db" --player x --quiet /nonexistent.csa 2>&1)
expect_status "missing record" 1 $?
expect_contains "missing record" "$out" "/nonexistent.csa"
cmp -s "$T/before.db" "$T/rivals/gpsusi.db" || fail "missing record: the overlay was changed"
out=$("$HAYANAGI" book rival-learn --overlay "$T/rivals/broken.db" --player x --quiet "$T/lost.csa" 2>&1)
expect_status "broken overlay" 1 $?
[ "$(cat "$T/rivals/broken.db")" = "not a book" ] || fail "broken overlay: rewritten"

# A demoted move is kept out of the search too: where the overlay lists only moves that
# lost (score -32000) and the book has nothing to play, the engine searches the other
# legal moves (without this it finds the demoted move again and walks into the same line).
SFEN2="lnsgkgsnl/1r5b1/p1ppppppp/1p7/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL b - 3" # 2g2f 8c8d: not in main.db
# search OPPONENT: the engine's output for go depth 5 there, against OPPONENT
search() {
    printf 'usi\nsetoption name BookDir value %s\nsetoption name BookFile value main.db\nsetoption name Threads value 1\nsetoption name RivalBookDir value %s\nsetoption name USI_Opponent value %s\nisready\nusinewgame\nposition startpos moves 2g2f 8c8d\ngo depth 5\nisready\nquit\n' \
        "$T" "$T/rivals" "$1" | "$HAYANAGI" 2>&1
}
first=$(bestmove "$(search nobody)" | awk '{print $2}')
[ -n "$first" ] || fail "search without an overlay: no bestmove"
printf '#YANEURAOU-DB2016 1.00\nsfen %s\n%s none -32000 none 0\n' "$SFEN2" "$first" > "$T/rivals/demoter.db"
out=$(search demoter)
expect_contains "demoted: left out" "$out" "info string rival overlay: 1 demoted move(s) left out of the search (first $first)"
again=$(bestmove "$out" | awk '{print $2}')
[ -n "$again" ] && [ "$again" != "$first" ] || fail "the demoted move $first was played again ($again)"
expect_not_contains "demoted: against another name, searched as before" "$(search nobody)" "left out of the search"
finish
