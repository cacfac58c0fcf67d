// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

int procfs__nspid(const char *path_pid, int *innermost, unsigned int *depth)
{
	char path[64], buf[4096], *at, *end;
	unsigned int n = 0;
	long v;
	int err;

	snprintf(path, sizeof(path), "/proc/%s/status", path_pid);
	err = procfs__read(path, buf, sizeof(buf));
	if (err < 0)
		return err;
	at = strstr(buf, "\nNSpid:");
	if (!at)
		return -ENOENT;
	for (at += 7;; at = end, n++) {
		v = strtol(at, &end, 10);
		if (end == at || *at == '\n')
			break;
		*innermost = (int)v;
	}
	if (!n)
		return -ENOENT;
	*depth = n - 1;
	return 0;
}

int procfs__read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

/* what of a process's list is read: its first 64 KiB */
#define PROC_LIST_MAX (64 * 1024)

bool procfs__list_any(pid_t pid, const char *file, bool (*fn)(const char *entry, void *ctx),
		      void *ctx)
{
	char path[64], *buf = malloc(PROC_LIST_MAX);
	bool found = false;
	int n, i;

	if (!buf)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	n = procfs__read(path, buf, PROC_LIST_MAX);
	for (i = 0; n > 0 && i < n && !found; i += (int)strlen(buf + i) + 1)
		found = fn(buf + i, ctx);
	free(buf);
	return found;
}

static bool holds(const char *entry, void *word)
{
	return strstr(entry, word) != NULL;
}

bool procfs__list_has(pid_t pid, const char *file, const char *word)
{
	return procfs__list_any(pid, file, holds, (void *)word);
}

void procfs__comm(pid_t pid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (procfs__read(path, buf, size) <= 0)
		snprintf(buf, size, "?");
	buf[strcspn(buf, "\n")] = '\0';
}

pid_t procfs__tgid(pid_t tid)
{
	char path[64], buf[1024], *at;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (procfs__read(path, buf, sizeof(buf)) < 0 || !(at = strstr(buf, "\nTgid:")))
		return tid;
	return (pid_t)strtol(at + 6, NULL, 10);
}

unsigned long long procfs__rss(pid_t pid)
{
	char path[64], buf[4096], *at;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (procfs__read(path, buf, sizeof(buf)) < 0 || !(at = strstr(buf, "\nVmRSS:")))
		return 0;
	return strtoull(at + 7, NULL, 10) * 1024;
}

/* the TracerPid of one thread, 0 for none */
static pid_t thread_tracer(pid_t pid, const char *tid)
{
	char path[96], buf[2048], *at;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/status", pid, tid);
	if (procfs__read(path, buf, sizeof(buf)) < 0 || !(at = strstr(buf, "\nTracerPid:")))
		return 0;
	return (pid_t)strtol(at + strlen("\nTracerPid:"), NULL, 10);
}

pid_t procfs__tracer(pid_t pid)
{
	char path[64];
	struct dirent *d;
	pid_t tracer = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!tracer && (d = readdir(dir)))
		if (d->d_name[0] != '.')
			tracer = thread_tracer(pid, d->d_name);
	closedir(dir);
	return tracer;
}

pid_t procfs__first_child(pid_t pid)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	if (procfs__read(path, buf, sizeof(buf)) <= 0)
		return 0;
	return (pid_t)strtol(buf, NULL, 10);
}
