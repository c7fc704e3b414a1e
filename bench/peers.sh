#!/usr/bin/env bash
# bench/peers.sh - Hayanagi side by side with YaneuraOu (or fairy-stockfish): perft and
# fixed-depth search rates per CPU-second of each engine, medians, ratios, the machine's
# core count and load (bench/peers_driver.c does the measuring). Run by `make bench`.
#
#   YANEURAOU_DIR=/path/to/YaneuraOu bench/peers.sh
#
# YaneuraOu is built from the local checkout named by YANEURAOU_DIR (the project never
# downloads it): the material-only edition with g++, AVX2 and LTO, niced, in its own
# source/ directory (make is incremental, so a built checkout is reused). Without
# YANEURAOU_DIR, /usr/games/fairy-stockfish is the yardstick; without either, only our own
# rates are printed.
# Settings: PEERS_RUNS (3), PEERS_SEARCH_DEPTH (9), HAYANAGI (build/hayanagi),
# PEERS_DRIVER (build/rel/bench/peers_driver).
set -eu
hayanagi=${HAYANAGI:-build/hayanagi}
driver=${PEERS_DRIVER:-build/rel/bench/peers_driver}
runs=${PEERS_RUNS:-3}
depth=${PEERS_SEARCH_DEPTH:-9}
peer=()
if [ -n "${YANEURAOU_DIR:-}" ]; then
    src=$YANEURAOU_DIR/source
    if [ ! -f "$src/Makefile" ]; then
        echo "peers.sh: YANEURAOU_DIR=$YANEURAOU_DIR has no source/Makefile" >&2
        exit 1
    fi
    echo "building YaneuraOu (material edition) in $src ..."
    (cd "$src" && nice make -j"$(nproc)" normal YANEURAOU_EDITION=YANEURAOU_ENGINE_MATERIAL TARGET_CPU=AVX2 \
        COMPILER=g++ >"${TMPDIR:-/tmp}/hayanagi_peers_yaneuraou_build.log" 2>&1) || {
        echo "peers.sh: the YaneuraOu build failed, see ${TMPDIR:-/tmp}/hayanagi_peers_yaneuraou_build.log" >&2
        exit 1
    }
    peer=("yaneuraou=$src/YaneuraOu-by-gcc")
elif [ -x /usr/games/fairy-stockfish ]; then
    peer=("fairy-stockfish=/usr/games/fairy-stockfish")
else
    echo "(no YANEURAOU_DIR and no /usr/games/fairy-stockfish: our rates only)"
fi
exec "$driver" --runs="$runs" --search-depth="$depth" "hayanagi=$hayanagi usi" "${peer[@]}"
