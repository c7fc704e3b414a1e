#!/usr/bin/env bash
# merge, convert, prune and check with --memory (docs/book_making.md, "Books larger than
# memory"): on a synthetic book of about 100 000 positions (two books one after the
# other: unsorted, duplicates, comments) worked under --memory 1M, each verb writes the
# in-memory verb's bytes and prints its lines; what cannot work out of core is refused
# by name; bad --memory values are named (exit 2); SIGINT and SIGKILL during a pass leave
# the old output and no scratch file; the peak RSS stays near the limit.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/hayanagi_book_bigverbs.XXXXXX)
trap 'rm -rf "$T"' EXIT

if [ -n "${HAYANAGI_SANITIZED:-}" ]; then n=6000; else n=50000; fi
"$HAYANAGI" book gen-synthetic $n "$T/a.db" 5 >/dev/null 2>&1 || fail "gen-synthetic a"
"$HAYANAGI" book gen-synthetic $n "$T/b.db" 6 >/dev/null 2>&1 || fail "gen-synthetic b"
cat "$T/a.db" "$T/b.db" > "$T/mixed.db"
{ echo "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"; echo "#a note on the start"
  echo "7g7f none 12 3 1"; echo "#why 7g7f"; } >> "$T/mixed.db"
mkdir "$T/tmp"

# same NAME MEM_OUT EXT_OUT MEM_STDOUT EXT_STDOUT: the same bytes, the same report (OUT's
# name aside), nothing left in the tmpdir
same() {
    cmp -s "$2" "$3" || fail "$1: --memory 1M is not the in-memory output"
    [ "$(sed "s|$2|OUT|" "$4")" = "$(sed "s|$3|OUT|" "$5")" ] ||
        fail "$1: the report differs: $(cat "$4") / $(cat "$5")"
    [ -z "$(ls -A "$T/tmp")" ] || fail "$1: files left in the tmpdir: $(ls -A "$T/tmp")"
}

# merge: every policy, with weights; out of core (runs named on stderr)
for args in "" "--policy prefer-deeper --weights 2,1,3" "--policy prefer-first --weights 1,5,1"; do
    # shellcheck disable=SC2086
    "$HAYANAGI" book merge --quiet $args "$T/a.db" "$T/mixed.db" "$T/b.db" "$T/m_mem.db" > "$T/m_mem.out" ||
        fail "merge $args in memory"
    # shellcheck disable=SC2086
    "$HAYANAGI" book merge --memory 1M --tmpdir "$T/tmp" $args "$T/a.db" "$T/mixed.db" "$T/b.db" "$T/m_ext.db" \
        > "$T/m_ext.out" 2> "$T/m_ext.err" || fail "merge --memory 1M $args"
    grep -q "merged from [1-9][0-9]* sorted run(s)" "$T/m_ext.err" || fail "merge --memory 1M $args: not out of core"
    same "merge $args" "$T/m_mem.db" "$T/m_ext.db" "$T/m_mem.out" "$T/m_ext.out"
done
# a merge that fits is the in-memory merge, any format (here an SBK input)
"$HAYANAGI" book convert --quiet "$T/a.db" "$T/a.sbk" >/dev/null || fail "convert to sbk"
"$HAYANAGI" book merge --quiet "$T/a.sbk" "$T/b.db" "$T/ms_mem.db" >/dev/null || fail "merge sbk in memory"
"$HAYANAGI" book merge --quiet --memory 1G "$T/a.sbk" "$T/b.db" "$T/ms_ext.db" >/dev/null || fail "merge --memory 1G"
cmp -s "$T/ms_mem.db" "$T/ms_ext.db" || fail "merge --memory 1G (fits): not the in-memory output"
out=$("$HAYANAGI" book merge --memory 1M "$T/a.sbk" "$T/b.db" "$T/never.db" 2>&1)
expect_status "merge --memory of an SBK that does not fit" 2 $?
expect_contains "merge --memory of an SBK" "$out" "--memory: $T/a.sbk is ShogiGUI/ShogiHome SBK"
out=$("$HAYANAGI" book merge --memory 1M "$T/a.db" "$T/b.db" "$T/never.sbk" 2>&1)
expect_status "merge --memory into SBK" 2 $?
expect_contains "merge --memory into SBK" "$out" "--memory: $T/never.sbk would be"
[ -e "$T/never.db" ] || [ -e "$T/never.sbk" ] && fail "a refused merge wrote its output"

# convert: DB2016 to DB2016 out of core (a sort); to SBK refused
"$HAYANAGI" book convert --quiet "$T/mixed.db" "$T/c_mem.db" > "$T/c_mem.out" || fail "convert in memory"
"$HAYANAGI" book convert --memory 1M --tmpdir "$T/tmp" "$T/mixed.db" "$T/c_ext.db" > "$T/c_ext.out" 2>"$T/c_ext.err" ||
    fail "convert --memory 1M"
grep -q "sorted in [1-9][0-9]* run(s)" "$T/c_ext.err" || fail "convert --memory 1M: not out of core"
same "convert" "$T/c_mem.db" "$T/c_ext.db" "$T/c_mem.out" "$T/c_ext.out"
out=$("$HAYANAGI" book convert --memory 1M "$T/mixed.db" "$T/never.sbk" 2>&1)
expect_status "convert --memory to SBK" 2 $?
expect_contains "convert --memory to SBK" "$out" "--memory: ShogiGUI/ShogiHome SBK is written from a whole book"

