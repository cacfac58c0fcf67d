// SPDX-License-Identifier: GPL-2.0
/* tracelloc: which call stacks of a process hold heap memory, and how much */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "closer.h"
#include "checks.h"
#include "console.h"
#include "debuginfod.h"
#include "events.h"
#include "filter.h"
#include "follow.h"
#include "holds.h"
#include "http.h"
#include "options.h"
#include "outputs.h"
#include "recording.h"
#include "run.h"
#include "say.h"
#include "suppress.h"
#include "traced.h"
#include "tracer.h"

/*
 * A run is its rooms (see run.h): the processes traced (traced.c), what
 * their new processes and execs ask for (follow.c), the BPF object
 * (tracer.c), what is recorded (recording.c), the terminal (console.c), the
 * files (outputs.c) and the endpoint (http.c); main makes them in order,
 * runs the trace, and takes them down in one place.
 */
struct session {
	struct options opts;
	struct run_rooms rooms;
	struct filter *filter;		/* until the recording takes it */
	struct suppressions *supp;	/* the same */
	struct holds *holds;		/* processes stopped for us, and their guardian */
	struct closer *closer;		/* closes the probes' links off the reading thread */
	FILE *report_out;		/* reports, live lines, summary: stderr when an output is stdout */
};

static int verbosity;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && verbosity < 2)
		return 0;
	if (!verbosity)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* output files: fail before tracing, not after */
static int check_outputs(struct session *s)
{
	struct outputs_opts oo;
	bool to_stdout;
	int err;

	run__outputs_opts(&s->rooms, &oo);
	err = outputs__check(&oo, &to_stdout);
	/* nothing of the reports may mix into an output there */
	if (!err && to_stdout)
		s->report_out = stderr;
	return err;
}

/* each traced process holds tens of descriptors (a link per probe, its
 * files): the soft limit (often 1024) goes up to the hard one */
static void raise_fd_limit(void)
{
	struct rlimit lim;

	if (!getrlimit(RLIMIT_NOFILE, &lim) && lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
}

/* fds 0-2 open, so that no file tracelloc opens is taken for standard output */
static void hold_std_fds(void)
{
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) < 0)
			break;
}

/* what can be checked before anything is touched: a line and 1 for the
 * first that fails */
