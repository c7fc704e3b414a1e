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
"$HAYANAGI" book openings --count 3 - > "$T/openings.txt" 2>/dev/null; expect_status "openings to -" 0 $?
[ "$(grep -c '^startpos moves' "$T/openings.txt")" = 3 ] && ! grep -q '^wrote' "$T/openings.txt" ||
    fail "openings to -: expected the 3 lines alone on stdout"

# A directory at OUT is refused and stays.
mkdir "$T/adir"
err=$("$HAYANAGI" book convert "$STD" "$T/adir" 2>&1); st=$?
[ "$st" != 0 ] || fail "convert over a directory succeeded"
expect_contains "directory refused" "$err" "is a directory"
[ -d "$T/adir" ] || fail "the directory was replaced"

# A directory as input says it is one (not "cannot read" or "read error").
err=$("$HAYANAGI" book convert "$T/adir" "$T/x.db" 2>&1); st=$?
[ "$st" != 0 ] || fail "convert from a directory succeeded"
expect_contains "directory input" "$err" "Is a directory"
err=$("$HAYANAGI" match --engine a --engine b --openings "$T/adir" --games 1 2>&1)
expect_contains "directory openings" "$err" "Is a directory"

# An SBK write that fails says why (a book larger than the write buffer into /dev/full).
"$HAYANAGI" book gen-synthetic 30000 "$T/syn.db" >/dev/null 2>&1 || fail "gen-synthetic"
err=$("$HAYANAGI" book convert --to sbk "$T/syn.db" /dev/full 2>&1); st=$?
[ "$st" = 1 ] || fail "convert to /dev/full: exit $st"
expect_contains "sbk write failure names the reason" "$err" "/dev/full: write error: No space left on device"
[ -c /dev/full ] || fail "/dev/full is no longer a character device"

# Weights that push counts past 4294967295 saturate there, with a warning.
cat > "$T/counts.db" <<EOB
#YANEURAOU-DB2016 1.00
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
7g7f none 0 0 5000
2g2f none 0 0 4000
EOB
err=$("$HAYANAGI" book merge --weights 1000000,1000000 "$T/counts.db" "$T/counts.db" "$T/heavy.db" 2>&1)
expect_status "heavy merge" 0 $?
expect_contains "saturation warned" "$err" "2 move counts reached the largest count a book keeps (4294967295)"
[ "$(grep -c ' 4294967295$' "$T/heavy.db")" = 2 ] || fail "heavy merge: expected two saturated counts"
err=$("$HAYANAGI" book merge "$STD" "$STD" "$T/light.db" 2>&1); expect_status "light merge" 0 $?
expect_not_contains "no saturation warning" "$err" "largest count"

# An OUT that reads as another verb's input is refused by its content, whatever its name:
# a forgotten OUT would make the last input the output.
printf 'startpos moves 7g7f 3c3d\nstartpos moves 2g2f\n' > "$T/games.txt"
printf 'N+x\nN-y\nPI\n+\n+7776FU\n-3334FU\n%%TORYO\n' > "$T/rec.csa"
cp "$T/games.txt" "$T/games.before"
err=$("$HAYANAGI" book build --from "$T/rec.csa" "$T/games.txt" 2>&1); expect_status "build over a game list" 2 $?
expect_contains "build over a game list" "$err" "holds game records (USI)"
cmp -s "$T/games.txt" "$T/games.before" || fail "build replaced the USI game list"
cp "$T/rec.csa" "$T/rec.txt"
err=$("$HAYANAGI" book merge "$STD" "$STD" "$T/rec.txt" 2>&1); expect_status "merge over a CSA record" 2 $?
expect_contains "merge over a CSA record" "$err" "holds game records (CSA)"
cmp -s "$T/rec.txt" "$T/rec.csa" || fail "merge replaced the record"
cp "$STD" "$T/book.csa"
err=$("$HAYANAGI" match --engine a --engine b --games 1 --out "$T/book.csa" 2>&1); expect_status "match over a book" 1 $?
expect_contains "match over a book" "$err" "holds a book"
cmp -s "$T/book.csa" "$STD" || fail "match replaced the book"
err=$("$HAYANAGI" book openings --count 2 "$T/link.db" 2>&1); expect_status "openings over a book" 1 $?
expect_contains "openings over a book" "$err" "holds a book"
"$HAYANAGI" book build --from "$T/rec.csa" "$T/real.db" >/dev/null 2>&1; expect_status "build over a book" 0 $?