# prune: the walk by passes, with each option
for args in "" "--max-ply 12 --min-share 20" "--through-legal --max-ply 30"; do
    # shellcheck disable=SC2086
    "$HAYANAGI" book prune --quiet $args "$T/mixed.db" "$T/p_mem.db" > "$T/p_mem.out" || fail "prune $args"
    # shellcheck disable=SC2086
    "$HAYANAGI" book prune --memory 1M --tmpdir "$T/tmp" $args "$T/mixed.db" "$T/p_ext.db" > "$T/p_ext.out" \
        2>"$T/p_ext.err" || fail "prune --memory 1M $args"
    grep -q "pruned in [0-9]* passes" "$T/p_ext.err" || fail "prune --memory 1M $args: not out of core"
    same "prune $args" "$T/p_mem.db" "$T/p_ext.db" "$T/p_mem.out" "$T/p_ext.out"
done
grep -q "^#a note on the start" "$T/p_ext.db" || fail "prune --memory: the position comment was lost"

# check: entry by entry, the same lines and status on a book with problems
cp "$T/mixed.db" "$T/bad.db"
{ echo "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"; echo "7g7e none 1 1 1"
  echo "xx yy"; echo "sfen garbage"; echo "7g7f"; } >> "$T/bad.db"
"$HAYANAGI" book check "$T/bad.db" > "$T/k_mem.out" 2>&1; st_mem=$?
"$HAYANAGI" book check --memory 1M "$T/bad.db" > "$T/k_ext.out" 2>&1; st_ext=$?
expect_status "check --memory: the in-memory status" "$st_mem" "$st_ext"
expect_status "check of a bad book" 1 "$st_ext"
cmp -s "$T/k_mem.out" "$T/k_ext.out" || fail "check --memory: other lines than in memory"
expect_contains "check --memory" "$(cat "$T/k_ext.out")" "3 problem(s)"
out=$("$HAYANAGI" book check --memory 256K "$T/a.sbk" 2>&1)
expect_status "check --memory of an SBK that does not fit" 2 $?
expect_contains "check --memory of an SBK" "$out" "--memory"

# bad sizes, named by option
for verb in "merge $T/a.db $T/b.db" "convert $T/a.db" "prune $T/a.db" "check"; do
    for v in 1X 0 100K -5 ""; do
        # shellcheck disable=SC2086
        out=$("$HAYANAGI" book $verb --memory="$v" "$T/never.db" 2>&1)
        expect_status "book ${verb%% *} --memory='$v'" 2 $?
        expect_contains "book ${verb%% *} --memory='$v'" "$out" "--memory"
    done
done
[ -e "$T/never.db" ] && fail "a bad --memory wrote an output"

# peak RSS under --memory 1M: the limit plus the stated constant (about 4 MiB; 16 MiB
# allowed), far below the in-memory verb's (when GNU time is there and not sanitized)
if [ -x /usr/bin/time ] && [ -z "${HAYANAGI_SANITIZED:-}" ]; then
    for cmd in "merge --memory 1M $T/a.db $T/mixed.db $T/b.db $T/r.db" "prune --memory 1M --through-legal --max-ply 20 $T/mixed.db $T/r.db" \
        "convert --memory 1M $T/mixed.db $T/r.db" "check --memory 1M $T/mixed.db"; do
        # shellcheck disable=SC2086
        kb=$(/usr/bin/time -f "%M" "$HAYANAGI" book $cmd --quiet 2>&1 >/dev/null | tail -1)
        [ "$kb" -lt $((1024 + 16384)) ] 2>/dev/null || fail "book ${cmd%% *} --memory 1M: peak RSS $kb KB"
    done
else
    echo "note: peak RSS not checked (no /usr/bin/time, or sanitized)"
fi

"$HAYANAGI" book merge --quiet "$T/a.db" "$T/mixed.db" "$T/b.db" "$T/m_ref.db" >/dev/null
"$HAYANAGI" book prune --quiet --through-legal --max-ply 16 "$T/mixed.db" "$T/p_ref.db" >/dev/null
# interrupted runs leave OUT old or whole (kill_during, lib.sh)
for sig in INT KILL; do
    for d in 0.3 1.2; do
        kill_during "merge --memory" $sig "$T/k_m.db" "$T/m_ref.db" $d \
            "$HAYANAGI" book merge --memory 1M --tmpdir "$T/tmp" "$T/a.db" "$T/mixed.db" "$T/b.db" "$T/k_m.db"
        kill_during "prune --memory" $sig "$T/k_p.db" "$T/p_ref.db" $d \
            "$HAYANAGI" book prune --memory 1M --tmpdir "$T/tmp" --through-legal --max-ply 16 "$T/mixed.db" "$T/k_p.db"
        kill_during "convert --memory" $sig "$T/k_c.db" "$T/c_mem.db" $d \
            "$HAYANAGI" book convert --memory 1M "$T/mixed.db" "$T/k_c.db"
    done
done

# a full disk (a file size limit: writes fail with EFBIG) is an error naming the
# failure, the old output stays, nothing is left
expect_full_disk "merge" "$T/full.db" 2048 \
    "$HAYANAGI" book merge --memory 1M --tmpdir "$T/tmp" "$T/a.db" "$T/mixed.db" "$T/b.db" "$T/full.db"
finish