static int prepare(struct session *s)
{
	int err = tracer__check_system();

	/* before anything is attached: the live view needs a terminal */
	if (!err && s->opts.tui && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		err = say(0, "--tui needs a terminal: standard input and output are not one");
	if (!err)
		err = recording__filter(&s->opts, &s->filter);
	if (!err)
		err = recording__suppressions(&s->opts, &s->supp);
	if (!err)
		err = check_outputs(s);
	if (!err)
		err = run__listen(&s->rooms);
	if (!err && run__block_signals(&s->rooms))
		err = say(-errno, "cannot set up signal handling");
	return err;
}

/* the BPF object opened for the first process, and the recording that its
 * rings fill: a line and 1 */
static int open_recording(struct session *s)
{
	struct run_rooms *r = &s->rooms;
	bool several = traced__several(r->traced);
	pid_t pid;
	int pidfd, err;

	traced__first(r->traced, false, &pid, &pidfd);
	err = tracer__open(&s->opts, pid, pidfd, several, &r->tracer);
	/* the rings and what reads them exist before the first probe fires */
	if (!err) {
		/* the recording takes the filter and the suppressions, made or not */
		err = recording__new(&s->opts, several, tracer__ncpus(r->tracer),
				     tracer__ring_bytes(r->tracer), s->filter, s->supp, &r->rec);
		s->filter = NULL;
		s->supp = NULL;
	}
	if (!err)
		err = tracer__use_maps(r->tracer, events__rings_map_fd(recording__events(r->rec)),
				       holds__map_fd(s->holds));
	if (err)
		return err;
	recording__set_idle(r->rec, run__idle, r);
	traced__set_rooms(r->traced, r->tracer, r->rec, s->holds, s->closer);
	r->follow = follow__new(r->traced, r->rec);
	return r->follow ? 0 : say(-ENOMEM, "cannot start tracing");
}

/* the BPF programs loaded, for the processes whose allocators were found */
static int load(struct session *s)
{
	struct run_rooms *r = &s->rooms;
	pid_t pid;
	int pidfd, err;

	traced__first(r->traced, true, &pid, &pidfd);
	err = tracer__load(r->tracer, traced__model(r->traced), pid, pidfd);
	if (!err && (err = events__publish(recording__events(r->rec))))
		err = say(err, "cannot hand the ring buffers to the BPF programs");
	return err;
}

/* the targets found, the BPF programs loaded and attached: a line and 1
 * for the first step that fails */
static int bring_up(struct session *s)
{
	char urls[2048];
	int err = traced__open(&s->opts, &s->rooms.traced);

	/* after the command is started: its environment stays its own */
	if (!err) {
		debuginfod__setup(s->opts.no_debuginfod, "/etc/debuginfod", urls, sizeof(urls));
		if (urls[0])
			say(0, "debug info of stripped files from debuginfod: %s (--no-debuginfod: none)",
			    urls);
	}
	/* before anything can be stopped for us (a launched command is held by
	 * ptrace until then, which dies with us); after the command, so that it
	 * has the pid it would have had */
	if (!err && (err = holds__new(&s->holds)))
		err = say(err, "cannot start the guardian of held processes");
	/* after the guardian's fork: its threads are not copied into it */
	if (!err && !(s->closer = closer__new()))
		err = say(-ENOMEM, "cannot start the threads that close probes");
	if (!err)
		err = open_recording(s);
	if (!err)
		err = traced__find_allocators(s->rooms.traced);
	if (!err)
		err = load(s);
	if (!err)
		err = traced__attach(s->rooms.traced);
	if (!err && s->opts.comm)
		err = traced__catch_up_comm(s->rooms.traced);
	if (!err)
		err = traced__resume(s->rooms.traced);
	return err;
}

/* the end of a trace: the console's last words, then the files */
static int finish(struct session *s, const char *ending)
{
	console__last_report(s->rooms.console);
	checks__all(s->rooms.checks);
	console__summary(s->rooms.console, ending);
	return outputs__write(s->rooms.outputs);
}

/* from the first traced record to the outputs written; 1 if one failed */
static int run(struct session *s)
{
	struct run_rooms *r = &s->rooms;
	struct outputs_opts oo;
	char ending[512] = "stopped";
	int err;

	recording__begin(r->rec);
	run__outputs_opts(r, &oo);
	r->outputs = outputs__new(&oo);
	r->checks = checks__new(&s->opts, r->traced, r->rec, r->tracer);
	r->console = console__new(&s->opts, r->traced, r->rec, r->tracer, r->http, r->checks,
				  s->report_out);
	if (!r->outputs || !r->checks || !r->console)
		return say(-ENOMEM, "cannot start tracing");
	follow__on_exit(r->follow, checks__at_exit, r->checks);
	console__announce(r->console);
	if (s->opts.tui && (err = console__start_tui(r->console))) {
		say(err == -ENOTTY ? 0 : err, "cannot start the live view");
		finish(s, "stopped");
		return 1;
	}
	err = run__trace(r, ending, sizeof(ending));
	/* the summary's time ends here, not after the outputs are written */
	recording__stop(r->rec);
	if (finish(s, ending))
		err = 1;
	return err;
}

static void session_destroy(struct session *s)
{
	struct run_rooms *r = &s->rooms;

	/* first: nothing is stopped any more, and what is held goes on (closing
	 * the probes' links below can take seconds) */
	holds__release_all(s->holds);
	follow__destroy(r->follow);
	console__destroy(r->console);
	checks__destroy(r->checks);
	http__destroy(r->http);
	outputs__destroy(r->outputs);
	filter__destroy(s->filter);
	suppress__destroy(s->supp);
	traced__close(r->traced);
	/* the probes' links, all at once; every one is gone on return */
	closer__destroy(s->closer);
	recording__destroy(r->rec);
	tracer__destroy(r->tracer);
	holds__destroy(s->holds);
	traced__destroy(r->traced);
	if (r->signal_fd >= 0)
		close(r->signal_fd);
	options__free(&s->opts);
}

int main(int argc, char **argv)
{
	struct session s = { .rooms = { .signal_fd = -1 }, .report_out = stdout };
	int err;

	hold_std_fds();
	raise_fd_limit();
	/* blocks of a MiB and more straight from mmap, always: growing one moves
	 * its pages instead of copying them, and a writer's array of a million
	 * rows then grows without a stall (glibc would raise the threshold to
	 * 32 MiB, copying up to that much, and faulting it in, in one go) */
	mallopt(M_MMAP_THRESHOLD, DAEMON_MMAP_THRESHOLD);
	err = options__parse(argc, argv, &s.opts);
	if (err)
		return err == OPTIONS_EXIT ? 0 : 2;
	s.rooms.opts = &s.opts;
	verbosity = s.opts.verbose;
	libbpf_set_print(print_libbpf);

	err = prepare(&s);
	if (!err)
		err = bring_up(&s);
	if (!err)
		err = run(&s);
	/* --error-exitcode: a leak check found something lost */
	if (!err && s.opts.error_exitcode && checks__found_lost(s.rooms.checks))
		err = (int)s.opts.error_exitcode;
	else if (err)
		err = 1;
	session_destroy(&s);
	return err;
}
