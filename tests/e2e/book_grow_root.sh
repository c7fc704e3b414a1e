#!/usr/bin/env bash
# book grow --root-moves / --keep-root (docs/book_making.md, "The root's moves"), over a
# records directory whose best first move by far is one the option does not keep (1g1f,
# won by the player in all 6 games, as the shipped book's records hold it):
# - --games 0: OUT lists only the kept moves at the start position, and is exactly the
#   book grown without the option less the other moves there, the start position's value
#   with the player to move being the best kept move's (the rule of the old
#   make_book.sh step 9, an awk script, applied here as the independent oracle);
#   --keep-root over an IN listing 7g7f and 2g2f writes the same bytes as --root-moves;
#   the same bytes again for another order of the records; the positions after 1g1f stay;
# - play: without the option the tree sends the player's black games into 1g1f (the first at
#   least; UCB may try another in the second); with it
#   they open with a kept move; a kept move nothing lists is searched (searchmoves) and
#   played; the playing run's OUT equals --games 0's;
# - bad values: exit 2, the option named; a --startmoves line opening with an unkept move.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
START="sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
# tests/e2e/data/grow_in.db: the start position with 7g7f and 2g2f (scores 30 and 20),
# and 3c3d after 7g7f
cp "$(dirname "$0")/data/grow_in.db" "$T/in.db"
# csa NAME BLACK WHITE MOVE...: a game ending in the resignation of the side to move
csa() {
    local f=$1 b=$2 w=$3
    shift 3
    { printf 'V2.2\nN+%s\nN-%s\nPI\n+\n' "$b" "$w"; printf '%s\n' "$@"; echo '%TORYO'; } > "$T/rec/$f.csa"
}
mkdir -p "$T/rec"
for k in 1 2 3 4 5 6; do csa "a$k" grow-player x +1716FU -3334FU +7776FU; done   # 1g1f: black (the player) wins
csa b1 grow-player x +7776FU -3334FU +2726FU                                      # 7g7f: won once, lost twice
csa b2 grow-player x +7776FU -3334FU +2726FU -8384FU
csa b3 grow-player x +7776FU -8384FU +2726FU -3334FU
csa c1 grow-player x +2726FU -8384FU +2625FU                                      # 2g2f: won
csa d1 x grow-player +5756FU -3334FU                                              # the opponent's 5g5f: white wins
csa d2 x grow-player +5756FU -8384FU
gz() { "$HAYANAGI" book grow "$T/in.db" "$@" --games 0 --confidence 1 --quiet 2>&1; }

gz "$T/free.db" --records "$T/rec" >/dev/null || fail "grow without the option"
out=$(gz "$T/kept.db" --records "$T/rec" --root-moves 7g7f,2g2f); expect_status "grow --root-moves" 0 $?
root_moves() { awk -v s="$START" '/^sfen /{ r = ($0 == s); next } r && !/^#/ { print $1 }' "$1" | sort | tr '\n' ' '; }
[ "$(root_moves "$T/free.db")" = "1g1f 2g2f 5g5f 7g7f " ] || fail "without the option, the root lists $(root_moves "$T/free.db")"
[ "$(root_moves "$T/kept.db")" = "2g2f 7g7f " ] || fail "--root-moves: the root lists $(root_moves "$T/kept.db")"
out=$("$HAYANAGI" book lookup "$T/kept.db" startpos moves 1g1f)
expect_contains "--root-moves keeps the position after 1g1f" "$out" "3c3d"
# the oracle: the free book less the root's other moves, its value with the player to move
# that of the kept move with the best lower bound
awk -v keep="7g7f 2g2f" -v root="$START" '
    BEGIN { n = split(keep, k, " "); for (i = 1; i <= n; i++) ok[k[i]] = 1; best_lb = -1 }
    function after(word,    i) { for (i = 1; i < NF; i++) if ($i == word) return $(i + 1) + 0; return -1 }
    FNR == NR {
        if (/^sfen /) in_root = ($0 == root)
        else if (in_root && /^#grow [^:]*:/) {
            split($2, a, ":"); lb = after("bound")
            if ((a[1] in ok) && lb > best_lb) { best_lb = lb; best_v = after("value") }
        }
        next
    }
    /^sfen / { in_root = ($0 == root); print; next }
    !in_root { print; next }
    /^#grow: / { sub(/value [0-9.]+ with the player/, sprintf("value %.3f with the player", best_v)); print; next }
    /^#grow / { split($2, a, ":"); if (a[1] in ok) print; next }
    /^#/ { print; next }
    $1 in ok { print }' "$T/free.db" "$T/free.db" > "$T/oracle.db"
cmp -s "$T/oracle.db" "$T/kept.db" || { fail "--root-moves differs from the free book less the root's other moves:"; diff "$T/oracle.db" "$T/kept.db" | head; }
grep -A1 -x "$START" "$T/free.db" | grep -q 'value 0.[0-9]* with the player' || fail "no root value in the free book"
[ "$(grep -A1 -x "$START" "$T/free.db" | tail -1)" != "$(grep -A1 -x "$START" "$T/kept.db" | tail -1)" ] \
    || fail "the root's value with the player to move did not change (1g1f's is the best)"
"$HAYANAGI" book grow "$T/in.db" "$T/keep.db" --records "$T/rec" --games 0 --confidence 1 --keep-root --quiet \
    >/dev/null 2>&1 || fail "grow --keep-root"
