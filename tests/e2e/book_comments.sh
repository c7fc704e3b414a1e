#!/usr/bin/env bash
# prune, import-losses and merge keep position comments (think's provenance, learn's evidence),
# merge also the moves' comments (grow's evidence),
# so that `think --rethink-if` still has something to select on afterwards
# (docs/book_making.md, prune and import-losses).
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/hayanagi_book_comments.XXXXXX)
trap 'rm -rf "$T"' EXIT
PROV='#think engine=Weak 1.0; budget=nodes 1000; depth=5; nodes=1000; date=2026-01-02T00:00:00Z'
cat > "$T/in.db" <<EOB
#YANEURAOU-DB2016 1.00
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
$PROV
7g7f 3c3d 50 5 10
2g2f none 30 5 3
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2
#learn evidence 3 games
3c3d none 10 4 2
EOB

"$HAYANAGI" book prune "$T/in.db" "$T/pruned.db" >/dev/null 2>&1; expect_status "prune" 0 $?
grep -qxF "$PROV" "$T/pruned.db" || fail "prune dropped the provenance comment"
grep -qxF "#learn evidence 3 games" "$T/pruned.db" || fail "prune dropped the learn comment"

# merge, every policy: a position of one book only (after 2g2f) keeps all of its notes, its
# moves' comments included (they were dropped)
cat > "$T/moves.db" <<EOB
#YANEURAOU-DB2016 1.00
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL w - 2
#grow: 7 games
3c3d none 10 4 5
#grow 3c3d: 5 games +3 =0 -2
8c8d none 5 4 2
#grow 8c8d: 2 games +1 =0 -1
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
7g7f none 0 0 1
EOB
for policy in sum prefer-first prefer-deeper; do
    "$HAYANAGI" book merge "$T/in.db" "$T/moves.db" --policy $policy "$T/merged.db" >/dev/null 2>&1
    expect_status "merge $policy" 0 $?
    grep -qxF "#grow 8c8d: 2 games +1 =0 -1" "$T/merged.db" || fail "merge $policy dropped a move's comment"
    grep -qxF "$PROV" "$T/merged.db" || fail "merge $policy dropped the provenance comment"
done
"$HAYANAGI" book merge "$T/moves.db" "$T/moves.db" "$T/twice.db" >/dev/null 2>&1
[ "$(grep -c '^#grow 3c3d: 5 games' "$T/twice.db")" = 1 ] || fail "merge sum: a move's comment not kept once: $(cat "$T/twice.db")"

# black (x) resigns after 4 plies: the start position and 7g7f's reply are rewritten
printf 'N+x\nN-y\nPI\n+\n+7776FU\n-3334FU\n+2726FU\n-8384FU\n%%TORYO\n' > "$T/loss.csa"
cp "$T/in.db" "$T/losses.db"
out=$("$HAYANAGI" book import-losses --opponent x "$T/loss.csa" "$T/losses.db" 2>&1); expect_status "import-losses" 0 $?
expect_contains "import-losses imported" "$out" "1 lost games of x imported"
grep -qxF "$PROV" "$T/losses.db" || fail "import-losses dropped the provenance comment"
grep -qxF "#learn evidence 3 games" "$T/losses.db" || fail "import-losses dropped the learn comment"

# --rethink-if still selects by the kept provenance (depth 5): depth<6 takes the start
# position on top of the frontier that depth<5 takes.
for cond in 'depth<6' 'depth<5'; do
    rm -f "$T/rethought.db" "$T/rethought.db.journal"
    out=$("$HAYANAGI" book think --rethink-if "$cond" --nodes 1 --multipv 1 --quiet "$T/pruned.db" "$T/rethought.db" 2>&1)
    n=$(echo "$out" | sed -n 's/.* \([0-9]*\) positions needed a search.*/\1/p')
    eval "targets_${cond#depth<}=\$n"
done
[ -n "$targets_6" ] && [ "$targets_6" = $((targets_5 + 1)) ] ||
    fail "--rethink-if after prune: depth<6 selected ${targets_6:-?} positions, depth<5 ${targets_5:-?}"
finish
