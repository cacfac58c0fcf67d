/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SVG_H
#define TRACELLOC_SVG_H

#include <stdio.h>

#include "profile.h"

/*
 * An interactive flamegraph in one SVG file, as flamegraph.pl draws it: the
 * root "all" at the bottom, callees above their callers, frames of the same
 * name along the same path merged, siblings in alphabetical order, widths in
 * proportion to the metric. Its CSS and JavaScript are inline, so the file
 * opens alone in any browser: hover names a frame with its value and share,
 * click zooms, Ctrl-F or "Search" highlights the frames a regex matches.
 * URL parameters do the same without a mouse: file.svg?z=REGEX zooms into the
 * first frame matching, ?s=REGEX searches.
 */

/* writes a self-contained interactive SVG flamegraph of p, weighted by metric;
 * title NULL: a default one */
int svg__write(FILE *out, struct profile *p, enum metric metric, const char *title);

/*
 * The same from folded stacks ("outer;...;leaf value" lines, as folded__write
 * and flamegraph.pl's stackcollapse scripts write them; a frame ending in
 * "_[i]" is inlined). metric only names the values. -EINVAL on a malformed line.
 */
int svg__write_folded(FILE *out, FILE *in, enum metric metric, const char *title);

#endif
