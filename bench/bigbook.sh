#!/usr/bin/env bash
# bench/bigbook.sh - books larger than memory (issue #41): a synthetic book of N positions
# made, sorted, merged and minimaxed under `--memory`, each verb timed (wall, CPU, peak RSS),
# beside YaneuraOu's `makebook peta_shock` on the same merged book when a YaneuraOu binary
# is given.
#
# Usage: bench/bigbook.sh [N] [DIR]
#   N     positions (default 1000000; the issue's size is 100000000, about 16 GB of text
#         per copy, 45 GB of disk at the peak and about an hour of one core)
#   DIR   work directory (default /tmp/hayanagi_bigbook); the books stay there
# Environment:
#   HAYANAGI   the binary (default build/hayanagi)
#   MEMORY     the --memory of every verb (default 4G)
#   PARTS      the book is generated in PARTS pieces of N/PARTS positions, each with its
#              own seed (default 10; `book gen-synthetic` holds its book in memory)
#   PETA       a YaneuraOu binary with the makebook commands, built with 128-bit keys
#              (docs/book_making.md, "Benchmarks"); unset: peta_shock is skipped
#
# The steps, each skipped when its output is already there (so an interrupted run resumes;
# every output is written atomically, so none is ever half there; a run with another
# binary or other sizes starts over):
#   1. gen:     PARTS books of N/PARTS positions (seeds 1..PARTS), each sorted;
#   2. cat:     parts 1..PARTS/2 concatenated into A, the rest into B: two unsorted books
#               (the first plies of the random playouts repeat across parts);
#   3. sort:    A and B sorted under --memory;
#   4. merge:   the two sorted halves merged under --memory into M (about N positions);
#   5. minimax: M minimaxed under --memory into MM;
#   6. probe:   build/rel/bench/bench_book on MM with BOOK_BENCH_FILE (on the fly);
#   7. peta_shock of M by YaneuraOu, in memory (it has no out-of-core mode).
set -eu
N=${1:-1000000}
DIR=${2:-/tmp/hayanagi_bigbook}
H=${HAYANAGI:-$(pwd)/build/hayanagi}
MEMORY=${MEMORY:-4G}
PARTS=${PARTS:-10}
H=$(cd "$(dirname "$H")" && pwd)/$(basename "$H")
mkdir -p "$DIR"
cd "$DIR"
# a run resumes only what the same binary started with the same sizes; else DIR starts over
# (only a DIR this script made, holding its stamp, is ever emptied: never a user's folder)
stamp="$N $MEMORY $PARTS $(sha256sum < "$H" | cut -c1-16)"
if [ -e stamp ]; then
    [ "$(cat stamp)" = "$stamp" ] || rm -f ./*.db ./*.time ./*.out
elif [ -n "$(ls -A)" ]; then
    echo "bigbook: $DIR holds files this script did not make; give it a new or empty directory" >&2
    exit 1
fi
echo "$stamp" > stamp

cores=$(nproc)
echo "bigbook: N=$N positions, --memory $MEMORY, $PARTS parts, $cores cores, load $(cut -d' ' -f1-3 /proc/loadavg), in $DIR ($(df -h . | awk 'NR==2 {print $4}') free)"

# measure NAME CMD...: runs CMD under /usr/bin/time and prints one line:
# wall seconds, CPU seconds (user + sys), peak RSS in MB, load before.
measure() {
    local name=$1
    shift
    local load
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S %M" -o "$name.time" "$@" > "$name.out" 2>&1 || {
        echo "bigbook: $name failed:" >&2
        tail -5 "$name.out" >&2
        exit 1
    }
    read -r wall user sys rss < "$name.time"
    awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v l="$load" \
        'BEGIN { printf "%-22s %9.1f s wall %9.1f s CPU (%.1f user + %.1f sys) %8.1f MB peak RSS  load %s\n", n, w, u + s, u, s, r / 1024, l }'
}

size_of() { stat -c %s "$1" | awk '{ printf "%.2f GB", $1 / 1e9 }'; }

# 1. the parts
per=$((N / PARTS))
for i in $(seq 1 "$PARTS"); do
    [ -e "part$i.db" ] || [ -e A.db ] || [ -e As.db ] || [ -e M.db ] || measure "gen part $i" "$H" book gen-synthetic "$per" "part$i.db" "$i"
done

# 2. two unsorted halves (header once, then the bodies)
half=$((PARTS / 2))
if [ ! -e M.db ] && [ ! -e As.db ]; then
    for h in A B; do
        [ -e "$h.db" ] && continue
        if [ "$h" = A ]; then list=$(seq 1 "$half"); else list=$(seq $((half + 1)) "$PARTS"); fi
        {
            head -1 part1.db
            for i in $list; do tail -n +2 "part$i.db"; done
        } > "$h.db.tmp"
        mv "$h.db.tmp" "$h.db"
        echo "bigbook: $h.db $(size_of "$h.db"), $(grep -c '^sfen' "$h.db") entries"
    done
    [ -e P1.db ] || mv part1.db P1.db
    rm -f part*.db
fi

# 3. sort each half out of core
for h in A B; do
    [ -e M.db ] || [ -e "${h}s.db" ] || measure "sort $h" "$H" book sort --memory "$MEMORY" --tmpdir . "$h.db" "${h}s.db"
    [ -e "${h}s.db" ] && rm -f "$h.db"
done

# 4. merge the two sorted halves
[ -e M.db ] || measure "merge A B" "$H" book merge --memory "$MEMORY" --tmpdir . --quiet As.db Bs.db M.db
rm -f As.db Bs.db
echo "bigbook: M.db $(size_of M.db): $(tail -1 "merge A B.out" 2> /dev/null || true)"

# 5. minimax out of core
[ -e MM.db ] || measure "minimax" "$H" book minimax --memory "$MEMORY" --tmpdir . --quiet M.db MM.db
echo "bigbook: MM.db $(size_of MM.db): $(tail -1 minimax.out 2> /dev/null || true)"

# 6. a probe's time on the file, on the fly
probe=${BENCH_BOOK:-$(dirname "$H")/rel/bench/bench_book}
if [ -x "$probe" ]; then
    BOOK_BENCH_FILE=$DIR/MM.db "$probe" || echo "bigbook: bench_book on MM.db failed" >&2
fi

# 7. beside YaneuraOu's peta_shock, which works in memory (about 1.7 KB a position: 10^8
#    would take some 170 GB), on the first part (N/PARTS positions): our minimax --converge
#    (what peta_shock does: negamax over the graph, converging moves added) streamed, and
#    out of core under a --memory a fifth of the part's file
if [ -n "${PETA:-}" ]; then
    pm=$(( $(stat -c %s P1.db) / 5 / 1048576 )); [ "$pm" -ge 4 ] || pm=4; pm=${pm}M
    measure "minimax --converge P1" "$H" book minimax --converge --quiet P1.db P1_mm.db
    measure "... --memory $pm" "$H" book minimax --converge --memory "$pm" --tmpdir . --quiet P1.db P1_mm_ooc.db
    cmp -s P1_mm.db P1_mm_ooc.db && echo "bigbook: the two P1 outputs are identical" || echo "bigbook: the two P1 outputs DIFFER" >&2
    measure "peta_shock P1 (YaneuraOu)" "$PETA" "setoption name BookDir value $DIR" , \
        "setoption name FlippedBook value false" , "makebook peta_shock P1.db P1_peta.db" , quit
    grep -a -E "write book nodes|converged_moves" "peta_shock P1 (YaneuraOu).out" | tr -s ' ' | paste -sd ' '
    awk -v a="$(cut -d' ' -f2,3 "minimax --converge P1.time")" -v b="$(cut -d' ' -f2,3 "peta_shock P1 (YaneuraOu).time")" \
        'BEGIN { split(a, x, " "); split(b, y, " "); printf "bigbook: CPU ratio Hayanagi streamed / peta_shock on P1: %.2f\n", (x[1] + x[2]) / (y[1] + y[2]) }'
    rm -f P1_mm.db P1_mm_ooc.db P1_peta.db
fi
