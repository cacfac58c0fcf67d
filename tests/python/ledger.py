# tests/python/ledger.py - a Python program whose allocations are known per
# Python function, for tests/integration/runtimes.sh. A bytearray of n bytes
# is one allocation of n + 1 bytes, made under the function that asks for it
# (malloc over pymalloc's 512, pymalloc's own under it); the ledger is printed on stdout as
# "LEDGER function bytes count line" (line: the allocating line).
import sys

keep = []
LEDGER = []


def note(fn, size, count, line):
    LEDGER.append((fn, (size + 1) * count, count, line))


def small_blocks():
    for _ in range(3):
        keep.append(bytearray(10000))  # SMALL
    return


def pool_blocks():
    for _ in range(5):
        keep.append(bytearray(300))  # POOL


def big_block():
    keep.append(bytearray(200000))  # BIG


def recurse(n):
    if n == 0:
        keep.append(bytearray(30000))  # DEEP
        return
    recurse(n - 1)


class Cache:
    def fill(self):
        for _ in range(2):
            keep.append(bytearray(20000))  # FILL


def line_of(tag):
    with open(__file__) as f:
        for i, text in enumerate(f, 1):
            if text.rstrip().endswith("# " + tag):
                return i
    return 0


def main(depth):
    small_blocks()
    pool_blocks()
    big_block()
    recurse(depth)
    Cache().fill()


depth = int(sys.argv[1]) if len(sys.argv) > 1 else 150
# a second argument: a file to wait for first (tracelloc -p attaches meanwhile)
if len(sys.argv) > 2:
    import os
    import time
    print("WAITING", flush=True)
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.01)
main(depth)
# tracelloc names a frame from its code object while the process lives: a
# process that ends within a few ms of an allocation may leave its frames
# [unknown python] (docs/limitations.md)
import time
time.sleep(0.3)
note("small_blocks", 10000, 3, line_of("SMALL"))
note("big_block", 200000, 1, line_of("BIG"))
note("recurse", 30000, 1, line_of("DEEP"))
note("Cache.fill", 20000, 2, line_of("FILL"))
for fn, size, count, line in LEDGER:
    print("LEDGER", fn, size, count, line)
# served from pymalloc's pools: seen where its entry points are probed
print("PYMALLOC pool_blocks", 301 * 5, 5, line_of("POOL"))
sys.stdout.flush()
