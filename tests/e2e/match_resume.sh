#!/usr/bin/env bash
# match --resume never loses what the record holds (docs/match.md, "Records"): resumed with
# an engine that exits at once (`false`), a record with one finished and one interrupted
# game, one whose finished game lost its 'summary line, and a CRLF copy all stay byte for
# byte; a real resume replays the interrupted game and keeps the finished one as written.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/hayanagi_match_resume.XXXXXX)
trap 'rm -rf "$T"' EXIT

"$HAYANAGI" match --engine "$HAYANAGI" --engine "$HAYANAGI" --games 2 --nodes 100 --max-moves 30 \
    --out "$T/full.csa" >/dev/null 2>&1
expect_status "make a record" 0 $?
[ "$(grep -c "^'summary:" "$T/full.csa")" = 2 ] || fail "the record does not hold two finished games"
# game 2 interrupted: its end and summary become %CHUDAN
awk 'BEGIN { g = 1 } /^\/$/ { g = 2 } g == 2 && /^%/ { print "%CHUDAN"; skip = 1; next } skip { next } { print }' \
    "$T/full.csa" > "$T/chudan.csa"
grep -q '^%CHUDAN$' "$T/chudan.csa" || fail "could not make the interrupted game"
grep -v "^'summary:" "$T/chudan.csa" > "$T/nosummary.csa"
sed 's/$/\r/' "$T/full.csa" > "$T/crlf.csa"

for name in chudan nosummary crlf; do
    cp "$T/$name.csa" "$T/$name.before"
    out=$("$HAYANAGI" match --engine false --engine false --games 2 --nodes 100 --out "$T/$name.csa" --resume 2>&1)
    expect_not_contains "$name: read" "$out" "not a record"
    cmp -s "$T/$name.csa" "$T/$name.before" || fail "$name: the record changed though no game finished ($(wc -c < "$T/$name.before") -> $(wc -c < "$T/$name.csa") bytes)"
done
out=$("$HAYANAGI" match --engine false --engine false --games 2 --nodes 100 --out "$T/crlf.csa" --resume 2>&1)
expect_contains "crlf: both games counted" "$out" "Resuming: 2 of 2 games read back"

# A real resume plays the interrupted game again; the finished one stays as written.
out=$("$HAYANAGI" match --engine "$HAYANAGI" --engine "$HAYANAGI" --games 2 --nodes 100 --max-moves 30 \
    --out "$T/chudan.csa" --resume 2>&1)
expect_status "resume" 0 $?
expect_contains "resume read back" "$out" "Resuming: 1 of 2 games read back"
[ "$(grep -c "^'summary:" "$T/chudan.csa")" = 2 ] || fail "resume: two finished games expected"
grep -q '^%CHUDAN$' "$T/chudan.csa" && fail "resume: the interrupted game was not replaced"
n=$(grep -n '^/$' "$T/chudan.before" | cut -d: -f1)
head -n "$n" "$T/chudan.before" | cmp -s - <(head -n "$n" "$T/chudan.csa") || fail "resume: game 1 was not kept as written"
finish
