// SPDX-License-Identifier: GPL-2.0-only
/* Processes' cgroups as the hierarchy's paths, from any cgroup namespace (cgroupns.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cgroupns.h"
#include "targets.h"

/*
 * The root of our cgroup namespace as a path of the hierarchy under the
 * cgroup2 mount ("" where they are one), for nsl_cgroup_path_of_proc().
 * /proc/PID/cgroup shows a process's cgroup relative to the root of the
 * reader's cgroup namespace (proc_cgroup_show(): cgroup_path_ns() with
 * current->nsproxy->cgroup_ns), "/.." stepping out of it. On a cgroup v2
 * node a container gets a private cgroup namespace (containerd's CRI and
 * CRI-O give one to every non-privileged container, docker and podman do
 * by default), and a DaemonSet mounts the node's hierarchy in (hostPath
 * /sys/fs/cgroup): it reads another pod's process as "0::/../../kubepods
 * .slice/..." while the mount holds "/kubepods.slice/...". Joining the
 * host's cgroup namespace would take CAP_SYS_ADMIN and a host process's
 * ns/cgroup (PID 1's is not readable everywhere: not on our build
 * machine); what we have is enough:
 *  - /proc/self/mountinfo shows the mount's root relative to our
 *    namespace's root too (cgroup_show_path()): "/../.." says that the
 *    namespace's root is 2 levels below the mount's root ("/": the same,
 *    or a mount of our namespace's own: nothing outside it to name);
 *  - our own cgroup, P below that root (/proc/self/cgroup), is the one at
 *    that depth plus P's whose cgroup.procs lists our pid (it lists pids
 *    as our PID namespace numbers them), and whose path ends with P.
 * Looked for once, and never again: a container's cgroup namespace does
 * not move. -1 where it cannot be told (then "/.." paths name nothing).
 */
static int nsroot_known;		/* 0: not looked for; 1: found; -1: cannot tell */
static char nsroot[4096];

/* The depth of our cgroup namespace's root below the cgroup2 mount's root, or -1 */
static int nsroot_depth(const char *mnt)
{
	char line[8192], root[4096], point[4096];
	int depth = -1;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	while (f && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - cgroup2 ");

		if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 ||
		    strcmp(point, mnt) != 0)
			continue;
		depth = 0;
		for (const char *r = root; *r && depth >= 0; r += 3)
			depth = strncmp(r, "/..", 3) != 0 || (r[3] && r[3] != '/') ? -1 : depth + 1;
		if (strcmp(root, "/") == 0)
			depth = 0;
	}
	if (f)
		fclose(f);
	return depth;
}

/* Whether the cgroup at full (a directory) lists process pid */
static bool lists_pid(int dir, const char *name, long pid)
{
	char buf[4096];
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC), procs;
	ssize_t n;
	bool found = false;

	if (fd < 0)
		return false;
	procs = openat(fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	close(fd);
	if (procs < 0)
		return false;
	/* a pid is on a line of its own; a read may end inside one: carried over */
	size_t kept = 0;

	while (!found && (n = read(procs, buf + kept, sizeof(buf) - 1 - kept)) > 0) {
		char *s = buf, *nl;

		buf[kept + (size_t)n] = '\0';
		while (!found && (nl = strchr(s, '\n'))) {
			*nl = '\0';
			found = atol(s) == pid;
			s = nl + 1;
		}
		kept = strlen(s);
		memmove(buf, s, kept);
	}
	close(procs);
	return found;
}

/*
 * The cgroup depth levels below rel (a path under the mount, dir its
 * directory) that lists pid and ends with tail: its path into nsroot
 */
static bool find_self(int dir, char *rel, size_t len, int depth, long pid, const char *tail)
{
	struct dirent *e;
	bool found = false;
	DIR *d;
	int fd;

	/* (not dup(): the namer's seccomp list has no such call) */
	if ((fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (e = readdir(d))) {
		int n, sub;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		n = snprintf(rel + len, sizeof(nsroot) - len, "/%s", e->d_name);
		if (n < 0 || len + (size_t)n >= sizeof(nsroot))
			continue;
		if (depth == 1) {
			size_t t = strlen(tail), all = len + (size_t)n;

			found = all >= t && !strcmp(rel + all - t, tail) &&
				lists_pid(dirfd(d), e->d_name, pid);
			continue;
		}
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue;
		found = find_self(sub, rel, len + (size_t)n, depth - 1, pid, tail);
		close(sub);
	}
	if (!found)
		rel[len] = '\0';
	closedir(d);
	return found;
}

static void find_nsroot(void)
{
	const char *mnt = nsl_cgroup2_root();
	char own[4096], *p = NULL;
	int depth = mnt ? nsroot_depth(mnt) : -1, dir, below = 0;
	FILE *f;

	nsroot_known = -1;
	if (depth == 0)
		nsroot_known = 1;	/* nsroot "" */
	if (depth <= 0)
		return;
	/* where we are below our namespace's root: "0::P" */
	f = fopen("/proc/self/cgroup", "re");
	while (f && fgets(own, sizeof(own), f))
		if (!strncmp(own, "0::/", 4)) {
			p = own + 3;
			p[strcspn(p, "\n")] = '\0';
			break;
		}
	if (f)
		fclose(f);
	if (!p || strstr(p, "/.."))
		return;
	if (!strcmp(p, "/"))
		p[0] = '\0';
	for (const char *c = p; *c; c++)
		below += *c == '/';
	dir = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	nsroot[0] = '\0';
	if (find_self(dir, nsroot, 0, depth + below, (long)getpid(), p)) {
		nsroot[strlen(nsroot) - strlen(p)] = '\0';
		nsroot_known = 1;
	}
	close(dir);
}

const char *nsl_cgroup_path_of_proc(const char *path, char *buf, size_t size)
{
	const char *rest = path, *end;
	int up = 0, depth = 0, k = 0, n;

	if (!nsroot_known)
		find_nsroot();
	if (nsroot_known < 0)
		return strncmp(path, "/..", 3) != 0 || (path[3] && path[3] != '/') ? path : NULL;
	while (strncmp(rest, "/..", 3) == 0 && (!rest[3] || rest[3] == '/'))
		rest += 3, up++;
	for (const char *c = nsroot; *c; c++)
		depth += *c == '/';
	if (up > depth)
		return NULL;
	/* nsroot's first depth - up components, then the rest */
	for (end = nsroot; *end; end++)
		if (*end == '/' && k++ == depth - up)
			break;
	n = snprintf(buf, size, "%.*s%s", (int)(end - nsroot), nsroot, *rest ? rest : "/");
	return n > 0 && (size_t)n < size ? buf : NULL;
}
