#!/usr/bin/env bash
# The bundled book (book/README.md): the engine, started as `make run` starts it (no options),
# plays mainstream openings from its book, as strong players do: 7g7f or 2g2f from the
# start position, 3c3d or 8c8d against either, and the file is DB2016 sorted for the
# on-the-fly reader. Each position is asked several times (the book picks at random among
# its candidates), with BookSeed varied so that every candidate gets its chance.
. "$(dirname "$0")/lib.sh"

book=$(dirname "$HAYANAGI")/book/standard_book.db
[ -f "$book" ] || { fail "no bundled book at $book"; finish; }

info=$("$HAYANAGI" book info "$book" 2>&1)
expect_contains "book info: DB2016" "$info" "YaneuraOu DB2016"
expect_contains "book info: sorted" "$info" "sorted     yes"
positions=$(echo "$info" | awk '/^positions/ {print $2}')
# as book/make_book.sh ships it: the learned book (the 4-ply cut of GPS Shogi's book under
# the positions learned from Hayanagi's games, 128 positions) grown by `book grow` from about
# 2 900 games to ply 32: thousands of positions
[ "${positions:-0}" -ge 2000 ] || fail "the bundled book has ${positions:-0} positions, expected the grown tree (>= 2000)"
expect_contains "book info: plies 1-32" "$info" "ply range  1..32"

# ask POSITION SEED: the engine's bestmove from its book (book hit required)
ask() {
    local out
    out=$(printf 'usi\nsetoption name BookSeed value %s\nisready\nusinewgame\nposition %s\ngo btime 0 wtime 0 byoyomi 10000\n' \
        "$2" "$1" | timeout 30 "$HAYANAGI" 2>&1 | sed -n '/^bestmove/q; p' | grep 'book hit' || true)
    echo "$out" | awk '/book hit/ {print $5; exit}'
}

# check POSITION ALLOWED...: every answer over 6 seeds is a book hit among ALLOWED
check() {
    local pos=$1
    shift
    for seed in 1 2 3 4 5 6; do
        move=$(ask "$pos" "$seed")
        if [ -z "$move" ]; then
            fail "$pos (BookSeed $seed): no book hit"
            continue
        fi
        case " $* " in
        *" $move "*) ;;
        *) fail "$pos (BookSeed $seed): book move $move, expected one of: $*" ;;
        esac
    done
}

check "startpos" 7g7f 2g2f
check "startpos moves 7g7f" 3c3d 8c8d
check "startpos moves 2g2f" 3c3d 8c8d

# book/make_book.sh stops at the first failing step with its status, and names it: a
# joseki.dat that is not there fails step 1, and no later step runs (a copy of the script
# in a scratch repository root, so that the real book and log stay as they are)
script=$(cd "$(dirname "$0")/../.." && pwd)/book/make_book.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root/book"
cp "$script" "$tmp/root/book/"
err=$(cd "$tmp/root" && SOURCE_DATE_EPOCH=0 JOSEKI=/nonexistent/joseki.dat GPS_CONF=/nonexistent GPSUSI=/nonexistent/gpsusi \
    sh book/make_book.sh "$HAYANAGI" "$tmp/work" 2>&1 > /dev/null)
status=$?
[ "$status" != 0 ] || fail "make_book.sh: exit 0 with a missing joseki.dat"
expect_contains "make_book.sh names the failed step" "$err" "make_book.sh: step failed (exit $status): $HAYANAGI book convert"
expect_not_contains "make_book.sh: no step after the failed one" "$(cat "$tmp/root/book/make_book.log" 2>&1)" "book prune"
[ -f "$tmp/root/book/standard_book.db" ] && fail "make_book.sh wrote a book after a failed step"
finish
