/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_FILTER_H
#define TRACELLOC_FILTER_H

#include <stdbool.h>

/*
 * Which frames to show. Excluded frames (the default preset of runtime noise,
 * plus --exclude) are hidden from stacks; with --include, only stacks holding
 * a frame that matches are shown at all.
 */
struct filter;

/* with_defaults: hide the usual Rust runtime noise (futures polling, tokio,
 * panic harness, closure shims) */
struct filter *filter__new(bool with_defaults);
void filter__destroy(struct filter *f);

/* extended regular expressions on demangled function names; -EINVAL if bad */
int filter__exclude(struct filter *f, const char *regex);
int filter__include(struct filter *f, const char *regex);

/* decisions are cached per name pointer: pass interned names (the symbolizer's) */
bool filter__hides(struct filter *f, const char *function);
bool filter__has_focus(const struct filter *f);
bool filter__focuses(struct filter *f, const char *function);

#endif
