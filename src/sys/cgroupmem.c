// SPDX-License-Identifier: GPL-2.0
/* a process's cgroup memory limit, and the room under it (see cgroupmem.h) */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroupmem.h"
#include "procfs.h"

/* one number of a cgroup file; false: none there, or "max" */
static bool read_number(const char *dir, const char *name, uint64_t *out)
{
	char path[4096 + 64], buf[64], *end;
	unsigned long long v;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (procfs__read(path, buf, sizeof(buf)) <= 0 || !strncmp(buf, "max", 3))
		return false;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return false;
	*out = v;
	return true;
}

/* where the hierarchy is mounted (v2: cgroup2; v1: the memory controller's),
 * and the path of its root there */
static bool find_mount(bool v2, char *mnt, size_t mlen, char *root, size_t rlen)
{
	char line[4096], r[1024], m[1024], fstype[64], opts[1024];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		if (v2)
			found = !strcmp(fstype, "cgroup2");
		else
			found = !strcmp(fstype, "cgroup") &&
				(strstr(opts, ",memory") || !strncmp(opts, "memory", 6));
		if (found) {
			snprintf(mnt, mlen, "%s", m);
			snprintf(root, rlen, "%s", r);
		}
	}
	fclose(f);
	return found;
}

/* the process's path in the v1 memory hierarchy, or else in v2's */
static bool cgroup_path(pid_t pid, bool *v2, char *out, size_t len)
{
	char path[64], line[4096], v2path[4096] = "";
	bool v1 = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!v1 && fgets(line, sizeof(line), f)) {
		char *ctrl = strchr(line, ':'), *p;

		if (!ctrl || !(p = strchr(ctrl + 1, ':')))
			continue;
		*p++ = '\0';
		p[strcspn(p, "\n")] = '\0';
		if (!strncmp(line, "0:", 2) && !ctrl[1])
			snprintf(v2path, sizeof(v2path), "%s", p);
		else if (!strcmp(ctrl + 1, "memory") || strstr(ctrl + 1, "memory,") ||
			 strstr(ctrl + 1, ",memory")) {
			snprintf(out, len, "%s", p);
			v1 = true;
		}
	}
	fclose(f);
	if (!v1)
		snprintf(out, len, "%s", v2path);
	*v2 = !v1;
	return v1 || v2path[0];
}

int cgroupmem__headroom(pid_t pid, uint64_t *room, uint64_t *limit)
{
	char cg[4096], mnt[1024], root[1024], dir[4096 + 1024];
	const char *rel;
	uint64_t lim, use;
	bool v2, any = false;
	size_t rlen;
	char *slash;

	if (!cgroup_path(pid, &v2, cg, sizeof(cg)) ||
	    !find_mount(v2, mnt, sizeof(mnt), root, sizeof(root)))
		return -ENOENT;
	/* a cgroup namespace's mount shows its own root */
	rlen = strcmp(root, "/") ? strlen(root) : 0;
	rel = rlen && !strncmp(cg, root, rlen) ? cg + rlen : cg;
	for (;;) {
		snprintf(dir, sizeof(dir), "%s%s", mnt, rel);
		if (read_number(dir, v2 ? "memory.max" : "memory.limit_in_bytes", &lim) &&
		    lim < (1ULL << 62) &&
		    read_number(dir, v2 ? "memory.current" : "memory.usage_in_bytes", &use) &&
		    (!any || (lim > use ? lim - use : 0) < *room)) {
			*room = lim > use ? lim - use : 0;
			*limit = lim;
			any = true;
		}
		slash = strrchr(rel, '/');
		if (!slash || (slash == rel && !rel[1]))
			break;
		if (slash == rel) {
			rel = "";
			continue;
		}
		*slash = '\0';
	}
	return any ? 0 : -ENOENT;
}
