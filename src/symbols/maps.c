// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <unistd.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "safeopen.h"

static int add_line(struct maps *maps, const char *line, size_t *cap)
{
	struct mapping m = {};
	char perms[5] = "";
	int path_at = 0;
	size_t len;

	/* no space before %n: it would skip the newline of a line with no path */
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 "%n",
		   &m.start, &m.end, perms, &m.offset, &m.dev_major, &m.dev_minor, &m.inode,
		   &path_at) < 7)
		return -EINVAL;
	path_at += strspn(line + path_at, " \t");
	m.exec = perms[2] == 'x';
	len = strcspn(line + path_at, "\n");
	if (len) {
		m.path = strndup(line + path_at, len);
		if (!m.path)
			return -ENOMEM;
		len = strlen(m.path);
		if (len > 10 && !strcmp(m.path + len - 10, " (deleted)")) {
			m.deleted = true;
			m.path[len - 10] = '\0';
		}
	}
	if (maps->count == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 64;
		struct mapping *grown = realloc(maps->mappings, grown_cap * sizeof(*grown));

		if (!grown) {
			free(m.path);
			return -ENOMEM;
		}
		maps->mappings = grown;
		*cap = grown_cap;
	}
	maps->mappings[maps->count++] = m;
	return 0;
}

int maps__parse(const char *text, struct maps *maps)
{
	size_t cap = 0;
	int err;

	maps->mappings = NULL;
	maps->count = 0;
	while (*text) {
		err = add_line(maps, text, &cap);
		if (err) {
			maps__clear(maps);
			return err;
		}
		text += strcspn(text, "\n");
		if (*text)
			text++;
	}
	return 0;
}

/* the state letter of /proc/.../stat ('R', 'S', 'Z', ...), or 0 */
static char task_state(const char *dir)
{
	char path[300], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/stat", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: the state follows the last ')' */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static bool task_gone(char state)
{
	return !state || state == 'Z' || state == 'X';
}

int maps__task_dir(pid_t pid, char *buf, size_t size)
{
	struct dirent *de;
	char dir[64];
	DIR *tasks;
	int err = -ESRCH;

	snprintf(buf, size, "/proc/%d", pid);
	if (!task_gone(task_state(buf)))
		return 0;
	/* the main thread has exited (pthread_exit) or the whole process has:
	 * its memory is seen only through a thread that still runs */
	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	tasks = opendir(dir);
	if (!tasks)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(tasks))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || atoi(de->d_name) == pid)
			continue;
		snprintf(buf, size, "/proc/%d/task/%s", pid, de->d_name);
		if (!task_gone(task_state(buf))) {
			err = 0;
			break;
		}
	}
	closedir(tasks);
	return err;
}

int maps__read(pid_t pid, struct maps *maps)
{
	char path[64], *text = NULL;
	size_t size = 0;
	FILE *f, *out;
	char buf[8192];
	size_t n;
	int err;

	err = maps__task_dir(pid, path, sizeof(path) - 5);
	if (err) {
		/* an exited process (a zombie until reaped) maps nothing */
		maps->mappings = NULL;
		maps->count = 0;
		return err == -ESRCH && !access(path, F_OK) ? 0 : err;
	}
	strcat(path, "/maps");
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	out = open_memstream(&text, &size);
	if (!out) {
		err = -errno;
		fclose(f);
		return err;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, out);
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	fclose(out);
	if (!err)
		err = maps__parse(text ? text : "", maps);
	free(text);
	return err;
}

void maps__clear(struct maps *maps)
{
	size_t i;

	for (i = 0; i < maps->count; i++)
		free(maps->mappings[i].path);
	free(maps->mappings);
	maps->mappings = NULL;
	maps->count = 0;
}

/* the first mapping of maps that ends after addr (the kernel lists them in
 * address order) */
static size_t first_ending_after(const struct maps *maps, uint64_t addr)
{
	size_t lo = 0, hi = maps->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps->mappings[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* does any mapping of maps overlap [start, end)? */
static bool overlapped(const struct maps *maps, uint64_t start, uint64_t end)
{
	size_t i = first_ending_after(maps, start);

	return i < maps->count && maps->mappings[i].start < end;
}

int maps__keep_code(struct maps *now, struct maps *before, size_t max)
{
	struct mapping *merged, *b;
	size_t i, j, n, kept = 0;

	for (i = 0; i < before->count; i++) {
		b = &before->mappings[i];
		if (b->exec && !overlapped(now, b->start, b->end) && kept < max)
			kept++;
	}
	/* anonymous code a JIT made writable is still code */
	for (i = 0; i < now->count; i++) {
		struct mapping *m = &now->mappings[i];

		if (m->exec || m->path)
			continue;
		j = first_ending_after(before, m->start);
		for (; j < before->count && before->mappings[j].start < m->end; j++)
			if (before->mappings[j].exec && !before->mappings[j].path)
				m->exec = true;
	}
	if (!kept)
		return 0;
	merged = malloc((now->count + kept) * sizeof(*merged));
	if (!merged)
		return -ENOMEM;
	for (i = j = n = 0; i < before->count && n - j < kept; i++) {
		b = &before->mappings[i];
		if (!b->exec || overlapped(now, b->start, b->end))
			continue;
		while (j < now->count && now->mappings[j].start < b->start)
			merged[n++] = now->mappings[j++];
		merged[n++] = *b;
		b->path = NULL;		/* moved */
	}
	while (j < now->count)
		merged[n++] = now->mappings[j++];
	free(now->mappings);
	now->mappings = merged;
	now->count = n;
	return 0;
}

const struct mapping *maps__find(const struct maps *maps, uint64_t addr)
{
	size_t lo = 0, hi = maps->count;

	/* the kernel lists mappings in address order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mapping *m = &maps->mappings[mid];

		if (addr < m->start)
			hi = mid;
		else if (addr >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

int maps__open(pid_t pid, const struct mapping *m)
{
	char dir[64], path[128];
	struct stat st;
	int fd, root;

	if (!maps__task_dir(pid, dir, sizeof(dir)) && strchr(dir + 6, '/') && m->path) {
		/* map_files is the process's own, and gone with its main thread:
		 * then the file by its name, inside the root of a thread that
		 * still runs */
		snprintf(path, sizeof(path), "%s/root", dir);
		root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0)
			return -errno;
		fd = safeopen__in_root(root, m->path);
		close(root);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start,
			 m->end);
		fd = safeopen__link(path);
	}
	/* no regular file there now: not the one that was mapped */
	if (fd == -EINVAL)
		return -ESTALE;
	if (fd < 0)
		return fd;
	/* the range may have been remapped since the maps were read */
	if (fstat(fd, &st) || st.st_ino != m->inode || major(st.st_dev) != m->dev_major ||
	    minor(st.st_dev) != m->dev_minor) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}
