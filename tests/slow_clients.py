#!/usr/bin/env python3
"""
tests/slow_clients.py PORT TRICKLING IDLE SECONDS: clients of 127.0.0.1:PORT
that never finish a request, for the scrape endpoint's tests (tests/pprof.sh).

For SECONDS, keeps TRICKLING connections that send a request line, then one
header line every 2 s and never the blank line that ends the headers, and
IDLE connections that send nothing. A connection the server closes is opened
again 1 s later, as a patient attacker would. Prints "ready" once the first
of them are connected; after SECONDS, opens no more and waits (at most 6 s)
until the server has closed every connection still open, then prints

    opened N closed N open N failed N answered N

opened: connections established; closed: of those, closed by the server;
open: still open when the script gave up waiting; failed: connects that did
not succeed; answered: connections the server sent bytes to before closing.
"""
import errno
import selectors
import socket
import sys
import time

TRICKLE_EVERY_S = 2.0
REOPEN_AFTER_S = 1.0
WAIT_CLOSED_S = 6.0


class Conn:
    def __init__(self, slot, trickle):
        self.slot = slot
        self.trickle = trickle
        self.connected = False
        self.answered = False
        self.lines = 0
        self.next_line = 0.0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setblocking(False)


def main():
    port, trickling, idle, seconds = (int(a) for a in sys.argv[1:5])
    sel = selectors.DefaultSelector()
    stats = dict(opened=0, closed=0, failed=0, answered=0)
    reopen = {}		# slot -> when
    slots = [True] * trickling + [False] * idle
    ready = False
    start = time.monotonic()
    stop_opening = start + seconds

    def open_slot(slot):
        c = Conn(slot, slots[slot])
        err = c.sock.connect_ex(("127.0.0.1", port))
        if err not in (0, errno.EINPROGRESS):
            stats["failed"] += 1
            c.sock.close()
            reopen[slot] = time.monotonic() + REOPEN_AFTER_S
            return
        sel.register(c.sock, selectors.EVENT_WRITE, c)

    def gone(c, now):
        sel.unregister(c.sock)
        c.sock.close()
        if c.connected:
            stats["closed"] += 1
            stats["answered"] += c.answered
        else:
            stats["failed"] += 1
        reopen[c.slot] = now + REOPEN_AFTER_S

    for slot in range(len(slots)):
        open_slot(slot)
    while True:
        now = time.monotonic()
        live = [k.data for k in sel.get_map().values()]
        if now >= stop_opening and (not live or now >= stop_opening + WAIT_CLOSED_S):
            break
        if not ready and sum(c.connected for c in live) >= len(slots) // 2:
            print("ready", flush=True)
            ready = True
        if now < stop_opening:
            for slot, when in list(reopen.items()):
                if when <= now:
                    del reopen[slot]
                    open_slot(slot)
        for c in live:
            if not (c.connected and c.trickle and c.next_line <= now):
                continue
            line = b"GET /metrics HTTP/1.1\r\n" if c.lines == 0 else \
                b"X-Slow-%d: %d\r\n" % (c.lines, c.slot)
            try:
                c.sock.send(line)
            except OSError:
                gone(c, now)
                continue
            c.lines += 1
            c.next_line = now + TRICKLE_EVERY_S
        for key, mask in sel.select(timeout=0.05):
            c = key.data
            now = time.monotonic()
            if not c.connected:
                if c.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    gone(c, now)
                    continue
                c.connected = True
                stats["opened"] += 1
                c.next_line = now
                sel.modify(c.sock, selectors.EVENT_READ, c)
                continue
            try:
                data = c.sock.recv(65536)
            except OSError:
                data = b""
            if data:
                c.answered = True
            else:
                gone(c, now)
    live = [k.data for k in sel.get_map().values()]
    print("opened %d closed %d open %d failed %d answered %d" %
          (stats["opened"], stats["closed"], sum(c.connected for c in live),
           stats["failed"] + sum(not c.connected for c in live), stats["answered"]),
          flush=True)
    for c in live:
        c.sock.close()


if __name__ == "__main__":
    main()
