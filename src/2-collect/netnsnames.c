// SPDX-License-Identifier: GPL-2.0-only
/*
 * The containers of network namespaces (containers.h,
 * nsl_containers_of_netns()):
 *
 * A namespace is named by the container of the processes that live in
 * it (/proc/PID/ns/net, then /proc/PID/cgroup and containers.c), when
 * they all belong to one container, or to one pod (its containers share
 * the pod's namespace: the pod names it, no container does). One process
 * of the host, or of another container, in it, and it stays unnamed: a
 * container that joins another's namespace (docker's --network
 * container:) or the host's (--network host) does not name it, nor does
 * a tenant's process that entered it. The host's namespace (PID 1's) is
 * never named. A namespace no process is seen in (a tool without the
 * host's PIDs) is named by the CNI result cache (cni.c) or podman's own
 * state (rt_podman.c), whichever backend set it up: the pod sandbox or
 * podman container it was set up for, by its runtime's state.
 *
 * In two halves (containers.h): the walk of /proc, which reads no state
 * file, and the naming by state. The namer does the first itself (the
 * walk needs CAP_SYS_PTRACE, and no Landlock domain: see namerproc.c)
 * and has its Landlocked reader do the second; a tool with no namer does
 * both (nsl_containers_of_netns()).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cgroupns.h"
#include "cni.h"
#include "containers.h"
#include "peers.h"
#include "rt_podman.h"
#include "runtimes.h"
#include "targets.h"

/* /proc/PID/cgroup's "0::" line's path, in buf, or NULL */
static char *read_cgroup(int dir, char *buf, size_t size)
{
	int fd = openat(dir, "cgroup", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *line;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	/* "0::PATH": the unified hierarchy's line, also on a hybrid host */
	for (line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, "0::", 3)) {
			line += 3;
			line[strcspn(line, "\n")] = '\0';
			return line;
		}
	return NULL;
}

/*
 * The cgroup v2 path of process dir (a /proc/PID) in buf, as a path of the
 * hierarchy (targets.h: the tool may be in a cgroup namespace of its
 * own), or NULL
 */
static const char *proc_cgroup(int dir, char *buf, size_t size)
{
	static char abs[4096];
	char *line = read_cgroup(dir, buf, size);

	return line ? nsl_cgroup_path_of_proc(line, abs, sizeof(abs)) : NULL;
}

/*
 * What the walk learnt of one namespace: the first process's cgroup path
 * (a container's), and whether all its processes so far agree with it
 */
struct netns_seen {
	char *path;
	struct nsl_container first;	/* id, pod_uid of path */
	bool mixed;
};

/* Whether a and b are one container, or two of one pod */
static bool one_owner(const struct nsl_container *a, const struct nsl_container *b)
{
	if (!strcmp(a->id, b->id))
		return true;
	return a->pod_uid && b->pod_uid && !strcmp(a->pod_uid, b->pod_uid);
}

/* A process of seen's namespace, in cgroup path: still one container, or one pod? */
static void netns_saw(struct netns_seen *seen, const char *path)
{
	struct nsl_container c = { 0 };

	if (seen->mixed)
		return;
	/* no container (-1): the host's cgroup, or a tenant's own */
	bool found = nsl_container_parse_path(path, &c) >= 0;

	if (found && !seen->path) {
		seen->first = c;
		seen->path = strdup(path);
		seen->mixed = !seen->path;
		return;
	}
	seen->mixed = !found || !seen->path || !one_owner(&c, &seen->first);
	free(c.pod_uid);
}

/* The entry of ask for inode ino, or n */
static size_t asked(const struct nsl_netns_ask *ask, size_t n, uint64_t ino)
{
	size_t i = 0;

	while (i < n && ask[i].ino != ino)
		i++;
	return i;
}

/* A pod's container c as its pod's namespace: no container's name or id. */
static struct nsl_container *pod_netns(struct nsl_container *c)
{
	if (c && nsl_container_in_pod(c)) {
		free(c->container);
		c->container = NULL;
		c->id[0] = '\0';
	}
	return c;
}

/*
 * Where a namespace that no process is seen in is said to be a
 * container's: each source gives, per namespace, a container's id, "-"
 * (several claim it: none), or "" (not its). Sources that name different
 * containers name none.
 */
static size_t (*const netns_sources[])(const uint64_t *ino, size_t n,
				       char (*ids)[NSL_CONTAINER_ID_LEN + 1]) = {
	nsl_cni_sandboxes,	/* cni.c: libcni's result cache (containerd, CRI-O, podman's CNI) */
	nsl_podman_netns,	/* rt_podman.c: podman's own state, any network backend */
};

/*
 * The namespaces that the walk saw no process in (the tool without the
 * host's PIDs: a DaemonSet without hostPID), named by the container that
 * the sources say each was set up for: a CRI runtime's pod sandbox (its
 * bundle's names, as its cgroup's would give them), or a podman
 * container (its name in containers.json).
 */
