#!/usr/bin/env bash
# hayanagi tune: data from self-play, the fit's output file, its round trip, openings.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Self-play data: "<result> <sfen>" lines.
"$HAYANAGI" tune generate --games 4 --nodes 300 --seed 3 "$tmp/data.txt" 2> "$tmp/gen.log"
expect_status "tune generate" 0 $?
n=$(wc -l < "$tmp/data.txt")
[ "$n" -gt 50 ] || fail "tune generate wrote only $n positions"
bad=$(grep -cvE '^(1|0|0\.5) [^ ]+ [bw] [^ ]+ [0-9]+$' "$tmp/data.txt")
[ "$bad" -eq 0 ] || fail "tune generate: $bad malformed lines"

# Bad numbers are refused, not read as 0.
"$HAYANAGI" tune generate --games 4x "$tmp/none.txt" 2> /dev/null
expect_status "tune generate --games 4x" 2 $?
"$HAYANAGI" tune generate --max-score 0 "$tmp/none.txt" 2> /dev/null
expect_status "tune generate --max-score 0" 2 $?
"$HAYANAGI" tune generate --seed -1 "$tmp/none.txt" 2> /dev/null
expect_status "tune generate --seed -1" 2 $?
[ -e "$tmp/none.txt" ] && fail "tune generate wrote output after a bad argument"

# --max-score 1 keeps only positions the search scores exactly 0: far fewer.
"$HAYANAGI" tune generate --games 4 --nodes 300 --seed 3 --max-score 1 "$tmp/level.txt" 2> /dev/null
expect_status "tune generate --max-score 1" 0 $?
m=$(wc -l < "$tmp/level.txt")
[ "$m" -lt "$n" ] || fail "--max-score 1 kept $m of $n positions"

# Ctrl-C: the games in progress are abandoned, the finished ones written, status 130.
"$HAYANAGI" tune generate --games 100000 --nodes 300 --threads 2 --seed 4 "$tmp/part.txt" 2> "$tmp/part.log" &
pid=$!
for _ in $(seq 300); do grep -q "game 3/" "$tmp/part.log" && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
expect_status "tune generate interrupted" 130 $?
expect_contains "interrupted summary" "$(cat "$tmp/part.log")" "(interrupted)"
m=$(wc -l < "$tmp/part.txt")
[ "$m" -gt 0 ] || fail "interrupted tune generate wrote no positions"
bad=$(grep -cvE '^(1|0|0\.5) [^ ]+ [bw] [^ ]+ [0-9]+$' "$tmp/part.txt")
[ "$bad" -eq 0 ] || fail "interrupted tune generate: $bad malformed lines"

# --epochs 0 writes the installed weights back: the same file below its header note.
"$HAYANAGI" tune fit --epochs 0 --out "$tmp/same.c" "$tmp/data.txt" 2> "$tmp/fit0.log"
expect_status "tune fit --epochs 0" 0 $?
if ! diff <(sed -n '/^#include/,$p' src/eval/classic_weights.c) <(sed -n '/^#include/,$p' "$tmp/same.c") > /dev/null
then
    fail "tune fit --epochs 0 does not reproduce src/eval/classic_weights.c"
fi

# A real fit lowers the training loss (recorded in the output's header).
"$HAYANAGI" tune fit --epochs 30 --out "$tmp/fit.c" "$tmp/data.txt" 2> "$tmp/fit.log"
expect_status "tune fit" 0 $?
line=$(grep -o 'loss train [0-9.]* -> [0-9.]*' "$tmp/fit.c")
expect_contains "tune fit header" "$line" "loss train"
echo "$line" | awk '{ if (!($5 < $3)) exit 1 }' || fail "tune fit did not lower the loss: $line"
cmp -s "$tmp/fit.c" "$tmp/same.c" && fail "tune fit --epochs 30 changed nothing"

# Malformed lines are reported with file:line and skipped.
{ echo "2 lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
  echo "1 not-a-sfen b - 1"
  cat "$tmp/data.txt"; } > "$tmp/bad.txt"
out=$("$HAYANAGI" tune fit --epochs 0 --out "$tmp/x.c" "$tmp/bad.txt" 2>&1)
expect_status "tune fit with bad lines" 0 $?
expect_contains "bad result" "$out" "bad.txt:1:"
expect_contains "bad sfen" "$out" "bad.txt:2:"
# A score between result and SFEN (tune records from match CSA files) is read as such.
{ echo "1 250 lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
  cat "$tmp/data.txt"; } > "$tmp/scored.txt"
