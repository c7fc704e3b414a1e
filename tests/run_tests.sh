#!/usr/bin/env bash
# Runs the cmocka test binaries given as arguments, then every end-to-end script in
# tests/e2e/ against $HAYANAGI, and prints "LABEL: N passed, N failed" last, counting
# cmocka tests one by one and each end-to-end script as one test.
# Usage: tests/run_tests.sh LABEL [--no-e2e] BINARY...
set -u
label=$1; shift
e2e=1
if [ "${1:-}" = --no-e2e ]; then e2e=0; shift; fi
# Many tests compare against files other programs made, kept beside the clone.
if [ ! -d ../shared/refdata ]; then
    echo "$label: ../shared/refdata not found (from $(pwd)): the tests read the reference files there;" >&2
    echo "clone Hayanagi into a directory next to shared/ (see ../shared/refdata/SOURCES.md)." >&2
    exit 1
fi
passed=0; failed=0; failures=()
mkdir -p build/logs
run_one() { # $1 = log name, rest = command
    local log="build/logs/$1.$label.log"; shift
    if "$@" > "$log" 2>&1; then status=0; else status=1; fi
    local p f
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    if [ -n "$p" ] || [ -n "$f" ]; then
        passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
        if [ "$status" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then failed=$((failed + 1)); fi
    elif [ "$status" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    if [ "$status" -ne 0 ]; then failures+=("$log"); cat "$log"; fi
}
for t in "$@"; do run_one "$(basename "$t")" "$t"; done
# lib.sh holds the scripts' shared helpers: it is no test.
[ "$e2e" = 1 ] && for t in tests/e2e/*.sh; do
    [ -e "$t" ] && [ "$(basename "$t")" != lib.sh ] && run_one "$(basename "$t" .sh)" bash "$t"
done
for f in "${failures[@]+"${failures[@]}"}"; do echo "FAILED (log: $f)"; done
echo "$label: $passed passed, $failed failed"
echo "$passed $failed" > "build/logs/summary.$label"
[ "$failed" -eq 0 ]
