#!/usr/bin/env bash
# One way into book files (src/book/open.h): every book verb reads every format we read
# (the real DB2016, SBK, YBB and Apery files of ShogiHome), outputs take the format their
# name says, files that are no book are refused by content, and a failed run leaves the
# user's files as they were (docs/book_making.md, "Output files").
. "$(dirname "$0")/lib.sh"
R=../shared/refdata
T=$(mktemp -d /tmp/hayanagi_book_open.XXXXXX)
trap 'rm -rf "$T"' EXIT
WIN=$R/csa/json-kifu-format/2005_GPS_K-SHOGI.csa # sente beats gote by resignation

# The inputs, by format, with what `book info` must say about them.
declare -A BOOKS=([db]=$R/db/shogihome/yaneuraou.db [sbk]=$R/sbk/shogihome/shogigui01.sbk
    [ybb]=$R/ybb/shogihome/yaneuraou.ybb [apery]=$R/apery/shogihome/apery.bin)
declare -A NAMES=([db]="YaneuraOu DB2016" [sbk]="ShogiGUI/ShogiHome SBK" [ybb]="YBB (YANE-BINBOOK-V1)"
    [apery]="Apery book.bin")
# A copy without its extension: detection must not need one.
for f in db sbk ybb apery; do cp "${BOOKS[$f]}" "$T/noext_$f"; done

positions() { sed -n 's/^positions  *\([0-9]*\).*/\1/p'; }
moves() { sed -n 's/^moves  *\([0-9]*\).*/\1/p'; } # DB2016 keeps no position without moves

for f in db sbk ybb apery; do
    in=${BOOKS[$f]}
    for src in "$in" "$T/noext_$f"; do
        out=$("$HAYANAGI" book info "$src" 2>&1); expect_status "info $f" 0 $?
        expect_contains "info $f format" "$out" "format     ${NAMES[$f]}"
    done
    n=$("$HAYANAGI" book info "$in" 2>/dev/null | moves)
    [ "${n:-0}" -gt 0 ] || fail "info $f: no moves"
    "$HAYANAGI" book lookup "$in" startpos >/dev/null 2>&1; st=$?
    [ "$st" = 0 ] || [ "$st" = 3 ] || fail "lookup $f: exit status $st"
    # merge, minimax, think and expand read it and write DB2016 or SBK by the output name.
    out=$("$HAYANAGI" book merge "$in" "$T/noext_$f" "$T/merge_$f.db" --quiet 2>&1)
    expect_status "merge $f" 0 $?
    m=$("$HAYANAGI" book info "$T/merge_$f.db" 2>/dev/null | moves)
    [ "${m:-0}" = "$n" ] || fail "merge $f with itself: $m moves, expected $n"
    out=$("$HAYANAGI" book minimax "$in" "$T/mm_$f.sbk" --quiet 2>&1); expect_status "minimax $f" 0 $?
    out=$("$HAYANAGI" book info "$T/mm_$f.sbk" 2>&1)
    expect_contains "minimax $f writes SBK for .sbk" "$out" "format     ShogiGUI/ShogiHome SBK"
    out=$("$HAYANAGI" book think "$in" "$T/think_$f.db" --nodes 200 --multipv 1 --max-positions 2 --quiet 2>&1)
    expect_status "think $f" 0 $?
    t=$("$HAYANAGI" book info "$T/think_$f.db" 2>/dev/null | moves)
    [ "${t:-0}" -ge "$n" ] || fail "think $f: $t moves from $n"
    out=$("$HAYANAGI" book expand "$in" "$T/exp_$f.db" --playouts 20 --nodes 100 --top 2 --quiet 2>&1)
    expect_status "expand $f" 0 $?
    e=$("$HAYANAGI" book info "$T/exp_$f.db" 2>/dev/null | moves)
    [ "${e:-0}" -ge "$n" ] || fail "expand $f: $e moves from $n"
done
# import-losses reads and writes its BOOK: DB2016 and SBK in place; a format we cannot
# write is refused before any work, the file untouched.
for f in db sbk; do
    cp "${BOOKS[$f]}" "$T/il.$f"
    out=$("$HAYANAGI" book import-losses --opponent gote "$WIN" "$T/il.$f" --quiet 2>&1)
    expect_status "import-losses $f" 0 $?
    expect_contains "import-losses $f" "$out" "1 lost games of gote imported"
    out=$("$HAYANAGI" book info "$T/il.$f" 2>&1)
    expect_contains "import-losses $f keeps the format" "$out" "format     ${NAMES[$f]}"
