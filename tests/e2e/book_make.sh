#!/usr/bin/env bash
# Book making from the command line on the real records and books in ../shared/refdata:
# records, build (filters, bad records skipped), merge, minimax against rshogi's
# peta_shock fixtures, think (with a kill and a resume), import-losses.
. "$(dirname "$0")/lib.sh"
R=../shared/refdata
T=$(mktemp -d /tmp/hayanagi_book_make.XXXXXX)
trap 'rm -rf "$T"' EXIT
# Searches are slow under the sanitizers: smaller budgets there.
NODES=20000; [ -n "${HAYANAGI_SANITIZED:-}" ] && NODES=3000

# records: one line per game, variations on request, bad records reported as file:line
out=$("$HAYANAGI" book records $R/csa/derived/multi-game-3.csa 2>&1); expect_status "records" 0 $?
# the server judged the %KACHI illegal ("summary:illegal kachi"): black won
expect_contains "records game 2" "$out" "multi-game-3.csa:495	315 moves	black	KACHI	gps9_p vs gps8_pgsklp"
expect_contains "records summary" "$out" "3 games, 646 moves, 0 bad records skipped"
out=$("$HAYANAGI" book records --variations $R/kif/json-kifu-format/fork.kif 2>&1)
expect_contains "records variations" "$out" "8 games"
out=$("$HAYANAGI" book records --moves $R/kif/json-kifu-format/20081220kyoochi.kif 2>&1)
expect_contains "records handicap" "$out" "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1	moves 3c3d 2g2f"
printf 'PI\n+\n+7776FU\n-2233KA\n/\nPI\n+\n+2726FU\n%%TORYO\n' > "$T/bad.csa"
out=$("$HAYANAGI" book records "$T/bad.csa" 2>&1); expect_status "records bad" 0 $?
expect_contains "records bad line" "$out" "bad.csa:4: illegal move '-2233KA' (record skipped)"
expect_contains "records bad summary" "$out" "1 games, 1 moves, 1 bad records skipped"

