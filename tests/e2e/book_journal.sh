#!/usr/bin/env bash
# `book think`'s journal (docs/book_making.md, "Checkpoints"): entries are whole or ignored
# (a cut entry or a cut last line is dropped and its position searched again, so the
# resumed book is the uninterrupted one byte for byte), a journal of another input or
# other options is refused, bad lines are reported as journal:line and never reach OUT,
# and a second run on the same OUT, or on another OUT with the same --journal, is refused
# while the first holds the journal, with a message naming the journal.
. "$(dirname "$0")/lib.sh"
R=../shared/refdata
T=$(mktemp -d /tmp/hayanagi_book_journal.XXXXXX)
trap 'rm -rf "$T"' EXIT
export SOURCE_DATE_EPOCH=1800000000 # the provenance date, so that two runs write the same bytes
Y=$R/db/rshogi/book_backprop_yo_in.db # 5 targets at multipv 2
NODES=300000; [ -n "${HAYANAGI_SANITIZED:-}" ] && NODES=60000
ARGS=(--nodes $NODES --multipv 2 --quiet)
think() { "$HAYANAGI" book think "$Y" "$@" "${ARGS[@]}"; }
entries() { grep -c '^sfen ' "$1"; }

# wait_entries FILE N PID: waits until FILE holds N whole entries (N + 1 end lines with the
# header's) or PID is gone
wait_entries() {
    for _ in $(seq 6000); do
        local n
        n=$(grep -c '^#end ' "$1" 2>/dev/null)
        [ "${n:-0}" -gt "$2" ] && return 0
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.02
    done
    return 1
}

think "$T/u.db" > "$T/u.out" 2>&1
expect_status "uninterrupted" 0 $?
expect_contains "uninterrupted summary" "$(cat "$T/u.out")" "5 positions needed a search (0 done before, 5 searched now"

# SIGKILL after two whole entries; the journal is kept aside for the cases below
"$HAYANAGI" book think "$Y" "$T/k.db" "${ARGS[@]}" > /dev/null 2>&1 &
pid=$!
wait_entries "$T/k.db.journal" 2 $pid || fail "SIGKILL: the run ended before 2 positions were journaled"
kill -KILL $pid; wait $pid 2>/dev/null
cp "$T/k.db.journal" "$T/saved"
head -c -1 "$T/saved" | grep -q . || fail "SIGKILL: empty journal"
n=$(grep -c '^#end ' "$T/saved"); n=$((n - 1)) # whole entries (the header has an end line too)
# keep only whole blocks in the saved copy, so each case below cuts where it means to
awk -v n=$((n + 1)) '{print} /^#end /{if (++e == n) exit}' "$T/saved" > "$T/whole"
out=$(think "$T/k.db" 2>&1); expect_status "resume after SIGKILL" 0 $?
cmp -s "$T/k.db" "$T/u.db" || fail "resume after SIGKILL: not the uninterrupted book"

# resume_cut NAME BYTES WANT_DONE: the whole journal cut by BYTES at its end
resume_cut() {
    local name=$1 bytes=$2 want=$3 out
    rm -f "$T/c.db"
    head -c -"$bytes" "$T/whole" > "$T/c.db.journal"
    out=$(think "$T/c.db" 2>&1)
    expect_status "$name" 0 $?
    expect_contains "$name: counts" "$out" "5 positions needed a search ($want done before, $((5 - want)) searched now"
    cmp -s "$T/c.db" "$T/u.db" || fail "$name: the resumed book is not the uninterrupted one"
    [ -e "$T/c.db.journal" ] && fail "$name: journal left behind"
    echo "$out"
}
# the last entry cut inside its last move line (as by a full disk): dropped, searched again
cut=$(($(tail -n 2 "$T/whole" | wc -c) - 4)) # into the move line before the end line
out=$(resume_cut "cut mid-entry" $cut $((n - 1)))
expect_contains "cut mid-entry: warned with the offset" "$out" "c.db.journal: byte "
expect_contains "cut mid-entry: said" "$out" "the last entry was cut"
# a cut last line: the end line loses its last digits and its line end
out=$(resume_cut "cut last line" 3 $((n - 1)))
expect_contains "cut last line: warned" "$out" "the last entry was cut"
# only the final line end missing: the entry is still not whole
out=$(resume_cut "missing line end" 1 $((n - 1)))
expect_contains "missing line end: warned" "$out" "the last entry was cut"
# a whole journal: no warning
out=$(resume_cut "whole journal" 0 "$n" 2>&1)
expect_not_contains "whole journal: no warning" "$out" "dropped"

