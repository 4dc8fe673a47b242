// SPDX-License-Identifier: GPL-2.0-only
/*
 * Containers by name, from what the runtimes themselves keep on the host
 * (docs/containers.md). No API, no daemon: files a root process reads.
 *
 * 1. The cgroup path. Each runtime names a container's cgroup after its
 *    id (64 hex digits), with the systemd cgroup driver as a scope
 *    (docker-ID.scope, libpod-ID.scope, cri-containerd-ID.scope,
 *    crio-ID.scope), with cgroupfs as a directory (/docker/ID,
 *    /libpod_parent/libpod-ID); kubelet's pods as
 *    kubepods[-QOS]-podUID.slice/... (the slice's UID has '_' for '-') or
 *    /kubepods[/QOS]/podUID/ID: each runtime's row (runtimes.h) lists its
 *    layouts. The container's processes may make cgroups of their own
 *    below its cgroup, and a privileged one may name one of them after
 *    another container (docker-VICTIM.scope under its own scope): the
 *    outermost match is the container. The runtimes' conmon scopes
 *    (libpod-conmon-ID, crio-conmon-ID) hold a monitor, not a container.
 * 2. The runtime's state, by id: each runtime's row reads its own
 *    (rt_*.c: containerd's and CRI-O's OCI bundles and their CRI
 *    annotations, docker's config.v2.json, podman's containers.json).
 *    Where the state says which cgroup the runtime put the container in
 *    (a bundle's linux.cgroupsPath) and which pod, they must be the
 *    cgroup's. A pod's container under kubelet's cgroupfs driver does
 *    not say its runtime: the CRI runtimes' state is looked at in turn.
 *
 * Only a cgroup that root made names a container: a tenant can name a
 * cgroup of its own subtree after another's container (and a rootless
 * runtime's containers are its user's: unnamed). Only regular files that
 * root owns and only root may write are read, not through a symbolic
 * link (O_NOFOLLOW), at most NSL_STATE_MAX bytes (statefile.c): a
 * rootless runtime keeps its state in its user's home, which a tenant
 * writes, so its containers keep only what the cgroup path says. A file
 * that is not there, or not as expected, names nothing: a wrong name is
 * worse than none.
 *
 * 3. A network namespace: by its processes' containers, or the state
 *    of the runtime that set it up (netnsnames.c).
 *
 * Test seam: NSL_TEST_STATE_ROOT prefixes every state path
 * (tests/integration/test_containers.sh).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "containers.h"
#include "runtimes.h"
#include "statefile.h"
#include "targets.h"

/* component [s, s + n) is PREFIX ID SUFFIX: the id copied into id */
static bool named(const char *s, size_t n, const char *prefix, const char *suffix,
		  char id[NSL_CONTAINER_ID_LEN + 1])
{
	size_t p = strlen(prefix), q = strlen(suffix);

	if (n != p + NSL_CONTAINER_ID_LEN + q || strncmp(s, prefix, p) != 0 ||
	    strncmp(s + n - q, suffix, q) != 0 || !nsl_is_id(s + p, NSL_CONTAINER_ID_LEN))
		return false;
	memcpy(id, s + p, NSL_CONTAINER_ID_LEN);
	id[NSL_CONTAINER_ID_LEN] = '\0';
	return true;
}

/*
 * A pod's uid from a component: kubepods[-QOS]-podUID.slice (systemd's
 * driver, '_' for '-'), or podUID (cgroupfs); NULL if it is neither
 */
static char *pod_uid_of(const char *s, size_t n)
{
	const char *u = NULL;
	size_t len = 0;
	char *uid;

	if (n > 3 && !strncmp(s, "pod", 3)) {
		u = s + 3, len = n - 3;
	} else if (n > 9 + 4 + 6 && !strncmp(s, "kubepods-", 9) &&
		   !strncmp(s + n - 6, ".slice", 6)) {
		for (size_t i = n - 6; i-- > 8;)	/* the last "-pod" */
			if (!strncmp(s + i, "-pod", 4)) {
				u = s + i + 4, len = n - 6 - (i + 4);
				break;
			}
	}
	if (!u || !len || len > 36)
		return NULL;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)u[i]) && u[i] != '-' && u[i] != '_')
			return NULL;
	uid = strndup(u, len);
	for (char *c = uid; c && *c; c++)
		if (*c == '_')
			*c = '-';
	return uid;
}

/* Whether [s, s + n) is layout l's, under parent [parent, + plen) */
static bool layout_of(const struct nsl_cgroup_layout *l, const char *s, size_t n,
		      const char *parent, size_t plen, bool kubepods,
		      char id[NSL_CONTAINER_ID_LEN + 1])
{
	size_t want = l->parent ? strlen(l->parent) : 0;

	if (!named(s, n, l->prefix, l->suffix, id))
		return false;
	if (!l->parent)
		return true;
	if (l->pod)
		return kubepods && plen > want && !strncmp(parent, l->parent, want);
	return plen == want && !strncmp(parent, l->parent, want);
}

