// SPDX-License-Identifier: GPL-2.0
/* http.c (listen addresses, the server on loopback) and metrics.c (/metrics) */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "http.h"
#include "metrics.h"
#include "test.h"

TEST(http_parse_listen)
{
	static const struct {
		const char *arg;
		const char *want;	/* as http__format_addr prints it; NULL: -EINVAL */
	} cases[] = {
		{ "6060", "127.0.0.1:6060" },
		{ ":6060", "127.0.0.1:6060" },
		{ "0", "127.0.0.1:0" },
		{ "65535", "127.0.0.1:65535" },
		{ "localhost:80", "127.0.0.1:80" },
		{ "0.0.0.0:6060", "0.0.0.0:6060" },
		{ "192.168.1.20:8080", "192.168.1.20:8080" },
		{ "[::1]:6060", "[::1]:6060" },
		{ "[::]:1", "[::]:1" },
		{ "[fe80::1:2]:443", "[fe80::1:2]:443" },
		{ "", NULL },
		{ ":", NULL },
		{ "65536", NULL },
		{ "99999999999999999999", NULL },
		{ "-1", NULL },
		{ "+80", NULL },
		{ " 80", NULL },
		{ "80 ", NULL },
		{ "0x50", NULL },
		{ "1.2.3:80", NULL },
		{ "1.2.3.4.5:80", NULL },
		{ "256.1.1.1:80", NULL },
		{ "1.2.3.4:", NULL },
		{ "1.2.3.4", NULL },
		{ "example.com:80", NULL },
		{ "::1:80", NULL },
		{ "[::1]", NULL },
		{ "[::1]:", NULL },
		{ "[::1]80", NULL },
		{ "[1.2.3.4]:80", NULL },
		{ "[::1:80", NULL },
	};
	struct sockaddr_storage addr;
	socklen_t len;
	char got[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = http__parse_listen(cases[i].arg, &addr, &len);

		if (!cases[i].want) {
			ASSERT_EQ(err, -EINVAL, "'%s'", cases[i].arg);
			continue;
		}
		ASSERT_OK(err, "'%s'", cases[i].arg);
		ASSERT_EQ(len, addr.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
							    sizeof(struct sockaddr_in),
			  "'%s': address length", cases[i].arg);
		http__format_addr((struct sockaddr *)&addr, got, sizeof(got));
		ASSERT_STREQ(got, cases[i].want, "'%s'", cases[i].arg);
	}
}

/* -------------------------------------------------------------- the server */

static int pages_written[3];

static int fake_page(enum http_page page, const void *base, FILE *out, void *ctx)
{
	pages_written[page]++;
	if (page == HTTP_PAGE_ALLOCS)
		return -EIO;
	fprintf(out, "page %d of %s%s%s", page, (const char *)ctx, base ? ", since " : "",
		base ? (const char *)base : "");
	return 0;
}

static int windows_begun, windows_freed;

static void *fake_window(enum http_page page, void *ctx)
{
	windows_begun++;
	return strdup("the window's start");
}

static void fake_window_free(void *base)
{
	windows_freed++;
	free(base);
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* a connection to the server of h, not blocking, with a receive buffer of rcvbuf (0: the default); -1 if none */
static int connect_with(struct http *h, int rcvbuf)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int fd;

	if (http__parse_listen(strrchr(http__address(h), ':') + 1, &addr, &len))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0 && rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, len) && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

static int connect_to(struct http *h)
{
	return connect_with(h, 0);
}

/* runs the server of h for ms, as the event loop would */
static void serve(struct http *h, int ms)
{
	uint64_t until = ms_now() + (uint64_t)ms;

	while (ms_now() < until) {
		struct pollfd pfd = { .fd = http__fd(h), .events = POLLIN };

		poll(&pfd, 1, http__timeout_ms(h, 5));
		http__run(h);
	}
}

/* whether the server closed fd: the server sends nothing on the connections asked */
static bool closed_by_server(int fd)
{
	char byte;
	ssize_t n = recv(fd, &byte, 1, MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN);
}

