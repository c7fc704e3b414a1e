#!/usr/bin/env bash
# The command-line conventions of every `hayanagi` verb (src/util/cli_opts.h, glibc's
# getopt_long): --help prints the verb's usage and options on stdout (exit 0); an unknown
# option gets getopt's "unrecognized option" and a hint (exit 2); a bad value is named
# (exit 2); --opt=value equals --opt value; options may follow the positional arguments
# (except for lookup and perft, whose position text comes last); "--" ends the options, so
# a file named like an option can be given. Books and records from ../shared/refdata.
. "$(dirname "$0")/lib.sh"
R=../shared/refdata
T=$(mktemp -d /tmp/hayanagi_cli_options.XXXXXX)
trap 'rm -rf "$T"' EXIT
case "$HAYANAGI" in /*) H=$HAYANAGI ;; *) H=$PWD/$HAYANAGI ;; esac
REC=$R/csa/derived/multi-game-3.csa
FG=$R/csa/shogi-server/wdoor+floodgate-900-0+gps_normal+gps_l+20100507120007.csa
DB=$R/db/shogihome/yaneuraou.db
YO=$R/db/rshogi/book_backprop_yo_in.db

# --help: usage on stdout naming the verb and its options, nothing on stderr, exit 0.
# help_check "VERB WORDS" OPTION...
help_check() {
    local words=$1
    shift
    local out err st
    out=$("$H" $words --help 2>"$T/err"); st=$?
    err=$(cat "$T/err")
    expect_status "$words --help" 0 $st
    expect_contains "$words --help usage" "$out" "usage: hayanagi $words"
    [ -z "$err" ] || fail "$words --help wrote to stderr: $err"
    for o in "$@"; do expect_contains "$words --help names $o" "$out" "$o"; done
}
help_check "book info" --from --keep-comments --unreg-depth --quiet
help_check "book lookup" --from --on-the-fly
help_check "book sort" --keep-comments --quiet
help_check "book check" --shogihome-columns
help_check "book convert" --from --to --no-comments --keep-zero
help_check "book build" --from --max-ply --min-count --side --winner-only --min-rating --player \
    --scores-from-comments --variations --quiet
help_check "book merge" --weights --policy --quiet
help_check "book minimax" --converge --flipped --threads --quiet
help_check "book think" --depth --nodes --movetime --multipv --engine
help_check "book expand" --playouts --top --min-candidates --rounds
help_check "book import-losses" --opponent --max-ply --quiet
help_check "book records" --moves --variations
help_check "book openings" --count --plies --seed
help_check "book prune" --max-ply --min-share --through-legal
help_check "book report" --records --plies-at --top
help_check "book learn" --player --max-ply --min-games --prior --quiet
help_check "book grow" --records --games --opponent --player --expand-after --explore --prior --seed --startmoves
help_check "book report" --margin --min-games --disagreements
help_check "book gen-synthetic"
help_check "perft" --divide --stats
help_check "bench" --depth --nodes
help_check "match" --engine
help_check "tune generate" --games --nodes --threads --seed --adjudicate --max-score
help_check "tune records" --scores-of
help_check "tune openings" --count --plies --nodes --max-score --seed
help_check "tune fit" --epochs --lr --lr-end --l2 --lambda --k --ks --out
help_check "tune label" --engine --option --go --limit --concurrency --skip-above
out=$("$H" tune --help 2>/dev/null); expect_status "tune --help" 0 $?
expect_contains "tune --help" "$out" "usage: hayanagi tune generate"
out=$("$H" book --help 2>/dev/null); expect_status "book --help" 0 $?
expect_contains "book --help" "$out" "hayanagi book minimax"

# An unknown option: glibc's message naming the command, the hint, exit 2, no output file.
for v in info lookup sort check convert build merge minimax think expand import-losses records openings prune \
    report learn gen-synthetic; do
    err=$("$H" book $v --no-such-option "$T/a.db" "$T/unknown_$v.db" 2>&1 >/dev/null); st=$?
    expect_status "book $v unknown option" 2 $st
    expect_contains "book $v unknown option" "$err" "hayanagi book $v: unrecognized option '--no-such-option'"
    expect_contains "book $v hint" "$err" "Try 'hayanagi book $v --help'"
    [ ! -e "$T/unknown_$v.db" ] || fail "book $v wrote its output after an unknown option"
done
for c in perft bench match "tune generate" "tune records" "tune openings" "tune fit" "tune label"; do
    err=$("$H" $c --no-such-option "$T/a.txt" "$T/unknown.txt" 2>&1 >/dev/null); expect_status "$c unknown option" 2 $?
    expect_contains "$c unknown option" "$err" "hayanagi $c: unrecognized option '--no-such-option'"
    [ ! -e "$T/unknown.txt" ] || fail "$c wrote its output after an unknown option"
done
# A missing value is getopt's message too.
err=$("$H" book minimax --threads 2>&1); expect_status "minimax --threads without value" 2 $?
expect_contains "minimax --threads without value" "$err" "option '--threads' requires an argument"

# Bad values: the option and the value named, exit 2, no output.
# bad_value NAME NEEDLE COMMAND...
bad_value() {
    local name=$1 needle=$2
    shift 2
    local err
    err=$("$H" "$@" 2>&1 >/dev/null); expect_status "$name" 2 $?
    expect_contains "$name" "$err" "$needle"
}
bad_value "build --max-ply=abc" "--max-ply: bad value 'abc'" book build --max-ply=abc --from "$REC" "$T/bad.db"
bad_value "build --side=red" "--side: bad value 'red'" book build --side=red --from "$REC" "$T/bad.db"
bad_value "minimax --threads=0" "--threads: bad value '0'" book minimax --threads=0 "$DB" "$T/bad.db"
bad_value "merge --policy=best" "--policy: bad value 'best'" book merge --policy=best "$DB" "$YO" "$T/bad.db"
bad_value "think --engine-timeout 0" "--engine-timeout: bad value '0'" book think --engine-timeout 0 --nodes 1 "$DB" "$T/bad.db"
bad_value "think --multipv-margin -5" "--multipv-margin: bad value '-5'" book think --multipv-margin -5 --nodes 1 "$DB" "$T/bad.db"
bad_value "think --go ''" "--go: bad value ''" book think --go '' "$DB" "$T/bad.db"
bad_value "think --frontier=bogus" "--frontier: bad value 'bogus' (leaves, replies, eval-window, line-replies or predicted)" book think --frontier=bogus --nodes 1 --multipv 1 "$DB" "$T/bad.db"
bad_value "think --frontier-side red" "--frontier-side: bad value 'red'" book think --frontier-side red --nodes 1 --multipv 1 "$DB" "$T/bad.db"
# one integer parser for every verb (util/cli_opts.h): the option, the value and the range
bad_value "think --depth=abc" "--depth: bad value 'abc' (an integer from 1 to 200)" book think --depth=abc --multipv 1 "$DB" "$T/bad.db"
bad_value "think --frontier-side=up" "--frontier-side: bad value 'up' (root, black, white or both)" \
    book think --frontier-side=up --nodes 1 --multipv 1 "$DB" "$T/bad.db"
bad_value "think --predict=0" "--predict: bad value '0' (an integer from 1 to 32)" \
    book think --frontier predicted --predict=0 --nodes 1 --multipv 1 "$DB" "$T/bad.db"
bad_value "think --predict-depth x" "--predict-depth: bad value 'x' (an integer from 1 to 100)" \
    book think --frontier predicted --predict-depth x --nodes 1 --multipv 1 "$DB" "$T/bad.db"
bad_value "think --all-replies-to=0" "--all-replies-to: bad value '0' (an integer from 1 to 100000)" \
    book think --frontier predicted --all-replies-to=0 --nodes 1 --multipv 1 "$DB" "$T/bad.db"
bad_value "think --engine ''" "--engine: bad value ''" book think --engine '' --nodes 1 --multipv 1 "$DB" "$T/bad.db"
bad_value "expand --playouts=abc" "--playouts: bad value 'abc' (an integer from 1 to 2000000000)" \
    book expand --playouts=abc "$DB" "$T/bad.db"
bad_value "expand --engine-timeout=0" "--engine-timeout: bad value '0' (an integer from 1 to 2000000000)" \
    book expand --engine-timeout=0 "$DB" "$T/bad.db"
bad_value "think --rethink-if depth<9abc" "--rethink-if 'depth<9abc'" book think --rethink-if 'depth<9abc' --nodes 1 "$DB" "$T/bad.db"
bad_value "merge --weights=1,x" "--weights: bad value '1,x'" book merge --weights=1,x "$DB" "$YO" "$T/bad.db"
bad_value "import-losses --max-ply=-1" "--max-ply: bad value '-1'" book import-losses --opponent x --max-ply=-1 \
    "$FG" "$T/bad.db"
bad_value "openings --plies=3-2" "--plies: bad value '3-2'" book openings --count 2 --plies=3-2 "$T/bad.txt"
bad_value "openings --count=many" "--count: bad value 'many'" book openings --count=many "$T/bad.txt"
bad_value "info --unreg-depth=x" "--unreg-depth: bad value 'x'" book info --unreg-depth=x "$DB"
bad_value "convert --to=xyz" "--to: bad value 'xyz'" book convert --to=xyz "$DB" "$T/bad.db"
bad_value "prune --min-share=101" "--min-share: bad value '101'" book prune --min-share=101 "$DB" "$T/bad.db"
bad_value "report --top=x" "--top: bad value 'x'" book report "$DB" --records "$REC" --top=x
bad_value "learn --prior=-1" "--prior: bad value '-1'" book learn --player x --prior=-1 "$REC" "$T/bad.db"
bad_value "think --depth=x" "--depth: bad value 'x'" book think "$DB" "$T/bad.db" --depth=x --multipv 1
bad_value "bench --depth=0" "--depth: bad value '0'" bench --depth=0
bad_value "match --games=0" "--games expects an integer in 1..1000000, got '0'" match --engine=a --engine b --games=0
bad_value "match: an argument that is no option" "unexpected argument 'x'" match --engine a x --engine b
bad_value "tune generate --games=0" "--games: bad value '0'" tune generate --games=0 "$T/bad.txt"
bad_value "tune openings --plies=5-1" "--plies: bad value '5-1'" tune openings --plies=5-1 "$T/bad.txt"
bad_value "tune fit --lambda=2" "--lambda: bad value '2'" tune fit --lambda=2 --out "$T/bad.txt" "$T/a.txt"
bad_value "tune label --limit=0" "--limit: bad value '0'" tune label --engine x --limit=0 "$T/a.txt" "$T/bad.txt"
[ ! -e "$T/bad.db" ] && [ ! -e "$T/bad.txt" ] || fail "a verb wrote its output after a bad value"

# --opt=value equals --opt value, and the option takes effect.
out=$("$H" book build --max-ply=1 --from="$REC" "$T/b1.db" 2>&1); expect_status "build --max-ply=1 --from=REC" 0 $?
expect_contains "build --max-ply=1: the start position only" "$out" "wrote $T/b1.db: 1 positions"
"$H" book build --max-ply 1 --from "$REC" "$T/b1s.db" >/dev/null 2>&1 || fail "build --max-ply 1 --from REC"
cmp -s "$T/b1.db" "$T/b1s.db" || fail "build: --max-ply=1 --from=REC differs from --max-ply 1 --from REC"
out=$("$H" book build --from "$REC" "$T/b4.db" --max-ply 4 --quiet 2>&1); expect_status "build options after OUT" 0 $?
expect_contains "build options after OUT" "$out" "wrote $T/b4.db: 6 positions, 7 moves from 3 games"
out=$("$H" book build "$T/b1.db" 2>&1); expect_status "build without --from" 2 $?

out=$("$H" book minimax --threads=1 --flipped "$YO" "$T/mm1.db" 2>&1); expect_status "minimax --threads=1" 0 $?
expect_contains "minimax --flipped took effect" "$out" "with their mirror"
out=$("$H" book minimax "$YO" "$T/mm2.db" --flipped --threads 1 2>&1); expect_status "minimax IN OUT --flipped" 0 $?
expect_contains "minimax IN OUT --flipped took effect" "$out" "with their mirror"
cmp -s "$T/mm1.db" "$T/mm2.db" || fail "minimax: options after IN OUT give another book"

"$H" book merge --weights=3,1 --policy=sum "$DB" "$YO" "$T/mg1.db" >/dev/null 2>&1 || fail "merge --weights=3,1"
"$H" book merge "$DB" "$YO" --weights 3,1 --policy sum "$T/mg2.db" >/dev/null 2>&1 || fail "merge --weights 3,1"
cmp -s "$T/mg1.db" "$T/mg2.db" || fail "merge: --weights=3,1 differs from --weights 3,1"
"$H" book merge "$DB" "$YO" "$T/mg3.db" >/dev/null 2>&1 || fail "merge without weights"
cmp -s "$T/mg1.db" "$T/mg3.db" && fail "merge: --weights=3,1 had no effect"

out=$("$H" book import-losses --opponent=gps_normal --max-ply=10 "$FG" "$T/il.db" 2>&1)
expect_status "import-losses --opponent=NAME" 0 $?
expect_contains "import-losses --opponent=NAME" "$out" "1 lost games of gps_normal imported, 5 positions rewritten"

"$H" book openings --count=5 --plies=2-3 --seed=7 "$T/op1.txt" >/dev/null 2>&1 || fail "openings --count=5"
"$H" book openings "$T/op2.txt" --count 5 --plies 2-3 --seed 7 >/dev/null 2>&1 || fail "openings OUT --count 5"
cmp -s "$T/op1.txt" "$T/op2.txt" || fail "openings: --count=5 --plies=2-3 --seed=7 differs from the spaced form"
[ "$(grep -c '^startpos moves' "$T/op1.txt")" = 5 ] || fail "openings --count=5 did not write 5 lines"

"$H" tune openings --count=3 --plies=2-3 --nodes=200 --seed=5 "$T/to1.txt" >/dev/null 2>&1 || fail "tune openings --count=3"
"$H" tune openings "$T/to2.txt" --count 3 --plies 2-3 --nodes 200 --seed 5 >/dev/null 2>&1 || fail "tune openings OUT --count 3"
cmp -s "$T/to1.txt" "$T/to2.txt" || fail "tune openings: the --opt=value form differs from the spaced form"
[ "$(grep -c '^startpos moves' "$T/to1.txt")" = 3 ] || fail "tune openings --count=3 did not write 3 lines"

out=$("$H" book records "$REC" --moves 2>&1); expect_status "records FILE --moves" 0 $?
expect_contains "records FILE --moves prints the moves" "$out" "moves 7g7f"

out=$("$H" book info --from=db "$DB" 2>&1); expect_status "info --from=db" 0 $?
expect_contains "info --from=db" "$out" "positions  5"
out=$("$H" book info --from=apery "$DB" 2>&1); expect_status "info --from=apery on a DB2016 book" 1 $?
"$H" book convert --to=sbk "$DB" "$T/conv.bin" >/dev/null 2>&1 || fail "convert --to=sbk"
out=$("$H" book info "$T/conv.bin" 2>&1); expect_contains "convert --to=sbk wrote SBK" "$out" "format     ShogiGUI/ShogiHome SBK"
"$H" book sort "$DB" "$T/sorted.db" --quiet >/dev/null 2>&1 || fail "sort IN OUT --quiet"
out=$("$H" book check "$T/sorted.db" --shogihome-columns 2>&1); expect_status "check FILE --shogihome-columns" 0 $?
"$H" book prune --max-ply=2 "$YO" "$T/pr1.db" >/dev/null 2>&1 || fail "prune --max-ply=2"
"$H" book prune "$YO" "$T/pr2.db" --max-ply 2 >/dev/null 2>&1 || fail "prune IN OUT --max-ply 2"
cmp -s "$T/pr1.db" "$T/pr2.db" || fail "prune: --max-ply=2 differs from IN OUT --max-ply 2"
out=$("$H" book report "$T/b4.db" --records="$REC" --top=2 2>&1); expect_status "report --records=FILE" 0 $?
expect_contains "report --records=FILE" "$out" "3 games"

# lookup: the options come before FILE; the position text after it may hold a lone "-"
# and is never taken for options.
out=$("$H" book lookup --from=db --on-the-fly "$T/sorted.db" sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2 2>&1)
expect_status "lookup --from=db --on-the-fly sfen ... w - 2" 0 $?
expect_contains "lookup sfen with a lone -" "$out" "book entry: "
out=$("$H" book lookup "$DB" startpos moves --quiet 2>&1); expect_status "lookup: an option after FILE is position text" 2 $?
expect_not_contains "lookup: an option after FILE is position text" "$out" "unrecognized option"

# "--" ends the options: files named like options.
cp "$DB" "$T/--quiet"
cp "$REC" "$T/--moves.csa"
(
    failures=0
    cd "$T" || exit 1
    out=$("$H" book info -- --quiet 2>&1); expect_status "info -- --quiet" 0 $?
    expect_contains "info -- --quiet reads the file --quiet" "$out" "file       --quiet"
    out=$("$H" book minimax --threads=1 -- --quiet --flipped 2>&1); expect_status "minimax -- --quiet --flipped" 0 $?
    [ -s ./--flipped ] || fail "minimax -- IN --flipped did not write the book named --flipped"
    expect_not_contains "minimax after --: --flipped is a file" "$out" "mirror"
    out=$("$H" book build --from -- --moves.csa --max-ply 2>&1); expect_status "build --from -- --moves.csa --max-ply" 0 $?
    [ -s ./--max-ply ] || fail "build -- did not write the book named --max-ply"
    out=$("$H" book records -- --moves.csa 2>&1); expect_status "records -- --moves.csa" 0 $?
    expect_not_contains "records -- --moves.csa: no moves printed" "$out" "moves 7g7f"
    expect_contains "records -- --moves.csa read the file" "$out" "--moves.csa:"
    exit "$failures"
) || failures=$((failures + $?))

# --log - is the standard error (util/log_file.h), never a file named "-": the dialogue
# goes to stderr, the game lines to stdout. On a terminal the game lines are then plain
# lines, not the one redrawn line the log would land in (docs/match.md).
mkdir "$T/logdash"
(cd "$T/logdash" && "$H" match --engine "$H" --engine "$H" --games 1 --nodes 50 --max-moves 6 --log - \
    > out 2> err)
expect_status "match --log -" 0 $?
[ -e "$T/logdash/-" ] && fail "match --log - made a file named -"
expect_contains "match --log -: the dialogue on stderr" "$(cat "$T/logdash/err")" " e1 > usi"
expect_not_contains "match --log -: no dialogue on stdout" "$(cat "$T/logdash/out")" " e1 > usi"
expect_contains "match --log -: the game on stdout" "$(cat "$T/logdash/out")" "game 1/1:"
if command -v script > /dev/null; then
    (cd "$T/logdash" && script -qec "'$H' match --engine '$H' --engine '$H' --games 1 --nodes 50 --max-moves 6 \
        --log -" /dev/null > tty.out 2>&1)
    expect_status "match --log - on a terminal" 0 $?
    expect_contains "match --log - on a terminal: the dialogue" "$(cat "$T/logdash/tty.out")" " e1 > usi"
    grep -q "^game 1/1:" "$T/logdash/tty.out" || fail "match --log - on a terminal: the game line is not a line of its own"
    expect_not_contains "match --log - on a terminal: no redrawn line" "$(cat "$T/logdash/tty.out")" "[1/1 done]"
fi
[ -e "$T/logdash/-" ] && fail "match --log - on a terminal made a file named -"
# On a terminal a warning during the match (here: the record cannot be rewritten, its path
# turned into a directory after the first game) is a line of its own, not the end of the
# redrawn game line. The screen's lines are the output cut at \r and \n.
if command -v script > /dev/null; then
    mkdir "$T/warnline"
    # 20 games: the record must be turned into a directory while games are still to come,
    # which a loaded machine may delay by several games (4 were once too few)
    (cd "$T/warnline" && script -qec "'$H' match --engine '$H' --engine '$H' --games 20 --nodes 3000 --max-moves 40 \
        --out rec.csa" /dev/null > tty.out 2>&1) &
    pid=$!
    for _ in $(seq 1 1500); do [ -f "$T/warnline/rec.csa" ] && break; sleep 0.02; done
    # the match may rewrite the record between the rm and the mkdir (a loaded machine):
    # again until the directory is there, after which no rewrite can replace it
    for _ in $(seq 1 100); do
        rm -f "$T/warnline/rec.csa"
        mkdir "$T/warnline/rec.csa" 2> /dev/null && break
    done
    wait $pid
    tr '\r' '\n' < "$T/warnline/tty.out" > "$T/warnline/lines"
    grep -q "writing rec.csa: .*retried after every game" "$T/warnline/lines" ||
        fail "match on a terminal: no warning about the record: $(head -c 600 "$T/warnline/tty.out")"
    grep "writing rec.csa" "$T/warnline/lines" | grep -q "done\]" &&
        fail "match on a terminal: the warning shares the game line: $(grep "writing rec.csa" "$T/warnline/lines" | head -1)"
fi
finish
