#!/usr/bin/env bash
# book minimax --memory (docs/book_making.md, "Books larger than memory" and "minimax"): a
# sorted synthetic book of 50 000 positions, with a rook shuffle from the start position
# (a cycle of four positions) and the perpetual-check loop of the rshogi fixture added,
# minimaxed under --memory 1M by sweeps over sorted files, writes the in-memory verb's
# bytes and closing lines, with and without --converge and --flipped, also on the same
# book with the colour-flipped twins of a fifth of its positions added (twins whose
# moves differ, so that each gets moves from the other); the fixture's loop gets
# YaneuraOu's values; what is not done out of core is refused by name (exit 2); a core
# larger than the memory fails and says so; SIGINT and SIGKILL during the passes leave
# the old output and no scratch file; the peak RSS stays near the limit.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/hayanagi_book_bigminimax.XXXXXX)
trap 'rm -rf "$T"' EXIT
REF=${REFDATA:-/work/shared/refdata}/db/rshogi

# sanitized builds are slow: a smaller book, worked under a smaller limit
if [ -n "${HAYANAGI_SANITIZED:-}" ]; then n=6000 mem=256K; else n=50000 mem=1M; fi
"$HAYANAGI" book gen-synthetic $n "$T/a.db" 5 >/dev/null 2>&1 || fail "gen-synthetic"
S="lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
{ cat "$T/a.db"
  echo "sfen $S"; echo "2h3h none 0 10 1"
  echo "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B4R2/LNSGKGSNL w - 2"; echo "8b7b none 0 10 1"
  echo "3c3d none -30 10 1"
  echo "sfen lnsgkgsnl/2r4b1/ppppppppp/9/9/9/PPPPPPPPP/1B4R2/LNSGKGSNL b - 3"; echo "3h2h none 0 10 1"
  echo "sfen lnsgkgsnl/2r4b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 4"; echo "7b8b none 0 10 1"
  echo "3c3d none -20 10 1"
  if [ -f "$REF/book_backprop_check_in.db" ]; then grep -v '^#' "$REF/book_backprop_check_in.db"; fi
} > "$T/mixed.db"
"$HAYANAGI" book sort --quiet "$T/mixed.db" "$T/in.db" >/dev/null || fail "sort"
mkdir "$T/tmp"
# entry SFEN [FILE]: the lines of FILE's (default: the last out-of-core output) entry
entry() { awk -v p="sfen $1" 'index($0, p) == 1 { f = 1; next } /^sfen/ { f = 0 } f' "${2:-$T/ext.db}"; }

# The twins: of every fifth position (k % 5 == 2) with moves, the colour-flipped twin
# (board turned 180 degrees, colours and hands swapped, the other side to move) holding
# the mirrors of its first two moves, the second with 7 points more; the position keeps
# its moves but the first (unless it has one). So each twin lacks a move the other holds,
# and both hold one with other numbers (each keeps its own, docs/book_making.md
# "minimax").
add_twins() {
    awk '
    function swapcase(c) { return c ~ /[A-Z]/ ? tolower(c) : c ~ /[a-z]/ ? toupper(c) : c }
    function fsq(s) { return (10 - substr(s, 1, 1)) substr("ihgfedcba", index("abcdefghi", substr(s, 2, 1)), 1) }
    function fmove(m) {
        if (m == "none") return m
        if (substr(m, 2, 1) == "*") return substr(m, 1, 2) fsq(substr(m, 3, 2)) substr(m, 5)
        return fsq(substr(m, 1, 2)) fsq(substr(m, 3, 2)) substr(m, 5)
    }
    function frank(r,   i, c, out, tok) {
        out = ""
        for (i = 1; i <= length(r); i++) {
            c = substr(r, i, 1)
            if (c == "+") { i++; tok = "+" swapcase(substr(r, i, 1)) } else tok = swapcase(c)
            out = tok out
        }
        return out
    }
    function fsfen(board, side, hand, ply,   n, rk, i, out, h) {
        n = split(board, rk, "/")
        out = frank(rk[n])
        for (i = n - 1; i >= 1; i--) out = out "/" frank(rk[i])
        h = ""
        for (i = 1; i <= length(hand); i++) h = h swapcase(substr(hand, i, 1))
        return out " " (side == "b" ? "w" : "b") " " h " " ply
    }
    function flush_entry(   i, f, s) {
        if (sfen == "") return
        print sfen
        if (k % 5 != 2 || nm == 0) { for (i = 1; i <= nm; i++) print mv[i]; return }
        for (i = 2; i <= nm; i++) print mv[i]
        if (nm == 1) print mv[1]
        split(sfen, s, " ")
        twin[++nt] = "sfen " fsfen(s[2], s[3], s[4], s[5])
        for (i = 1; i <= nm && i <= 2; i++) {
            split(mv[i], f, " ")
            twin[++nt] = fmove(f[1]) " " fmove(f[2]) " " (i == 2 ? f[3] + 7 : f[3]) " " f[4] " " f[5]
        }
    }
    /^sfen / { flush_entry(); k++; sfen = $0; nm = 0; next }
    /^#/ && sfen == "" { print; next }
    /^#/ { next }
    { mv[++nm] = $0 }
    END { flush_entry(); for (i = 1; i <= nt; i++) print twin[i] }' "$1"
}
# and by hand the start position's twin (the same board, white to move), which holds the
# mirror of the start position's 2h3h (8b7b, its own numbers) and of 7g7f (3c3d), which
# the start position lacks
W="lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w"
{ add_twins "$T/in.db"; echo "sfen $W - 1"; echo "8b7b none 5 10 1"; echo "3c3d none 40 10 1"; } > "$T/tw_unsorted.db"
"$HAYANAGI" book sort --quiet "$T/tw_unsorted.db" "$T/tw.db" >/dev/null || fail "sort the twins"
[ "$(grep -c '^sfen' "$T/tw.db")" -gt $(($(grep -c '^sfen' "$T/in.db") + n / 6)) ] || fail "add_twins: too few twins"

