// SPDX-License-Identifier: GPL-2.0
/*
 * Processes stopped for the daemon, and the guardian that lets them go.
 *
 * The BPF side stops a process with SIGSTOP (bpf_send_signal) where the
 * daemon must act before the process runs on, and enters it in the map
 * `held` first. Only a SIGCONT ends such a stop, so if tracelloc died
 * before sending it the process would stay stopped for good. The guardian
 * is forked before anything can be stopped, holds its own fd of `held`, and
 * watches tracelloc: the moment tracelloc is exiting (a SIGKILL pending, the
 * kernel's PF_EXITING, its end of a pipe closed), it sets HELD_DISARM, which
 * the BPF side checks before each stop, and continues everything in the map.
 * A pidfd would say so only once tracelloc is reaped, after the kernel has
 * unregistered every uprobe (seconds with many probes), while the exec hook
 * went on stopping new processes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "holds.h"
#include "procfs.h"
#include "tracelloc.h"

/* a page tracelloc and the guardian share */
struct shared {
	/* the pid being let go: out of the map, and its SIGCONT maybe not sent */
	volatile pid_t releasing;
};

struct holds {
	int map_fd;
	uint32_t map_id;
	int pipe_fd;		/* its write end: closed, tracelloc is gone */
	pid_t guardian;
	struct shared *shared;
};

/* the map's name in the kernel: another tracelloc's is found by it */
#define HELD_MAP_NAME "tracelloc_held"

/* SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU */
#define STOP_SIGNALS (0xfULL << (SIGSTOP - 1))
#define PF_EXITING 0x00000004

/* the guardian's sweeps after tracelloc is gone, ms from the first: a BPF
 * program that passed the HELD_DISARM check just before it was set still
 * stops its process, a moment later */
static const int sweep_at_ms[] = { 0, 20, 100, 300, 1000 };

#define CLEAN_BYTE 'c'
#define WATCH_EVERY_MS 10

static unsigned long long status_hex(const char *status, const char *key)
{
	const char *at = strstr(status, key);

	return at ? strtoull(at + strlen(key), NULL, 16) : 0;
}

int holds__should_continue(const char *status, unsigned int how)
{
	const char *state = strstr(status, "State:");
	unsigned long long pending;
	char letter;

	if (how & HELD_OTHER_STOP || !state)
		return 0;
	state += strlen("State:");
	while (*state == ' ' || *state == '\t')
		state++;
	letter = *state;
	if (letter == 'Z' || letter == 'X' || !letter)
		return 0;
	/* stopped, and a stop signal came since ours was taken: another's */
	pending = status_hex(status, "\nSigPnd:") | status_hex(status, "\nShdPnd:");
	if (letter == 'T' && (pending & STOP_SIGNALS))
		return 0;
	/* running with our SIGSTOP still pending: SIGCONT takes it back */
	return 1;
}

/* *traced: a tracer (ptrace) has it now; none had it when it was stopped */
static int continue_held(pid_t pid, unsigned int how, bool *traced)
{
	char status[4096], path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (procfs__read(path, status, sizeof(status)) < 0)
		return 0;
	if (traced)
		*traced = strstr(status, "\nTracerPid:\t") && !strstr(status, "\nTracerPid:\t0\n");
	if (!holds__should_continue(status, how))
		return 0;
	return kill(pid, SIGCONT) ? -errno : 0;
}

/* every process in the map, let go (forget: also taken out of it) */
static void sweep(int map_fd, struct shared *shared, bool forget)
{
	uint32_t key, next, how;
	void *prev = NULL;
	int bound = 2 * MAX_HELD;
	pid_t releasing = shared->releasing;

	if (releasing > 0)
		continue_held(releasing, 0, NULL);
	while (bound-- > 0 && !bpf_map_get_next_key(map_fd, prev, &next)) {
		key = next;
		if (key != HELD_DISARM && !(key & HELD_OWED_CONT) &&
		    !bpf_map_lookup_elem(map_fd, &key, &how))
			continue_held((pid_t)key, how, NULL);
		if (forget && key != HELD_DISARM && !bpf_map_delete_elem(map_fd, &key)) {
			/* the iteration restarts: the deleted key cannot lead on */
			prev = NULL;
			continue;
		}
		prev = &key;
	}
}

static void disarm(int map_fd)
{
	uint32_t key = HELD_DISARM, one = 1;

	bpf_map_update_elem(map_fd, &key, &one, BPF_ANY);
}

