#!/usr/bin/env bash
# cli_graph.sh - fails when the files of src/cli call or include each other in a circle
# (docs/architecture.md, "The command line").
#
# src/cli has three kinds of files:
#   entry headers   commands.h (the commands of `hayanagi`) and book/verbs.h (the verbs of
#                   `hayanagi book`): they declare the entry points, int NAME(int, char **)
#   dispatchers     main.c and book/verbs.c (the verb table): the only files that call an
#                   entry point defined in another file
#   verb files      the .c files defining an entry point: they include the helpers' headers
#                   (and their own entry header), and call no other file's entry point
#   helpers         every other file (io.c/.h, options.c/.h, engines.c/.h, ...): they include
#                   no entry header and call no entry point
# With these rules the calls go one way: dispatcher -> verb -> helper.
#
# Usage: tests/lint/cli_graph.sh [SRC_DIR]   (exit 0 when clean, 1 with one line per problem)
set -u
src=${1:-src}
cli=$src/cli
entry_headers=("cli/commands.h" "cli/book/verbs.h")
dispatchers=("$cli/main.c" "$cli/book/verbs.c")

bad=0
complain() {
    echo "$1"
    bad=1
}

# The entry points, and the file defining each.
declare -A defined_in
for h in "${entry_headers[@]}"; do
    [ -f "$src/$h" ] || {
        complain "$src/$h: missing (tests/lint/cli_graph.sh names it as an entry header)"
        continue
    }
    while IFS= read -r name; do
        file=$(grep -l -E "^int $name\(int argc, char \*\*argv\) \{" $(find "$cli" -name '*.c') | head -1)
        if [ -z "$file" ]; then
            complain "$src/$h: $name is declared but defined in no file of $cli"
            continue
        fi
        defined_in[$name]=$file
    done < <(sed -n 's/^int \([a-z_][a-z0-9_]*\)(int argc, char \*\*argv);.*/\1/p' "$src/$h")
done

is_dispatcher() {
    local d
    for d in "${dispatchers[@]}"; do [ "$1" = "$d" ] && return 0; done
    return 1
}

includes_entry_header() { # $1 = file: prints the entry headers it includes
    local h
    for h in "${entry_headers[@]}"; do
        grep -q -E "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$h\"" "$1" && echo "$h"
    done
}

while IFS= read -r file; do
    is_dispatcher "$file" && continue
    rel=${file#"$src"/}
    case " ${entry_headers[*]} " in *" $rel "*) continue ;; esac
    verb=0
    for name in "${!defined_in[@]}"; do
        [ "${defined_in[$name]}" = "$file" ] && verb=1
    done
    if [ "$verb" -eq 0 ]; then # a helper: no entry header
        for h in $(includes_entry_header "$file"); do
            complain "$file: a helper includes the entry header \"$h\" (move what it needs into a helper)"
        done
    fi
    # Comments and strings aside, a call of another file's entry point.
    code=$(sed -e 's://.*$::' -e 's:"[^"]*"::g' "$file" | sed -e ':a' -e 's:/\*.*\*/::g' -e '/\/\*/{N;ba' -e '}')
    for name in "${!defined_in[@]}"; do
        [ "${defined_in[$name]}" = "$file" ] && continue
        if grep -q -E "\b$name[[:space:]]*\(" <<<"$code"; then
            complain "$file: calls $name (${defined_in[$name]}): only the dispatchers (${dispatchers[*]}) call entry points"
        fi
    done
done < <(find "$cli" -name '*.[ch]' | sort)

if [ "$bad" -ne 0 ]; then
    echo "cli_graph: the files of $cli call or include each other against the one-way order (tests/lint/cli_graph.sh)"
    exit 1
fi
echo "cli_graph: ok (${#defined_in[@]} entry points; dispatcher -> verb -> helper)"