# a damaged middle entry (a changed score, its end line left as it was): dropped, searched again
awk 'BEGIN{d=0} /^[0-9][a-i][0-9][a-i]/ && !d {$3 = $3 + 1; d=1} {print}' "$T/whole" > "$T/c.db.journal"
rm -f "$T/c.db"
out=$(think "$T/c.db" 2>&1); expect_status "damaged entry" 0 $?
expect_contains "damaged entry: warned" "$out" "does not match its bytes"
expect_contains "damaged entry: counts" "$out" "($((n - 1)) done before"
cmp -s "$T/c.db" "$T/u.db" || fail "damaged entry: the resumed book is not the uninterrupted one"

# a journal of another input, or of other options: refused, nothing changed
cp "$T/whole" "$T/f.db.journal"
printf '#YANEURAOU-DB2016 1.00\nsfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n8c8d none 0 1 1\n' > "$T/other.db"
out=$("$HAYANAGI" book think "$T/other.db" "$T/f.db" --nodes $NODES --multipv 2 --quiet 2>&1)
expect_status "other input" 1 $?
expect_contains "other input: said" "$out" "was written for another input"
expect_contains "other input: how to proceed" "$out" "Remove the journal"
cmp -s "$T/f.db.journal" "$T/whole" || fail "other input: the journal changed"
[ -e "$T/f.db" ] && fail "other input: an output was written"
out=$("$HAYANAGI" book think "$Y" "$T/f.db" --nodes $NODES --multipv 1 --quiet 2>&1)
expect_status "other options" 1 $?
expect_contains "other options: said" "$out" "was written with other options"
expect_contains "other options: what differs" "$out" "this run: --multipv=1 --nodes=$NODES"
cmp -s "$T/f.db.journal" "$T/whole" || fail "other options: the journal changed"
# options that do not change results may change
out=$("$HAYANAGI" book think "$Y" "$T/f.db" --nodes $NODES --multipv 2 --quiet --threads 2 2>&1)
expect_status "--threads may change" 0 $?
cmp -s "$T/f.db" "$T/u.db" || fail "--threads may change: not the uninterrupted book"
# a journal of an older format (no header) is refused
printf 'sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3\n1g1f none 7 1 1\n\n' > "$T/o.db.journal"
out=$(think "$T/o.db" 2>&1); expect_status "no header" 1 $?
expect_contains "no header: said" "$out" "is not a journal of this version"

# whole entries that lie: an illegal move, garbage, a number out of range, a foreign position
head -n 5 "$T/whole" > "$T/g.db.journal" # the header block
entry() { # entry TEXT: appends TEXT with its end line, as book think writes it
    printf '%s' "$1" >> "$T/g.db.journal"
    printf '#end %s %s\n' $(printf '%s' "$1" | cksum) >> "$T/g.db.journal"
}
S3=lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL # after 7g7f 3c3d: a target
P='#think engine=X; budget=nodes 1; depth=1; nodes=1; date=2026-01-01T00:00:00Z'
entry "sfen $S3 b - 3
$P
8b2b 7g7f 31999 99 5
"
entry "garbage line
"
entry "sfen $S3 b - 3
$P
1g1f none 99999 1 1
"
entry "sfen $S3 b - 3
$P
hello
"
entry "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
$P
7g7f none 1 1 1
"
entry "sfen 9/9/9/9/9/9/9/9/9 b - 1
$P
"
entry "sfen $S3 b - 3
$P
1g1f none 7 1 5
"
entry "sfen $S3 b - 3
1g1f none 7 1 1
"
out=$(think "$T/g.db" 2>&1); expect_status "bad entries" 0 $?
expect_contains "illegal move named with journal:line" "$out" "g.db.journal:8: move '8b2b' is not legal in the position"
expect_contains "garbage" "$out" "g.db.journal:10: an entry must start with a sfen line"
expect_contains "score out of range" "$out" "g.db.journal:14: score '99999' is not a number"
expect_contains "bad move line" "$out" "g.db.journal:18: a move line has 5 fields"
expect_contains "foreign position" "$out" "g.db.journal:20: not a position this run thinks"
expect_contains "bad sfen" "$out" "g.db.journal:24: bad SFEN"
expect_contains "bad count" "$out" "g.db.journal:29: count '5' is not 1"
expect_contains "no provenance" "$out" "g.db.journal:32: the second line must be the provenance"
expect_contains "bad entries: counts" "$out" "(0 done before, 5 searched now"
cmp -s "$T/g.db" "$T/u.db" || fail "bad entries: something of them reached OUT"

