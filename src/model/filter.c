// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>

#include "filter.h"
#include "table.h"

/* frames that say how a Rust program runs, not what it allocates */
static const char *const default_excludes[] = {
	"^<.* as core::future::future::Future>::poll$",
	"^core::future::",
	"^futures(_util|_core)?::.*::poll",
	"^tokio::runtime::",
	"^tokio::task::",
	"^tokio::loom::",
	"^std::panicking::",
	"^std::panic::catch_unwind",
	"^__rust_try$",
	"^core::ops::function::(impls::)?<?.*(FnOnce|FnMut|Fn)(::|>).*call(_once|_mut)?",
	/* calls through a Fn trait: "<fn() as core::ops::function::FnOnce<()>>::call_once" */
	"^<.* as core::ops::function::Fn(Once|Mut)?<.*>>::call(_once|_mut)?$",
	/* closure shims: legacy "call_once{{vtable.shim}}", v0 "{shim:vtable#0}" */
	"\\{\\{vtable\\.shim\\}\\}$",
	"\\{shim:vtable#[0-9]+\\}$",
	"^std::thread::local::LocalKey<.*>::(try_)?with",
	"^std::sys(_common)?::backtrace::__rust_begin_short_backtrace",
	"^std::rt::lang_start",
};

struct pattern_list {
	regex_t *regexes;
	size_t count;
};

struct filter {
	struct pattern_list excludes;
	struct pattern_list includes;
	/* names are interned by the symbolizer: decisions are cached by pointer */
	struct table *decisions;
};

enum {
	DECIDED = 1,
	HIDES = 2,
	FOCUSES = 4,
};

static int add_pattern(struct pattern_list *list, const char *regex)
{
	regex_t *grown = realloc(list->regexes, (list->count + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	list->regexes = grown;
	if (regcomp(&grown[list->count], regex, REG_EXTENDED | REG_NOSUB))
		return -EINVAL;
	list->count++;
	return 0;
}

static bool any_match(const struct pattern_list *list, const char *text)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		if (!regexec(&list->regexes[i], text, 0, NULL, 0))
			return true;
	return false;
}

static void clear(struct pattern_list *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		regfree(&list->regexes[i]);
	free(list->regexes);
}

struct filter *filter__new(bool with_defaults)
{
	struct filter *f = calloc(1, sizeof(*f));
	size_t i;

	if (!f)
		return NULL;
	f->decisions = table__new(sizeof(uint8_t));
	if (!f->decisions) {
		free(f);
		return NULL;
	}
	for (i = 0; with_defaults && i < sizeof(default_excludes) / sizeof(default_excludes[0]); i++) {
		if (add_pattern(&f->excludes, default_excludes[i])) {
			filter__destroy(f);
			return NULL;
		}
	}
	return f;
}

void filter__destroy(struct filter *f)
{
	if (!f)
		return;
	clear(&f->excludes);
	clear(&f->includes);
	table__destroy(f->decisions);
	free(f);
}

int filter__exclude(struct filter *f, const char *regex)
{
	table__clear(f->decisions);
	return add_pattern(&f->excludes, regex);
}

int filter__include(struct filter *f, const char *regex)
{
	table__clear(f->decisions);
	return add_pattern(&f->includes, regex);
}

static uint8_t decide(struct filter *f, const char *function)
{
	uint8_t *d = table__upsert(f->decisions, (uint64_t)(uintptr_t)function, NULL);
	uint8_t flags = DECIDED;

	if (d && (*d & DECIDED))
		return *d;
	if (any_match(&f->excludes, function))
		flags |= HIDES;
	if (any_match(&f->includes, function))
		flags |= FOCUSES;
	if (d)
		*d = flags;
	return flags;
}

bool filter__hides(struct filter *f, const char *function)
{
	return f && f->excludes.count && (decide(f, function) & HIDES);
}

bool filter__has_focus(const struct filter *f)
{
	return f && f->includes.count > 0;
}

bool filter__focuses(struct filter *f, const char *function)
{
	return decide(f, function) & FOCUSES;
}
