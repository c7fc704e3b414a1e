# Shared helpers for the end-to-end scripts: source it, then call check/expect_*.
# $HAYANAGI is the binary under test (set by the Makefile).
set -u
HAYANAGI=${HAYANAGI:-build/hayanagi}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect_contains NAME OUTPUT NEEDLE
expect_contains() { case "$2" in *"$3"*) ;; *) fail "$1: expected '$3' in output:"; echo "$2" | head -20;; esac; }
expect_not_contains() { case "$2" in *"$3"*) fail "$1: did not expect '$3' in output";; esac; }
# expect_status NAME WANT GOT
expect_status() { [ "$2" = "$3" ] || fail "$1: exit status $3, expected $2"; }
finish() { if [ "$failures" -eq 0 ]; then echo "ok"; exit 0; else echo "$failures failure(s)"; exit 1; fi; }
