#!/usr/bin/env bash
# hayanagi tune label: a teacher engine's scores for a training file (here the engine
# itself at fixed nodes), and tune fit's separate score scale per input file.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
teacher=(--engine "$HAYANAGI" --option USI_OwnBook=false --option Threads=1 --go "nodes 300")

# White's rook is missing (white and black to move), then black's rook: the scores come
# back from black's side whoever moves; the input's order and results are kept.
{ echo "1 lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 2"
  echo "0.5 -77 lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 3"
  echo "this line is not data"
  echo "0 lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B7/LNSGKGSNL b - 1"
  echo "1 lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1"; } > "$tmp/in.txt"
out=$("$HAYANAGI" tune label "${teacher[@]}" --option NoSuchOption=1 --concurrency 2 "$tmp/in.txt" "$tmp/out.txt" 2>&1)
expect_status "tune label" 0 $?
expect_contains "unknown option warned" "$out" "has no option 'NoSuchOption'; not sent"
expect_contains "malformed line" "$out" "in.txt:3:"
expect_contains "bad sfen" "$out" "in.txt:5:"
expect_contains "summary" "$out" "wrote 3 positions"
n=$(wc -l < "$tmp/out.txt")
[ "$n" -eq 3 ] || fail "tune label wrote $n lines, expected 3"
read -r r1 s1 f1 _ < <(sed -n 1p "$tmp/out.txt")
read -r r2 s2 _ < <(sed -n 2p "$tmp/out.txt")
read -r r3 s3 f3 _ < <(sed -n 3p "$tmp/out.txt")
[ "$r1 $r2 $r3" = "1 0.5 0" ] || fail "results not kept in order: $r1 $r2 $r3"
[ "$f1" = "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL" ] || fail "first position changed: $f1"
[ "$f3" = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B7/LNSGKGSNL" ] || fail "third position changed: $f3"
[ "$s1" -gt 300 ] 2> /dev/null || fail "black a rook up, white to move: score $s1, expected > 300 (black's view)"
[ "$s2" -gt 300 ] 2> /dev/null || fail "black a rook up, black to move: score $s2, expected > 300 (old score replaced)"
[ "$s3" -lt -300 ] 2> /dev/null || fail "white a rook up: score $s3, expected < -300"

# --skip-above leaves out lines whose recorded score is beyond the bound.
out=$("$HAYANAGI" tune label "${teacher[@]}" --skip-above 50 "$tmp/in.txt" "$tmp/skip.txt" 2>&1)
expect_status "tune label --skip-above" 0 $?
expect_contains "skip count" "$out" "1 more beyond +-50 left out"
[ "$(wc -l < "$tmp/skip.txt")" -eq 2 ] || fail "--skip-above 50 kept $(wc -l < "$tmp/skip.txt") lines, expected 2"

# A teacher that cannot be started, a missing input, bad arguments: non-zero, no output.
out=$("$HAYANAGI" tune label --engine /nonexistent/teacher "$tmp/in.txt" "$tmp/none.txt" 2>&1)
[ $? -ne 0 ] || fail "tune label with a missing engine succeeded"
expect_contains "missing engine" "$out" "/nonexistent/teacher"
[ -e "$tmp/none.txt" ] && fail "tune label wrote output without an engine"
out=$("$HAYANAGI" tune label "${teacher[@]}" "$tmp/missing.txt" "$tmp/none.txt" 2>&1)
[ $? -ne 0 ] || fail "tune label on a missing file succeeded"
"$HAYANAGI" tune label --engine "$HAYANAGI" --concurrency 0 "$tmp/in.txt" "$tmp/none.txt" 2> /dev/null
expect_status "tune label --concurrency 0" 2 $?
out=$("$HAYANAGI" tune label --engine "$HAYANAGI" --option $'Hash=1\nquit' "$tmp/in.txt" "$tmp/none.txt" 2>&1)
expect_status "tune label --option with a newline" 2 $?
expect_contains "option with a newline" "$out" "expects NAME=VALUE"
[ -e "$tmp/none.txt" ] && fail "tune label wrote output after a bad --option"

# Ctrl-C: the engines stop, the finished lines are written (well-formed), status 130.
# The teacher's answers are copied to a log; the interrupt comes after its second
# bestmove, so at least one position is finished however slow the build is.
for _ in $(seq 60); do cat "$tmp/in.txt"; done > "$tmp/many.txt"
printf '#!/bin/sh\n"%s" | tee -a "%s"\n' "$HAYANAGI" "$tmp/teacher.log" > "$tmp/teacher.sh"
chmod +x "$tmp/teacher.sh"
"$HAYANAGI" tune label --engine "$tmp/teacher.sh" --option USI_OwnBook=false --go "nodes 20000" \
    "$tmp/many.txt" "$tmp/part.txt" 2> "$tmp/part.log" &
pid=$!
for _ in $(seq 1200); do [ "$(cat "$tmp/teacher.log" 2> /dev/null | grep -c '^bestmove')" -ge 2 ] && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
expect_status "tune label interrupted" 130 $?
[ -e "$tmp/part.txt" ] || fail "tune label wrote nothing when interrupted"
m=$(wc -l < "$tmp/part.txt")
[ "$m" -ge 1 ] && [ "$m" -lt 180 ] || fail "interrupted run wrote $m lines, expected 1 to 179"
bad=$(grep -cvE '^(1|0|0\.5) -?[0-9]+ [^ ]+ [bw] [^ ]+ [0-9]+$' "$tmp/part.txt")
[ "$bad" -eq 0 ] || fail "interrupted run: $bad malformed lines"
expect_contains "interrupted summary" "$(cat "$tmp/part.log")" "interrupted before the end"

# Ctrl-C while the teacher has not answered `usi` yet: an interrupt, not an engine
# failure (status 130, no error message), and OUT keeps its old content.
printf '#!/bin/sh\nexec sleep 60\n' > "$tmp/mute.sh"
chmod +x "$tmp/mute.sh"
echo "old content" > "$tmp/keep.txt"
"$HAYANAGI" tune label --engine "$tmp/mute.sh" --concurrency 2 "$tmp/in.txt" "$tmp/keep.txt" 2> "$tmp/mute.log" &
pid=$!
for _ in $(seq 300); do grep -q "positions from" "$tmp/mute.log" && break; sleep 0.1; done
sleep 0.3
kill -INT "$pid"
wait "$pid"
expect_status "tune label interrupted in the handshake" 130 $?
expect_contains "handshake interrupt summary" "$(cat "$tmp/mute.log")" "interrupted before any position was labelled"
expect_not_contains "handshake interrupt is no failure" "$(cat "$tmp/mute.log")" "hayanagi tune label:"
[ "$(cat "$tmp/keep.txt")" = "old content" ] || fail "interrupted handshake changed OUT"

# tune fit gives each input file its own score scale: the same positions with every
# score tripled get a Ks three times as large.
# Scores -1000..1000, each with 20 results of which a share sigmoid(score / 600) are wins.
awk 'BEGIN { for (s = -1000; s <= 1000; s += 100) { w = int(20 / (1 + exp(-s / 600)) + 0.5)
    for (i = 0; i < 20; i++) print (i < w ? 1 : 0), s, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1" } }' \
    > "$tmp/a.txt"
awk '{ $2 = 3 * $2; print }' "$tmp/a.txt" > "$tmp/b.txt"
out=$("$HAYANAGI" tune fit --epochs 0 --out "$tmp/w.c" "$tmp/a.txt" "$tmp/b.txt" 2>&1)
expect_status "tune fit, two files" 0 $?
ka=$(echo "$out" | sed -n 's/^tune: .*a\.txt: .*Ks \([0-9.]*\).*/\1/p')
kb=$(echo "$out" | sed -n 's/^tune: .*b\.txt: .*Ks \([0-9.]*\).*/\1/p')
awk -v a="$ka" -v b="$kb" 'BEGIN { r = b / a; exit !(a > 0 && r > 2.9 && r < 3.1) }' ||
    fail "per-file Ks: a.txt $ka, b.txt $kb (expected a ratio of 3)"
expect_contains "Ks in header" "$(cat "$tmp/w.c")" "(b.txt)"

finish
