// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <grp.h>
#include <pwd.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "maps.h"
#include "procfs.h"
#include "target.h"

#define PF_KTHREAD 0x00200000

struct target {
	pid_t pid;
	int pidfd;
	bool launched;
	bool running;		/* a launched target was let go */
};

static int pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

/* the thread-group id of pid, and whether it is a kernel thread */
static int inspect(pid_t pid, pid_t *tgid, bool *kthread)
{
	char path[64], buf[4096], *p;
	unsigned long flags = 0;
	int err, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	err = procfs__read(path, buf, sizeof(buf));
	if (err < 0)
		return err == -ENOENT ? -ESRCH : err;
	/* the command name may hold spaces: fields restart after its ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	for (i = 0; i < 7 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%lu", &flags) != 1)
		return -EINVAL;
	*kthread = flags & PF_KTHREAD;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	err = procfs__read(path, buf, sizeof(buf));
	if (err < 0)
		return err == -ENOENT ? -ESRCH : err;
	p = strstr(buf, "\nTgid:");
	if (!p || sscanf(p + 6, "%d", tgid) != 1)
		return -EINVAL;
	return 0;
}

static struct target *target_new(pid_t pid, bool launched)
{
	struct target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pid = pid;
	t->launched = launched;
	t->pidfd = pidfd_open(pid);
	if (t->pidfd < 0) {
		free(t);
		return NULL;
	}
	return t;
}

int target__open(pid_t pid, struct target **out)
{
	bool kthread = false;
	pid_t tgid = 0;
	int err;

	err = inspect(pid, &tgid, &kthread);
	if (err)
		return err;
	if (kthread)
		return -EPERM;
	if (tgid == getpid())
		return -EINVAL;
	*out = target_new(tgid, false);
	return *out ? 0 : -errno;
}

static int read_auxv(pid_t pid, uint64_t *at_base, uint64_t *at_entry)
{
	char path[64];
	uint64_t pair[2];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*at_base = *at_entry = 0;
	while (read(fd, pair, sizeof(pair)) == sizeof(pair) && pair[0] != AT_NULL) {
		if (pair[0] == AT_BASE)
			*at_base = pair[1];
		else if (pair[0] == AT_ENTRY)
			*at_entry = pair[1];
	}
	close(fd);
	return 0;
}

/* value of a dynamic symbol of the file mapped at m, or 0 */
static uint64_t dynamic_symbol(pid_t pid, const struct mapping *m, const char *want)
{
	Elf_Scn *scn = NULL;
	uint64_t value = 0;
	Elf *elf;
	int fd;

	fd = maps__open(pid, m);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && !value && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, want)) {
				value = sym.st_value;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return value;
}

static bool maps_libc(pid_t pid)
{
	struct maps maps;
	bool found = false;
	size_t i;

	if (maps__read(pid, &maps))
		return false;
	for (i = 0; i < maps.count && !found; i++) {
		const char *path = maps.mappings[i].path, *base;

		if (!path || !maps.mappings[i].exec)
			continue;
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		found = !strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5);
	}
	maps__clear(&maps);
	return found;
}

/*
 * Where to stop a freshly exec'd dynamic program: ld.so calls
 * _dl_debug_state() (the debugger hook) once its libraries are mapped and
 * before any of their constructors run. Without it, the program's entry.
 */
static int find_stop_address(pid_t pid, uint64_t *addr, bool *is_entry)
{
	uint64_t at_base = 0, at_entry = 0, value = 0;
	struct maps maps;
	const struct mapping *ld;
	int err;

	err = read_auxv(pid, &at_base, &at_entry);
	if (err)
		return err;
	*is_entry = true;
	*addr = at_entry;
	if (!at_base)
		return 0;	/* static: nothing gets loaded */
	err = maps__read(pid, &maps);
	if (err)
		return err;
	ld = maps__find(&maps, at_base);
	if (ld && ld->offset == 0)
		value = dynamic_symbol(pid, ld, "_dl_debug_state");
	maps__clear(&maps);
	if (value) {
		*addr = at_base + value;
		*is_entry = false;
	}
	return 0;
}

static int wait_stop(pid_t pid, int *sig)
{
	int status;

	if (waitpid(pid, &status, __WALL) < 0)
		return -errno;
	if (!WIFSTOPPED(status))
		return -ECHILD;
	*sig = WSTOPSIG(status);
	return 0;
}

