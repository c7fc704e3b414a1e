#!/usr/bin/env bash
# USI transcripts around the search: go with each limit, stop, ponder/ponderhit,
# gameover, go mate, MultiPV, setoption validation, the book, and a clean quit.
. "$(dirname "$0")/lib.sh"
run() { timeout 60 "$HAYANAGI"; }

# go depth: info lines then exactly one bestmove, a legal move.
out=$(printf '%s\n' usi "setoption name USI_OwnBook value false" isready "position startpos" "go depth 5" | run)
expect_contains "info line" "$out" "info depth 5 seldepth"
expect_contains "info fields" "$out" " nodes "
expect_contains "hashfull" "$out" " hashfull "
[ "$(echo "$out" | grep -c '^bestmove ')" = 1 ] || fail "exactly one bestmove for go depth"

# go infinite holds bestmove until stop; stop answers at once.
out=$( { printf '%s\n' "setoption name USI_OwnBook value false" isready "position startpos" "go infinite"; sleep 0.5
         echo "isready"; sleep 0.3; echo stop; sleep 0.5; } | run)
expect_contains "isready during search" "$out" "readyok"
[ "$(echo "$out" | grep -c '^bestmove ')" = 1 ] || fail "infinite: one bestmove after stop"

# go ponder: nothing until ponderhit, then a bestmove within the byoyomi.
out=$( { printf '%s\n' "setoption name USI_Ponder value true" "setoption name USI_OwnBook value false" isready \
         "position startpos moves 7g7f 3c3d" "go ponder btime 0 wtime 0 byoyomi 300"; sleep 1
         echo "info-check"; sleep 0.2; echo ponderhit; sleep 1; } | run)
before=$(echo "$out" | sed -n '1,/unknown command .info-check./p')
expect_not_contains "no bestmove while pondering" "$before" "bestmove"
after=$(echo "$out" | sed -n '/unknown command .info-check./,$p')
expect_contains "bestmove after ponderhit" "$after" "bestmove "

# go ponder then stop (the opponent played something else): bestmove comes at once.
out=$( { printf '%s\n' "setoption name USI_OwnBook value false" isready "position startpos" \
         "go ponder btime 0 wtime 0 byoyomi 5000"; sleep 0.5; echo stop; sleep 0.5; } | run)
[ "$(echo "$out" | grep -c '^bestmove ')" = 1 ] || fail "ponder + stop: one bestmove"

# gameover during ponder: no bestmove is owed.
out=$( { printf '%s\n' "setoption name USI_OwnBook value false" isready "position startpos" \
         "go ponder btime 0 wtime 0 byoyomi 5000"; sleep 0.3; echo "gameover lose"; sleep 0.3; echo quit; } | run)
expect_not_contains "no bestmove after gameover" "$out" "bestmove"

# go ponder on a book position: the book's move is held until ponderhit and is the
# answer then (the shipped book plays 2g2f after 7g7f 3c3d; a search would not wait for
# the book), one bestmove after stop, none after gameover.
out=$( { printf '%s\n' "setoption name USI_Ponder value true" isready \
         "position startpos moves 7g7f 3c3d" "go ponder btime 0 wtime 0 byoyomi 300"; sleep 0.5
         echo "info-check"; sleep 0.2; echo ponderhit; sleep 0.5; } | run)
before=$(echo "$out" | sed -n '1,/unknown command .info-check./p')
expect_not_contains "ponder on a book position: no bestmove before ponderhit" "$before" "bestmove"
after=$(echo "$out" | sed -n '/unknown command .info-check./,$p')
expect_contains "ponderhit on a book position: the book's move" "$after" "info string book hit 2g2f"
[ "$(echo "$after" | grep -c '^bestmove 2g2f')" = 1 ] || fail "ponderhit on a book position: bestmove 2g2f once"
out=$( { printf '%s\n' "setoption name USI_Ponder value true" isready "position startpos moves 7g7f 3c3d" \
         "go ponder btime 0 wtime 0 byoyomi 5000"; sleep 0.3; echo stop; sleep 0.3; echo quit; } | run)
