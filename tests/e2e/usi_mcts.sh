#!/usr/bin/env bash
# USI transcripts with UseMCTS: go nodes/depth/movetime/infinite/ponder with stop and
# ponderhit, tree reuse across moves, PolicyBook with the shipped book, and the options.
. "$(dirname "$0")/lib.sh"
run() { timeout 60 "$HAYANAGI"; }
M="setoption name UseMCTS value true"
NB="setoption name USI_OwnBook value false"

# the options are listed
out=$(printf '%s\n' usi | run)
for o in UseMCTS C_init C_base C_fpu_reduction C_init_root C_base_root C_fpu_reduction_root PolicyTemperature \
         Use_Book_Policy BookPolicyAlpha UCT_Hash ReuseSubtree; do
    expect_contains "option $o" "$out" "option name $o type"
done

# go nodes: playouts are the nodes; info shows visits and a win rate; one legal bestmove
out=$(printf '%s\n' "$M" "$NB" isready "position startpos" "go nodes 800" | run)
expect_contains "info line" "$out" " nodes 800 "
expect_contains "info score" "$out" "score cp "
expect_contains "visits and win rate" "$out" "info string mcts visits "
[ "$(echo "$out" | grep -c '^bestmove ')" = 1 ] || fail "exactly one bestmove for go nodes"
best=$(echo "$out" | sed -n 's/^bestmove \([^ ]*\).*/\1/p')
legal=$(printf '%s\n' "position startpos moves $best" "sfen" | run)
expect_contains "bestmove is legal" "$legal" "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/"

# the score shown is value_to_score(win rate): 756 * ln(w / (1 - w)), within rounding
line=$(echo "$out" | grep '^info depth' | tail -1)
cp=$(echo "$line" | sed -n 's/.* score cp \(-\{0,1\}[0-9]*\) .*/\1/p')
wr=$(echo "$out" | grep 'winrate' | tail -1 | sed -n 's/.*winrate \([0-9.]*\).*/\1/p')
want=$(awk -v w="$wr" 'BEGIN { printf "%d", 756 * log(w / (1 - w)) + (w >= 0.5 ? 0.5 : -0.5) }')
diff=$(( cp - want )); diff=${diff#-}
[ "$diff" -le 2 ] || fail "score cp $cp does not match win rate $wr (want $want)"

# go depth stops once a playout goes that deep
out=$(printf '%s\n' "$M" "$NB" isready "position startpos" "go depth 4" | run)
expect_contains "depth bestmove" "$out" "bestmove "

# go infinite holds bestmove until stop
out=$( { printf '%s\n' "$M" "$NB" isready "position startpos" "go infinite"; sleep 0.6
         echo "info-check"; sleep 0.2; echo stop; sleep 0.5; } | run)
before=$(echo "$out" | sed -n '1,/unknown command .info-check./p')
expect_not_contains "no bestmove before stop" "$before" "bestmove"
[ "$(echo "$out" | grep -c '^bestmove ')" = 1 ] || fail "infinite: one bestmove after stop"

# go ponder: nothing until ponderhit, then a bestmove within the byoyomi
out=$( { printf '%s\n' "$M" "$NB" "setoption name USI_Ponder value true" isready \
         "position startpos moves 7g7f 3c3d" "go ponder btime 0 wtime 0 byoyomi 300"; sleep 0.8
         echo "info-check"; sleep 0.2; echo ponderhit; sleep 1; } | run)
before=$(echo "$out" | sed -n '1,/unknown command .info-check./p')
expect_not_contains "no bestmove while pondering" "$before" "bestmove"
after=$(echo "$out" | sed -n '/unknown command .info-check./,$p')
expect_contains "bestmove after ponderhit" "$after" "bestmove "

# gameover during ponder: no bestmove is owed
out=$( { printf '%s\n' "$M" "$NB" isready "position startpos" "go ponder btime 0 wtime 0 byoyomi 5000"
         sleep 0.3; echo "gameover lose"; sleep 0.3; echo quit; } | run)
expect_not_contains "no bestmove after gameover" "$out" "bestmove"

# byoyomi: answers in time; the second move reuses the tree (two threads)
out=$( { printf '%s\n' "$M" "$NB" "setoption name Threads value 2" isready "position startpos" \
         "go btime 0 wtime 0 byoyomi 300"; sleep 0.8
         printf '%s\n' "position startpos moves 7g7f" "go btime 0 wtime 0 byoyomi 300"; sleep 0.8; } | run)
[ "$(echo "$out" | grep -c '^bestmove ')" = 2 ] || fail "byoyomi: two bestmoves"

# mated: resign; a mate in one is played at once
out=$(printf '%s\n' "$M" "position sfen 8k/8G/8P/9/9/9/9/9/K8 w - 1" "go nodes 100" | run)
expect_contains "resign when mated" "$out" "bestmove resign"
out=$(printf '%s\n' "$M" "position sfen 8k/9/7GP/9/9/9/9/9/K8 b G 1" "go nodes 100" | run)
case "$out" in *"bestmove G*1b"*|*"bestmove 1c1b+"*) ;; *) fail "mate in one: $out";; esac

# PolicyBook with the shipped book: the book is loaded for the prior even without OwnBook
out=$(printf '%s\n' "$M" "$NB" "setoption name Use_Book_Policy value true" isready "position startpos" \
      "go nodes 300" | run)
expect_contains "book loaded" "$out" "book loaded"
expect_contains "policybook bestmove" "$out" "bestmove "

# go mate still uses df-pn
out=$(printf '%s\n' "$M" "position sfen 3sks3/9/4S4/9/1+B7/9/9/9/9 b S2rb4g4n4l18p 1" "go mate 5000" | run)
expect_contains "checkmate line" "$out" "checkmate 8e5b 4a5b S*4b"

# Zero and malformed limits are the least, not infinity (docs/usi.md, "Commands", go): one bestmove
# each, at the end of input, without stop.
for args in "btime 0 wtime 0" "movetime 0" "nodes 0" "btime abc"; do
    out=$(printf '%s\n' "$M" "setoption name USI_OwnBook value false" isready "position startpos" "go $args" | run)
    [ "$(echo "$out" | grep -c '^bestmove ')" = 1 ] || fail "mcts go $args: exactly one bestmove"
done
finish
