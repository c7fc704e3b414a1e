#!/usr/bin/env bash
# What sits at a verb's OUT decides how it is written (docs/book_making.md, "Output files"):
# a symlink is written through to its target and stays a link, a file's mode is kept, a
# FIFO and /dev/null are streamed into and stay what they are, "-" is the standard output,
# a directory is refused.
. "$(dirname "$0")/lib.sh"
R=../shared/refdata
T=$(mktemp -d /tmp/hayanagi_book_outputs.XXXXXX)
trap 'rm -rf "$T"' EXIT
STD=$R/db/shogihome/yaneuraou-copy.db

# The symlink repro: real.db (0600) behind link.db gets the book; link.db stays a link.
echo x > "$T/real.db"; chmod 600 "$T/real.db"; ln -s real.db "$T/link.db"
"$HAYANAGI" book convert "$STD" "$T/link.db" >/dev/null 2>&1; expect_status "convert through a link" 0 $?
[ -L "$T/link.db" ] || fail "link.db is no longer a symlink"
[ "$(readlink "$T/link.db")" = real.db ] || fail "link.db points elsewhere"
cmp -s "$T/real.db" "$STD" || fail "real.db did not get the book"
[ "$(stat -c %a "$T/real.db")" = 600 ] || fail "real.db lost its mode 0600: $(stat -c %a "$T/real.db")"
[ "$(ls "$T" | wc -l)" = 2 ] || fail "a temporary file was left: $(ls "$T")"

# A FIFO with a reader gets the bytes and stays a FIFO.
mkfifo "$T/fifo.db"
cat "$T/fifo.db" > "$T/from_fifo" &
reader=$!
"$HAYANAGI" book convert "$STD" "$T/fifo.db" >/dev/null 2>&1; expect_status "convert into a fifo" 0 $?
wait "$reader"
[ -p "$T/fifo.db" ] || fail "fifo.db is no longer a FIFO"
cmp -s "$T/from_fifo" "$STD" || fail "the FIFO's reader did not get the book"

# /dev/null stays a character device (as root the old rename would have replaced it).
"$HAYANAGI" book convert "$STD" /dev/null >/dev/null 2>&1; expect_status "convert to /dev/null" 0 $?
[ -c /dev/null ] || fail "/dev/null is no longer a character device"

# "-" is the standard output; the summary goes to stderr then, not into the book.
"$HAYANAGI" book convert "$STD" - > "$T/stdout.db" 2>/dev/null; expect_status "convert to -" 0 $?
cmp -s "$T/stdout.db" "$STD" || fail "convert to - did not write the book alone to stdout"
[ -e ./- ] && fail "a file named - was created"

# A directory at OUT is refused and stays.
mkdir "$T/adir"
err=$("$HAYANAGI" book convert "$STD" "$T/adir" 2>&1); st=$?
[ "$st" != 0 ] || fail "convert over a directory succeeded"
expect_contains "directory refused" "$err" "is a directory"
[ -d "$T/adir" ] || fail "the directory was replaced"
finish
