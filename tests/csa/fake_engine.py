#!/usr/bin/env python3
"""A scripted USI engine for the CSA client's tests (tests/e2e/csa_client.sh).

Usage: fake_engine.py MOVE[:SCORE[:PONDER]]... -- each `go` answers the next MOVE (USI)
at once with `info depth 1 score cp SCORE pv MOVE [PONDER]` and `bestmove MOVE [ponder
PONDER]` (PONDER: the reply it expects), `go ponder` waits for `ponderhit` (then answers) or `stop`
(then answers and drops that move: the next `go` gets the same one again). MOVE may be
"resign" or "win". Declares the options USI_Ponder, USI_Opponent, RivalBookDir and MaxMovesToDraw and
writes every line it receives to the file in $FAKE_ENGINE_LOG (when set), so the test can
check what the client sent.
"""
import os
import sys

script = []
for arg in sys.argv[1:]:
    parts = arg.split(":")
    script.append((parts[0], int(parts[1]) if len(parts) > 1 else 0, parts[2] if len(parts) > 2 else None))
log = open(os.environ["FAKE_ENGINE_LOG"], "a") if os.environ.get("FAKE_ENGINE_LOG") else None
index = 0
pondering = False


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def answer():
    global index
    if index >= len(script):
        say("bestmove resign")
        return
    move, score, ponder = script[index]
    index += 1
    if move in ("resign", "win"):
        say("bestmove " + move)
        return
    say("info depth 1 score cp %d pv %s" % (score, move + (" " + ponder if ponder else "")))
    say("bestmove " + move + (" ponder " + ponder if ponder else ""))


for line in sys.stdin:
    line = line.strip()
    if log:
        log.write(line + "\n")
        log.flush()
    if line == "usi":
        say("id name FakeEngine")
        say("option name USI_Ponder type check default false")
        say("option name USI_Opponent type string default <empty>")
        say("option name RivalBookDir type string default <empty>")
        say("option name MaxMovesToDraw type spin default 0 min 0 max 100000")
        say("usiok")
    elif line == "isready":
        say("readyok")
    elif line.startswith("go ponder"):
        pondering = True
    elif line.startswith("go"):
        answer()
    elif line == "ponderhit" and pondering:
        pondering = False
        answer()
    elif line == "stop" and pondering:
        pondering = False
        say("bestmove resign")  # a ponder result the client must drop
    elif line == "quit":
        break