/*
 * Sends request to the server of h and returns the whole response (malloc'ed),
 * running the server in between as an event loop would; NULL after 5 s.
 */
static char *exchange(struct http *h, const char *request, size_t request_len)
{
	char *response = calloc(1, 65536);
	size_t got = 0;
	uint64_t until = ms_now() + 5000;
	int fd = -1;

	if (!response)
		goto fail;
	fd = connect_to(h);
	if (fd < 0)
		goto fail;
	/* loopback: the connection is up once the server accepts, and a short
	 * request fits the socket buffer */
	while (ms_now() < until) {
		struct pollfd pfd = { .fd = http__fd(h), .events = POLLIN };
		ssize_t n;

		if (request) {
			n = send(fd, request, request_len, MSG_NOSIGNAL);
			if (n == (ssize_t)request_len)
				request = NULL;
			else if (n >= 0 || (errno != EAGAIN && errno != ENOTCONN))
				goto fail;
		}
		poll(&pfd, 1, 10);
		http__run(h);
		n = recv(fd, response + got, 65535 - got, 0);
		if (n == 0) {
			close(fd);
			return response;
		}
		if (n > 0)
			got += (size_t)n;
		else if (errno != EAGAIN)
			goto fail;
	}
fail:
	if (fd >= 0)
		close(fd);
	free(response);
	return NULL;
}

#define GET(path) "GET " path " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"

/* request: a string literal, which may hold NUL bytes */
#define check_response(h, request, ...) \
	check_response_n(h, request, sizeof(request) - 1, __VA_ARGS__)

static void check_response_n(struct http *h, const char *request, size_t request_len,
			     const char *status, const char *header, const char *body)
{
	char *response = exchange(h, request, request_len);
	const char *got_body;

	ASSERT_OK_PTR(response, "a response to %.30s", request);
	got_body = strstr(response, "\r\n\r\n");
	if (strncmp(response, status, strlen(status)) || !got_body ||
	    (header && !strstr(response, header)) || (body && strcmp(got_body + 4, body))) {
		test__fail(__FILE__, __LINE__, "%.30s: got \"%.300s\", want %s, %s and body %s",
			   request, response, status, header ? header : "-", body ? body : "-");
	}
	free(response);
}

TEST(http_server_pages)
{
	struct http_opts opts = { .write_page = fake_page, .ctx = "the test" };
	struct sockaddr_storage addr;
	struct http *h = NULL;
	socklen_t len;

	memset(pages_written, 0, sizeof(pages_written));
	ASSERT_OK(http__parse_listen("0", &addr, &len), "loopback, any port");
	ASSERT_OK(http__new((struct sockaddr *)&addr, len, &opts, &h), "http__new");
	ASSERT_TRUE(!strncmp(http__address(h), "127.0.0.1:", 10) &&
		    strcmp(http__address(h), "127.0.0.1:0"),
		    "bound to loopback on the port chosen: %s", http__address(h));

	check_response(h, GET("/metrics"), "HTTP/1.1 200", "Content-Type: text/plain; version=0.0.4",
		       "page 2 of the test");
	check_response(h, GET("/debug/pprof/heap?gc=1"), "HTTP/1.1 200",
		       "Content-Disposition: attachment; filename=\"heap\"", "page 0 of the test");
	check_response(h, GET("/debug/pprof/allocs"), "HTTP/1.1 500", NULL,
		       "cannot write /debug/pprof/allocs: Input/output error\n");
	check_response(h, GET("/"), "HTTP/1.1 200", "Content-Type: text/html", NULL);
	check_response(h, GET("/debug/pprof/"), "HTTP/1.1 200", "/debug/pprof/heap", NULL);
	check_response(h, GET("/debug/pprof/goroutine"), "HTTP/1.1 404", NULL, NULL);
	check_response(h, GET("/metricsx"), "HTTP/1.1 404", NULL, NULL);
	check_response(h, "POST /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
			  "Content-Length: 0\r\n\r\n", "HTTP/1.1 405", "Allow: GET, HEAD", NULL);
	check_response(h, "HEAD /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
		       "HTTP/1.1 200", "Content-Length: 18", "");
	ASSERT_EQ(pages_written[HTTP_PAGE_HEAP], 1, "heap pages written");
	ASSERT_EQ(pages_written[HTTP_PAGE_ALLOCS], 1, "allocs pages written");
	ASSERT_EQ(pages_written[HTTP_PAGE_METRICS], 2, "metrics pages written (GET, HEAD)");
	ASSERT_EQ(http__stats(h)->requests, 9, "requests counted");
	http__destroy(h);
}

