// SPDX-License-Identifier: GPL-2.0
/*
 * libmicrohttpd in "external polling" mode with epoll: MHD has no thread;
 * its epoll fd sits in the caller's event loop, and MHD_run() does what is
 * ready without blocking. A page is written whole into memory while the
 * request is handled, then sent from there as the client reads it: a slow
 * client costs the event loop nothing but a few non-blocking writes.
 *
 * Clients that never finish a request are dropped here, not by MHD: its
 * connection timeout restarts with every byte, so a client that sends a
 * header line now and then would keep its connection for good. Each
 * connection has a record (MHD's socket context) saying since when it has
 * been waiting for a request's headers; past the deadline, or when a newer
 * connection needs the room, the socket is shut down, MHD reads the end of
 * the stream and closes the connection itself.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "http.h"

/* defaults of struct http_opts */
#define MAX_CONNECTIONS 64
#define HEADERS_TIMEOUT_MS 2000
#define IDLE_TIMEOUT_S 10
/* the longest window of a delta profile (?seconds=N), as Go's scrapers ask at most */
#define MAX_WINDOW_S 300
/*
 * A newcomer is not dropped to make room before it has had this long to send
 * its request: its client may not have been scheduled yet since its connect.
 */
#define FAIR_CHANCE_MS 50
/*
 * MHD's own limit is above ours, so that MHD accepts and we choose whom to
 * drop. Above ours are the connections dropped that MHD has yet to close,
 * and in a flood those that have not had their fair chance yet: at MHD's
 * limit, the next ones wait in the kernel's queue.
 */
#define MHD_LIMIT_ABOVE_OURS 64
/* connections the kernel holds until accepted: a burst must not make a scrape wait for a SYN retry */
#define LISTEN_BACKLOG 1024

/* a connection, from MHD's "started" to its "closed" */
struct conn {
	struct conn *prev, *next;
	struct MHD_Connection *mhd;
	/* since when it has waited for a request's headers: its start or the end of its last request */
	uint64_t waiting_since_ns;
	bool answering;			/* its request's headers are in: being answered */
	bool dropped;			/* shut down; MHD has yet to close it */
	/* the request target as received, before MHD unescapes it (the URI log callback) */
	const char *target;
	size_t target_len;
	/* a window (?seconds=N): suspended till due_ns, then answered from base */
	void *base;
	const struct route *route;
	uint64_t due_ns;
	bool waiting, resumed;
};

struct http {
	struct MHD_Daemon *daemon;
	int epoll_fd;			/* MHD's; it owns it */
	struct http_opts opts;
	struct http_stats stats;
	struct conn *conns;		/* MHD's connections, newest first */
	unsigned int open;		/* conns not dropped */
	uint64_t closed;		/* connections MHD closed, ever */
	bool run_again;			/* MHD closed some: it may accept again */
	char address[INET6_ADDRSTRLEN + 8];
};

static const char index_html[] =
	"<!DOCTYPE html>\n"
	"<html><head><meta charset=\"utf-8\"><title>tracelloc</title></head><body>\n"
	"<h1>tracelloc</h1>\n"
	"<p>The heap of the traced process, as pprof profiles and Prometheus metrics.</p>\n"
	"<ul>\n"
	"<li><a href=\"/debug/pprof/heap\">/debug/pprof/heap</a>: live and allocated memory by "
	"call stack (pprof, default sample type inuse_space)</li>\n"
	"<li><a href=\"/debug/pprof/allocs\">/debug/pprof/allocs</a>: the same profile, default "
	"sample type alloc_space</li>\n"
	"<li>either with <code>?seconds=N</code> (1 to 300): what happened in the next N seconds"
	"</li>\n"
	"<li><a href=\"/metrics\">/metrics</a>: live bytes, allocation rate, lost events "
	"(Prometheus text format)</li>\n"
	"</ul>\n"
	"<p>View a profile: <code>go tool pprof -http=:8080 http://HOST:PORT/debug/pprof/heap"
	"</code></p>\n"
	"</body></html>\n";

struct route {
	const char *path;
	int page;			/* enum http_page; -1: the index */
	const char *content_type;
	const char *file_name;		/* of a download, as Go names it */
};

