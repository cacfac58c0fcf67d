/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_FOLDED_H
#define TRACELLOC_FOLDED_H

#include <stdio.h>

#include "profile.h"

/*
 * Folded stacks, as flamegraph.pl reads them: "outer;...;leaf value" per line.
 * Stacks that name the same frames merge into one line.
 */
int folded__write(FILE *out, struct profile *p, enum metric metric);

#endif
