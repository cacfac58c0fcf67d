/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_HTTP_H
#define TRACELLOC_HTTP_H

#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

/*
 * The scrape endpoint: Go's pprof paths and a Prometheus /metrics page,
 * served by libmicrohttpd without a thread of its own. The caller polls
 * http__fd() with its other file descriptors and calls http__run(): pages
 * are written on the caller's thread, between two reads of its events, so
 * nothing is shared and nothing is locked.
 *
 *   /, /debug/pprof/      an index of the pages
 *   /debug/pprof/heap     pprof profile, default sample type inuse_space
 *   /debug/pprof/allocs   the same profile, default sample type alloc_space
 *                         (both with ?seconds=N, 1 to 300: what happened in
 *                         the next N seconds, as Go's delta profiles; the
 *                         answer comes then, and the loop goes on meanwhile)
 *   /metrics              Prometheus text format
 */
struct http;

enum http_page {
	HTTP_PAGE_HEAP,
	HTTP_PAGE_ALLOCS,
	HTTP_PAGE_METRICS,
};

/* writes a page to out; base: what a window began with (?seconds=N), NULL
 * for the whole trace; negative errno (the client gets a 500) */
typedef int (*http_page_fn)(enum http_page page, const void *base, FILE *out, void *ctx);
/* what a window of a page begins with; NULL when out of memory */
typedef void *(*http_window_fn)(enum http_page page, void *ctx);

/*
 * A client has headers_timeout_ms from its connection, or from the end of
 * its last request, to send a request's headers, and is dropped after. Of
 * more than max_connections at once, the one that has waited longest for
 * headers is dropped (never one being answered). A connection on which
 * nothing moves for idle_timeout_s is closed, answered or not. 0: the
 * defaults, 64 connections, 2000 ms, 10 s.
 */
struct http_opts {
	http_page_fn write_page;
	http_window_fn window_begin;
	void (*window_free)(void *base);
	void *ctx;
	unsigned int max_connections;
	unsigned int headers_timeout_ms;
	unsigned int idle_timeout_s;
};

struct http_stats {
	uint64_t requests;
	uint64_t dropped_late;		/* no headers before the deadline */
	uint64_t dropped_for_room;	/* for a newer connection, over max_connections */
	uint64_t busy_ns;		/* spent in http__run, pages included */
	uint64_t longest_run_ns;	/* the longest the caller's loop was held */
};

/*
 * "PORT", ":PORT", "ADDRESS:PORT" or "[IPV6]:PORT", where ADDRESS is an IPv4
 * address or "localhost"; without an address, 127.0.0.1. Port 0: any free
 * port. -EINVAL when arg is none of these.
 */
int http__parse_listen(const char *arg, struct sockaddr_storage *addr, socklen_t *len);
/* "127.0.0.1:6060", "[::1]:6060" */
void http__format_addr(const struct sockaddr *addr, char *buf, size_t size);

/* listens on addr; negative errno (-EADDRINUSE, -EADDRNOTAVAIL, -EACCES, ...) */
int http__new(const struct sockaddr *addr, socklen_t len, const struct http_opts *opts,
	      struct http **out);
void http__destroy(struct http *h);

/* the address bound, with the port chosen when 0 was asked for */
const char *http__address(const struct http *h);
/* readable when http__run has work to do */
int http__fd(const struct http *h);
/* the longest the caller may wait before the next http__run, at most max_ms */
int http__timeout_ms(struct http *h, int max_ms);
/* accepts, reads, answers and writes what is ready, without blocking */
void http__run(struct http *h);
const struct http_stats *http__stats(const struct http *h);

#endif