static const struct route routes[] = {
	{ "/", -1, "text/html; charset=utf-8", NULL },
	{ "/debug/pprof", -1, "text/html; charset=utf-8", NULL },
	{ "/debug/pprof/", -1, "text/html; charset=utf-8", NULL },
	{ "/debug/pprof/heap", HTTP_PAGE_HEAP, "application/octet-stream", "heap" },
	{ "/debug/pprof/allocs", HTTP_PAGE_ALLOCS, "application/octet-stream", "allocs" },
	{ "/metrics", HTTP_PAGE_METRICS, "text/plain; version=0.0.4; charset=utf-8", NULL },
};

static int parse_port(const char *str, uint16_t *port)
{
	unsigned long v = 0;

	if (!*str || strlen(str) > 5)
		return -EINVAL;
	for (; *str; str++) {
		if (*str < '0' || *str > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*str - '0');
	}
	if (v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int http__parse_listen(const char *arg, struct sockaddr_storage *addr, socklen_t *len)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)addr;
	struct sockaddr_in *in4 = (struct sockaddr_in *)addr;
	const char *colon, *close;
	char host[INET6_ADDRSTRLEN];
	size_t host_len;
	uint16_t port;

	memset(addr, 0, sizeof(*addr));
	if (arg[0] == '[') {
		close = strchr(arg, ']');
		host_len = close ? (size_t)(close - arg - 1) : 0;
		if (!close || close[1] != ':' || host_len >= sizeof(host))
			return -EINVAL;
		memcpy(host, arg + 1, host_len);
		host[host_len] = '\0';
		if (parse_port(close + 2, &port) || inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return 0;
	}
	colon = strchr(arg, ':');
	/* an IPv6 address needs its brackets: "::1:80" would be ambiguous */
	if (colon && strchr(colon + 1, ':'))
		return -EINVAL;
	if (parse_port(colon ? colon + 1 : arg, &port))
		return -EINVAL;
	in4->sin_family = AF_INET;
	in4->sin_port = htons(port);
	*len = sizeof(*in4);
	host_len = colon ? (size_t)(colon - arg) : 0;
	if (host_len >= sizeof(host))
		return -EINVAL;
	memcpy(host, arg, host_len);
	host[host_len] = '\0';
	/* loopback unless an address is given: a heap profile is nobody else's business */
	if (!host_len || !strcmp(host, "localhost")) {
		in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return 0;
	}
	return inet_pton(AF_INET, host, &in4->sin_addr) == 1 ? 0 : -EINVAL;
}

void http__format_addr(const struct sockaddr *addr, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, size, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in *in4 = (const struct sockaddr_in *)addr;

		inet_ntop(AF_INET, &in4->sin_addr, host, sizeof(host));
		snprintf(buf, size, "%s:%u", host, ntohs(in4->sin_port));
	}
}

/* ------------------------------------------------------------ connections */

/* MHD reads the end of the stream at its next run and closes the connection */
static void shut(struct MHD_Connection *mhd)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(mhd, MHD_CONNECTION_INFO_CONNECTION_FD);

	if (info)
		shutdown(info->connect_fd, SHUT_RDWR);
}

static void drop(struct http *h, struct conn *c, uint64_t *counter)
{
	shut(c->mhd);
	c->dropped = true;
	h->open--;
	(*counter)++;
}

/* the connection that has waited longest for a request's headers; NULL if all are answering */
static struct conn *longest_waiting(const struct http *h)
{
	struct conn *c, *oldest = NULL;

	for (c = h->conns; c; c = c->next)
		if (!c->dropped && !c->answering &&
		    (!oldest || c->waiting_since_ns < oldest->waiting_since_ns))
			oldest = c;
	return oldest;
}

static void notify_connection(void *cls, struct MHD_Connection *mhd, void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct http *h = cls;
	struct conn *c = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (!c)
			return;
		if (c->base && h->opts.window_free)
			h->opts.window_free(c->base);
		if (c->prev)
			c->prev->next = c->next;
		else
			h->conns = c->next;
		if (c->next)
			c->next->prev = c->prev;
		if (!c->dropped)
			h->open--;
		h->closed++;
		free(c);
		*socket_context = NULL;
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		/* a connection we cannot keep an eye on is not served */
		shut(mhd);
		return;
	}
	c->mhd = mhd;
	c->waiting_since_ns = clock__now_ns();
	c->next = h->conns;
	if (h->conns)
		h->conns->prev = c;
	h->conns = c;
	*socket_context = c;
	h->open++;
}

