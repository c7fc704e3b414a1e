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
# expect_full_disk NAME OUT LIMIT_KB COMMAND...: COMMAND writing OUT under a file size
# limit of LIMIT_KB (writes fail with EFBIG, as on a full disk) exits 1 naming the failure
# ("is untouched"), OUT keeps its old bytes, and no OUT.tmp.* nor file in $T/tmp is left.
expect_full_disk() {
    local name=$1 out=$2 limit=$3 msg st
    shift 3
    echo "previous content" > "$out"
    msg=$( (trap '' XFSZ; ulimit -f "$limit"; "$@") 2>&1)
    st=$?
    [ "$st" = 1 ] || fail "$name into a full disk: exit $st"
    expect_contains "$name into a full disk" "$msg" "is untouched"
    [ "$(cat "$out")" = "previous content" ] || fail "$name into a full disk: the old output was changed"
    ls "$out".tmp.* "$T"/tmp/* >/dev/null 2>&1 && fail "$name into a full disk: a temporary file was left"
}
finish() { if [ "$failures" -eq 0 ]; then echo "ok"; exit 0; else echo "$failures failure(s)"; exit 1; fi; }
# gpsusi saves every option it is given in its one global gpsusi.conf (docs/match.md): a
# test that starts it keeps the file as it found it, so that the user's next gpsusi session
# is not left with a test's BookDepth 0. Call gps_conf_save first and gps_conf_restore in
# the EXIT trap.
GPS_CONF=${GPS_CONF:-/usr/share/gpsshogi-data/gpsusi.conf}
gps_conf_saved=""
gps_conf_save() {
    if [ -w "$GPS_CONF" ]; then
        gps_conf_saved=$(mktemp)
        cp "$GPS_CONF" "$gps_conf_saved"
    fi
}
gps_conf_restore() {
    if [ -n "$gps_conf_saved" ]; then
        cat "$gps_conf_saved" > "$GPS_CONF"
        rm -f "$gps_conf_saved"
    fi
}
# writing_output PID OUT: true while PID has OUT's temporary file open
# (util/atomic_file.h): the unnamed one ("DIR/#INODE (deleted)" to the kernel) or, on a
# filesystem without unnamed files, OUT.tmp.PID.N. How a test knows that a verb is
# writing its output (one readlink for all of PID's descriptors: the poll stays quick).
writing_output() {
    local dir base="${2##*/}" t
    dir=$(cd "$(dirname "$2")" && pwd -P) || return 1
    while IFS= read -r t; do
        case $t in "$dir/#"*" (deleted)" | "$dir/$base.tmp."*) return 0 ;; esac
    done < <(readlink /proc/"$1"/fd/* 2>/dev/null)
    return 1
}
# kill_during NAME SIGNAL OUT REF DELAY COMMAND...: COMMAND writes OUT; SIGNAL (INT or
# KILL) after DELAY seconds. OUT then keeps its old bytes, or holds REF (what an
# uninterrupted run writes) when the run got past its rename: it exited 0, or 130 saying
# that OUT was written (a signal after the rename), or was killed. No scratch file
# (.hayanagi-sort-*, anything in $T/tmp) is left next to OUT or in $T/tmp. OUT's temporary
# file has no name while it is written (util/atomic_file.h) and gets one only for its
# rename: so the one leftover allowed is an OUT.tmp.* after SIGKILL that is the whole
# output (killed between the naming and the rename); it is removed.
kill_during() {
    local name=$1 sig=$2 out=$3 ref=$4 delay=$5 pid st t what
    shift 5
    what="$name $sig after ${delay}s"
    echo "previous content" > "$out"
    # a script starts background jobs with SIGINT ignored; a user's Ctrl-C finds it at
    # its default until the verb installs its handler, so the test restores that
    env --default-signal=INT "$@" >/dev/null 2>"$T/kill.err" &
    pid=$!
    sleep "$delay"
    kill -"$sig" "$pid" 2>/dev/null
    { wait "$pid"; } 2>/dev/null; st=$?
    if [ "$(cat "$out")" != "previous content" ]; then
        cmp -s "$out" "$ref" || fail "$what: the output was changed but is not the whole output"
        if [ "$st" = 130 ]; then
            grep -q "was written" "$T/kill.err" ||
                fail "$what: interrupted after the rename without saying OUT was written"
        else
            [ "$st" = 0 ] || [ "$sig" = KILL ] || fail "$what: the old output was changed by a failed run (exit $st)"
        fi
    else
        [ "$st" != 0 ] || fail "$what: exit status 0 and the output not written"
    fi
    for t in "$out".tmp.*; do
        [ -e "$t" ] || continue
        if [ "$sig" = KILL ] && cmp -s "$t" "$ref"; then
            rm -f "$t"
        else
            fail "$what: $t was left behind and is not the whole output"
            rm -f "$t"
        fi
    done
    ls "$(dirname "$out")"/.hayanagi-sort-* "$T"/tmp/* "$T"/tmp/.hayanagi-sort-* >/dev/null 2>&1 &&
        fail "$what: a temporary file was left behind: $(ls -A "$T/tmp" 2>/dev/null)"
}
# csa_setup: what the CSA client's scripts (csa_*.sh) share, called once at their start:
# python3 for the scripted servers of tests/csa/ in $py (without it the script says
# "skipped" and passes), $here (tests/), and the scratch directory $tmp, removed at exit
# with any server still running. Then csa_server / start_server and server_status.
csa_setup() {
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    # the system's python3 first: a version manager's shim may take seconds to start
    py=/usr/bin/python3
    [ -x "$py" ] || py=$(command -v python3)
    if [ -z "$py" ]; then
        echo "skipped: python3 is missing"
        exit 0
    fi
    tmp=$(mktemp -d)
    server_pid=""
    trap csa_cleanup EXIT
}
csa_cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2> /dev/null
    rm -rf "$tmp"
}
# csa_server SCRIPT ARGS...: runs tests/csa/SCRIPT with ARGS in the background (loopback
# only; it stops itself), its stderr in $tmp/server.err; waits until it has written its
# port into $tmp/port (pass "$tmp/port" among ARGS where SCRIPT expects its port file);
# sets $server_pid and $port
csa_server() {
    local script=$1
    shift
    rm -f "$tmp/port"
    "$py" "$here/csa/$script" "$@" 2> "$tmp/server.err" &
    server_pid=$!
    for _ in $(seq 1 100); do
        [ -s "$tmp/port" ] && break
        sleep 0.05
    done
    port=$(cat "$tmp/port" 2> /dev/null)
}
# start_server SCENARIO [PASSWORD]: tests/csa/server.py playing SCENARIO, expecting
# PASSWORD (default pw) in the LOGIN
start_server() { csa_server server.py "$1" "$tmp/port" "${2:-pw}"; }
# server_status NAME: waits for the server and checks it was satisfied
server_status() {
    local rc=0
    wait "$server_pid" || rc=$?
    server_pid=""
    [ "$rc" = 0 ] || fail "$1: the server was not satisfied: $(cat "$tmp/server.err")"
}