# OUT "-" (or another stream) has no OUT.journal: refused without --journal, before any
# work and without a "-.journal" in the working directory. With --journal FILE the journal
# is there: an earlier run's whole entries resume (--journal is not among the options the
# journal binds), the book reaches stdout byte for byte, and the journal goes at the end.
mkdir "$T/cwd"
H=$(readlink -f "$HAYANAGI") YA=$(readlink -f "$Y") # for runs in another working directory
out=$(cd "$T/cwd" && "$H" book think "$YA" - "${ARGS[@]}" 2>&1 > /dev/null)
expect_status "think to - without --journal" 2 $?
expect_contains "think to - without --journal" "$out" \
    "OUT - is the standard output, which has no place for the checkpoint journal (OUT.journal): give --journal FILE"
[ -z "$(ls "$T/cwd")" ] || fail "think to -: files left in the working directory: $(ls "$T/cwd")"
out=$("$HAYANAGI" book think "$Y" /dev/null "${ARGS[@]}" 2>&1)
expect_status "think to /dev/null without --journal" 2 $?
expect_contains "think to /dev/null without --journal" "$out" "OUT /dev/null is a stream (a FIFO or a device)"
cp "$T/whole" "$T/j.journal"
(cd "$T/cwd" && "$H" book think "$YA" - "${ARGS[@]}" --journal "$T/j.journal" > "$T/stdout.db" 2> "$T/stdout.err")
expect_status "think to - with --journal" 0 $?
expect_contains "think to - with --journal" "$(cat "$T/stdout.err")" "($n done before, $((5 - n)) searched now"
cmp -s "$T/stdout.db" "$T/u.db" || fail "think to - with --journal: stdout is not the uninterrupted book"
[ -e "$T/j.journal" ] && fail "think to - with --journal: the journal was left behind"
[ -z "$(ls "$T/cwd")" ] || fail "think to - with --journal: files left in the working directory"
cp "$Y" "$T/in_copy.db"
out=$("$HAYANAGI" book think "$T/in_copy.db" "$T/jo.db" "${ARGS[@]}" --journal "$T/in_copy.db" 2>&1)
expect_status "--journal naming IN" 2 $?
expect_contains "--journal naming IN" "$out" "--journal $T/in_copy.db names IN or OUT"
cmp -s "$T/in_copy.db" "$Y" || fail "--journal naming IN: IN was changed"

# two runs on one OUT: the second is refused, naming the first, and changes nothing
"$HAYANAGI" book think "$Y" "$T/two.db" "${ARGS[@]}" > "$T/two1.out" 2>&1 &
pid=$!
wait_entries "$T/two.db.journal" 0 $pid || fail "two runs: the first never wrote its journal"
out=$(think "$T/two.db" 2>&1)
expect_status "second run" 1 $?
expect_contains "second run: says who" "$out" \
    "the journal $T/two.db.journal is in use by another \`book think\` (pid $pid): two runs cannot share one journal"
expect_contains "second run: says what to do" "$out" "Wait for that run to finish, or stop it and run this one again"
wait $pid; expect_status "first run" 0 $?
cmp -s "$T/two.db" "$T/u.db" || fail "two runs: the first run's book is not the uninterrupted one"
[ -e "$T/two.db.journal" ] && fail "two runs: journal left behind"

# two runs on two OUTs sharing one --journal: the second is refused, naming the journal
# (not "the same output", which it is not) and --journal, and writes nothing
"$HAYANAGI" book think "$Y" "$T/three.db" "${ARGS[@]}" --journal "$T/shared.journal" > "$T/three.out" 2>&1 &
pid=$!
wait_entries "$T/shared.journal" 0 $pid || fail "shared --journal: the first run never wrote its journal"
out=$(think "$T/four.db" --journal "$T/shared.journal" 2>&1)
expect_status "shared --journal: second run" 1 $?
expect_contains "shared --journal: names the journal" "$out" \
    "the journal $T/shared.journal is in use by another \`book think\` (pid $pid)"
expect_contains "shared --journal: says what to do" "$out" "needs its own --journal FILE"
expect_not_contains "shared --journal: not the same output" "$out" "same output"
[ -e "$T/four.db" ] && fail "shared --journal: the refused run wrote its OUT"
wait $pid; expect_status "shared --journal: first run" 0 $?
cmp -s "$T/three.db" "$T/u.db" || fail "shared --journal: the first run's book is not the uninterrupted one"
finish