/* the request line is complete; its headers may not be */
static void *request_line_read(void *cls, const char *target, struct MHD_Connection *mhd)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(mhd, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *c = info ? info->socket_context : NULL;

	if (c) {
		c->target = target;
		c->target_len = target ? strlen(target) : 0;
	}
	return c;	/* the handler's request context */
}

static void request_done(void *cls, struct MHD_Connection *mhd, void **request_ctx,
			 enum MHD_RequestTerminationCode toe)
{
	struct conn *c = *request_ctx;

	if (!c)
		return;
	/* a keep-alive connection waits for the next request from now */
	c->answering = false;
	c->waiting_since_ns = clock__now_ns();
	c->target = NULL;
}

/* ------------------------------------------------------------ requests */

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/*
 * %HH decoded as MHD decodes it, except %00, which stays as sent: a NUL
 * would end the path early, and "/metrics%00" would read as "/metrics".
 */
static size_t unescape(void *cls, struct MHD_Connection *mhd, char *str)
{
	const char *in = str;
	char *out = str;
	int hi, lo;

	while (*in) {
		if (in[0] == '%' && (hi = hex_digit(in[1])) >= 0 && (lo = hex_digit(in[2])) >= 0 &&
		    (hi || lo)) {
			*out++ = (char)(hi << 4 | lo);
			in += 3;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
	return (size_t)(out - str);
}

/*
 * MHD 0.9.75 reads a raw NUL in the request line as the end of a string:
 * "GET /metrics<NUL>x HTTP/1.1" reaches the handler as "/metrics". It
 * splits the line in place, a NUL for each separator, and hands on the
 * method, the target (to the URI log callback) and the version as pointers
 * into it: in a clean line they lie back to back, "GET\0/metrics\0HTTP/1.1",
 * and a NUL of the client's own shortens one of them so that they do not.
 * Should MHD ever pass these strings from elsewhere, every request fails
 * this test, and none passes that should not.
 */
static bool request_line_clean(const struct conn *c, const char *method, const char *version)
{
	return c->target && method + strlen(method) + 1 == c->target &&
	       c->target + c->target_len + 1 == version;
}

static enum MHD_Result queue(struct MHD_Connection *conn, unsigned int status,
			     struct MHD_Response *resp, const char *content_type)
{
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;	/* MHD closes the connection */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_X_CONTENT_TYPE_OPTIONS, "nosniff");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned int status,
				  const char *content_type, const char *text)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);

	if (resp && status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	return queue(conn, status, resp, content_type);
}

static enum MHD_Result reply_page(struct http *h, struct MHD_Connection *conn,
				  const struct route *route, const void *base)
{
	struct MHD_Response *resp;
	char *body = NULL, msg[128], disposition[64];
	size_t size = 0;
	FILE *out = open_memstream(&body, &size);
	int err = out ? h->opts.write_page(route->page, base, out, h->opts.ctx) : -ENOMEM;

	if (out && fclose(out) && !err)
		err = -ENOMEM;
	if (err) {
		free(body);
		snprintf(msg, sizeof(msg), "cannot write %s: %s\n", route->path, strerror(-err));
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8",
				  msg);
	}
	resp = MHD_create_response_from_buffer(size, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	if (route->file_name) {
		snprintf(disposition, sizeof(disposition), "attachment; filename=\"%s\"",
			 route->file_name);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disposition);
	}
	return queue(conn, MHD_HTTP_OK, resp, route->content_type);
}

/* ?seconds=N on a profile: 0, none; -1, a bad one; else N */
static int window_seconds(struct MHD_Connection *conn)
{
	const char *arg = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "seconds");
	char *end;
	long n;

	if (!arg)
		return 0;
	errno = 0;
	n = strtol(arg, &end, 10);
	return errno || end == arg || *end || n < 1 || n > MAX_WINDOW_S ? -1 : (int)n;
}

/* a profile of what happens in the next N seconds: the connection waits,
 * suspended, and the loop goes on */
