#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writes manynames.c (bench section 15): N leaf functions, each called once
through the same D-deep chain of long-named functions, each leaking a block:
N distinct stacks with distinct names, about 2 KB of folded text each.

    manynames.py N D OUT.c
"""
import sys

n, depth, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
levels = [f"bench_component_subsystem_level_{i:02d}_with_a_long_descriptive_name"
          for i in range(depth)]
leaf = "leaf_function_number_{}_of_the_many_named_allocation_sites"
lines = ["#include <stdlib.h>", "void *volatile sink;"]
for i in range(n):
    lines.append(f"__attribute__((noinline)) void {leaf.format(i)}(void)"
                 " { sink = malloc(16); __asm__ volatile(\"\"); }")
lines.append("typedef void (*leaf_fn)(void);")
lines.append("static leaf_fn leaves[] = {" + ",".join(leaf.format(i) for i in range(n)) + "};")
for i in range(depth - 1, -1, -1):
    call = f"{levels[i + 1]}(k)" if i + 1 < depth else "leaves[k]()"
    lines.append(f"__attribute__((noinline)) void {levels[i]}(int k)"
                 f" {{ {call}; __asm__ volatile(\"\"); }}")
lines.append(f"int main(void) {{ for (int k = 0; k < {n}; k++) {levels[0]}(k); return 0; }}")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