[ "$(echo "$out" | grep -c '^bestmove ')" = 1 ] || fail "ponder on a book position + stop: one bestmove"
out=$( { printf '%s\n' isready "position startpos moves 7g7f 3c3d" "go ponder btime 0 wtime 0 byoyomi 5000"
         sleep 0.3; echo "gameover win"; sleep 0.3; echo quit; } | run)
expect_not_contains "ponder on a book position + gameover: no bestmove" "$out" "bestmove"

# go mate: a known mate in 3, and a position without one.
out=$(printf '%s\n' "position sfen 3sks3/9/4S4/9/1+B7/9/9/9/9 b S2rb4g4n4l18p 1" "go mate 5000" | run)
expect_contains "checkmate line" "$out" "checkmate 8e5b 4a5b S*4b"
out=$(printf '%s\n' "position sfen 4k4/9/9/9/9/9/9/9/9 b P 1" "go mate 5000" | run)
expect_contains "nomate" "$out" "checkmate nomate"

# MultiPV 3 shows three lines per depth.
out=$(printf '%s\n' "setoption name MultiPV value 3" "setoption name USI_OwnBook value false" isready \
      "position startpos" "go depth 4" | run)
expect_contains "multipv 3" "$out" " multipv 3 "

# A movetime search answers in time, with only one legal move at once.
out=$(printf '%s\n' "setoption name USI_OwnBook value false" isready "position startpos" "go movetime 200" | run)
expect_contains "movetime bestmove" "$out" "bestmove "
out=$(printf '%s\n' "position sfen 8k/9/9/9/9/9/9/8r/K8 b - 1" "go btime 10000 wtime 10000" | run)
expect_contains "single legal move" "$out" "bestmove 9i8i"

# Bad options and bad go arguments are reported, not fatal.
out=$(printf '%s\n' "setoption name Threads value 0" "setoption name MultiPV value abc" \
      "setoption name NoSuchOption value 1" "setoption name EnteringKingRule value Nonsense" \
      "setoption name EnteringKingRule value TryRule" "go depth x" "setoption" isready | run)
expect_contains "range" "$out" "Threads must be within 1..128"
expect_contains "integer" "$out" "MultiPV expects an integer"
expect_contains "unknown option" "$out" "unknown option 'NoSuchOption'"
expect_contains "combo" "$out" "'Nonsense' is not a value of EnteringKingRule"
expect_contains "go needs number" "$out" "go: depth: 'x' is not a non-negative number"
expect_contains "still alive" "$out" "readyok"

# Entering-king declaration: bestmove win.
out=$(printf '%s\n' "setoption name USI_OwnBook value false" isready \
      "position sfen +P+P+P+P1+P+P+P+P/7+P+P/4K4/9/9/9/9/9/4k4 b 2R2B 1" "go btime 1000 wtime 1000" | run)
expect_contains "declaration" "$out" "bestmove win"

# The shipped book: loaded at isready, used at the start position.
out=$(printf '%s\n' usi isready "position startpos" "go btime 60000 wtime 60000" | run)
expect_contains "book loaded" "$out" "info string book loaded"
expect_contains "book hit" "$out" "info string book hit"
out=$(printf '%s\n' "setoption name BookFile value missing.db" isready | run)
expect_contains "book not found" "$out" "info string book not found"

# Options listing.
out=$(printf 'usi\n' | run)
for o in USI_Ponder USI_Hash Hash Threads MultiPV MinimumThinkingTime NetworkDelay NetworkDelay2 SlowMover \
         ResignValue EnteringKingRule MaxMovesToDraw USI_OwnBook BookDir BookFile BookMoves BookIgnoreRate \
         BookEvalDiff BookEvalBlackLimit BookEvalWhiteLimit BookDepthLimit ConsiderBookMoveCount BookPvMoves \
         IgnoreBookPly FlippedBook BookOnTheFly BookSeed; do
    expect_contains "option $o" "$out" "option name $o type"
done
expect_contains "combo vars" "$out" "var CSARule24H var CSARule27 var CSARule27H var TryRule"

# bench prints its signature last.
out=$(printf '%s\n' "bench depth 4" | run)
expect_contains "bench signature" "$(echo "$out" | tail -1)" "signature "
finish