TEST(http_delta_window)
{
	struct http_opts opts = { .write_page = fake_page, .window_begin = fake_window,
				  .window_free = fake_window_free, .ctx = "the test" };
	struct sockaddr_storage addr;
	struct http *h = NULL;
	uint64_t t0;
	socklen_t len;
	int fd;

	windows_begun = windows_freed = 0;
	ASSERT_OK(http__parse_listen("0", &addr, &len), "loopback, any port");
	ASSERT_OK(http__new((struct sockaddr *)&addr, len, &opts, &h), "http__new");
	t0 = ms_now();
	check_response(h, GET("/debug/pprof/heap?seconds=1"), "HTTP/1.1 200", NULL,
		       "page 0 of the test, since the window's start");
	ASSERT_TRUE(ms_now() - t0 >= 1000, "answered after the window: %llu ms",
		    (unsigned long long)(ms_now() - t0));
	ASSERT_EQ(windows_begun, 1, "one window begun");
	ASSERT_EQ(windows_freed, 1, "and freed");
	check_response(h, GET("/debug/pprof/heap?seconds=0"), "HTTP/1.1 400", NULL,
		       "seconds: a whole number of seconds from 1 to 300\n");
	check_response(h, GET("/debug/pprof/allocs?seconds=301"), "HTTP/1.1 400", NULL, NULL);
	check_response(h, GET("/debug/pprof/heap?seconds=2x"), "HTTP/1.1 400", NULL, NULL);
	check_response(h, GET("/metrics?seconds=5"), "HTTP/1.1 200", NULL, "page 2 of the test");
	ASSERT_EQ(windows_begun, 1, "no window for a bad value, nor for /metrics");
	/* the trace ends during a window: closed unanswered, its start freed */
	fd = connect_to(h);
	ASSERT_TRUE(fd >= 0, "connect");
	ASSERT_TRUE(send(fd, GET("/debug/pprof/heap?seconds=60"),
			 strlen(GET("/debug/pprof/heap?seconds=60")), MSG_NOSIGNAL) > 0, "send");
	serve(h, 200);
	ASSERT_EQ(windows_begun, 2, "a second window begun");
	http__destroy(h);
	ASSERT_EQ(windows_freed, 2, "and freed when the server stops");
	close(fd);
}

TEST(http_refuses_nul)
{
	struct http_opts opts = { .write_page = fake_page, .ctx = "the test" };
	struct sockaddr_storage addr;
	struct http *h = NULL;
	socklen_t len;

	memset(pages_written, 0, sizeof(pages_written));
	ASSERT_OK(http__parse_listen("0", &addr, &len), "loopback, any port");
	ASSERT_OK(http__new((struct sockaddr *)&addr, len, &opts, &h), "http__new");
	/* escapes are decoded, but %00 stays as sent */
	check_response(h, GET("/metric%73"), "HTTP/1.1 200", NULL, "page 2 of the test");
	check_response(h, GET("/metrics%00"), "HTTP/1.1 404", NULL, NULL);
	check_response(h, GET("/metrics%00x"), "HTTP/1.1 404", NULL, NULL);
	check_response(h, GET("/debug/pprof/heap%00"), "HTTP/1.1 404", NULL, NULL);
	/* a raw NUL anywhere in the request line, which MHD would read as its end */
	check_response(h, GET("/metrics\0"), "HTTP/1.1 400", NULL, NULL);
	check_response(h, GET("/metrics\0x"), "HTTP/1.1 400", NULL, NULL);
	check_response(h, GET("/metrics\0HTTP/1.1"), "HTTP/1.1 400", NULL, NULL);
	check_response(h, GET("/metrics?a=\0"), "HTTP/1.1 400", NULL, NULL);
	check_response(h, "GET\0 /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
		       "HTTP/1.1 400", NULL, NULL);
	check_response(h, "GET /metrics HTTP/1.1\0\r\nHost: t\r\nConnection: close\r\n\r\n",
		       "HTTP/1.1 400", NULL, NULL);
	ASSERT_EQ(pages_written[HTTP_PAGE_METRICS], 1, "metrics pages written (/metric%%73 only)");
	ASSERT_EQ(pages_written[HTTP_PAGE_HEAP], 0, "heap pages written");
	http__destroy(h);
}

