#!/usr/bin/env bash
# layers.sh - fails when an #include in src/ points up the layers (docs/architecture.md).
#
# Every folder of src/ is one layer, with its subfolders (src/cli/book/ is layer cli; the
# order of calls inside src/cli is tests/lint/cli_graph.sh's). A file in layer L may include
# headers of L itself and of the layers listed for L below, nothing else. Read the table
# bottom-up:
#
#   util, proto        the bottom: generic helpers, generated Protocol Buffers code
#   shogi              rules, positions, moves
#   eval               evaluations (classic, NNUE)            <- shogi
#   search             alpha-beta, mate search, TT            <- eval <- shogi
#   mcts               PV-MCTS tree and providers             <- search
#   record             game records (KIF, CSA)                <- shogi
#   book               book formats, IR, selection            <- shogi (never record or search)
#   usi                the engine: USI loop and formatter     <- mcts, search, book
#   bookgen            book making                            <- book, record, mcts, search
#   match, tune        applications                           <- anything below them
#   csa                the CSA client: protocol, clock, game  <- match, record, shogi
#   cli                the command line                       <- everything
#
# A few headers are narrower than their layer: eval/nnue.h (the NNUE file format and its
# incremental stack) is for eval/ and the places that load a net (usi, cli, tune); search
# reaches NNUE only through eval/eval.h.
#
# Usage: tests/lint/layers.sh [SRC_DIR]   (exit 0 when clean, 1 with one line per violation)
set -u
src=${1:-src}

allowed() { # $1 = layer: prints the layers it may include
    case $1 in
    util | proto) echo "util" ;;
    shogi) echo "util" ;;
    eval) echo "shogi util" ;;
    search) echo "eval shogi util" ;;
    mcts) echo "search eval shogi util" ;;
    record) echo "shogi util" ;;
    book) echo "shogi util proto" ;;
    usi) echo "mcts search eval book shogi util proto" ;;
    bookgen) echo "match book record mcts search eval shogi util proto" ;;
    match) echo "book record shogi util proto" ;;
    csa) echo "match record shogi util" ;;
    tune) echo "match usi bookgen book record mcts search eval shogi util proto" ;;
    cli) echo "csa tune match usi bookgen book record mcts search eval shogi util proto" ;;
    *) echo "?" ;;
    esac
}

# Headers only some layers may include, whatever the table says: "header: layers".
narrow_rules=(
    "eval/nnue.h: eval usi cli tune"
)

bad=0
while IFS= read -r file; do
    rel=${file#"$src"/}
    layer=${rel%%/*}
    ok=$(allowed "$layer")
    if [ "$ok" = "?" ]; then
        echo "$file: folder '$layer' has no row in tests/lint/layers.sh; add one"
        bad=1
        continue
    fi
    while IFS=: read -r line inc; do
        target=${inc%%/*}
        [ "$target" = "$inc" ] && continue # same-folder include without a prefix
        if [ "$target" != "$layer" ] && [[ " $ok " != *" $target "* ]]; then
            echo "$file:$line: layer '$layer' includes \"$inc\" (may include: $ok)"
            bad=1
        fi
        for rule in "${narrow_rules[@]}"; do
            hdr=${rule%%:*}
            who=${rule#*: }
            if [ "$inc" = "$hdr" ] && [[ " $who " != *" $layer "* ]]; then
                echo "$file:$line: layer '$layer' includes \"$inc\" (only $who may)"
                bad=1
            fi
        done
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
        sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done < <(find "$src" -name '*.[ch]' | sort)
if [ "$bad" -ne 0 ]; then
    echo "layers: includes point up the layers (table in tests/lint/layers.sh, docs/architecture.md)"
    exit 1
fi
echo "layers: ok"
