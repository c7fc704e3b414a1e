#!/usr/bin/env python3
"""Writes book/standard_book.db, the PLACEHOLDER book the engine ships until the
book-making tools (issue 6) build the real one: a handful of common opening
positions, each thought by Hayanagi itself at depth 16 with MultiPV 2.

Usage: python3 book/make_placeholder.py build/hayanagi book/standard_book.db
"""
import subprocess
import sys

LINES = ["", "7g7f", "2g2f", "7g7f 3c3d", "7g7f 8c8d", "2g2f 8c8d", "2g2f 3c3d", "7g7f 3c3d 2g2f",
         "7g7f 8c8d 2g2f", "2g2f 8c8d 7g7f"]
DEPTH = 16


def main():
    engine, out = sys.argv[1], sys.argv[2]
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(cmd):
        p.stdin.write(cmd + "\n")
        p.stdin.flush()

    def until(prefix):
        lines = []
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("engine exited")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    send("usi"); until("usiok")
    send("setoption name USI_OwnBook value false")
    send("setoption name MultiPV value 2")
    send("isready"); until("readyok")
    entries = []
    for moves in LINES:
        send("position startpos" + (" moves " + moves if moves else ""))
        send("sfen")
        sfen = until("sfen ")[-1][5:]
        send("go depth %d" % DEPTH)
        best = {}
        for line in until("bestmove"):
            t = line.split()
            if t[:1] == ["info"] and "pv" in t and "multipv" in t and t[t.index("depth") + 1] == str(DEPTH):
                k = int(t[t.index("multipv") + 1])
                score = int(t[t.index("cp") + 1]) if "cp" in t else 0
                pv = t[t.index("pv") + 1:]
                best[k] = (pv[0], pv[1] if len(pv) > 1 else "none", score)
        entries.append((sfen, [best[k] for k in sorted(best)]))
    send("quit")
    with open(out, "w") as f:
        f.write("#YANEURAOU-DB2016 1.00\n")
        f.write("# PLACEHOLDER book: %d positions thought by Hayanagi at depth %d (MultiPV 2).\n" % (len(entries), DEPTH))
        f.write("# Made by book/make_placeholder.py; to be replaced by the real book (book/README.md).\n")
        for sfen, moves in entries:
            f.write("sfen %s\n" % sfen)
            for move, ponder, score in moves:
                f.write("%s %s %d %d 1\n" % (move, ponder, score, DEPTH))


main()