/* kubelet's cgroupfs driver: a pod's container, its runtime unsaid */
static const struct nsl_cgroup_layout pod_layout = { "", "", "pod", true };

/* The runtime whose layout component i is (NULL: a pod's, unsaid), *hit whether any */
static const struct nsl_runtime *runtime_of(const char *const *comp, const size_t *len,
					    size_t i, bool kubepods, struct nsl_container *c,
					    bool *hit)
{
	const char *parent = i ? comp[i - 1] : "";
	size_t plen = i ? len[i - 1] : 0;

	*hit = true;
	for (size_t r = 0; r < nsl_nr_runtimes; r++)
		for (const struct nsl_cgroup_layout *l = nsl_runtimes[r]->layouts; l->prefix; l++)
			if (layout_of(l, comp[i], len[i], parent, plen, kubepods, c->id))
				return nsl_runtimes[r];
	*hit = layout_of(&pod_layout, comp[i], len[i], parent, plen, kubepods, c->id);
	return NULL;
}

int nsl_container_parse_path(const char *path, struct nsl_container *c)
{
	const char *comp[64] = { 0 };
	size_t len[64] = { 0 }, n = 0, i;
	const char *s = path;
	bool kubepods = false, hit = false;
	const struct nsl_runtime *rt = NULL;
	int end;

	while (*s && n < 64) {
		const char *e;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchrnul(s, '/');
		comp[n] = s, len[n] = (size_t)(e - s);
		kubepods |= len[n] >= 8 && !strncmp(s, "kubepods", 8);
		n++;
		s = e;
	}
	/*
	 * the outermost container down from the hierarchy's root: one below
	 * it is its processes' own cgroup, whatever they named it
	 */
	for (i = 0; i < n && !hit; i++)
		rt = runtime_of(comp, len, i, kubepods, c, &hit);
	if (!hit)
		return -1;
	i--;
	c->runtime = rt ? rt->name : NULL;
	end = (int)(comp[i] + len[i] - path);
	/* a pod's slice or directory above it */
	while (kubepods && i-- > 0 && !c->pod_uid)
		c->pod_uid = pod_uid_of(comp[i], len[i]);
	return end;
}

/*
 * Whether root made the container's cgroup, the first len bytes of path
 * (relative to the cgroup2 mount; not one its processes made below it):
 * the runtimes do, as root; a tenant's delegated subtree (systemd's
 * user@UID.service, a rootless runtime's) is the tenant's, and a tenant
 * may name a cgroup there docker-ID.scope after someone else's container.
 */
static bool made_by_root(const char *path, int len)
{
	const char *root = nsl_cgroup2_root();
	char full[4096];
	struct stat st;
	int n;

	if (!root)
		return false;
	n = snprintf(full, sizeof(full), "%s%.*s", root, len, path);
	return n > 0 && (size_t)n < sizeof(full) && !lstat(full, &st) && S_ISDIR(st.st_mode) &&
	       st.st_uid == 0;
}

/*
 * c's names from the state of its runtime (or, where its cgroup said
 * none, of the first CRI runtime that keeps its id); cgroup: as names()
 * has it. -1 where the state puts it elsewhere.
 */
static int names_of(struct nsl_container *c, const char *cgroup)
{
	const struct nsl_runtime *rt = nsl_runtime_named(c->runtime);
	int found = 0;

	if (rt)
		return rt->names(c, cgroup);
	for (size_t r = 0; r < nsl_nr_runtimes && !found; r++)
		if (nsl_runtimes[r]->cri)
			found = nsl_runtimes[r]->names(c, cgroup);
	return found;
}

struct nsl_container *nsl_container_of_cgroup(const char *path)
{
	struct nsl_container *c = calloc(1, sizeof(*c));
	char own[4096];
	int len;

	if (!c)
		return NULL;
	if (!path || (len = nsl_container_parse_path(path, c)) < 0 || !made_by_root(path, len) ||
	    snprintf(own, sizeof(own), "%.*s", len, path) >= (int)sizeof(own) ||
	    names_of(c, own) < 0) {
		nsl_container_free(c);
		return NULL;
	}
	return c;
}

struct nsl_container *nsl_container_dup(const struct nsl_container *c)
{
	struct nsl_container *d = c ? calloc(1, sizeof(*d)) : NULL;

	if (!d)
		return NULL;
	d->runtime = c->runtime;
	memcpy(d->id, c->id, sizeof(d->id));
#define DUP(f) (d->f = c->f ? strdup(c->f) : NULL, !c->f || d->f)
	if (DUP(name) && DUP(pod) && DUP(pod_namespace) && DUP(pod_uid) && DUP(container))
		return d;
#undef DUP
	nsl_container_free(d);
	return NULL;
}

void nsl_container_free(struct nsl_container *c)
{
	if (!c)
		return;
	free(c->name);
	free(c->pod);
	free(c->pod_namespace);
	free(c->pod_uid);
	free(c->container);
	free(c);
}