static enum MHD_Result begin_window(struct http *h, struct conn *c, const struct route *route,
				    int seconds)
{
	c->base = h->opts.window_begin ? h->opts.window_begin(route->page, h->opts.ctx) : NULL;
	if (!c->base)
		return reply_text(c->mhd, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8",
				  "cannot begin the window: out of memory\n");
	c->route = route;
	c->due_ns = clock__now_ns() + seconds * 1000000000ULL;
	c->waiting = true;
	MHD_suspend_connection(c->mhd);
	return MHD_YES;
}

static enum MHD_Result answer_window(struct http *h, struct conn *c)
{
	enum MHD_Result ret = reply_page(h, c->mhd, c->route, c->base);

	if (h->opts.window_free)
		h->opts.window_free(c->base);
	c->base = NULL;
	c->waiting = c->resumed = false;
	return ret;
}

static enum MHD_Result handle_request(void *cls, struct MHD_Connection *conn, const char *url,
				      const char *method, const char *version,
				      const char *upload_data, size_t *upload_data_size,
				      void **request_ctx)
{
	struct http *h = cls;
	struct conn *c = *request_ctx;
	size_t i;

	if (c && c->waiting)
		return c->resumed ? answer_window(h, c) : MHD_YES;
	h->stats.requests++;
	if (!c)
		return MHD_NO;	/* not in our records (out of memory): MHD closes it */
	c->answering = true;
	if (!request_line_clean(c, method, version))
		return reply_text(conn, MHD_HTTP_BAD_REQUEST, "text/plain; charset=utf-8",
				  "bad request line\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
				  "only GET and HEAD\n");
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		if (strcmp(url, routes[i].path))
			continue;
		if (routes[i].page < 0)
			return reply_text(conn, MHD_HTTP_OK, routes[i].content_type, index_html);
		if (routes[i].page != HTTP_PAGE_METRICS) {
			int seconds = window_seconds(conn);

			if (seconds < 0)
				return reply_text(conn, MHD_HTTP_BAD_REQUEST, "text/plain; charset=utf-8",
						  "seconds: a whole number of seconds from 1 to 300\n");
			if (seconds)
				return begin_window(h, c, &routes[i], seconds);
		}
		return reply_page(h, conn, &routes[i], NULL);
	}
	return reply_text(conn, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
			  "not found: the pages are listed at /\n");
}

int http__new(const struct sockaddr *addr, socklen_t len, const struct http_opts *opts,
	      struct http **out)
{
	struct sockaddr_storage bound;
	socklen_t bound_len = sizeof(bound);
	const union MHD_DaemonInfo *info;
	struct http *h;
	int fd, one = 1, err;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->opts = *opts;
	if (!h->opts.max_connections)
		h->opts.max_connections = MAX_CONNECTIONS;
	if (!h->opts.headers_timeout_ms)
		h->opts.headers_timeout_ms = HEADERS_TIMEOUT_MS;
	if (!h->opts.idle_timeout_s)
		h->opts.idle_timeout_s = IDLE_TIMEOUT_S;
	h->epoll_fd = -1;
	fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	/* a restarted tracelloc binds at once, though its last connections linger in TIME_WAIT */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) || bind(fd, addr, len) ||
	    listen(fd, LISTEN_BACKLOG) || getsockname(fd, (struct sockaddr *)&bound, &bound_len)) {
		err = -errno;
		close(fd);
		goto fail;
	}
	http__format_addr((struct sockaddr *)&bound, h->address, sizeof(h->address));
	h->daemon = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
				     (addr->sa_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				     0, NULL, NULL, handle_request, h,
				     MHD_OPTION_LISTEN_SOCKET, fd,
				     MHD_OPTION_CONNECTION_LIMIT,
				     h->opts.max_connections + MHD_LIMIT_ABOVE_OURS,
				     /* a client that stops reading its answer */
				     MHD_OPTION_CONNECTION_TIMEOUT, h->opts.idle_timeout_s,
				     MHD_OPTION_NOTIFY_CONNECTION, notify_connection, h,
				     MHD_OPTION_NOTIFY_COMPLETED, request_done, h,
				     MHD_OPTION_URI_LOG_CALLBACK, request_line_read, h,
				     MHD_OPTION_UNESCAPE_CALLBACK, unescape, h,
				     MHD_OPTION_END);
	if (!h->daemon) {
		/* whether MHD closed fd on its way out is not said: leave it */
		err = -EIO;
		goto fail;
	}
	info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	h->epoll_fd = info ? info->epoll_fd : -1;
	if (h->epoll_fd < 0) {
		err = -EIO;
		goto fail;
	}
	*out = h;
	return 0;