out=$("$HAYANAGI" tune fit --epochs 0 --out "$tmp/x.c" "$tmp/scored.txt" 2>&1)
expect_contains "scored line" "$out" "1 of $((n + 1)) positions have a score"
expect_not_contains "scored line" "$out" "scored.txt:1:"
# --k and --ks fix the model's and the scores' scales instead of fitting them.
out=$("$HAYANAGI" tune fit --epochs 0 --k 1000 --ks 700 --out "$tmp/x.c" "$tmp/scored.txt" 2>&1)
expect_status "tune fit --k --ks" 0 $?
expect_contains "fixed K" "$out" "K 1000.0,"
expect_contains "fixed Ks" "$out" "their scale Ks 700.0 (given)"
expect_contains "fixed Ks in the header" "$(cat "$tmp/x.c")" "Ks 700.0 (scored.txt)"
out=$("$HAYANAGI" tune fit --epochs 0 --k 0 "$tmp/scored.txt" 2>&1)
[ $? -eq 2 ] || fail "tune fit --k 0 was accepted"
out=$("$HAYANAGI" tune fit --epochs 0 "$tmp/missing.txt" 2>&1)
[ $? -ne 0 ] || fail "tune fit on a missing file succeeded"
expect_contains "missing file" "$out" "cannot open"

# tune records from a match record: scores from both players' "'** N" comments, or with
# --scores-of only from the named one (A has black in game 1, so its scored positions all
# have black to move).
"$HAYANAGI" match --engine "$HAYANAGI" --engine "$HAYANAGI" --name A --name B --games 1 --nodes 300 \
    --max-moves 60 --option USI_OwnBook=false --out "$tmp/ab.csa" > /dev/null 2>&1
expect_status "match for records" 0 $?
"$HAYANAGI" tune records "$tmp/ab.csa" "$tmp/ab_all.txt" 2> /dev/null
expect_status "tune records" 0 $?
"$HAYANAGI" tune records --scores-of A "$tmp/ab.csa" "$tmp/ab_a.txt" 2> /dev/null
expect_status "tune records --scores-of" 0 $?
all=$(awk 'NF == 6' "$tmp/ab_all.txt" | wc -l)
a_b=$(awk 'NF == 6 && $4 == "b"' "$tmp/ab_a.txt" | wc -l)
a_w=$(awk 'NF == 6 && $4 == "w"' "$tmp/ab_a.txt" | wc -l)
[ "$a_b" -gt 5 ] || fail "tune records --scores-of A: only $a_b scored positions"
[ "$a_w" -eq 0 ] || fail "tune records --scores-of A: $a_w scored positions with B to move"
[ "$all" -gt "$a_b" ] || fail "tune records: $all scored positions, not more than A's $a_b"
[ "$(wc -l < "$tmp/ab_a.txt")" -eq "$(wc -l < "$tmp/ab_all.txt")" ] ||
    fail "tune records --scores-of must keep the unscored positions"

# Openings: each line replays through the engine's position command.
"$HAYANAGI" tune openings --count 5 --nodes 500 --plies 3-6 --seed 2 "$tmp/open.txt" 2> /dev/null
expect_status "tune openings" 0 $?
[ "$(grep -c '^startpos moves ' "$tmp/open.txt")" -eq 5 ] || fail "tune openings: expected 5 lines"
for bad in "--count 5x" "--plies 6-3" "--plies 3-6x" "--plies 3-61" "--seed -1" "--nodes 0" "--bogus 1"; do
    # shellcheck disable=SC2086 # each case is an option and its value
    "$HAYANAGI" tune openings $bad "$tmp/bad_open.txt" 2> /dev/null
    expect_status "tune openings $bad" 2 $?
done
[ ! -e "$tmp/bad_open.txt" ] || fail "tune openings wrote a file after refusing its arguments"
while read -r l; do
    out=$(printf 'position %s\nsfen\nquit\n' "$l" | "$HAYANAGI" 2>&1)
    expect_not_contains "opening replays" "$out" "info string"
done < "$tmp/open.txt"
finish
