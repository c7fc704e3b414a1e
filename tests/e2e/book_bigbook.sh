#!/usr/bin/env bash
# Books larger than memory (docs/book_making.md, "Books larger than memory"): `book sort
# --memory` gives the in-memory sort's bytes on an unsorted book with duplicates and
# comments, minimax streamed through the compact graph gives the in-memory minimax's
# bytes (also in place, IN = OUT), and a kill during any pass leaves the old output and no
# temporary file.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/hayanagi_book_bigbook.XXXXXX)
trap 'rm -rf "$T"' EXIT

if [ -n "${HAYANAGI_SANITIZED:-}" ]; then n=8000; else n=25000; fi
"$HAYANAGI" book gen-synthetic $n "$T/a.db" 3 >/dev/null 2>&1 || fail "gen-synthetic a"
"$HAYANAGI" book gen-synthetic $n "$T/b.db" 4 >/dev/null 2>&1 || fail "gen-synthetic b"
# Two sorted books one after the other: unsorted, the opening positions twice with other
# moves, and b's header line a comment of a's last entry.
cat "$T/a.db" "$T/b.db" > "$T/mixed.db"
{ echo "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"; echo "#a note on the start"
  echo "7g7f none 12 3 1"; echo "#why 7g7f"; } >> "$T/mixed.db"

# sort: in memory and in runs of 1 MiB
mkdir "$T/tmp"
"$HAYANAGI" book sort --quiet "$T/mixed.db" "$T/sorted_mem.db" > "$T/mem.out" || fail "sort in memory"
out=$("$HAYANAGI" book sort --memory 1M --tmpdir "$T/tmp" "$T/mixed.db" "$T/sorted_ext.db" 2>&1)
expect_status "sort --memory" 0 $?
expect_contains "sort --memory" "$out" "run(s) of at most 1048576 bytes"
expect_not_contains "sort --memory" "$out" "sorted in 0 run"
cmp -s "$T/sorted_mem.db" "$T/sorted_ext.db" || fail "sort --memory 1M: not the in-memory output"
[ -z "$(ls -A "$T/tmp")" ] || fail "sort --memory: temporary files left in the tmpdir: $(ls -A "$T/tmp")"
grep -q "^#a note on the start" "$T/sorted_ext.db" || fail "sort --memory: the position comment was lost"
out=$("$HAYANAGI" book sort --memory 1X "$T/mixed.db" "$T/never.db" 2>&1)
expect_status "sort --memory 1X" 2 $?
expect_contains "sort --memory 1X" "$out" "--memory"

# minimax: streamed (sorted DB2016 in) against --in-memory, with and without converge
for opts in "" "--converge --flipped"; do
    # shellcheck disable=SC2086
    "$HAYANAGI" book minimax $opts --quiet "$T/sorted_mem.db" "$T/mm_stream.db" >/dev/null 2>"$T/err" ||
        fail "minimax $opts"
    grep -q "loaded in memory" "$T/err" && fail "minimax $opts: the sorted book was not streamed"
    # shellcheck disable=SC2086
    "$HAYANAGI" book minimax $opts --in-memory --quiet "$T/sorted_mem.db" "$T/mm_ir.db" >/dev/null ||
        fail "minimax --in-memory $opts"
    cmp -s "$T/mm_stream.db" "$T/mm_ir.db" || fail "minimax $opts: the streamed output differs"
done
# an unsorted book falls back to memory, and says so
out=$("$HAYANAGI" book minimax "$T/mixed.db" "$T/mm_mixed.db" 2>&1 >/dev/null)
expect_contains "minimax unsorted" "$out" "not sorted (book sort): the book is loaded in memory"
# in place
cp "$T/sorted_mem.db" "$T/inplace.db"
"$HAYANAGI" book minimax --converge --flipped --quiet "$T/inplace.db" "$T/inplace.db" >/dev/null || fail "minimax in place"
cmp -s "$T/inplace.db" "$T/mm_stream.db" || fail "minimax in place: not the output of IN != OUT"

"$HAYANAGI" book minimax --converge --quiet "$T/sorted_mem.db" "$T/mm_conv.db" >/dev/null || fail "minimax --converge"
# interrupted runs leave OUT old or whole (kill_during, lib.sh)
for d in 0.3 1; do
    kill_during "sort --memory" INT "$T/k_sort.db" "$T/sorted_mem.db" $d \
        "$HAYANAGI" book sort --memory 1M "$T/mixed.db" "$T/k_sort.db"
    kill_during "sort --memory --tmpdir" INT "$T/k_sort2.db" "$T/sorted_mem.db" $d \
        "$HAYANAGI" book sort --memory 1M --tmpdir "$T/tmp" "$T/mixed.db" "$T/k_sort2.db"
    kill_during "minimax streamed" INT "$T/k_mm.db" "$T/mm_conv.db" $d \
        "$HAYANAGI" book minimax --converge "$T/sorted_mem.db" "$T/k_mm.db"
done
finish
