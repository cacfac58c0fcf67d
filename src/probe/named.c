// SPDX-License-Identifier: GPL-2.0
/* the program's own allocator functions (see named.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocfns.h"
#include "named.h"

static const char *const options[] = {
	[NAMED_ALLOC] = "--alloc-fn",
	[NAMED_REALLOC] = "--realloc-fn",
	[NAMED_FREE] = "--free-fn",
	[NAMED_POOL_DESTROY] = "--pool-destroy-fn",
	[NAMED_POOL_CREATE] = "--pool-create-fn",
};

const char *named__option(enum named_kind kind)
{
	return options[kind];
}

/* "arg3" -> 3 */
static int arg_number(const char *s, size_t len)
{
	if (len != 4 || strncmp(s, "arg", 3) || s[3] < '1' || s[3] > '6')
		return -1;
	return s[3] - '0';
}

/* key=argN,... into f; which keys the kind takes and which it needs */
static int parse_args(struct named_fn *f, const char *args, char *err, size_t errlen)
{
	static const char *const needs[] = {
		[NAMED_ALLOC] = "size=argN", [NAMED_REALLOC] = "ptr=argN and size=argM",
		[NAMED_FREE] = "ptr=argN", [NAMED_POOL_DESTROY] = "pool=argN",
		[NAMED_POOL_CREATE] = "",
	};
	static const char *const takes[] = {
		[NAMED_ALLOC] = "size, count and pool", [NAMED_REALLOC] = "ptr, size and count",
		[NAMED_FREE] = "ptr", [NAMED_POOL_DESTROY] = "pool",
		[NAMED_POOL_CREATE] = "no key",
	};
	const char *p = args;

	while (*p) {
		const char *eq = strchr(p, '='), *end = strchr(p, ',');
		uint8_t *slot = NULL;
		size_t klen;
		int n;

		if (!end)
			end = p + strlen(p);
		if (!eq || eq > end) {
			snprintf(err, errlen, "'%.*s' is not key=argN", (int)(end - p), p);
			return -EINVAL;
		}
		klen = eq - p;
		if (klen == 4 && !strncmp(p, "size", 4) && f->kind <= NAMED_REALLOC)
			slot = &f->size_arg;
		else if (klen == 5 && !strncmp(p, "count", 5) && f->kind <= NAMED_REALLOC)
			slot = &f->count_arg;
		else if (klen == 3 && !strncmp(p, "ptr", 3) &&
			 (f->kind == NAMED_REALLOC || f->kind == NAMED_FREE))
			slot = &f->ptr_arg;
		else if (klen == 4 && !strncmp(p, "pool", 4) &&
			 (f->kind == NAMED_ALLOC || f->kind == NAMED_POOL_DESTROY))
			slot = &f->pool_arg;
		if (!slot) {
			snprintf(err, errlen, "%s takes no '%.*s' (it takes %s)", options[f->kind],
				 (int)klen, p, takes[f->kind]);
			return -EINVAL;
		}
		n = arg_number(eq + 1, end - eq - 1);
		if (n < 0) {
			snprintf(err, errlen, "'%.*s': an argument is arg1 to arg6", (int)(end - p), p);
			return -EINVAL;
		}
		if (*slot) {
			snprintf(err, errlen, "'%.*s' is given twice", (int)klen, p);
			return -EINVAL;
		}
		*slot = (uint8_t)n;
		p = *end ? end + 1 : end;
	}
	if ((f->kind <= NAMED_REALLOC && !f->size_arg) ||
	    (f->kind == NAMED_REALLOC && !f->ptr_arg) || (f->kind == NAMED_FREE && !f->ptr_arg) ||
	    (f->kind == NAMED_POOL_DESTROY && !f->pool_arg)) {
		snprintf(err, errlen, "%s needs %s", options[f->kind], needs[f->kind]);
		return -EINVAL;
	}
	if ((f->size_arg && (f->size_arg == f->ptr_arg || f->size_arg == f->pool_arg ||
			     f->size_arg == f->count_arg)) ||
	    (f->count_arg && (f->count_arg == f->ptr_arg || f->count_arg == f->pool_arg))) {
		snprintf(err, errlen, "two keys name the same argument");
		return -EINVAL;
	}
	return 0;
}