/* tracelloc is exiting: a SIGKILL pending, PF_EXITING, or gone */
static bool daemon_exiting(int stat_fd, int status_fd)
{
	char buf[4096], *p;
	unsigned long flags = 0;
	ssize_t n;
	int i;

	n = pread(status_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	if ((status_hex(buf, "\nSigPnd:") | status_hex(buf, "\nShdPnd:")) & (1ULL << (SIGKILL - 1)))
		return true;
	n = pread(stat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return true;
	/* the flags are the 9th field, the 7th after the state */
	for (i = 0; i < 7 && p; i++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p + 1, "%lu", &flags) == 1 && (flags & PF_EXITING))
		return true;
	return false;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* keeps fds 0-2 (on /dev/null) and the ones in keep[], closes the rest */
static void keep_fds(int *keep, int n)
{
	int i, j, fd, lowest = 3;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (keep[j] < keep[i]) {
				fd = keep[i];
				keep[i] = keep[j];
				keep[j] = fd;
			}
	for (i = 0; i < n; i++) {
		if (keep[i] > lowest)
			syscall(SYS_close_range, lowest, keep[i] - 1, 0);
		lowest = keep[i] + 1;
	}
	syscall(SYS_close_range, lowest, ~0U, 0);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
}

static void set_oom_score_adj(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, "-1000", 5) < 0) {
		/* without CAP_SYS_RESOURCE: the guardian is small anyway */
	}
	close(fd);
}

static void __attribute__((noreturn)) guardian(int map_fd, int pipe_fd, pid_t daemon,
					       struct shared *shared)
{
	struct pollfd pfd = { .fd = pipe_fd, .events = POLLIN };
	int stat_fd, status_fd, keep[4];
	char path[64], byte;
	sigset_t all;
	size_t i;

	/* nothing but SIGKILL ends it: not the terminal's ^C meant for tracelloc */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	setsid();
	prctl(PR_SET_NAME, "tracelloc-guard");
	set_oom_score_adj();
	snprintf(path, sizeof(path), "/proc/%d/stat", daemon);
	stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/status", daemon);
	status_fd = open(path, O_RDONLY | O_CLOEXEC);
	keep[0] = map_fd;
	keep[1] = pipe_fd;
	keep[2] = stat_fd >= 0 ? stat_fd : map_fd;
	keep[3] = status_fd >= 0 ? status_fd : map_fd;
	/* no listening socket, terminal or pipe of tracelloc's stays open here */
	keep_fds(keep, 4);
	while (stat_fd >= 0 && status_fd >= 0 && getppid() == daemon) {
		if (poll(&pfd, 1, WATCH_EVERY_MS) > 0) {
			if (read(pipe_fd, &byte, 1) == 1 && byte == CLEAN_BYTE)
				_exit(0);
			break;
		}
		if (daemon_exiting(stat_fd, status_fd))
			break;
	}
	disarm(map_fd);
	for (i = 0; i < sizeof(sweep_at_ms) / sizeof(sweep_at_ms[0]); i++) {
		sleep_ms(sweep_at_ms[i] - (i ? sweep_at_ms[i - 1] : 0));
		sweep(map_fd, shared, false);
	}
	_exit(0);
}

int holds__new(struct holds **out)
{
	struct holds *h = calloc(1, sizeof(*h));
	int pipefd[2], err;
	pid_t daemon = getpid();

	if (!h)
		return -ENOMEM;
	h->shared = mmap(NULL, sizeof(*h->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (h->shared == MAP_FAILED) {
		free(h);
		return -ENOMEM;
	}
	h->map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, HELD_MAP_NAME, sizeof(uint32_t),
				   sizeof(uint32_t), MAX_HELD, NULL);
	if (h->map_fd < 0) {
		err = h->map_fd;
		goto fail;
	}
	{
		struct bpf_map_info info = {};
		uint32_t len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(h->map_fd, &info, &len))
			h->map_id = info.id;
	}
	if (pipe2(pipefd, O_CLOEXEC)) {
		err = -errno;
		goto fail;
	}
	h->guardian = fork();
	if (h->guardian == 0)
		guardian(h->map_fd, pipefd[0], daemon, h->shared);
	err = h->guardian < 0 ? -errno : 0;
	close(pipefd[0]);
	if (err) {
		close(pipefd[1]);
		goto fail;
	}
	h->pipe_fd = pipefd[1];
	*out = h;
	return 0;
fail:
	if (h->map_fd >= 0)
		close(h->map_fd);
	munmap(h->shared, sizeof(*h->shared));
	free(h);
	return err;
}

int holds__map_fd(const struct holds *h)
{
	return h->map_fd;
}

bool holds__has(const struct holds *h, pid_t pid)
{
	uint32_t key = pid, how;

	return pid > 0 && !bpf_map_lookup_elem(h->map_fd, &key, &how);
}

/* its map, if fd is another tracelloc's map of held processes, alive (not
 * disarmed: a guardian that disarmed it continues what is in it) */
static bool held_map_of_another(int fd)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info), key = HELD_DISARM, how;

	return !bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, HELD_MAP_NAME) &&
	       info.type == BPF_MAP_TYPE_HASH && info.key_size == sizeof(key) &&
	       info.value_size == sizeof(how) && bpf_map_lookup_elem(fd, &key, &how);
}

/* a tracing program (a uprobe's, a tracepoint's) uses map map_id: only a
 * privileged loader makes one. Where the kernel lets an unprivileged user
 * make BPF maps, one can name a map as ours and enter any pid in it, which
 * would leave that process stopped; it cannot make such a program */
