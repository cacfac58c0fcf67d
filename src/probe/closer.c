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
/* at the end, the rest closed by up to this many at once: a fork storm
 * leaves hundreds of links, and each round of waiters shares one grace
 * period */
#define CLOSER_DRAIN_THREADS 128

/* a descriptor to close, or a call that closes something */
struct job {
	int fd;
	void (*fn)(void *arg);
	void *arg;
};

struct closer {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct job *jobs;	/* waiting to be done */
	size_t njobs, cap;
	bool done;		/* no more are given: close the rest and end */
	pthread_t threads[CLOSER_DRAIN_THREADS];
	int nthreads;
};

static void run(const struct job *job)
{
	if (job->fn)
		job->fn(job->arg);
	else
		close(job->fd);
}

static void *close_fds(void *arg)
{
	struct closer *c = arg;
	struct job job;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->njobs && !c->done)
			pthread_cond_wait(&c->work, &c->lock);
		if (!c->njobs)
			break;
		job = c->jobs[--c->njobs];
		pthread_mutex_unlock(&c->lock);
		run(&job);
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

static void add(struct closer *c, const struct job *job)
{
	struct job *grown;

	if (!c) {
		run(job);
		return;
	}
	pthread_mutex_lock(&c->lock);
	if (c->njobs == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;

		grown = realloc(c->jobs, cap * sizeof(*grown));
		if (!grown) {
			pthread_mutex_unlock(&c->lock);
			run(job);	/* here, then: it is done all the same */
			return;
		}
		c->jobs = grown;
		c->cap = cap;
	}
	c->jobs[c->njobs++] = *job;
	pthread_cond_signal(&c->work);
	pthread_mutex_unlock(&c->lock);
}

void closer__add(struct closer *c, int fd)
{
	if (fd >= 0)
		add(c, &(struct job){ .fd = fd });
}

void closer__call(struct closer *c, void (*fn)(void *arg), void *arg)
{
	add(c, &(struct job){ .fd = -1, .fn = fn, .arg = arg });
}

void closer__destroy(struct closer *c)
{
	int i;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->done = true;
	pthread_cond_broadcast(&c->work);
	/* more threads for a backlog (they take no signal: see closer__new) */
	if (c->nthreads) {
		sigset_t all, old;

		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		while (c->nthreads < CLOSER_DRAIN_THREADS && (size_t)c->nthreads < c->njobs &&
		       !pthread_create(&c->threads[c->nthreads], NULL, close_fds, c))
			c->nthreads++;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < c->nthreads; i++)
		pthread_join(c->threads[i], NULL);
	/* no thread could be started: whatever is left, here */
	while (c->njobs)
		run(&c->jobs[--c->njobs]);
	pthread_cond_destroy(&c->work);
	pthread_mutex_destroy(&c->lock);
	free(c->jobs);
	free(c);
}