static bool symbol_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '$' || c == '@';
}

int named__add(struct named_fns *n, enum named_kind kind, const char *spec, char *err,
	       size_t errlen)
{
	const char *last = strrchr(spec, ':'), *name = spec, *colon;
	struct named_fn f = { .kind = kind };
	size_t nlen, i;
	int ret;

	if (n->count == MAX_NAMED_FNS) {
		snprintf(err, errlen, "at most %d functions can be named", MAX_NAMED_FNS);
		return -E2BIG;
	}
	/* the arguments follow the last colon; without them: NAME or LIB:NAME */
	if (last && !strchr(last, '='))
		last = NULL;
	nlen = last ? (size_t)(last - spec) : strlen(spec);
	colon = memchr(spec, ':', nlen);
	if (colon) {
		if (colon == spec) {
			snprintf(err, errlen, "an empty library name");
			return -EINVAL;
		}
		f.lib = strndup(spec, colon - spec);
		name = colon + 1;
		nlen -= colon + 1 - spec;
	}
	for (i = 0; i < nlen && symbol_char(name[i]); i++)
		;
	if (!nlen || i < nlen) {
		snprintf(err, errlen, "'%.*s' is not a function's symbol", (int)nlen, name);
		free(f.lib);
		return -EINVAL;
	}
	f.symbol = strndup(name, nlen);
	f.spec = strdup(spec);
	ret = f.symbol && f.spec && (!colon || f.lib) ? 0 : -ENOMEM;
	if (!ret && last)
		ret = parse_args(&f, last + 1, err, errlen);
	else if (!ret)
		ret = parse_args(&f, "", err, errlen);
	if (ret) {
		free(f.lib);
		free(f.symbol);
		free(f.spec);
		return ret;
	}
	n->fn[n->count++] = f;
	if (kind <= NAMED_REALLOC)
		allocfns__set_named_name(n->count - 1, f.symbol);
	return 0;
}

void named__free(struct named_fns *n)
{
	size_t i;

	for (i = 0; i < n->count; i++) {
		free(n->fn[i].lib);
		free(n->fn[i].symbol);
		free(n->fn[i].spec);
	}
	n->count = 0;
}

uint64_t named__cookie(const struct named_fns *n, size_t i)
{
	const struct named_fn *f = &n->fn[i];

	switch (f->kind) {
	case NAMED_FREE:
		return MAKE_COOKIE((uint64_t)FN_NAMED_FREE, 0, 0, f->ptr_arg, 0, 0);
	case NAMED_POOL_DESTROY:
		return MAKE_COOKIE((uint64_t)FN_POOL_DESTROY, 0, 0, f->pool_arg, 0, 0);
	case NAMED_POOL_CREATE:
		return FN_POOL_CREATE | (uint64_t)i << 24;
	default:
		return MAKE_COOKIE((uint64_t)FN_NAMED, f->size_arg, f->count_arg, f->ptr_arg, RET_BLOCK,
				   f->kind == NAMED_REALLOC) |
		       (uint64_t)f->pool_arg << 20 | (uint64_t)i << 24;
	}
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* "libapr-1" names libapr-1.so.0 and "libapr" libapr-1.so.0, but "libc"
 * not libcrypto.so */
static bool names(const char *file, const char *lib)
{
	size_t len = strlen(lib);

	return !strncmp(file, lib, len) &&
	       (file[len] == '\0' || file[len] == '.' || file[len] == '-');
}

bool named__in_object(const struct named_fn *f, const char *path, const char *soname)
{
	if (!f->lib)
		return true;
	if (strchr(f->lib, '/'))
		return !strcmp(f->lib, path);
	return names(base_name(path), f->lib) || (soname && names(soname, f->lib));
}