/* runs the stopped child until its libc is mapped, leaving it stopped there */
static int run_until_loaded(pid_t pid)
{
	uint64_t addr;
	bool is_entry;
	long orig;
	int sig = 0, err;

	err = find_stop_address(pid, &addr, &is_entry);
	if (err || !addr)
		return err;
	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
	if (errno)
		return -errno;
	for (;;) {
		struct user_regs_struct regs;

		if (ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)((orig & ~0xffL) | 0xcc)))
			return -errno;
		do {
			/* pass on any signal the child gets meanwhile */
			if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)(sig == SIGTRAP ? 0 : sig)))
				return -errno;
			err = wait_stop(pid, &sig);
			if (err)
				return err;
			if (sig != SIGTRAP)
				continue;
			if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
				return -errno;
		} while (sig != SIGTRAP || regs.rip != addr + 1);

		/* back over the breakpoint, original instruction restored */
		if (ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)orig))
			return -errno;
		regs.rip = addr;
		if (ptrace(PTRACE_SETREGS, pid, NULL, &regs))
			return -errno;
		if (is_entry || maps_libc(pid))
			return 0;
		/* first call of the hook, before the libraries: step over, wait for the next */
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
			return -errno;
		err = wait_stop(pid, &sig);
		if (err)
			return err;
		sig = 0;
	}
}

int target__find_user(const char *name, struct target_user *user)
{
	struct passwd *pw;

	errno = 0;
	pw = getpwnam(name);
	if (!pw)
		return errno ? -errno : -ENOENT;
	user->uid = pw->pw_uid;
	user->gid = pw->pw_gid;
	snprintf(user->name, sizeof(user->name), "%s", pw->pw_name);
	snprintf(user->home, sizeof(user->home), "%s", pw->pw_dir ? pw->pw_dir : "/");
	return 0;
}

/* in the child, before exec: the user's groups, gid and uid, in that order
 * (the uid last: it takes the right to change the others) */
static int become(const struct target_user *user)
{
	if (initgroups(user->name, user->gid) || setgid(user->gid) || setuid(user->uid))
		return -errno;
	setenv("HOME", user->home, 1);
	setenv("USER", user->name, 1);
	setenv("LOGNAME", user->name, 1);
	return 0;
}

int target__launch_as(char *const argv[], const struct target_user *user, struct target **out)
{
	struct target *t;
	int pipefd[2], sig, err, child_errno = 0;
	sigset_t none;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (pid == 0) {
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		if (user && become(user))
			child_errno = errno;
		else {
			execvp(argv[0], argv);
			child_errno = errno;
		}
		if (write(pipefd[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	err = wait_stop(pid, &sig);
	if (read(pipefd[0], &child_errno, sizeof(child_errno)) == sizeof(child_errno)) {
		close(pipefd[0]);
		waitpid(pid, NULL, 0);
		return -child_errno;
	}
	close(pipefd[0]);
	if (err) {
		waitpid(pid, NULL, WNOHANG);
		return err;
	}
	/* if we die, the child must not run on half-traced */
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);
	err = run_until_loaded(pid);
	if (err) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		return err;
	}
	t = target_new(pid, true);
	if (!t) {
		err = -errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		return err;
	}
	*out = t;
	return 0;
}

int target__resume(struct target *t)
{
	if (!t->launched || t->running)
		return 0;
	if (ptrace(PTRACE_DETACH, t->pid, NULL, NULL))
		return -errno;
	t->running = true;
	return 0;
}

/* the process's state letter in /proc/PID/stat, or 0 */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (procfs__read(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')) || p[1] != ' ')
		return 0;
	return p[2];
}

#define STOP_WAIT_MS 2000

int target__wait_stopped(struct target *t)
{
	char state;
	int i;

	/* 't': a tracer that attached during our stop (strace -f's child)
	 * holds it in a tracing stop now: it runs no code either */
	for (i = 0; (state = proc_state(t->pid)) != 'T' && state != 't'; i++) {
		if (i >= STOP_WAIT_MS)
			return -ETIMEDOUT;
		if (kill(t->pid, 0))
			return -errno;
		usleep(1000);
	}
	return 0;
}

void target__ending(struct target *t, char *buf, size_t size)
{
	int status;

	if (!t->launched || waitpid(t->pid, &status, WNOHANG) != t->pid) {
		snprintf(buf, size, "target exited");
		return;
	}
	t->launched = false;	/* reaped */
	if (WIFEXITED(status))
		snprintf(buf, size, "target exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "target killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, size, "target exited");
}

int target__terminate(struct target *t)
{
	if (!t->launched || !t->running)
		return 0;
	return kill(t->pid, SIGTERM) ? -errno : 1;
}

void target__destroy(struct target *t)
{
	if (!t)
		return;
	if (t->launched && !t->running) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, __WALL);
	}
	close(t->pidfd);
	free(t);
}

pid_t target__pid(const struct target *t)
{
	return t->pid;
}

int target__pidfd(const struct target *t)
{
	return t->pidfd;
}