static bool used_by_tracing(uint32_t map_id)
{
	uint32_t id = 0, ids[64] = { 0 }, len, i;
	struct bpf_prog_info info;
	bool used = false;
	int fd;

	while (!used && !bpf_prog_get_next_id(id, &id)) {
		if ((fd = bpf_prog_get_fd_by_id(id)) < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
		info.map_ids = (uint64_t)(uintptr_t)ids;
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    (info.type == BPF_PROG_TYPE_KPROBE || info.type == BPF_PROG_TYPE_TRACING))
			for (i = 0; i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++)
				used |= ids[i] == map_id;
		close(fd);
	}
	return used;
}

/*
 * Another tracelloc holds pid too: true, and it continues pid when it lets
 * go. Our stop (how without HELD_OTHER_STOP) is handed to it: its own BPF
 * side, which stopped pid after ours, took ours for someone else's, and
 * would leave pid stopped. A holder that let go meanwhile is no holder.
 */
static bool held_by_another(const struct holds *h, pid_t pid, uint32_t how)
{
	uint32_t id = 0, key = pid, theirs;
	bool held = false;
	int fd;

	while (!held && !bpf_map_get_next_id(id, &id)) {
		if (id == h->map_id || (fd = bpf_map_get_fd_by_id(id)) < 0)
			continue;
		if (held_map_of_another(fd) && !bpf_map_lookup_elem(fd, &key, &theirs) &&
		    used_by_tracing(id)) {
			theirs &= how | ~(uint32_t)HELD_OTHER_STOP;
			held = !bpf_map_update_elem(fd, &key, &theirs, BPF_EXIST);
		}
		close(fd);
	}
	return held;
}

/* the map id an fdinfo text names (a BPF map's), or 0 */
static uint32_t fdinfo_map_id(const char *text)
{
	const char *at = strstr(text, "\nmap_id:");

	return at ? (uint32_t)strtoul(at + strlen("\nmap_id:"), NULL, 10) : 0;
}

bool holds__of_tracelloc(pid_t pid)
{
	char path[64], text[1024];
	struct dirent *d;
	bool found = false;
	int n = 0, fd;
	uint32_t id;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	dir = opendir(path);
	if (!dir)
		return false;
	/* tracelloc's own fds are few; a process with thousands is no tracelloc */
	while (!found && n++ < 4096 && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%.16s", pid, d->d_name);
		if (procfs__read(path, text, sizeof(text)) < 0 || !(id = fdinfo_map_id(text)) ||
		    (fd = bpf_map_get_fd_by_id(id)) < 0)
			continue;
		found = held_map_of_another(fd);
		close(fd);
	}
	closedir(dir);
	return found;
}

/* last: only if no other tracelloc holds pid too (holds__release_last) */
static int release(struct holds *h, pid_t pid, bool last)
{
	uint32_t key = pid, how;
	bool traced = false;
	int err = 0;

	if (pid <= 0 || bpf_map_lookup_elem(h->map_fd, &key, &how))
		return 0;	/* not stopped by us: not ours to continue */
	/* out of the map before it goes on, or a stop it meets right after
	 * (ld.so's hook) would be taken out with this one; until the SIGCONT
	 * is sent, the guardian knows it by `releasing`. Taken out and read at
	 * once: another tracelloc may hand us its stop (held_by_another) up to
	 * that moment, and not after */
	h->shared->releasing = pid;
	if (!bpf_map_lookup_and_delete_elem(h->map_fd, &key, &how) &&
	    !(last && held_by_another(h, pid, how)))
		err = continue_held(pid, how, &traced);
	h->shared->releasing = 0;
	if (traced) {
		key |= HELD_OWED_CONT;
		how = 0;
		bpf_map_update_elem(h->map_fd, &key, &how, BPF_ANY);
	}
	return err;
}

int holds__release(struct holds *h, pid_t pid)
{
	return release(h, pid, false);
}

int holds__release_last(struct holds *h, pid_t pid)
{
	return release(h, pid, true);
}

void holds__release_all(struct holds *h)
{
	if (!h)
		return;
	disarm(h->map_fd);
	sweep(h->map_fd, h->shared, true);
}

void holds__destroy(struct holds *h)
{
	char clean = CLEAN_BYTE;

	if (!h)
		return;
	holds__release_all(h);
	/* all let go: the guardian need not sweep */
	if (write(h->pipe_fd, &clean, 1) != 1) {
		/* gone already: it swept, or it will at EOF */
	}
	close(h->pipe_fd);
	close(h->map_fd);
	/* it goes at once: reaped, so that no zombie outlives a clean run */
	for (int i = 0; i < 100 && waitpid(h->guardian, NULL, WNOHANG) == 0; i++)
		sleep_ms(2);
	munmap(h->shared, sizeof(*h->shared));
	free(h);
}
