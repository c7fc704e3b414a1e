#!/usr/bin/env bash
# Ctrl-C while a book verb writes its output (docs/book_making.md, "Output files"): build,
# merge, minimax, think, import-losses and convert to SBK must leave the previous output
# byte for byte and no temporary file behind. The inputs are large enough that the write
# lasts a while; the interrupt is sent once the temporary file is open, i.e. while the
# writer runs. SIGKILL in the middle of a write, which no handler sees, leaves nothing
# either: the temporary file has no name until the commit (util/atomic_file.h).
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
        if writing_output "$pid" "$out"; then seen=1; break; fi
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
# kill_mid_write NAME OUT COMMAND...: the run is stopped (SIGSTOP) once its output's
# temporary file is open, then killed (SIGKILL): OUT keeps its bytes and nothing new is in
# its directory (no OUT.tmp.<pid>.<n>). A run whose write went by between two looks is
# run again (up to 5 times).
kill_mid_write() {
    local name=$1 out=$2 pid seen=0 st
    shift 2
    cp "$out" "$T/before"
    ls -A "$(dirname "$out")" > "$T/listing_before"
    for _ in 1 2 3 4 5; do
        "$@" >/dev/null 2>&1 &
        pid=$!
        while kill -0 "$pid" 2>/dev/null; do
            if writing_output "$pid" "$out"; then
                kill -STOP "$pid"
                seen=1
                break
            fi
            sleep 0.005
        done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null; st=$?
        [ "$seen" = 1 ] && break
        cp "$T/before" "$out"
    done
    [ "$seen" = 1 ] || fail "$name: the write was never seen (the command ended with $st)"
    cmp -s "$out" "$T/before" || fail "$name: the previous output was changed"
    ls -A "$(dirname "$out")" | diff "$T/listing_before" - >/dev/null ||
        fail "$name: SIGKILL left a file behind: $(ls -A "$(dirname "$out")" | diff "$T/listing_before" - | grep '^>')"
}
kill_mid_write "convert, SIGKILL" "$T/out.db" "$HAYANAGI" book convert "$T/big.db" "$T/out.db"
kill_mid_write "sort, SIGKILL" "$T/out.db" "$HAYANAGI" book sort "$T/big.db" "$T/out.db"

cp "$T/big.db" "$T/losses.db"
interrupt "import-losses" "$T/losses.db" "$HAYANAGI" book import-losses --opponent nobody "$T/games.sfen" "$T/losses.db"
finish