done
for f in ybb apery; do
    ext=${BOOKS[$f]##*.}
    cp "${BOOKS[$f]}" "$T/il.$ext"
    out=$("$HAYANAGI" book import-losses --opponent gote "$WIN" "$T/il.$ext" 2>&1)
    expect_status "import-losses into $f" 2 $?
    cmp -s "${BOOKS[$f]}" "$T/il.$ext" || fail "import-losses changed the $f file"
done
out=$("$HAYANAGI" book import-losses --opponent nobody "$WIN" "$T/il.db" 2>&1)
expect_contains "import-losses unknown opponent" "$out" "no game was played by 'nobody'"
# convert from every format to both writable ones.
for f in db sbk ybb apery; do
    for to in db sbk; do
        out=$("$HAYANAGI" book convert "${BOOKS[$f]}" "$T/conv_$f.$to" 2>&1); expect_status "convert $f to $to" 0 $?
        out=$("$HAYANAGI" book info "$T/conv_$f.$to" 2>&1)
        [ "$to" = db ] && want="YaneuraOu DB2016" || want="ShogiGUI/ShogiHome SBK"
        expect_contains "convert $f to $to format" "$out" "format     $want"
    done
done

# Item 1: a one-position book (build --max-ply 1 from one game) gains positions in think,
# import-losses and expand (a heap overflow before: ASan aborts, release crashes).
out=$("$HAYANAGI" book build --from "$WIN" --max-ply 1 "$T/one.db" 2>&1); expect_status "build one" 0 $?
expect_contains "build one" "$out" "1 positions"
out=$("$HAYANAGI" book think "$T/one.db" "$T/one_think.db" --nodes 300 --multipv 2 --quiet 2>&1)
expect_status "think on one position" 0 $?
cp "$T/one.db" "$T/one_il.db"
out=$("$HAYANAGI" book import-losses --opponent gote "$WIN" "$T/one_il.db" --quiet 2>&1)
expect_status "import-losses on one position" 0 $?
expect_contains "import-losses on one position" "$out" "1 lost games of gote imported"
out=$("$HAYANAGI" book expand "$T/one.db" "$T/one_exp.db" --playouts 30 --nodes 100 --top 2 --quiet 2>&1)
expect_status "expand on one position" 0 $?

# Item 2: import-losses without its BOOK argument must not take the last record for a book.
cp "$WIN" "$T/game1.csa"; cp "$R/csa/json-kifu-format/2005_YAMADA_GPS.csa" "$T/game2.csa"
out=$("$HAYANAGI" book import-losses --opponent gote "$T/game1.csa" "$T/game2.csa" 2>&1); st=$?
[ "$st" != 0 ] || fail "import-losses without BOOK: exit 0"
cmp -s "$T/game2.csa" "$R/csa/json-kifu-format/2005_YAMADA_GPS.csa" || fail "import-losses overwrote a record"
# Item 3: a build that failed writes nothing.
cp "${BOOKS[db]}" "$T/existing.db"
out=$("$HAYANAGI" book build --from "$T/missing.csa" "$T/existing.db" 2>&1); expect_status "build missing" 1 $?
cmp -s "${BOOKS[db]}" "$T/existing.db" || fail "a failed build replaced the existing book"
# Item 4: a file that is no book is refused by every reader, and convert writes nothing.
head -c 1048576 /dev/urandom > "$T/unknown.bin"
for verb in info "convert" "minimax" "merge"; do
    case $verb in
    info) args=("$T/unknown.bin") ;;
    convert | minimax) args=("$T/unknown.bin" "$T/from_unknown.db") ;;
    merge) args=("$T/unknown.bin" "${BOOKS[db]}" "$T/from_unknown.db") ;;
    esac
    out=$("$HAYANAGI" book $verb "${args[@]}" 2>&1); expect_status "unknown file: $verb" 1 $?
    expect_contains "unknown file: $verb" "$out" "not a book we know"
done
[ -e "$T/from_unknown.db" ] && fail "a book was written from an unknown file"
# Apery's evidence (sorted 16-byte entries, moves on the board) without a reachable key.
printf '\001\000\000\000\000\000\000\000\015\006\001\000\000\000\000\000\002\000\000\000\000\000\000\000\015\006\001\000\000\000\000\000' > "$T/unreachable.bin"
out=$("$HAYANAGI" book convert "$T/unreachable.bin" "$T/from_unreachable.db" 2>&1)
expect_status "unreachable apery" 1 $?
expect_contains "unreachable apery" "$out" "reachable from the start position"
[ -e "$T/from_unreachable.db" ] && fail "a book was written from an unreachable Apery file"
# Item 5: outputs take the format of their name; names we cannot write are refused.
for verb in build merge minimax; do
    case $verb in
    build) args=(--from "$WIN" --max-ply 8) ;;
    merge) args=("${BOOKS[db]}" "${BOOKS[ybb]}") ;;
    minimax) args=("${BOOKS[db]}") ;;
    esac
    out=$("$HAYANAGI" book $verb "${args[@]}" "$T/named_$verb.sbk" 2>&1); expect_status "$verb to .sbk" 0 $?
    out=$("$HAYANAGI" book info "$T/named_$verb.sbk" 2>&1)
    expect_contains "$verb to .sbk writes SBK" "$out" "format     ShogiGUI/ShogiHome SBK"
    out=$("$HAYANAGI" book $verb "${args[@]}" "$T/named_$verb.ybb" 2>&1); expect_status "$verb to .ybb" 2 $?
    [ -e "$T/named_$verb.ybb" ] && fail "$verb wrote a .ybb"
done

# Item 7: the engine says how many bad lines it skipped, and loads any format by content.
printf '#YANEURAOU-DB2016 1.00\nsfen %s\n7g7f none 0 0 1\n7g7x\nnone\n2g2f none 1 2 99999999999\n9z9z\n' \
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1" > "$T/bad_lines.db"
out=$(printf '%s\n' "setoption name BookFile value $T/bad_lines.db" isready quit | timeout 60 "$HAYANAGI" 2>&1)
expect_contains "engine bad lines" "$out" "(1 positions, YaneuraOu DB2016 (text), 4 bad line(s) or record(s) skipped)"
for f in sbk ybb apery; do
    out=$(printf '%s\n' "setoption name BookFile value $T/noext_$f" isready quit | timeout 60 "$HAYANAGI" 2>&1)
    expect_contains "engine reads $f" "$out" "info string book loaded $T/noext_$f"
done
out=$(printf '%s\n' "setoption name BookFile value $T/unknown.bin" isready quit | timeout 60 "$HAYANAGI" 2>&1)
expect_contains "engine refuses unknown" "$out" "not a book we know"
finish
