// SPDX-License-Identifier: GPL-2.0
/*
 * The demo service for `make demo`: it handles fake requests forever, and one
 * session in three is never closed. Its heap grows by a few KiB a second.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct session {
	int id;
	char *payload;
	struct session *next;
};

static struct session *sessions;
static struct session **index_by_id;
static size_t index_cap;

__attribute__((noinline)) static char *read_request(int id)
{
	char *buf = malloc(4096);

	snprintf(buf, 4096, "GET /item/%d HTTP/1.1", id);
	return buf;
}

__attribute__((noinline)) static void index_session(struct session *s)
{
	if ((size_t)s->id >= index_cap) {
		index_cap = index_cap ? index_cap * 2 : 64;
		index_by_id = realloc(index_by_id, index_cap * sizeof(*index_by_id));
	}
	index_by_id[s->id] = s;
}

__attribute__((noinline)) static struct session *open_session(int id, const char *request)
{
	struct session *s = calloc(1, sizeof(*s));

	s->id = id;
	s->payload = malloc(256 + id % 512);
	strcpy(s->payload, request);
	s->next = sessions;
	sessions = s;
	index_session(s);
	return s;
}

__attribute__((noinline)) static void close_session(struct session *s)
{
	struct session **p;

	for (p = &sessions; *p; p = &(*p)->next) {
		if (*p == s) {
			*p = s->next;
			break;
		}
	}
	index_by_id[s->id] = NULL;
	free(s->payload);
	free(s);
}

__attribute__((noinline)) static void handle_request(int id)
{
	char *request = read_request(id);
	struct session *s = open_session(id, request);

	/* the bug: sessions with ids divisible by 3 are never closed */
	if (id % 3)
		close_session(s);
	free(request);
}

int main(int argc, char **argv)
{
	int id = 0;

	printf("demo: pid %d, handling requests\n", getpid());
	fflush(stdout);
	for (;;) {
		handle_request(id++);
		usleep(1000);
	}
	return 0;
}