# build from every kind of record; the output is a sorted DB2016 book
out=$("$HAYANAGI" book build --from $R/csa/*/*.csa $R/kif/*/*.kif* $R/ki2/*/*.ki2* $R/usi/shogihome/*.sfen "$T/bad.csa" \
      --max-ply 24 "$T/all.db" 2>&1); expect_status "build" 0 $?
expect_contains "build summary" "$out" "wrote $T/all.db:"
expect_contains "build bad record" "$out" "bad.csa:4"
out=$("$HAYANAGI" book info "$T/all.db" 2>&1); expect_status "build info" 0 $?
expect_contains "build sorted" "$out" "sorted     yes"
expect_contains "build ply range" "$out" "ply range  1..24"
out=$("$HAYANAGI" book lookup "$T/all.db" startpos 2>&1); expect_status "build lookup" 0 $?
expect_contains "build lookup 7g7f" "$out" "7g7f"
out=$("$HAYANAGI" book build --from $R/csa/derived/multi-game-3.csa --side black --min-count 3 --max-ply 2 --quiet "$T/b.db" 2>&1)
expect_status "build filters" 0 $?
expect_contains "build filters summary" "$out" "1 positions, 1 moves from 3 games"
out=$("$HAYANAGI" book build --from $R/csa/json-kifu-format/v2.csa --min-rating 3400 --quiet "$T/r.db" 2>&1)
expect_contains "build rating" "$out" "98 moves counted"
out=$("$HAYANAGI" book build --from $R/csa/derived/multi-game-3.csa --player gps_l --winner-only --quiet "$T/p.db" 2>&1)
expect_contains "build player" "$out" "79 moves counted"
out=$("$HAYANAGI" book build --side red "$T/x.db" 2>&1); expect_status "build usage" 2 $?

# merge
out=$("$HAYANAGI" book merge "$T/b.db" "$T/all.db" --weights 10,1 --policy sum "$T/m.db" 2>&1); expect_status "merge" 0 $?
out=$("$HAYANAGI" book lookup "$T/m.db" startpos 2>&1)
expect_contains "merge weights" "$out" "7g7f"
out=$("$HAYANAGI" book merge $R/db/shogihome/yaneuraou.db $R/db/rshogi/book_backprop_yo_in.db --policy prefer-first "$T/pf.db" 2>&1)
expect_status "merge prefer-first" 0 $?
# comments (a thought position's provenance, which think --rethink-if reads) survive a merge
grep -q '^#position comment 1' "$T/pf.db" || fail "merge prefer-first dropped the position comments"
"$HAYANAGI" book merge $R/db/shogihome/yaneuraou.db "$T/b.db" "$T/cm.db" > /dev/null 2>&1
grep -q '^#position comment 2' "$T/cm.db" || fail "merge (sum) dropped the position comments"
"$HAYANAGI" book merge "$T/b.db" $R/db/shogihome/yaneuraou.db --policy prefer-deeper "$T/cd.db" > /dev/null 2>&1
grep -q '^#position comment 1' "$T/cd.db" || fail "merge prefer-deeper dropped the comments of the book it took"
out=$("$HAYANAGI" book merge "$T/b.db" "$T/m.db" --weights 1 "$T/bad.db" 2>&1); expect_status "merge bad weights" 2 $?

# minimax reproduces the peta_shock fixtures (values and depths, order of ties aside)
norm() { grep -v '^#' "$1" | awk '/^sfen/{s=$2" "$3" "$4; next} NF{print s" | "$1" "$3" "$4}' | sort; }
out=$("$HAYANAGI" book minimax --converge $R/db/rshogi/book_backprop_yo_in.db "$T/yo.db" 2>&1); expect_status "minimax yo" 0 $?
[ "$(norm "$T/yo.db")" = "$(norm $R/db/rshogi/book_backprop_yo_expected.db)" ] || fail "minimax yo output differs"
"$HAYANAGI" book minimax $R/db/rshogi/book_backprop_check_in.db "$T/check.db" > /dev/null 2>&1
normv() { norm "$1" | awk '{print $1,$2,$3,$4,$5,$6}'; }
[ "$(normv "$T/check.db")" = "$(normv $R/db/rshogi/book_backprop_check_expected.db)" ] || fail "minimax check output differs"
out=$("$HAYANAGI" book minimax "$T/all.db" "$T/all_mm.db" 2>&1); expect_status "minimax build" 0 $?
# minimax keeps the games' counts (they are what ConsiderBookMoveCount and `lookup` show)
counts() { grep -v '^#' "$1" | awk '/^sfen/{s=$2" "$3" "$4; next} NF{print s" | "$1" "$5}' | sort; }
[ "$(counts "$T/all.db")" = "$(counts "$T/all_mm.db")" ] || fail "minimax changed the move counts"
[ "$(counts "$T/all.db" | awk '$NF > 1' | wc -l)" -gt 0 ] || fail "minimax counts: the built book has no count above 1"

# think: searches the positions with too few candidates, checkpoints, resumes after a kill
"$HAYANAGI" book think $R/db/rshogi/book_backprop_yo_in.db "$T/t.db" --nodes $NODES --multipv 2 --threads 2 --quiet > "$T/think.out" 2>&1
expect_status "think" 0 $?
expect_contains "think summary" "$(cat "$T/think.out")" "5 positions needed a search (0 done before, 5 searched now"
[ -e "$T/t.db.journal" ] && fail "think left its journal"
out=$("$HAYANAGI" book lookup "$T/t.db" sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2 2>&1)
# The input entry has 1 move (3c3d); MultiPV 2 adds one or two (the search may pick 3c3d).
case "$out" in *"2 move(s)"* | *"3 move(s)"*) ;; *) fail "think added no candidate: $out" ;; esac
"$HAYANAGI" book think $R/db/rshogi/book_backprop_yo_in.db "$T/k.db" --nodes 100000000 --multipv 2 --quiet > "$T/kill.out" 2>&1 &
pid=$!; sleep 1; kill -INT $pid; wait $pid; expect_status "think interrupted" 130 $?
[ -e "$T/k.db" ] && fail "an interrupted think wrote its output"
[ -e "$T/k.db.journal" ] || fail "an interrupted think lost its journal"
# a journal with one finished position (a leaf: after 7g7f 3c3d): the rerun skips it and keeps its move.
# Written as think writes it (docs/book_making.md, "Checkpoints"): the interrupted run's header
# with the rerun's options, then the entry, each block closed by "#end" and its cksum.
block() { printf '%s' "$1"; printf '#end %s %s\n' $(printf '%s' "$1" | cksum); }
hdr=$(sed -n 1,4p "$T/k.db.journal" | sed "s/^#options .*/#options --multipv=2 --nodes=$NODES/")
grep -q '^#options --multipv=2 --nodes=100000000$' "$T/k.db.journal" || fail "think journal: unexpected options line"
{
    block "$hdr
"
    block "sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3
#think engine=Hand; budget=nodes $NODES; depth=1; nodes=1; date=2026-01-01T00:00:00Z
1g1f none 7 1 1
"
} > "$T/k.db.journal.new"
mv "$T/k.db.journal.new" "$T/k.db.journal"
out=$("$HAYANAGI" book think $R/db/rshogi/book_backprop_yo_in.db "$T/k.db" --nodes $NODES --multipv 2 --quiet 2>&1)
expect_status "think resume" 0 $?
expect_contains "think resume skips" "$out" "(1 done before,"
out=$("$HAYANAGI" book lookup "$T/k.db" startpos moves 7g7f 3c3d 2>&1)
expect_contains "think resume keeps the journal" "$out" "1g1f"
[ -e "$T/k.db.journal" ] && fail "think left its journal after the resume"
out=$("$HAYANAGI" book think in.db out.db --multipv 2 2>&1); expect_status "think usage" 2 $?
# think --startmoves: only the subtree below the start lines. yo_in holds startpos (7g7f, 5i5h),
# after 7g7f (3c3d) and after 2g2f (8c8d); at MultiPV 2 the whole book needs 5 searches.
Y=$R/db/rshogi/book_backprop_yo_in.db
out=$("$HAYANAGI" book think $Y "$T/s1.db" --depth 2 --multipv 2 --quiet --startmoves startpos 2>&1)
expect_status "think startmoves" 0 $?
expect_contains "think startmoves startpos" "$out" "3 positions needed a search" # 2g2f's subtree is out
out=$("$HAYANAGI" book think $Y "$T/s2.db" --depth 2 --multipv 2 --quiet --startmoves "position startpos moves 7g7f" 2>&1)
expect_contains "think startmoves 7g7f" "$out" "2 positions needed a search" # after 7g7f and after 3c3d
out=$("$HAYANAGI" book lookup "$T/s2.db" startpos moves 7g7f 3c3d 2>&1); expect_status "think startmoves leaf" 0 $?
out=$("$HAYANAGI" book lookup "$T/s2.db" startpos moves 5i5h 2>&1)
expect_contains "think startmoves leaves 5i5h alone" "$out" "not in the book"
printf '# two start lines\nstartpos moves 2g2f\nstartpos moves 2g2f 8c8d 7g7f\n' > "$T/starts.txt"
out=$("$HAYANAGI" book think $Y "$T/s3.db" --depth 2 --multipv 2 --quiet --startmoves-file "$T/starts.txt" 2>&1)
expect_contains "think startmoves file" "$out" "3 positions needed a search" # 2g2f, its leaf, the new start
out=$("$HAYANAGI" book think $Y "$T/s4.db" --depth 2 --multipv 2 --startmoves "startpos moves 7g7f 7g7f" 2>&1)
expect_status "think startmoves illegal" 2 $?
expect_contains "think startmoves reason" "$out" "--startmoves"

# openings: distinct random lines, the same for the same seed, each one replays
out=$("$HAYANAGI" book openings --count 40 --plies 2-3 --seed 7 "$T/op1.txt" 2>&1); expect_status "openings" 0 $?
expect_contains "openings summary" "$out" "40 openings"
"$HAYANAGI" book openings --count 40 --plies 2-3 --seed 7 "$T/op2.txt" > /dev/null 2>&1
cmp -s "$T/op1.txt" "$T/op2.txt" || fail "openings: the same seed gave other lines"
[ "$(grep -c '^startpos moves' "$T/op1.txt")" = 40 ] || fail "openings: not 40 lines"
[ "$(grep '^startpos' "$T/op1.txt" | sort -u | wc -l)" = 40 ] || fail "openings: repeated lines"
[ "$(awk '/^startpos/ && (NF < 4 || NF > 5)' "$T/op1.txt")" = "" ] || fail "openings: a line outside 2-3 plies"
out=$("$HAYANAGI" book think $Y "$T/op.db" --depth 1 --multipv 1 --quiet --max-positions 1 --startmoves-file "$T/op1.txt" 2>&1)
expect_status "openings replay" 0 $?
out=$("$HAYANAGI" book openings --plies 3-2 --count 5 "$T/op3.txt" 2>&1); expect_status "openings usage" 2 $?

# import-losses: gps_normal lost the floodgate game as black; white's replies become first choices
out=$("$HAYANAGI" book import-losses --opponent gps_normal $R/csa/shogi-server/wdoor+floodgate-900-0+gps_normal+gps_l+20100507120007.csa "$T/all.db" 2>&1)
expect_status "import-losses" 0 $?
expect_contains "import-losses summary" "$out" "1 lost games of gps_normal imported, 79 positions rewritten"
out=$("$HAYANAGI" book lookup "$T/all.db" startpos moves 7g7f 2>&1)
expect_contains "import-losses first choice" "$out" "  1  3c3d"
finish