fail:
	http__destroy(h);
	return err;
}

void http__destroy(struct http *h)
{
	struct conn *c;

	if (!h)
		return;
	/* MHD stops only with no connection suspended: a window not over is
	 * closed unanswered */
	for (c = h->conns; c; c = c->next)
		if (c->waiting && !c->resumed) {
			c->resumed = true;
			MHD_resume_connection(c->mhd);
		}
	/* closes the listening socket, and every connection: their records go with them */
	if (h->daemon)
		MHD_stop_daemon(h->daemon);
	free(h);
}

const char *http__address(const struct http *h)
{
	return h->address;
}

int http__fd(const struct http *h)
{
	return h->epoll_fd;
}

/* ms from now until deadline_ns, rounded up: woken a little early, the loop would spin */
static int ms_until(uint64_t deadline_ns, uint64_t now, int max_ms)
{
	uint64_t ms = deadline_ns > now ? (deadline_ns - now + 999999) / 1000000 : 0;

	return ms < (uint64_t)max_ms ? (int)ms : max_ms;
}

int http__timeout_ms(struct http *h, int max_ms)
{
	struct conn *c = longest_waiting(h), *w;
	MHD_UNSIGNED_LONG_LONG timeout;
	uint64_t now = clock__now_ns();

	/* at MHD's limit, it takes the listening socket out of its epoll set until a run after a close */
	if (h->run_again)
		return 0;
	if (MHD_get_timeout(h->daemon, &timeout) == MHD_YES && timeout < (unsigned int)max_ms)
		max_ms = (int)timeout;
	for (w = h->conns; w; w = w->next)
		if (w->waiting && !w->resumed)
			max_ms = ms_until(w->due_ns, now, max_ms);
	if (!c)
		return max_ms;
	max_ms = ms_until(c->waiting_since_ns + h->opts.headers_timeout_ms * 1000000ULL, now, max_ms);
	if (h->open > h->opts.max_connections)
		max_ms = ms_until(c->waiting_since_ns + FAIR_CHANCE_MS * 1000000ULL, now, max_ms);
	return max_ms;
}

/* before MHD's run, which then reads the end of their streams and closes them */
static void drop_late(struct http *h, uint64_t now)
{
	uint64_t timeout_ns = h->opts.headers_timeout_ms * 1000000ULL;
	struct conn *c;

	for (c = h->conns; c; c = c->next)
		if (!c->dropped && !c->answering && now - c->waiting_since_ns >= timeout_ns)
			drop(h, c, &h->stats.dropped_late);
}

/*
 * After MHD's run, not as MHD accepts: a newcomer whose request came with
 * it has been read and is being answered by now, and is not taken for one
 * that waits. Connections being answered are never dropped, nor those that
 * have not had their fair chance: over the limit with only these, MHD's own
 * limit, above ours, stops the accepting for a while.
 */
static void make_room(struct http *h, uint64_t now)
{
	struct conn *c;

	while (h->open > h->opts.max_connections && (c = longest_waiting(h)) &&
	       now - c->waiting_since_ns >= FAIR_CHANCE_MS * 1000000ULL)
		drop(h, c, &h->stats.dropped_for_room);
}

/* the windows that are over: answered by the run that follows */
static void resume_due(struct http *h, uint64_t now)
{
	struct conn *c;

	for (c = h->conns; c; c = c->next)
		if (c->waiting && !c->resumed && now >= c->due_ns) {
			c->resumed = true;
			MHD_resume_connection(c->mhd);
		}
}

void http__run(struct http *h)
{
	uint64_t start = clock__now_ns(), closed = h->closed, took;

	drop_late(h, start);
	resume_due(h, start);
	MHD_run(h->daemon);
	make_room(h, clock__now_ns());
	h->run_again = h->closed != closed;
	took = clock__now_ns() - start;
	h->stats.busy_ns += took;
	if (took > h->stats.longest_run_ns)
		h->stats.longest_run_ns = took;
}

const struct http_stats *http__stats(const struct http *h)
{
	return &h->stats;
}
