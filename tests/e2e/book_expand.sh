#!/usr/bin/env bash
# `hayanagi book expand` on the shipped placeholder book: rounds grow the book by the
# chosen positions, the output is minimaxed, the checkpoint files go away at the end,
# bad arguments are usage errors, and an interrupted run resumes.
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$(dirname "$0")/../../book/standard_book.db" "$dir/in.db"
before=$(grep -c '^sfen ' "$dir/in.db")

out=$(timeout 120 "$HAYANAGI" book expand "$dir/in.db" "$dir/out.db" --playouts 2000 --top 4 --rounds 2 --extra-starts 2 \
      --depth 3 --tree-mb 32 --quiet 2>&1)
expect_status "expand" 0 $?
expect_contains "summary" "$out" "after 2 rounds (8 positions thought"
after=$(grep -c '^sfen ' "$dir/out.db")
[ "$after" -eq $((before + 8)) ] || fail "expand: $before + 8 positions expected, got $after"
[ ! -e "$dir/out.db.expand-state" ] && [ ! -e "$dir/out.db.expand-journal" ] || fail "checkpoint files left behind"
info=$("$HAYANAGI" book info "$dir/out.db" 2>&1)
expect_status "output readable" 0 $?

"$HAYANAGI" book expand "$dir/in.db" --top 0 >/dev/null 2>&1
expect_status "bad --top" 2 $?
"$HAYANAGI" book expand >/dev/null 2>&1
expect_status "no book" 2 $?
"$HAYANAGI" book expand "$dir/missing.db" "$dir/x.db" --playouts 10 --quiet >/dev/null 2>&1
expect_status "missing book" 1 $?
# OUT is the checkpoint: a stream is refused before any work, and no "-.expand-*" appears
mkdir "$dir/cwd"
H=$(readlink -f "$HAYANAGI")
out=$(cd "$dir/cwd" && "$H" book expand "$dir/in.db" - --playouts 10 --quiet 2>&1 > /dev/null)
expect_status "expand to -" 2 $?
expect_contains "expand to -" "$out" "OUT - is the standard output, but expand checkpoints the book into OUT after every round"
[ -z "$(ls "$dir/cwd")" ] || fail "expand to -: files left in the working directory: $(ls "$dir/cwd")"
out=$("$HAYANAGI" book expand "$dir/in.db" /dev/null --playouts 10 --quiet 2>&1)
expect_status "expand to /dev/null" 2 $?
expect_contains "expand to /dev/null" "$out" "OUT /dev/null is a stream (a FIFO or a device)"

# Ctrl-C in the first round: status 130, nothing written yet; the same command finishes.
"$HAYANAGI" book expand "$dir/in.db" "$dir/int.db" --playouts 100000000 --top 3 --depth 2 --tree-mb 512 \
    --quiet >/dev/null 2>"$dir/int.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
status=$?
expect_status "interrupted" 130 $status
[ "$status" = 130 ] || cat "$dir/int.err"
[ ! -e "$dir/int.db" ] || fail "interrupted run wrote the output"
timeout 120 "$HAYANAGI" book expand "$dir/in.db" "$dir/int.db" --playouts 500 --top 3 --depth 2 --tree-mb 16 \
    --quiet >/dev/null 2>&1
expect_status "rerun" 0 $?
[ "$(grep -c '^sfen ' "$dir/int.db")" -eq $((before + 3)) ] || fail "rerun: $before + 3 positions expected"

# Resume after a finished round: the state file says 1 of 2 rounds is done, so only one
# more round runs, on OUT as the checkpoint left it.
cp "$dir/in.db" "$dir/res.db"
echo "hayanagi book expand rounds 1" > "$dir/res.db.expand-state"
out=$(timeout 120 "$HAYANAGI" book expand "$dir/in.db" "$dir/res.db" --playouts 500 --top 2 --rounds 2 --depth 2 \
      --tree-mb 16 2>&1)
expect_status "resume" 0 $?
expect_contains "resume message" "$out" "resuming after round 1"
expect_contains "resume summary" "$out" "after 2 rounds (2 positions thought"
[ ! -e "$dir/res.db.expand-state" ] || fail "resume: state file left behind"
finish