# "wrote N positions" counts what the writer wrote: a position without moves is left out.
cat > "$T/moveless.db" <<EOB
#YANEURAOU-DB2016 1.00
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
7g7f none 0 0 5
2g2f none 0 0 5
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2
EOB
out=$("$HAYANAGI" book merge "$T/moveless.db" "$T/moveless.db" "$T/merged.db" 2>&1); expect_status "merge" 0 $?
expect_contains "merge counts what it wrote" "$out" "wrote $T/merged.db: 1 positions, 2 moves"
[ "$(grep -c '^sfen' "$T/merged.db")" = 1 ] || fail "merge: expected one position in the file"
out=$("$HAYANAGI" book prune --min-share 100 "$T/moveless.db" "$T/pruned.db" 2>&1); expect_status "prune" 0 $?
expect_contains "prune counts what it wrote" "$out" "wrote $T/pruned.db: 0 positions, 0 moves"
[ "$(grep -c '^sfen' "$T/pruned.db")" = 0 ] || fail "prune: expected no position in the file"
out=$("$HAYANAGI" book convert "$T/moveless.db" "$T/moveless.sbk" 2>&1); expect_status "convert to sbk" 0 $?
expect_contains "sbk counts what it wrote" "$out" "wrote $T/moveless.sbk: "

# A failed write says what is true of OUT: a replaced file is untouched, a stream is not
# (its reader may have had part of the book). /dev/full refuses every write; a FIFO whose
# reader leaves after one byte fails with EPIPE once the pipe is full (SIGPIPE ignored, so
# the writer sees the error instead of dying of it).
for verb in "convert" "sort --memory 1M" "minimax"; do
    err=$("$HAYANAGI" book $verb "$STD" /dev/full 2>&1); expect_status "$verb to /dev/full" 1 $?
    expect_contains "$verb to /dev/full" "$err" \
        "/dev/full: write failed: No space left on device (/dev/full is a stream: what was written before the error may have reached its reader)"
    expect_not_contains "$verb to /dev/full" "$err" "untouched"
done
"$HAYANAGI" book gen-synthetic 3000 "$T/big.db" 5 >/dev/null 2>&1 || fail "gen-synthetic"
[ "$(stat -c %s "$T/big.db")" -gt 200000 ] || fail "big.db is smaller than a pipe's buffer"
mkfifo "$T/short.db"
head -c 1 "$T/short.db" > /dev/null &
reader=$!
err=$(trap '' PIPE; "$HAYANAGI" book convert "$T/big.db" "$T/short.db" 2>&1); expect_status "convert into a FIFO closed early" 1 $?
wait "$reader"
expect_contains "convert into a FIFO closed early" "$err" "$T/short.db is a stream: what was written before the error may have reached its reader"
# a replaced file that cannot be written is untouched, and says so
mkdir "$T/ro"; cp "$STD" "$T/ro/kept.db"; chmod 555 "$T/ro"
if [ ! -w "$T/ro" ]; then # not as root, who may write anyway
    err=$("$HAYANAGI" book convert "$T/big.db" "$T/ro/kept.db" 2>&1); expect_status "convert into a read-only directory" 1 $?
    expect_contains "convert into a read-only directory" "$err" "($T/ro/kept.db is untouched)"
    cmp -s "$T/ro/kept.db" "$STD" || fail "the read-only directory's book was changed"
fi
chmod 755 "$T/ro"
finish
