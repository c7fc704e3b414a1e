#!/usr/bin/env python3
"""learn_server.py - two games on one port for `hayanagi csa --learn` (tests/e2e/csa_learn.sh).

Game 1: we are black against "rival"; our book plays 7g7f, the rival answers 3c3d, we
move once more and the server ends the game with our time-up loss. Game 2, the same
opponent from the same position: the learned overlay must not let us repeat 7g7f, so the
server expects 2g2f (the main book's other move) and ends the game as a win.
Loopback only; the run stops by itself (30 s accept timeout, 20 s per line).
Usage: learn_server.py PORTFILE
"""
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server import Client, Fail, login_and_agree, logout, ours, summary  # noqa: E402


def game1(c):
    login_and_agree(c, summary("+"))
    got = ours(c)
    if not got.startswith("+7776FU"):
        raise Fail("game 1: expected the book's +7776FU first, got %r" % got)
    c.send("-3334FU,T1\n")
    ours(c)
    c.send("#TIME_UP\n#LOSE\n")
    logout(c)


def game2(c):
    c.expect(r"LOGIN hayanagi-test hay-1-0,pw")
    c.send("LOGIN:hayanagi-test OK\n")
    c.send(summary("+", game_id="g2"))
    c.expect(r"AGREE( g2)?")
    c.send("START:g2\n")
    got = ours(c)
    if not got.startswith("+2726FU"):
        raise Fail("game 2: the lost book move was repeated: %r (expected +2726FU)" % got)
    c.send("%TORYO,T1\n#RESIGN\n#WIN\n")
    logout(c)


def main():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.settimeout(30)
    for game in (game1, game2):
        conn, _ = srv.accept()
        try:
            game(Client(conn))
        except Fail as e:
            sys.stderr.write("csa learn server: %s\n" % e)
            return 1
        finally:
            conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
