#!/usr/bin/env bash
# Prints the recap that ends `make test`: each flavour's count (written by run_tests.sh
# into build/logs/summary.LABEL), then "total: N passed, N failed" as the last line.
# Usage: tests/summarize.sh LABEL...
set -u
tp=0; tf=0; parts=()
for label in "$@"; do
    f=build/logs/summary.$label
    if [ ! -r "$f" ]; then echo "summarize: no summary for $label ($f)" >&2; exit 1; fi
    read -r p fl < "$f"
    parts+=("$label $p/$((p + fl))")
    tp=$((tp + p)); tf=$((tf + fl))
done
echo "make test: ${parts[*]} (passed/run per flavour)"
echo "total: $tp passed, $tf failed"
[ "$tf" -eq 0 ]
