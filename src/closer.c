// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "closer.h"

/*
 * Threads, not one: the kernel lets waiters of one grace period share it,
 * so that a thousand links closed sixteen at a time take about a
 * sixteenth of the time they take one by one.
 */
#define CLOSER_THREADS 16

struct closer {
	pthread_mutex_t lock;
	pthread_cond_t work;
	int *fds;		/* waiting to be closed */
	size_t nfds, cap;
	bool done;		/* no more are given: close the rest and end */
	pthread_t threads[CLOSER_THREADS];
	int nthreads;
};

static void *close_fds(void *arg)
{
	struct closer *c = arg;
	int fd;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->nfds && !c->done)
			pthread_cond_wait(&c->work, &c->lock);
		if (!c->nfds)
			break;
		fd = c->fds[--c->nfds];
		pthread_mutex_unlock(&c->lock);
		close(fd);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct closer *closer__new(void)
{
	struct closer *c = calloc(1, sizeof(*c));
	sigset_t all, old;

	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->work, NULL);
	/* no signal is ever theirs: the main thread takes them (signalfd) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (; c->nthreads < CLOSER_THREADS; c->nthreads++)
		if (pthread_create(&c->threads[c->nthreads], NULL, close_fds, c))
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!c->nthreads) {
		closer__destroy(c);
		return NULL;
	}
	return c;
}

void closer__add(struct closer *c, int fd)
{
	int *grown;

	if (fd < 0)
		return;
	if (!c) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&c->lock);
	if (c->nfds == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;

		grown = realloc(c->fds, cap * sizeof(*grown));
		if (!grown) {
			pthread_mutex_unlock(&c->lock);
			close(fd);	/* here, then: it is closed all the same */
			return;
		}
		c->fds = grown;
		c->cap = cap;
	}
	c->fds[c->nfds++] = fd;
	pthread_cond_signal(&c->work);
	pthread_mutex_unlock(&c->lock);
}

void closer__destroy(struct closer *c)
{
	int i;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->done = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < c->nthreads; i++)
		pthread_join(c->threads[i], NULL);
	/* no thread could be started: whatever is left, here */
	while (c->nfds)
		close(c->fds[--c->nfds]);
	pthread_cond_destroy(&c->work);
	pthread_mutex_destroy(&c->lock);
	free(c->fds);
	free(c);
}
