#!/usr/bin/env bash
# The bench signature (total nodes of `hayanagi bench` at its default depth, Threads 1) is
# pinned in tests/bench_signature.txt. A change of search or evaluation that changes it
# must update the pin in the same commit and say "Bench: N" in the commit message, so a
# change meant to be neutral (a refactoring) is caught here.
. "$(dirname "$0")/lib.sh"
pin_file="$(dirname "$0")/../bench_signature.txt"
pin=$(tr -d ' \n' < "$pin_file")
case "$pin" in '' | *[!0-9]*) fail "$pin_file does not hold one number: '$pin'"; finish ;; esac

out=$("$HAYANAGI" bench 2>&1); expect_status "hayanagi bench" 0 $?
last=$(echo "$out" | tail -1)
expect_contains "bench prints its signature last" "$last" "signature "
got=${last#signature }
[ "$got" = "$pin" ] || fail "bench signature $got, pinned $pin (tests/bench_signature.txt): update the pin only for a deliberate change"

# The command-line verb and the USI command print the same signature.
usi=$(printf 'bench\nquit\n' | "$HAYANAGI" 2>&1 | tail -1)
[ "$usi" = "signature $pin" ] || fail "the USI bench printed '$usi', not 'signature $pin'"

# Usage errors are refused with status 2.
"$HAYANAGI" bench --depth=0 > /dev/null 2>&1; expect_status "bench --depth=0" 2 $?
"$HAYANAGI" bench extra > /dev/null 2>&1; expect_status "bench extra" 2 $?
finish