cmp -s "$T/kept.db" "$T/keep.db" || fail "--keep-root (IN lists 7g7f 2g2f) differs from --root-moves 7g7f,2g2f"
# another order: the same files under names that sort the other way
mkdir -p "$T/rev"
for f in "$T"/rec/*.csa; do b=$(basename "$f" .csa); cp "$f" "$T/rev/z$(echo "$b" | tr abcd123456 dcba654321).csa"; done
gz "$T/rev.db" --records "$T/rev" --root-moves "2g2f 7g7f" >/dev/null || fail "grow over the reversed records"
cmp -s "$T/kept.db" "$T/rev.db" || fail "--root-moves: another order of the records gave other bytes"

# play: this binary at fixed nodes against itself, DIR holding the 11 games above, 4 more
# games a run; the player is black in the 1st and 3rd
common=(--opponent "$HAYANAGI" --nodes 300 --max-moves 40 --nodes-jitter 0 --quiet)
first_black() { # the first moves of the games a run added in which the player was black
    for f in "$1"/grow-*.csa; do
        grep -q '^N+grow-player$' "$f" && grep -m1 '^+[0-9]' "$f" | cut -c1-7
    done | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }'
}
for run in free kept new; do cp -r "$T/rec" "$T/p-$run"; done
"$HAYANAGI" book grow "$T/in.db" "$T/p-free.db" --records "$T/p-free" --games 15 "${common[@]}" >/dev/null 2>&1 \
    || fail "grow play without the option"
case "$(first_black "$T/p-free")" in
    *+1716FU*) ;;
    *) fail "without the option the player's black games opened $(first_black "$T/p-free"), never 1g1f" ;;
esac
"$HAYANAGI" book grow "$T/in.db" "$T/p-kept.db" --records "$T/p-kept" --games 15 --root-moves 7g7f,2g2f "${common[@]}" \
    >/dev/null 2>&1 || fail "grow play --root-moves"
case "$(first_black "$T/p-kept")" in
    "+2726FU:2 " | "+7776FU:2 " | "+2726FU:1 +7776FU:1 ") ;;
    *) fail "--root-moves: the player's black games opened $(first_black "$T/p-kept")" ;;
esac
[ "$(root_moves "$T/p-kept.db")" = "2g2f 7g7f " ] || fail "--root-moves play: the root lists $(root_moves "$T/p-kept.db")"
"$HAYANAGI" book grow "$T/in.db" "$T/p-kept0.db" --records "$T/p-kept" --games 0 --root-moves 7g7f,2g2f --quiet \
    >/dev/null 2>&1 || fail "grow --games 0 after play"
cmp -s "$T/p-kept.db" "$T/p-kept0.db" || fail "--root-moves: --games 0 differs from the playing run's OUT"
# a kept move nothing lists: the player searches it (the only move it may play), then the tree plays it
"$HAYANAGI" book grow "$T/in.db" "$T/p-new.db" --records "$T/p-new" --games 15 --root-moves 6g6f "${common[@]}" \
    >/dev/null 2>&1 || fail "grow play --root-moves 6g6f"
[ "$(first_black "$T/p-new")" = "+6766FU:2 " ] || fail "--root-moves 6g6f: the player's black games opened $(first_black "$T/p-new")"
[ "$(root_moves "$T/p-new.db")" = "6g6f " ] || fail "--root-moves 6g6f: the root lists $(root_moves "$T/p-new.db")"

# bad values: exit 2, the option named; OUT untouched
echo keep > "$T/untouched.db"
bad() { # NAME WANT ARGS...
    local name=$1 want=$2 msg
    shift 2
    msg=$("$HAYANAGI" book grow "$T/in.db" "$T/untouched.db" --records "$T/rec" --games 0 "$@" 2>&1)
    expect_status "$name" 2 $?
    expect_contains "$name" "$msg" "$want"
}
bad "--root-moves illegal" "--root-moves: bad value '7g7f,1g1e'" --root-moves 7g7f,1g1e
bad "--root-moves white's move" "'3c3d' is not a legal USI move at the start position" --root-moves 3c3d
bad "--root-moves empty" "--root-moves: bad value" --root-moves ,
bad "--root-moves twice" "7g7f is given twice" --root-moves 7g7f,7g7f
bad "both options" "--root-moves and --keep-root exclude each other" --root-moves 7g7f --keep-root
printf '#YANEURAOU-DB2016 1.00\nsfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n3c3d none 0 10 1\n' > "$T/noroot.db"
msg=$("$HAYANAGI" book grow "$T/noroot.db" "$T/untouched.db" --records "$T/rec" --games 0 --keep-root 2>&1)
expect_status "--keep-root without a root" 2 $?
expect_contains "--keep-root without a root" "$msg" "--keep-root: $T/noroot.db lists no legal move at the start position"
printf 'startpos moves 7g7f 3c3d\nstartpos moves 1g1f\n' > "$T/lines.txt"
bad "--startmoves against --root-moves" "line 2 opens with 1g1f, which --root-moves does not keep" \
    --root-moves 7g7f --startmoves "$T/lines.txt"
[ "$(cat "$T/untouched.db")" = keep ] || fail "a refused command changed OUT"
finish
