#!/usr/bin/env bash
# Release hygiene (README.md): the licence, --version and the version in id name,
# `make install PREFIX=...` giving an engine that finds its book from any directory,
# `make run` keeping make's own output off the engine's stdout, tests/e2e/lib.sh not
# counted as a test, and the option defaults the docs state agreeing with the engine's.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
run() { timeout 60 "$HAYANAGI"; }
# The nested makes start clean of the outer make's flags (its jobserver, its level).
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$ROOT" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Licence and version.
[ -s "$ROOT/LICENSE" ] && grep -q "GNU GENERAL PUBLIC LICENSE" "$ROOT/LICENSE" && grep -q "Version 3" "$ROOT/LICENSE" ||
    fail "LICENSE: the GPL version 3 text"
grep -q "GPL-3.0-or-later" "$ROOT/README.md" || fail "README.md states the licence (GPL-3.0-or-later)"
version=$("$HAYANAGI" --version | head -1)
echo "$version" | grep -Eq '^hayanagi [0-9]+\.[0-9]+\.[0-9]+$' || fail "--version: got '$version'"
out=$(printf 'usi\n' | run)
expect_contains "id name carries the version" "$out" "id name Hayanagi ${version#hayanagi }"

# make run: stdout holds the engine's lines only (make's messages go to stderr).
out=$(printf 'usi\nquit\n' | mk run 2>/dev/null)
expect_contains "make run: the engine answered" "$out" "usiok"
other=$(echo "$out" | grep -Ev '^(id |option |usiok$)')
[ -z "$other" ] || fail "make run: non-engine lines on stdout: $(echo "$other" | head -3)"

# make install with a temporary PREFIX: the engine runs from elsewhere and plays from its book.
mk install PREFIX="$tmp/prefix" > "$tmp/install.log" 2>&1 || { fail "make install"; cat "$tmp/install.log"; }
[ -x "$tmp/prefix/bin/hayanagi" ] || fail "make install: no bin/hayanagi"
out=$(cd / && printf '%s\n' isready "position startpos" "go btime 60000 wtime 60000" |
      timeout 60 "$tmp/prefix/bin/hayanagi")
expect_contains "installed: book loaded" "$out" "info string book loaded"
expect_contains "installed: book hit" "$out" "info string book hit"
expect_contains "installed: version" "$(cd / && "$tmp/prefix/bin/hayanagi" --version)" "$version"
mk uninstall PREFIX="$tmp/prefix" > /dev/null 2>&1 || fail "make uninstall"
[ -e "$tmp/prefix/bin/hayanagi" ] && fail "make uninstall left bin/hayanagi"

# tests/run_tests.sh counts the scripts, not their helper library.
mkdir -p "$tmp/rt/clone/tests/e2e" "$tmp/rt/shared/refdata"
cp "$ROOT/tests/e2e/lib.sh" "$tmp/rt/clone/tests/e2e/"
printf '#!/usr/bin/env bash\nexit 0\n' > "$tmp/rt/clone/tests/e2e/trivial.sh"
summary=$(cd "$tmp/rt/clone" && bash "$ROOT/tests/run_tests.sh" probe | tail -1)
[ "$summary" = "probe: 1 passed, 0 failed" ] || fail "run_tests.sh counted lib.sh: '$summary'"

# Option defaults stated in the docs agree with the engine's `usi` answer: the option
# tables (one column of names, one of defaults, as many of each) and the prose forms
# "`Name` (default `value`" and "default `Name value`".
defaults=$(printf 'usi\n' | run | sed -n 's/^option name \([^ ]*\) type [a-z]* default \([^ ]*\).*/\1=\2/p')
checked=0
check_default() { # NAME VALUE WHERE
    local want
    want=$(echo "$defaults" | sed -n "s/^$1=//p")
    [ -n "$want" ] || { fail "$3: '$1' is no option of the engine"; return; }
    [ -n "${DEBUG_DOCS:-}" ] && echo "check $3 $1=$2"
    [ "$want" = "$2" ] || fail "$3: says $1 defaults to '$2', the engine says '$want'"
    checked=$((checked + 1))
}
for doc in docs/usi.md docs/mcts.md; do
    rows=$(awk -F'|' '
        /^\| *option *\|/ { col = 0; for (i = 2; i < NF; i++) if ($i ~ /^ *default *$/) col = i; next }
        col && /^\|[-| ]*$/ { next }
        col && /^\|/ { print $2 "\t" $col; next }
        { col = 0 }' "$ROOT/$doc" | tr -d '`')
    while IFS=$'\t' read -r names values; do
        IFS=',' read -ra n <<< "$names"
        IFS=',' read -ra v <<< "$values"
        [ "${#n[@]}" = "${#v[@]}" ] || continue # a summary row ("as YaneuraOu, except ...")
        for i in "${!n[@]}"; do
            check_default "$(echo ${n[$i]})" "$(echo ${v[$i]})" "$doc"
        done
    done <<< "$rows"
done
# Prose, with line breaks flattened; names that are no option of ours (another engine's)
# are skipped here.
for doc in README.md docs/*.md book/README.md; do
    flat=$(tr '\n' ' ' < "$ROOT/$doc")
    while IFS=$'\t' read -r name value; do
        echo "$defaults" | grep -q "^$name=" && check_default "$name" "$value" "$doc"
    done < <(echo "$flat" | grep -o '`[A-Za-z_]*` (default `\{0,1\}[^`,) ]*' |
             sed 's/^`\([A-Za-z_]*\)` (default `\{0,1\}\(.*\)$/\1\t\2/'
             echo "$flat" | grep -Eo 'default +`[A-Z][A-Za-z_]* [^` ]*`' |
             sed -E 's/^default +`([A-Za-z_]*) ([^`]*)`$/\1\t\2/')
done
[ "$checked" -ge 31 ] || fail "only $checked documented defaults found to compare"
echo "compared $checked documented option defaults"
finish
