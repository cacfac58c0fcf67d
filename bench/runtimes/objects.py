# bench/runtimes/objects.py N [tracemalloc]: N objects of 16 bytes made and
# kept in work(), each one call of pymalloc's, timed by the program itself;
# with "tracemalloc", Python's own tracer counts the live ones too (the peer:
# memray does not install from Debian's packages). Prints "TIME seconds" and
# "PEER objects", and ends with os._exit: the objects stay live to the end.
import itertools
import os
import sys
import time

keep = []


def work(n):
    for i in range(n):
        keep[i] = object()  # WORK


def main():
    n = int(sys.argv[1])
    peer = len(sys.argv) > 2 and sys.argv[2] == "tracemalloc"
    keep.extend(itertools.repeat(None, n))
    if peer:
        import tracemalloc
        tracemalloc.start(1)
    t = time.perf_counter()
    work(n)
    print("TIME", time.perf_counter() - t)
    if peer:
        snap = tracemalloc.take_snapshot()
        print("PEER", sum(s.count for s in snap.statistics("lineno")
                          if s.traceback[0].filename == __file__
                          and s.traceback[0].lineno == work.__code__.co_firstlineno + 2))
    sys.stdout.flush()
    # frames are named while the process lives
    time.sleep(0.3)
    os._exit(0)


main()
