#!/usr/bin/env bash
# Ctrl-C while a book verb writes its output (docs/book_making.md, "Output files"): build,
# merge, minimax, think, import-losses and convert to SBK must leave the previous output
# byte for byte and no OUT.tmp.<pid>.<n> behind. The inputs are large enough that the
# write lasts a while; the interrupt is sent once the temporary file exists, i.e. while the
# writer runs.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/hayanagi_book_interrupt.XXXXXX)
trap 'rm -rf "$T"' EXIT

# The sanitized build is several times slower: smaller inputs still take a while to write.
if [ -n "${HAYANAGI_SANITIZED:-}" ]; then positions=50000 games=5000; else positions=200000 games=20000; fi
"$HAYANAGI" book gen-synthetic $positions "$T/big.db" >/dev/null 2>&1 || fail "gen-synthetic"
"$HAYANAGI" book openings --count $games --plies 30-40 --seed 7 "$T/games.sfen" >/dev/null 2>&1 || fail "openings"
cp "$T/big.db" "$T/big_copy.db"

# interrupt NAME OUT COMMAND...: OUT holds the previous output (kept aside to compare).
interrupt() {
    local name=$1 out=$2 pid seen=0 st
    shift 2
    cp "$out" "$T/before"
    "$@" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 30000); do
        if ls "$out".tmp.* >/dev/null 2>&1; then seen=1; break; fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
    done
    kill -INT "$pid" 2>/dev/null
    wait "$pid"; st=$?
    [ "$seen" = 1 ] || fail "$name: the temporary file was never seen (the command ended with $st)"
    [ "$st" != 0 ] || fail "$name: exit status 0 after Ctrl-C"
    cmp -s "$out" "$T/before" || fail "$name: the previous output was changed"
    ls "$out".tmp.* >/dev/null 2>&1 && fail "$name: a temporary file was left behind"
}

echo "previous content" > "$T/out.db"
echo "previous content" > "$T/out.sbk"
interrupt "build" "$T/out.db" "$HAYANAGI" book build --from "$T/games.sfen" "$T/out.db"
interrupt "merge" "$T/out.db" "$HAYANAGI" book merge "$T/big.db" "$T/big_copy.db" "$T/out.db"
interrupt "minimax" "$T/out.db" "$HAYANAGI" book minimax "$T/big.db" "$T/out.db"
interrupt "think" "$T/out.db" "$HAYANAGI" book think "$T/big.db" "$T/out.db" --nodes 1 --multipv 1 --max-positions 1
interrupt "convert --to sbk" "$T/out.sbk" "$HAYANAGI" book convert --to sbk "$T/big.db" "$T/out.sbk"
cp "$T/big.db" "$T/losses.db"
interrupt "import-losses" "$T/losses.db" "$HAYANAGI" book import-losses --opponent nobody "$T/games.sfen" "$T/losses.db"
finish
