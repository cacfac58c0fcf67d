// SPDX-License-Identifier: GPL-2.0
/* the processes the command line asks for (see choose.h) */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "choose.h"
#include "options.h"
#include "procfs.h"
#include "say.h"
#include "target.h"

int choose__pid(pid_t pid, struct target **out)
{
	int err = target__open(pid, out);

	if (err == -ESRCH)
		return say(0, "no process with pid %d", pid);
	if (err == -EPERM)
		return say(0, "pid %d is a kernel thread: it has no heap to trace", pid);
	if (err == -EINVAL)
		return say(0, "tracelloc cannot trace itself");
	if (err)
		return say(err, "cannot open pid %d", pid);
	return 0;
}

int choose__command(const struct options *o, struct target **out)
{
	struct target_user user;
	int err;

	if (o->user) {
		err = target__find_user(o->user, &user);
		if (err == -ENOENT)
			return say(0, "--user %s: no such user", o->user);
		if (err)
			return say(err, "--user %s", o->user);
	}
	err = target__launch_as(o->command, o->user ? &user : NULL, out);
	if (err == -ECHILD)
		return say(0, "'%s' exited before its libraries were loaded", o->command[0]);
	if (err)
		return say(err, "cannot run '%s'", o->command[0]);
	return 0;
}

int choose__by_name(const char *comm, const struct choose_sink *sink)
{
	struct target *target;
	struct dirent *d;
	char name[32];
	DIR *dir;
	pid_t pid;

	dir = opendir("/proc");
	if (!dir)
		return say(-errno, "cannot read /proc");
	while ((d = readdir(dir))) {
		pid = (pid_t)atoi(d->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		procfs__comm(pid, name, sizeof(name));
		if (strcmp(name, comm) || sink->known(sink->ctx, pid))
			continue;
		/* gone meanwhile, or a kernel thread of that name: not ours to trace */
		if (target__open(pid, &target))
			continue;
		if (!sink->take(sink->ctx, target))
			target__destroy(target);
	}
	closedir(dir);
	return 0;
}

bool choose__found_by_name(const struct options *o, pid_t pid)
{
	size_t j;

	if (!o->comm)
		return false;
	for (j = 0; j < o->npids; j++)
		if (o->pids[j] == pid)
			return false;
	return true;
}