void nsl_netns_of_state(struct nsl_netns_ask *ask, size_t n)
{
	if (!n)
		return;
	char (*ids)[NSL_CONTAINER_ID_LEN + 1] = calloc(n, sizeof(*ids));
	char (*all)[NSL_CONTAINER_ID_LEN + 1] = calloc(n, sizeof(*all));
	uint64_t *ino = calloc(n, sizeof(*ino));
	bool any = false;

	for (size_t i = 0; ino && ids && all && i < n; i++) {
		ino[i] = ask[i].ino;
		any |= ino[i] != 0;
	}
	for (size_t s = 0; any && s < sizeof(netns_sources) / sizeof(netns_sources[0]); s++) {
		netns_sources[s](ino, n, ids);
		for (size_t i = 0; i < n; i++) {
			if (!ino[i] || !ids[i][0] || all[i][0] == '-' || !strcmp(all[i], ids[i]))
				continue;
			if (all[i][0] || ids[i][0] == '-') {
				all[i][0] = '-';
				all[i][1] = '\0';
			} else {
				memcpy(all[i], ids[i], sizeof(all[i]));
			}
		}
	}
	for (size_t i = 0; any && i < n; i++) {
		struct nsl_container *c;

		if (!ino[i] || !all[i][0] || all[i][0] == '-' || !(c = calloc(1, sizeof(*c))))
			continue;
		memcpy(c->id, all[i], sizeof(c->id));
		/* whichever runtime keeps that id: a pod's sandbox, or a container */
		for (size_t r = 0; r < nsl_nr_runtimes && !c->runtime; r++)
			if (nsl_runtimes[r]->names(c, NULL) <= 0)
				c->runtime = NULL;
		if (c->runtime && nsl_container_in_pod(c))
			ask[i].c = pod_netns(c);
		else if (c->runtime && c->name)
			ask[i].c = c;	/* podman's (docker's): the container's own namespace */
		else
			nsl_container_free(c);
	}
	free(all);
	free(ids);
	free(ino);
}

void nsl_netns_seen_free(struct nsl_netns_seen *seen, size_t n)
{
	for (size_t i = 0; seen && i < n; i++) {
		free(seen[i].path);
		seen[i].path = NULL;
	}
}

int nsl_netns_walk(const struct nsl_netns_ask *ask, size_t n, struct nsl_netns_seen *seen)
{
	struct netns_seen *walk = calloc(n + 1, sizeof(*walk));
	int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = -1;
	uint64_t host;
	char buf[4096];
	struct dirent *e;
	DIR *d = NULL;

	if (!walk || proc < 0 || !(d = fdopendir(proc)))
		goto out;
	proc = -1;	/* d has it */
	host = nsl_proc_netns(dirfd(d), "1");
	/*
	 * One fstatat() per process (some 12 us each here: 13 ms a walk with
	 * 1,000 processes; opening each one's directory first took 16 ms).
	 * A process in a namespace asked about is
	 * looked at again through its directory, held open: a pid reused
	 * meanwhile fails there instead of lending its cgroup.
	 */
	while ((e = readdir(d))) {
		uint64_t ino;
		const char *path;
		size_t i;
		int dir;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		ino = nsl_proc_netns(dirfd(d), e->d_name);
		if (!ino || ino == host || (i = asked(ask, n, ino)) == n)
			continue;
		dir = openat(dirfd(d), e->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0)
			continue;
		/* one that went away meanwhile says nothing */
		if (nsl_proc_netns(dir, ".") == ino && (path = proc_cgroup(dir, buf, sizeof(buf))))
			netns_saw(&walk[i], path);
		close(dir);
	}
	for (size_t i = 0; i < n; i++) {
		seen[i].first = asked(ask, i, ask[i].ino);
		seen[i].path = NULL;
		if (seen[i].first < i)
			seen[i].saw = NSL_NETNS_AGAIN;
		else if (walk[i].mixed)
			seen[i].saw = NSL_NETNS_MIXED;
		else if (walk[i].path)
			seen[i].saw = NSL_NETNS_ONE, seen[i].path = walk[i].path, walk[i].path = NULL;
		else
			seen[i].saw = NSL_NETNS_UNSEEN;
	}
	err = 0;
out:
	if (d)
		closedir(d);
	if (proc >= 0)
		close(proc);
	for (size_t i = 0; walk && i < n; i++) {
		free(walk[i].path);
		free(walk[i].first.pod_uid);
	}
	free(walk);
	return err;
}

struct nsl_container *nsl_netns_of_cgroup(const char *path)
{
	return pod_netns(nsl_container_of_cgroup(path));
}

void nsl_containers_of_netns(struct nsl_netns_ask *ask, size_t n)
{
	struct nsl_netns_seen *seen = calloc(n + 1, sizeof(*seen));
	struct nsl_netns_ask *unseen = calloc(n + 1, sizeof(*unseen));

	if (!seen || !unseen || nsl_netns_walk(ask, n, seen))
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (seen[i].saw == NSL_NETNS_ONE)
			ask[i].c = nsl_netns_of_cgroup(seen[i].path);
		unseen[i].ino = seen[i].saw == NSL_NETNS_UNSEEN ? ask[i].ino : 0;
	}
	nsl_netns_of_state(unseen, n);
	for (size_t i = 0; i < n; i++)
		if (unseen[i].c)
			ask[i].c = unseen[i].c;
	/* the others of a namespace asked more than once: its first's answer */
	for (size_t i = 0; i < n; i++)
		if (seen[i].saw == NSL_NETNS_AGAIN && ask[seen[i].first].c)
			ask[i].c = nsl_container_dup(ask[seen[i].first].c);
out:
	nsl_netns_seen_free(seen, n);
	free(seen);
	free(unseen);
}