TEST(http_headers_deadline)
{
	struct http_opts opts = { .write_page = fake_page, .ctx = "t", .headers_timeout_ms = 300 };
	static const char request_line[] = "GET /metrics HTTP/1.1\r\n";
	uint64_t start, trickler_closed = 0, idle_closed = 0, next_line;
	struct sockaddr_storage addr;
	struct http *h = NULL;
	int trickler, idle, lines = 0, wait_ms;
	socklen_t len;

	ASSERT_OK(http__parse_listen("0", &addr, &len), "loopback, any port");
	ASSERT_OK(http__new((struct sockaddr *)&addr, len, &opts, &h), "http__new");
	trickler = connect_to(h);
	idle = connect_to(h);
	ASSERT_TRUE(trickler >= 0 && idle >= 0, "two connections");
	start = next_line = ms_now();
	serve(h, 20);
	wait_ms = http__timeout_ms(h, 10000);
	ASSERT_TRUE(wait_ms > 0 && wait_ms <= 300, "waits %d ms at most: the next deadline", wait_ms);
	/* a header line every 50 ms would keep MHD's own timeout from ever firing */
	while ((!trickler_closed || !idle_closed) && ms_now() < start + 3000) {
		if (!trickler_closed && ms_now() >= next_line) {
			if (lines++)
				send(trickler, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL);
			else
				send(trickler, request_line, sizeof(request_line) - 1, MSG_NOSIGNAL);
			next_line += 50;
		}
		serve(h, 5);
		if (!trickler_closed && closed_by_server(trickler))
			trickler_closed = ms_now();
		if (!idle_closed && closed_by_server(idle))
			idle_closed = ms_now();
	}
	close(trickler);
	close(idle);
	ASSERT_TRUE(trickler_closed, "the client trickling its headers is dropped");
	ASSERT_TRUE(idle_closed, "the client sending nothing is dropped");
	ASSERT_GE(trickler_closed - start, 300, "the trickling client dropped after its deadline");
	ASSERT_LE(trickler_closed - start, 1000, "the trickling client dropped at its deadline");
	ASSERT_GE(idle_closed - start, 300, "the idle client dropped after its deadline");
	ASSERT_LE(idle_closed - start, 1000, "the idle client dropped at its deadline");
	ASSERT_GE(lines, 6, "header lines sent");
	ASSERT_EQ(http__stats(h)->dropped_late, 2, "connections dropped late");
	/* and a request made at once is answered, before and after */
	check_response(h, GET("/metrics"), "HTTP/1.1 200", NULL, "page 2 of t");
	http__destroy(h);
}

/* more than the server's socket buffer (4 MB at most) and a small receive buffer hold */
#define BIG_PAGE_SIZE (8 << 20)

/* unread, it keeps its connection answering */
static int big_page(enum http_page page, const void *base, FILE *out, void *ctx)
{
	static char line[4096];
	size_t i;

	memset(line, 'x', sizeof(line));
	for (i = 0; i < BIG_PAGE_SIZE / sizeof(line); i++)
		fwrite(line, 1, sizeof(line), out);
	return 0;
}

