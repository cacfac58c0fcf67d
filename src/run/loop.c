// SPDX-License-Identifier: GPL-2.0
/*
 * Sources are dispatched through epoll's data pointer. A handler may remove
 * sources, its own included: a removed source is only marked while a wait's
 * events are dispatched, and freed after them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "loop.h"

#define MAX_EVENTS 8

struct source {
	struct source *next;
	int fd;
	bool removed;
	loop_fn fn;
	void *ctx;
};

struct loop {
	int epfd;
	struct source *sources;
	bool dispatching;
};

int loop__new(struct loop **out)
{
	struct loop *l = calloc(1, sizeof(*l));

	*out = NULL;
	if (!l)
		return -ENOMEM;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		int err = -errno;

		free(l);
		return err;
	}
	*out = l;
	return 0;
}

static void free_removed(struct loop *l)
{
	struct source **link = &l->sources, *src;

	while ((src = *link)) {
		if (!src->removed) {
			link = &src->next;
			continue;
		}
		*link = src->next;
		free(src);
	}
}

void loop__destroy(struct loop *l)
{
	struct source *src, *next;

	if (!l)
		return;
	for (src = l->sources; src; src = next) {
		next = src->next;
		free(src);
	}
	close(l->epfd);
	free(l);
}

int loop__add(struct loop *l, int fd, uint32_t events, loop_fn fn, void *ctx)
{
	struct source *src = calloc(1, sizeof(*src)), *old;
	struct epoll_event ev = { .events = events };

	if (!src)
		return -ENOMEM;
	src->fd = fd;
	src->fn = fn;
	src->ctx = ctx;
	ev.data.ptr = src;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		int err = -errno;

		free(src);
		return err;
	}
	/* a source of the same fd was closed without loop__remove (epoll took
	 * the fd back then): the new one replaces it */
	for (old = l->sources; old; old = old->next)
		if (old->fd == fd)
			old->removed = true;
	src->next = l->sources;
	l->sources = src;
	if (!l->dispatching)
		free_removed(l);
	return 0;
}

void loop__remove(struct loop *l, int fd)
{
	struct source *src;

	for (src = l->sources; src; src = src->next) {
		if (src->fd != fd || src->removed)
			continue;
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
		src->removed = true;
		break;
	}
	if (!l->dispatching)
		free_removed(l);
}

int loop__run_once(struct loop *l, int timeout_ms, loop_fn quiet, void *ctx)
{
	struct epoll_event evs[MAX_EVENTS];
	int n = epoll_wait(l->epfd, evs, MAX_EVENTS, timeout_ms), i, ret = LOOP_ON;

	if (n < 0)
		return errno == EINTR ? LOOP_ON : -errno;
	if (n == 0)
		return quiet ? quiet(ctx, -1) : LOOP_ON;
	l->dispatching = true;
	for (i = 0; i < n && ret == LOOP_ON; i++) {
		struct source *src = evs[i].data.ptr;

		if (!src->removed)
			ret = src->fn(src->ctx, src->fd);
	}
	l->dispatching = false;
	free_removed(l);
	return ret;
}
