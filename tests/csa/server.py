#!/usr/bin/env python3
"""A scripted CSA server for the CSA client's tests (tests/e2e/csa_client.sh).

Usage: server.py SCENARIO PORT_FILE [PASSWORD]
Listens on 127.0.0.1 on a free port, writes the port number to PORT_FILE, serves one
client through SCENARIO (expecting PASSWORD, default "pw", in its LOGIN) and exits: 0 when the client said what the scenario expects,
1 (with the reason on stderr) when it did not. Everything is bounded in time: a whole run
stops itself after 60 s. The lines the server sends follow CSA protocol 1.2.1 as
shogi-server writes them (docs/csa.md).
"""
import re
import signal
import socket
import sys
import time

signal.alarm(60)
PASSWORD = sys.argv[3] if len(sys.argv) > 3 else "pw"


class Fail(Exception):
    pass


class Client:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.empty_lines = 0  # keep-alives seen

    def send(self, text):
        self.sock.sendall(text.encode())

    def line(self, timeout=20.0):
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0:
                raise Fail("no line from the client within %.0f s" % timeout)
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            if not data:
                raise Fail("the client closed the connection")
            self.buf += data
        raw, self.buf = self.buf.split(b"\n", 1)
        return raw.decode().rstrip("\r")

    def expect(self, pattern, timeout=20.0):
        """The next line that is not a keep-alive must match pattern."""
        while True:
            got = self.line(timeout)
            if got == "":
                self.empty_lines += 1
                continue
            if not re.fullmatch(pattern, got):
                raise Fail("expected /%s/, got %r" % (pattern, got))
            return got


def summary(your_turn, position="PI\n+\n", time_lines=None, name="hay-1-0", game_id="g1"):
    time_lines = time_lines or "Time_Unit:1msec\nTotal_Time:0\nByoyomi:500\nLeast_Time_Per_Move:0\n"
    return (
        "BEGIN Game_Summary\nProtocol_Version:1.2\nProtocol_Mode:Server\nFormat:Shogi 1.0\n"
        "Declaration:Jishogi 1.1\nGame_ID:%s\nName+:%s\nName-:%s\nYour_Turn:%s\n"
        "Rematch_On_Draw:NO\nTo_Move:+\nMax_Moves:256\nBEGIN Time\n%sEND Time\n"
        "BEGIN Position\n%sEND Position\nEND Game_Summary\n"
        % (game_id, "hayanagi-test" if your_turn == "+" else "rival",
           "rival" if your_turn == "+" else "hayanagi-test", your_turn, time_lines, position)
    )


def login_and_agree(c, text, game="hay-1-0"):
    c.expect(r"LOGIN hayanagi-test %s,%s" % (re.escape(game), re.escape(PASSWORD)))
    c.send("LOGIN:hayanagi-test OK\n")
    c.send(text)
    c.expect(r"AGREE( g1)?")
    c.send("START:g1\n")


def logout(c):
    try:
        c.expect("LOGOUT", timeout=5)
        c.send("LOGOUT:completed\n")
    except Fail:
        pass


def ours(c, sign="\\+"):
    """Our move: echoed with a time, as a server does."""
    got = c.expect(sign + r"\d{4}[A-Z]{2}(,'.*)?")
    c.send(got[:7] + ",T123\n")
    return got


def full_game(c):
    """Black, byoyomi in milliseconds: three of our moves, edge-pawn replies, a resignation."""
    login_and_agree(c, summary("+"))
    ours(c)
    c.send("-9394FU,T200\n")
    ours(c)
    c.send("-1314FU,T100\n")
    ours(c)
    c.send("%TORYO,T50\n#RESIGN\n#WIN\n")
    logout(c)


def white_fischer(c):
    """White with moves already played and a Fischer clock (seconds), the fake engine:
    the floodgate comment, ponder / ponderhit, a ponder miss, and a time-up end."""
    pos = "PI\n+\n+2726FU,T12\n-3334FU,T6\n+7776FU,T10\n"
    tl = "Time_Unit:1sec\nTotal_Time:60\nByoyomi:0\nIncrement:5\nLeast_Time_Per_Move:0\n"
    login_and_agree(c, summary("-", pos, tl))
    got = c.expect(r"-8384FU(,'.*)?")
    if got != "-8384FU,'* -42 +2625FU":
        raise Fail("floodgate comment: got %r" % got)
    c.send("-8384FU,T2\n")
    c.send("+2625FU,T3\n")  # the ponder move: ponderhit
    got = c.expect(r"-8485FU(,'.*)?")
    c.send("-8485FU,T1\n")
    c.send("+3948GI,T4\n")  # not the ponder move (6i7h): stop, then a new think
    got = c.expect(r"-4132KI(,'.*)?")
    c.send("-4132KI,T1\n")
    c.send("#TIME_UP\n#WIN\n")
    logout(c)


