#!/usr/bin/env bash
# README.md's sentence about the shipped book ("**N positions**", "first move is **M**")
# must say what the file holds: the count from `book info`, the first move from the move
# the engine's book plays at the start position (`book lookup`), so the README cannot go
# stale when the book is remade.
. "$(dirname "$0")/lib.sh"

readme=README.md
book=$(dirname "$HAYANAGI")/book/standard_book.db
[ -f "$book" ] || { fail "no bundled book at $book"; finish; }

said_n=$(sed -n 's/.*\*\*\([0-9][0-9]*\) positions\*\*.*/\1/p' "$readme" | head -1)
said_move=$(tr '\n' ' ' < "$readme" | sed -n 's/.*first move is \*\*\([1-9][a-i][1-9][a-i]+\{0,1\}\)\*\*.*/\1/p' | head -1)
[ -n "$said_n" ] || fail "README.md has no '**N positions**' sentence about the shipped book"
[ -n "$said_move" ] || fail "README.md has no 'first move is **MOVE**' sentence about the shipped book"

n=$("$HAYANAGI" book info "$book" 2>&1 | awk '/^positions/ {print $2}')
move=$("$HAYANAGI" book lookup "$book" startpos 2>&1 | sed -n 's/^engine would play \([^ ]*\) .*/\1/p')
[ "$said_n" = "$n" ] || fail "README.md says the shipped book has $said_n positions; $book has ${n:-?}"
[ "$said_move" = "$move" ] || fail "README.md says the first move is $said_move; the book plays ${move:-?} at the start position"
finish