# book args: the last run (in.db, no option) is checked below
for run in "tw --flipped" "tw --converge --flipped" "in --flipped" "in --converge" "in"; do
    b=${run%% *} args=${run#"$b"}
    # shellcheck disable=SC2086
    "$HAYANAGI" book minimax --quiet $args "$T/$b.db" "$T/mem.db" > "$T/mem.out" || fail "minimax $run in memory"
    # shellcheck disable=SC2086
    "$HAYANAGI" book minimax --memory $mem --tmpdir "$T/tmp" $args "$T/$b.db" "$T/ext.db" > "$T/ext.out" \
        2> "$T/ext.err" || fail "minimax --memory $mem $run: $(cat "$T/ext.err")"
    grep -q "minimaxed out of core: [1-9][0-9]* sweeps, [1-9][0-9]* positions on or above cycles" "$T/ext.err" ||
        fail "minimax --memory $mem $run: not out of core, or no cycle: $(tail -1 "$T/ext.err")"
    cmp -s "$T/mem.db" "$T/ext.db" || fail "minimax --memory $mem $run: not the in-memory output"
    [ "$(sed "s|$T/mem.db|OUT|" "$T/mem.out")" = "$(sed "s|$T/ext.db|OUT|" "$T/ext.out")" ] ||
        fail "minimax --memory $mem $run: the report differs: $(cat "$T/mem.out") / $(cat "$T/ext.out")"
    [ -z "$(ls -A "$T/tmp")" ] || fail "minimax $run: files left in the tmpdir: $(ls -A "$T/tmp")"
    if [ "$b" = tw ]; then # the twins were joined: moves copied both ways, moves into a mirror
        grep -q "^flipped: [1-9][0-9]* positions with their mirror in the book, [1-9][0-9]* moves copied from a mirror, [1-9][0-9]* moves into a mirror" "$T/ext.out" ||
            fail "minimax --memory $mem $run: no twins joined: $(cat "$T/ext.out")"
        # the start position gets its twin's 3c3d as 7g7f (a leaf: 40)
        expect_contains "minimax --memory $run: the start position gets its twin's move" "$(entry "$S")" "7g7f none 40 0"
        continue
    fi
    # the perpetual-check loop: YaneuraOu's values (book_backprop_check.md)
    if [ -f "$REF/book_backprop_check_in.db" ]; then
        loop=$(grep -A2 "^sfen 4k4/9/5R3/9/9/9/9/9/K8 b" "$T/ext.db")
        expect_contains "minimax --memory $args: the checker's loop move" "$loop" "4c5c none -81 9997"
        expect_contains "minimax --memory $args: the checker's way out" "$loop" "4c4d none -80 0"
    fi
done
# the rook shuffle (without --converge, the last run): nothing better leaves the cycle, so
# its moves are a draw at depth 9999 (minimax.h, step 3), the ways out keep their leaves
expect_contains "minimax --memory: the start position's 2h3h" "$(entry "$S")" "2h3h none 0 9999 1"
expect_contains "minimax --memory: the shuffle's 8b7b" \
    "$(entry "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B4R2/LNSGKGSNL w")" "8b7b none 0 9999 1"
cycle_end=$(entry "lnsgkgsnl/2r4b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w")
expect_contains "minimax --memory: the shuffle's 7b8b" "$cycle_end" "7b8b none 0 9999 1"
expect_contains "minimax --memory: the shuffle's way out" "$cycle_end" "3c3d none -20 0 1"

# refusals (exit 2, named), an unsorted input (exit 1), bad sizes
out=$("$HAYANAGI" book minimax --memory $mem --in-memory "$T/in.db" "$T/never.db" 2>&1)
expect_status "minimax --memory --in-memory" 2 $?
expect_contains "minimax --memory --in-memory" "$out" "exclude each other"
if [ -z "${HAYANAGI_SANITIZED:-}" ]; then # (the small book's SBK fits, and is minimaxed in memory)
    "$HAYANAGI" book convert --quiet "$T/in.db" "$T/in.sbk" >/dev/null || fail "convert to sbk"
    out=$("$HAYANAGI" book minimax --memory $mem "$T/in.sbk" "$T/never.db" 2>&1)
    expect_status "minimax --memory of an SBK" 2 $?
    expect_contains "minimax --memory of an SBK" "$out" "--memory: $T/in.sbk is ShogiGUI/ShogiHome SBK"
fi
out=$("$HAYANAGI" book minimax --memory $mem "$T/mixed.db" "$T/never.db" 2>&1)
expect_status "minimax --memory of an unsorted book" 1 $?
expect_contains "minimax --memory of an unsorted book" "$out" "is not sorted"
for v in 1X 0 100K -5 ""; do
    out=$("$HAYANAGI" book minimax --memory="$v" "$T/in.db" "$T/never.db" 2>&1)
    expect_status "minimax --memory='$v'" 2 $?
    expect_contains "minimax --memory='$v'" "$out" "--memory"
done
[ -e "$T/never.db" ] && fail "a refused minimax wrote its output"
# a core larger than the memory: named, the old output kept, nothing left
if [ -z "${HAYANAGI_SANITIZED:-}" ]; then
    echo "previous content" > "$T/small.db"
    out=$("$HAYANAGI" book minimax --quiet --converge --memory 256K --tmpdir "$T/tmp" "$T/in.db" "$T/small.db" 2>&1)
    expect_status "minimax --memory 256K --converge (the core does not fit)" 1 $?
    expect_contains "minimax --memory 256K --converge" "$out" "raise --memory"
    [ "$(cat "$T/small.db")" = "previous content" ] || fail "a failed minimax --memory changed its output"
    [ -z "$(ls -A "$T/tmp")" ] || fail "a failed minimax --memory left files: $(ls -A "$T/tmp")"
fi

# a book that fits is the streamed path, as without the option
"$HAYANAGI" book minimax --quiet --memory 1G "$T/in.db" "$T/fit.db" 2>"$T/fit.err" >/dev/null ||
    fail "minimax --memory 1G"
cmp -s "$T/fit.db" "$T/mem.db" || fail "minimax --memory 1G: not the in-memory output"
grep -q "out of core" "$T/fit.err" && fail "minimax --memory 1G: worked out of core"
# ... but one with twins under --flipped, which the streamed path leaves to the whole book
# in memory, is worked out of core within the limit
"$HAYANAGI" book minimax --quiet --flipped "$T/tw.db" "$T/twmem.db" >/dev/null || fail "minimax --flipped twins"
"$HAYANAGI" book minimax --memory 1G --flipped "$T/tw.db" "$T/fit.db" 2>"$T/fit.err" >/dev/null ||
    fail "minimax --memory 1G --flipped of the twins"
cmp -s "$T/fit.db" "$T/twmem.db" || fail "minimax --memory 1G --flipped of the twins: not the in-memory output"
expect_contains "minimax --memory 1G --flipped of the twins" "$(cat "$T/fit.err")" \
    "holds colour-flipped twins ("
grep -q "minimaxed out of core" "$T/fit.err" || fail "minimax --memory 1G --flipped of the twins: not out of core"

# peak RSS under --memory 1M: the limit plus the stated constant (16 MiB allowed)
if [ -x /usr/bin/time ] && [ -z "${HAYANAGI_SANITIZED:-}" ]; then
    for run in "in" "in --converge" "tw --converge --flipped"; do
        b=${run%% *} args=${run#"$b"}
        # shellcheck disable=SC2086
        kb=$(/usr/bin/time -f "%M" "$HAYANAGI" book minimax --quiet --memory 1M $args "$T/$b.db" "$T/r.db" \
            2>&1 >/dev/null | tail -1)
        [ "$kb" -lt $((1024 + 16384)) ] 2>/dev/null || fail "minimax --memory 1M $run: peak RSS $kb KB"
    done
else
    echo "note: peak RSS not checked (no /usr/bin/time, or sanitized)"
fi

# interrupted runs leave OUT old or whole (kill_during, lib.sh)
for sig in INT KILL; do
    for d in 0.1 0.3 0.6 0.9; do
        kill_during "minimax --memory" $sig "$T/k.db" "$T/mem.db" $d \
            "$HAYANAGI" book minimax --memory $mem --tmpdir "$T/tmp" "$T/in.db" "$T/k.db"
    done
    # with the twins' passes
    for d in 0.2 0.5; do
        kill_during "minimax --memory --flipped" $sig "$T/k.db" "$T/twmem.db" $d \
            "$HAYANAGI" book minimax --memory $mem --tmpdir "$T/tmp" --flipped "$T/tw.db" "$T/k.db"
    done
done

# a full disk (a file size limit) is an error naming the failure; the old output stays
for run in "in" "tw --flipped"; do
    b=${run%% *} args=${run#"$b"}
    # shellcheck disable=SC2086
    expect_full_disk "minimax $run" "$T/full.db" 256 \
        "$HAYANAGI" book minimax --memory $mem --tmpdir "$T/tmp" $args "$T/$b.db" "$T/full.db"
done
finish
