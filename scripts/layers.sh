#!/bin/bash
# scripts/layers.sh - the house drawn by its includes: each file of src/
# and the headers it includes of ours, by folder. Prints the folders'
# layers and arrows, the files' floors, arrows and circles; fails (exit 1)
# on an include of a folder above the includer's, or on a circle of
# folders. src/README.md gives the layers:
#
#   scripts/layers.sh
set -u
cd "$(dirname "$0")/.." || exit 2
exec python3 - "$@" <<'PY'
import collections, glob, os, re, sys

layers = []
for line in open('src/README.md'):
    m = re.match(r'\|\s*(\d+)\s*\|\s*\[(\w+)/\]', line)
    if m:
        layers.append((int(m.group(1)), m.group(2)))
rank = {f: n for n, f in layers}
where = {}
for path in glob.glob('src/*/*.[ch]'):
    where[os.path.basename(path)] = path.split('/')[1]
stem = lambda name: name.rsplit('.', 1)[0]
files = collections.defaultdict(set)   # module -> modules it includes
folder_of = {}
bad = []
for name, f in where.items():
    mod = stem(name)
    folder_of[mod] = f
    for inc in re.findall(r'^#include "([\w.]+\.h)"', open('src/%s/%s' % (f, name)).read(), re.M):
        if inc not in where:
            continue   # include/, build/ (the skeleton, protobuf-c)
        dep = stem(inc)
        if dep != mod:
            files[mod].add(dep)
        g = where[inc]
        if g != f and rank[g] > rank[f]:
            bad.append('%s/%s includes %s/%s (a layer above)' % (f, name, g, inc))
# folders
farrows = collections.Counter()
for a, deps in files.items():
    for b in deps:
        if folder_of[a] != folder_of[b]:
            farrows[(folder_of[a], folder_of[b])] += 1
# files: circles (strongly connected components of more than one file)
index, low, on, stack, comps, n = {}, {}, set(), [], [], [0]
sys.setrecursionlimit(10000)
def strong(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in files.get(v, ()):
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v:
                break
        comps.append(c)
mods = sorted(set(folder_of))
for v in mods:
    if v not in index:
        strong(v)
circles = [sorted(c) for c in comps if len(c) > 1]
# floors: the longest chain of includes below each file (a circle counts once)
comp_of = {v: i for i, c in enumerate(comps) for v in c}
floor = {}
def depth(i):
    if i in floor:
        return floor[i]
    floor[i] = 0
    d = 0
    for v in comps[i]:
        for w in files.get(v, ()):
            if comp_of[w] != i:
                d = max(d, depth(comp_of[w]) + 1)
    floor[i] = d
    return d
floors = max(depth(i) for i in range(len(comps))) + 1
arrows = sum(len(d) for d in files.values())
print('folders, in layers (top first), and their arrows:')
for n_, f in sorted(layers, reverse=True):
    outs = ', '.join('%s %d' % (b, k) for (a, b), k in sorted(farrows.items(), key=lambda x: -rank[x[0][1]]) if a == f)
    print('  %d %-10s %2d files  -> %s' % (n_, f + '/', sum(1 for m in folder_of.values() if m == f), outs or 'nothing of ours'))
print('files: %d, floors: %d, arrows: %d, circles: %d%s' % (len(mods), floors, arrows, len(circles),
      ''.join(' (%s)' % ' <-> '.join(c) for c in circles)))
print('arrows back up: %d' % len(bad))
for b in bad:
    print('  ' + b)
sys.exit(1 if bad else 0)
PY