def garbage(c):
    login_and_agree(c, summary("+"))
    ours(c)
    c.send("this is not CSA\n")
    time.sleep(1)


def close_mid_game(c):
    login_and_agree(c, summary("+"))
    ours(c)
    c.send("-9394FU,T200\n")
    ours(c)
    c.sock.close()


def slow(c):
    """Slow to pair and slow to move, silent meanwhile: the client must keep the line
    alive (--keepalive 1) and wait."""
    c.expect(r"LOGIN hayanagi-test hay-1-0,pw")
    c.send("LOGIN:hayanagi-test OK\n")
    time.sleep(2.5)
    c.send(summary("+"))
    c.expect(r"AGREE( g1)?")
    time.sleep(1)
    c.send("START:g1\n")
    ours(c)
    time.sleep(2.5)
    c.send("-9394FU,T2500\n")
    ours(c)
    c.send("%TORYO,T50\n#RESIGN\n#WIN\n")
    logout(c)
    if c.empty_lines < 2:
        raise Fail("only %d keep-alive lines in 6 s of silence" % c.empty_lines)


def bad_summary(c):
    c.expect(r"LOGIN hayanagi-test hay-1-0,pw")
    c.send("LOGIN:hayanagi-test OK\n")
    c.send(summary("+", "P1-KY-KE-GI-KI-OU-KI-GI-KE-KY\nP2 * -HI * * * * * -KA XX\n+\n"))
    c.expect(r"REJECT.*")
    c.send("REJECT:g1 by hayanagi-test\n")
    logout(c)


def login_refused(c):
    c.expect(r"LOGIN hayanagi-test hay-1-0,pw")
    c.send("LOGIN:incorrect\n")


def draw_sennichite(c):
    """A draw the server declares, and an opponent move that is illegal: the first game
    line after it is refused (a server must not relay illegal moves)."""
    login_and_agree(c, summary("+"))
    ours(c)
    c.send("-9394FU,T200\n")
    ours(c)
    c.send("#SENNICHITE\n#DRAW\n")
    logout(c)


def illegal_relay(c):
    login_and_agree(c, summary("+"))
    ours(c)
    c.send("-5958OU,T1\n")  # white has no king on 59
    time.sleep(1)


def kachi(c):
    """Black to move with the 27-point declaration in hand (11 pieces in the camp, 27
    points there and 2 in hand, the king on 7b, not in check): %KACHI, not a move."""
    pos = (
        "P1+HI+HI+KA+KA+KI+KI+KI+KI+GI\n"
        "P2+GI+GI+OU *  *  *  *  *  * \n"
        + "".join("P%d *  *  *  *  *  *  *  *  * \n" % r for r in range(3, 9))
        + "P9 *  *  *  *  *  *  *  * -OU\n"
        "P+00FU00FU\n+\n"
    )
    login_and_agree(c, summary("+", pos))
    c.expect("%KACHI")
    c.send("%KACHI\n#JISHOGI\n#WIN\n")
    logout(c)


def resign(c):
    """--resign 3000 with a score of -5000: %TORYO instead of the move."""
    login_and_agree(c, summary("+"))
    c.expect("%TORYO")
    c.send("%TORYO,T0\n#RESIGN\n#LOSE\n")
    logout(c)


SCENARIOS = {
    "resign": resign,
    "kachi": kachi,
    "full": full_game,
    "white-fischer": white_fischer,
    "garbage": garbage,
    "close": close_mid_game,
    "slow": slow,
    "bad-summary": bad_summary,
    "login-refused": login_refused,
    "draw": draw_sennichite,
    "illegal-relay": illegal_relay,
}


def main():
    scenario = SCENARIOS[sys.argv[1]]
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    import os

    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    srv.settimeout(30)
    conn, _ = srv.accept()
    c = Client(conn)
    try:
        scenario(c)
    except Fail as e:
        sys.stderr.write("csa test server (%s): %s\n" % (sys.argv[1], e))
        return 1
    finally:
        try:
            conn.close()
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