TEST(http_room_for_newcomers)
{
	struct http_opts opts = { .write_page = big_page, .max_connections = 4 };
	static const char request[] = GET("/metrics");
	struct sockaddr_storage addr;
	struct http *h = NULL;
	int fds[6], answered, i;
	uint64_t until;
	size_t got = 0;
	char buf[65536];
	ssize_t n;
	socklen_t len;

	ASSERT_OK(http__parse_listen("0", &addr, &len), "loopback, any port");
	ASSERT_OK(http__new((struct sockaddr *)&addr, len, &opts, &h), "http__new");
	/* the oldest, being answered and not reading */
	answered = connect_with(h, 16384);
	ASSERT_TRUE(answered >= 0, "a connection");
	ASSERT_EQ(send(answered, request, sizeof(request) - 1, MSG_NOSIGNAL), sizeof(request) - 1,
		  "the request sent");
	serve(h, 100);
	ASSERT_EQ(http__stats(h)->requests, 1, "the request read");
	/* then one idle connection after another, each older than a newcomer's fair chance */
	for (i = 0; i < 5; i++) {
		fds[i] = connect_to(h);
		ASSERT_TRUE(fds[i] >= 0, "connection %d", i);
		serve(h, 100);
	}
	ASSERT_TRUE(closed_by_server(fds[0]), "the first idle connection made room for the fourth");
	ASSERT_TRUE(closed_by_server(fds[1]), "the second idle connection made room for the fifth");
	for (i = 2; i < 5; i++)
		ASSERT_TRUE(!closed_by_server(fds[i]), "idle connection %d still open", i);
	ASSERT_EQ(http__stats(h)->dropped_for_room, 2, "connections dropped for room");
	ASSERT_EQ(http__stats(h)->dropped_late, 0, "connections dropped late");
	/* the answer, whole */
	until = ms_now() + 10000;
	while (ms_now() < until) {
		struct pollfd pfds[2] = { { .fd = http__fd(h), .events = POLLIN },
					  { .fd = answered, .events = POLLIN } };

		poll(pfds, 2, http__timeout_ms(h, 5));
		http__run(h);
		while ((n = recv(answered, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			got += (size_t)n;
		if (!n)
			break;
	}
	for (i = 0; i < 5; i++)
		close(fds[i]);
	close(answered);
	http__destroy(h);
	ASSERT_GT(got, BIG_PAGE_SIZE, "bytes of the answer (headers and page)");
	ASSERT_LT(got, BIG_PAGE_SIZE + 1024, "bytes of the answer (headers and page)");
}

TEST(http_port_in_use)
{
	struct http_opts opts = { .write_page = fake_page, .ctx = "" };
	struct sockaddr_storage addr;
	struct http *h = NULL, *h2 = NULL;
	socklen_t len;
	int err;

	ASSERT_OK(http__parse_listen("0", &addr, &len), "loopback, any port");
	ASSERT_OK(http__new((struct sockaddr *)&addr, len, &opts, &h), "http__new");
	ASSERT_OK(http__parse_listen(http__address(h), &addr, &len), "the address bound");
	err = http__new((struct sockaddr *)&addr, len, &opts, &h2);
	http__destroy(h2);
	http__destroy(h);
	ASSERT_EQ(err, -EADDRINUSE, "a second server on the same port");
}

/* -------------------------------------------------------------- /metrics */

TEST(metrics_text)
{
	struct metrics m = {
		.pid = 4321,
		.traced_s = 12.5,
		.stats = { .alloc_calls = 1000, .alloc_bytes = 64000, .frees = 900,
			   .unknown_frees = 3, .live_count = 100, .live_bytes = 6400,
			   .failed_stacks = 2 },
		.loss = { .lost_allocs = 7, .lost_frees = 5, .cut_no_table = 4, .cut_rule = 3,
			  .cut_unreadable = 1, .cut_depth = 6, .untraced_forks = 9,
			  .ptraced = 4 },
		.stacks = 17,
		.alloc_calls_per_s = 80.25,
		.alloc_bytes_per_s = 5136,
		.leak_check = true,
		.leak_checks = 2,
		.leak_bytes = { 3600, 688, 176, 1612 },
		.leak_blocks = { 7, 2, 3, 4 },
		.named = true,
		.own_bytes = 49152,
		.own_count = 6,
	};
	static const char *const want_lines[] = {
		"# TYPE tracelloc_target_info gauge\n",
		"tracelloc_target_info{pid=\"4321\"} 1\n",
		"# TYPE tracelloc_live_bytes gauge\n",
		"\ntracelloc_live_bytes 6400\n",
		"\ntracelloc_live_allocations 100\n",
		"# TYPE tracelloc_allocated_bytes_total counter\n",
		"\ntracelloc_allocated_bytes_total 64000\n",
		"\ntracelloc_allocations_total 1000\n",
		"\ntracelloc_frees_total 900\n",
		"\ntracelloc_unknown_frees_total 3\n",
		"\ntracelloc_allocation_rate_bytes 5136.000\n",
		"\ntracelloc_allocation_rate_calls 80.250\n",
		"# TYPE tracelloc_lost_events_total counter\n",
		"\ntracelloc_lost_events_total{kind=\"alloc\"} 7\n",
		"\ntracelloc_lost_events_total{kind=\"free\"} 5\n",
		"# TYPE tracelloc_stacks_cut_short_total counter\n",
		"\ntracelloc_stacks_cut_short_total{cause=\"no_table\"} 4\n",
		"\ntracelloc_stacks_cut_short_total{cause=\"rule\"} 3\n",
		"\ntracelloc_stacks_cut_short_total{cause=\"unreadable\"} 1\n",
		"\ntracelloc_stacks_cut_short_total{cause=\"depth\"} 6\n",
		"# TYPE tracelloc_untraced_children_total counter\n",
		"\ntracelloc_untraced_children_total 9\n",
		"# TYPE tracelloc_stops_not_made_total counter\n",
		"\ntracelloc_stops_not_made_total 4\n",
		"\ntracelloc_failed_stacks_total 2\n",
		"\ntracelloc_stacks 17\n",
		"\ntracelloc_sample_bytes 0\n",
		"\ntracelloc_traced_seconds 12.500\n",
		"# TYPE tracelloc_leak_bytes gauge\n",
		"\ntracelloc_leak_checks 2\n",
		"\ntracelloc_leak_bytes{class=\"definitely_lost\"} 1612\n",
		"\ntracelloc_leak_bytes{class=\"indirectly_lost\"} 176\n",
		"\ntracelloc_leak_bytes{class=\"possibly_lost\"} 688\n",
		"\ntracelloc_leak_bytes{class=\"still_reachable\"} 3600\n",
		"\ntracelloc_leak_blocks{class=\"definitely_lost\"} 4\n",
		"\ntracelloc_leak_blocks{class=\"still_reachable\"} 7\n",
		"\ntracelloc_named_own_bytes 49152\n",
		"\ntracelloc_named_own_pieces 6\n",
	};
	char *text = NULL, *line, *saveptr = NULL;
	size_t size = 0, i;
	FILE *out = open_memstream(&text, &size);

	ASSERT_OK_PTR(out, "open_memstream");
	ASSERT_OK(metrics__write(out, &m), "metrics__write");
	fclose(out);
	for (i = 0; i < sizeof(want_lines) / sizeof(want_lines[0]); i++)
		if (!strstr(text, want_lines[i])) {
			test__fail(__FILE__, __LINE__, "no line \"%s\" in /metrics", want_lines[i]);
			break;
		}
	/* every line a comment or "name[{labels}] value", as Prometheus parses it */
	for (line = strtok_r(text, "\n", &saveptr); line && !test__failed();
	     line = strtok_r(NULL, "\n", &saveptr)) {
		if (!strncmp(line, "# HELP tracelloc_", 17) || !strncmp(line, "# TYPE tracelloc_", 17))
			continue;
		if (strncmp(line, "tracelloc_", 10) || !strchr(line, ' ') ||
		    strspn(strrchr(line, ' ') + 1, "0123456789.") != strlen(strrchr(line, ' ') + 1))
			test__fail(__FILE__, __LINE__, "not a sample line: \"%s\"", line);
	}
	free(text);
}
