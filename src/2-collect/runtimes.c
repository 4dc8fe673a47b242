// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtimes' table (runtimes.h), and what two or more of them share:
 * an OCI bundle's annotations (containerd's and CRI-O's CRI), and the
 * check that a runtime's own record of a container's cgroup is the
 * cgroup that named it (docs/containers.md, "A cgroup that poses").
 */
#include <stdlib.h>
#include <string.h>
#include "runtimes.h"
#include "statefile.h"

/* in the order a pod's cgroup that says no runtime tries them */
const struct nsl_runtime *const nsl_runtimes[] = {
	&nsl_rt_containerd, &nsl_rt_crio, &nsl_rt_docker, &nsl_rt_podman,
};
const size_t nsl_nr_runtimes = sizeof(nsl_runtimes) / sizeof(nsl_runtimes[0]);

/* besides the runtimes' own: where CNI keeps its results (cni.c) */
static const char *const cni_dirs[] = { "/var/lib/cni/results", NULL };

const struct nsl_runtime *nsl_runtime_named(const char *name)
{
	for (size_t i = 0; name && i < nsl_nr_runtimes; i++)
		if (!strcmp(nsl_runtimes[i]->name, name))
			return nsl_runtimes[i];
	return NULL;
}

static size_t add_dirs(const char **dirs, size_t n, size_t max, const char *const *add)
{
	for (; add && *add; add++) {
		size_t k = 0;

		while (k < n && k < max && strcmp(dirs[k], *add) != 0)
			k++;
		if (k < n && k < max)
			continue;	/* (had it) */
		if (n < max)
			dirs[n] = *add;
		n++;
	}
	return n;
}

size_t nsl_runtime_state_dirs(const char **dirs, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < nsl_nr_runtimes; i++)
		n = add_dirs(dirs, n, max, nsl_runtimes[i]->state_dirs);
	return add_dirs(dirs, n, max, cni_dirs);
}

void nsl_set_container_name(struct nsl_container *c, char *name)
{
	if (name && (!strcmp(name, "POD") || c->container)) {
		free(name);
		return;
	}
	c->container = name;
}

/* [s, s + n) and the string t are one */
static bool is(const char *s, size_t n, const char *t)
{
	return strlen(t) == n && !strncmp(s, t, n);
}

/* The last component of path [p, p + n): its start, *len its length */
static const char *last_of(const char *p, size_t n, size_t *len)
{
	const char *s = p + n;

	while (s > p && s[-1] != '/')
		s--;
	*len = (size_t)(p + n - s);
	return s;
}

bool nsl_cgroup_is(const char *cgroup, const char *said, const struct nsl_container *c,
		   const char *pod_uid)
{
	size_t n = strlen(cgroup), len, plen;
	const char *colon, *comp, *parent;

	if (pod_uid && c->pod_uid && strcmp(pod_uid, c->pod_uid) != 0)
		return false;
	if (!said || !*said)
		return true;	/* says none: nothing to check */
	while (n > 1 && cgroup[n - 1] == '/')
		n--;
	comp = last_of(cgroup, n, &len);
	colon = said[0] != '/' ? strchr(said, ':') : NULL;
	if (colon) {
		/* systemd's driver: SLICE:PREFIX:NAME is SLICE/PREFIX-NAME.scope */
		const char *second = strchr(colon + 1, ':');
		char scope[512];
		int k;

		if (!second)
			return false;
		k = snprintf(scope, sizeof(scope), "%.*s-%s.scope", (int)(second - colon - 1),
			     colon + 1, second + 1);
		if (k <= 0 || (size_t)k >= sizeof(scope) || !is(comp, len, scope))
			return false;
		if (colon == said)
			return true;	/* no slice said: the runtime's default */
		parent = last_of(cgroup, (size_t)(comp - cgroup) - (comp > cgroup), &plen);
		return comp > cgroup && plen == (size_t)(colon - said) &&
		       !strncmp(parent, said, plen);
	}
	/* cgroupfs': the path, under the mount (or ours, below a namespace's root) */
	plen = strlen(said);
	while (plen > 1 && said[plen - 1] == '/')
		plen--;
	/* (said starts with '/': a match starts at a component) */
	return said[0] == '/' && n >= plen && !strncmp(cgroup + n - plen, said, plen);
}

/* spec's linux.cgroupsPath, or NULL */
static char *cgroups_path(json_object *spec)
{
	json_object *lnx;

	return json_object_object_get_ex(spec, "linux", &lnx) ?
	       nsl_str_of(lnx, "cgroupsPath") : NULL;
}

int nsl_bundle_names(struct nsl_container *c, const char *path,
		     const struct nsl_bundle_keys *k, const char *cgroup)
{
	json_object *cfg = nsl_state_json(path), *ann = NULL;
	char key[128], *said, *uid = NULL;
	bool ok = true;

	if (!cfg)
		return 0;
	json_object_object_get_ex(cfg, "annotations", &ann);
#define ANN(name) (snprintf(key, sizeof(key), "%s%s", k->pfx, name), nsl_str_of(ann, key))
	if (ann)
		uid = ANN(k->uid);
	said = cgroups_path(cfg);
	if (cgroup)
		ok = nsl_cgroup_is(cgroup, said, c, uid);
	free(said);
	if (ok && ann) {
		if (!c->pod)
			c->pod = ANN(k->pod);
		if (!c->pod_namespace)
			c->pod_namespace = ANN(k->ns);
		if (!c->pod_uid)
			c->pod_uid = uid, uid = NULL;
		nsl_set_container_name(c, ANN(k->container));
	}
#undef ANN
	free(uid);
	json_object_put(cfg);
	return ok ? 1 : -1;
}
