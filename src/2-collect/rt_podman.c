// SPDX-License-Identifier: GPL-2.0-only
/*
 * podman's containers by network namespace, from podman's own state, as
 * root podman keeps it whichever network backend it uses: netavark (its
 * default where installed, podman 5's only one) writes no CNI result
 * cache, and CNI's (cni.c) only where podman picked CNI. Measured with
 * root podman 4.3 and runc, both backends alike:
 *
 *  - containers/storage's list, NSL_PODMAN_GRAPH/containers.json (root's,
 *    0600): each container's "id";
 *  - the OCI spec podman hands the runtime, NSL_PODMAN_GRAPH/ID/userdata/
 *    config.json (root's, 0644, under directories of 0700): the "path" of
 *    the "network" entry of linux.namespaces says
 *      /run/netns/netns-UUID  a namespace podman made for the container
 *                             and pinned there (bridge, macvlan, slirp);
 *                             its mount goes when the container stops
 *      /proc/PID/ns/net       the container joins another's: a pod's
 *                             containers their infra container's, and
 *                             --network container:X X's; PID is that
 *                             container's process, which its pidfile in
 *                             the run root, NSL_PODMAN_RUN/ID/userdata/
 *                             pidfile, holds
 *      (no path, no entry)    a namespace of its own not pinned (--network
 *                             none), or the host's (--network host)
 *
 * A pinned namespace (nsl_pinned_netns(): under /run/netns, on nsfs, not
 * through a link, looked at now) is its container's when no other
 * container claims it and none joins it: a podman pod's (its infra
 * container's, joined by the pod's), or one shared by --network
 * container:, is named by none, as the walk of /proc leaves it
 * (containers.c), and as it was whichever backend set it up. CRI-O keeps
 * its containers in the same storage: where a spec names its sandbox
 * (annotation io.kubernetes.cri-o.SandboxID, which podman writes for a
 * pod's containers too), the claim is the sandbox's, so a CRI-O pod's
 * containers that name the sandbox's pinned path count as one (not
 * measured: no CRI-O here). A container that joins a namespace by another
 * process than a container's own (--network ns:/proc/PID/ns/net) is not
 * seen here: the walk of /proc sees it where the tool has the host's PIDs.
 *
 * All of it is root's, read as statefile.c reads (no link followed, at
 * most NSL_STATE_MAX a file); ids are checked to be ids before they make
 * a path; a path from a spec is only ever looked at by nsl_pinned_netns()
 * or taken apart as /proc/PID/ns/net, never opened.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rt_podman.h"
#include "runtimes.h"
#include "statefile.h"

/* a pinned namespace, claimed by a container */
struct claim {
	char id[NSL_CONTAINER_ID_LEN + 1];	/* the container's */
	char owner[NSL_CONTAINER_ID_LEN + 1];	/* its sandbox's, else its own */
	uint64_t ino;
	bool joined;				/* another container joins it */
};

/* PID of "/proc/PID/ns/net", or 0 */
static unsigned long proc_pid(const char *path)
{
	const char *s = path + 6;
	unsigned long pid = 0;

	if (strncmp(path, "/proc/", 6) != 0 || !isdigit((unsigned char)*s))
		return 0;
	for (; isdigit((unsigned char)*s) && pid < 1ul << 30; s++)
		pid = pid * 10 + (unsigned long)(*s - '0');
	return strcmp(s, "/ns/net") == 0 ? pid : 0;
}

/* The path of the network namespace in spec, or NULL (none, or the host's) */
static char *netns_path(json_object *spec)
{
	json_object *lnx, *nss;
	size_t n;

	if (!json_object_object_get_ex(spec, "linux", &lnx) ||
	    !json_object_object_get_ex(lnx, "namespaces", &nss) ||
	    !json_object_is_type(nss, json_type_array))
		return NULL;
	n = json_object_array_length(nss);
	for (size_t i = 0; i < n; i++) {
		json_object *ns = json_object_array_get_idx(nss, i);
		char *type = nsl_str_of(ns, "type");
		bool net = type && !strcmp(type, "network");

		free(type);
		if (net) {
			char *path = nsl_str_of(ns, "path");

			/* one cut at NSL_NAME_MAX is not the path */
			if (path && strlen(path) >= NSL_NAME_MAX) {
				free(path);
				path = NULL;
			}
			return path;
		}
	}
	return NULL;
}

/* The sandbox that spec's annotations name, copied into owner, if an id */
static void sandbox_of(json_object *spec, char owner[NSL_CONTAINER_ID_LEN + 1])
{
	json_object *ann;
	char *id;

	if (!json_object_object_get_ex(spec, "annotations", &ann))
		return;
	id = nsl_str_of(ann, "io.kubernetes.cri-o.SandboxID");
	if (id && nsl_is_id(id, strlen(id)))
		memcpy(owner, id, NSL_CONTAINER_ID_LEN + 1);
	free(id);
}

/* The pid in container id's pidfile (the run root's), or 0 */
static unsigned long pid_of(const char *id)
{
	char path[256], *text, *end;
	unsigned long pid = 0;

	snprintf(path, sizeof(path), "%s/%s/userdata/pidfile", NSL_PODMAN_RUN, id);
	text = nsl_state_text(path);
	if (text && isdigit((unsigned char)text[0])) {
		pid = strtoul(text, &end, 10);
		if (*end && *end != '\n')
			pid = 0;
	}
	free(text);
	return pid;
}

/*
 * Container id (of containers.json) as a claim on a pinned namespace
 * (returns true, in c), or as one that joins the namespace of process
 * *joins (returns false)
 */
static bool claim_of(const char *id, struct claim *c, unsigned long *joins)
{
	char path[256], *ns;
	json_object *spec;
	bool pinned = false;

	*joins = 0;
	snprintf(path, sizeof(path), "%s/%s/userdata/config.json", NSL_PODMAN_GRAPH, id);
	if (!(spec = nsl_state_json(path)))
		return false;
	ns = netns_path(spec);
	if (ns && (c->ino = nsl_pinned_netns(ns))) {
		memcpy(c->id, id, sizeof(c->id));
		memcpy(c->owner, id, sizeof(c->owner));
		sandbox_of(spec, c->owner);
		c->joined = false;
		pinned = true;
	} else if (ns) {
		*joins = proc_pid(ns);
	}
	free(ns);
	json_object_put(spec);
	return pinned;
}

size_t nsl_podman_netns(const uint64_t *ino, size_t n,
			char (*ids)[NSL_CONTAINER_ID_LEN + 1])
{
	json_object *all = NULL;
	struct claim *claims = NULL;
	unsigned long *joins = NULL;
	size_t m = 0, nc = 0, nj = 0, found = 0;
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		ids[i][0] = '\0';
		any |= ino[i] != 0;
	}
	if (!any || !(all = nsl_state_json(NSL_PODMAN_GRAPH "/containers.json")) ||
	    !json_object_is_type(all, json_type_array) ||
	    !(m = json_object_array_length(all)) ||
	    !(claims = calloc(m, sizeof(*claims))) || !(joins = calloc(m, sizeof(*joins))))
		goto out;
	for (size_t k = 0; k < m; k++) {
		char *id = nsl_str_of(json_object_array_get_idx(all, k), "id");

		if (id && nsl_is_id(id, strlen(id))) {
			if (claim_of(id, &claims[nc], &joins[nj]))
				nc++;
			else if (joins[nj])
				nj++;
		}
		free(id);
	}
	/* the namespace that each joiner joins: its container's, by pid */
	for (size_t k = 0; nj && k < nc; k++) {
		unsigned long pid = pid_of(claims[k].id);

		for (size_t j = 0; pid && j < nj && !claims[k].joined; j++)
			claims[k].joined = joins[j] == pid;
	}
	for (size_t k = 0; k < nc; k++)
		for (size_t i = 0; i < n; i++) {
			if (!ino[i] || ino[i] != claims[k].ino || ids[i][0] == '-')
				continue;
			if (claims[k].joined || (ids[i][0] && strcmp(ids[i], claims[k].owner) != 0)) {
				ids[i][0] = '-';	/* shared */
				ids[i][1] = '\0';
			} else {
				memcpy(ids[i], claims[k].owner, sizeof(ids[i]));
			}
		}
	for (size_t i = 0; i < n; i++)
		found += ids[i][0] && ids[i][0] != '-';
out:
	free(joins);
	free(claims);
	json_object_put(all);
	return found;
}

/*
 * podman's row (runtimes.h): libpod-ID.scope under systemd's cgroup
 * manager, /libpod_parent/libpod-ID under cgroupfs'; its names are
 * containers/storage's, NSL_PODMAN_GRAPH/containers.json's "names" (the
 * first). podman keeps no cgroup path to check in the list.
 */
static int podman_names(struct nsl_container *c, const char *cgroup)
{
	json_object *all = nsl_state_json(NSL_PODMAN_GRAPH "/containers.json"), *names;
	size_t n = all && json_object_is_type(all, json_type_array) ?
		   json_object_array_length(all) : 0;
	int found = 0;

	(void)cgroup;
	for (size_t i = 0; i < n && !found; i++) {
		json_object *e = json_object_array_get_idx(all, i);
		char *id = nsl_str_of(e, "id");

		found = id && !strcmp(id, c->id);
		free(id);
		if (!found)
			continue;
		if (!c->name && json_object_object_get_ex(e, "names", &names) &&
		    json_object_is_type(names, json_type_array) &&
		    json_object_array_length(names) > 0 &&
		    json_object_is_type(json_object_array_get_idx(names, 0), json_type_string))
			c->name = strndup(json_object_get_string(
				json_object_array_get_idx(names, 0)), NSL_NAME_MAX);
		c->runtime = nsl_rt_podman.name;
	}
	json_object_put(all);
	return found;
}

static const char *const dirs[] = { NSL_PODMAN_GRAPH, NSL_PODMAN_RUN, NULL };

static const struct nsl_cgroup_layout layouts[] = {
	{ "libpod-", ".scope", NULL, false },
	{ "libpod-", "", "libpod_parent", false },	/* cgroupfs */
	{ NULL, NULL, NULL, false },
};

const struct nsl_runtime nsl_rt_podman = {
	.name = "podman",
	.layouts = layouts,
	.names = podman_names,
	.state_dirs = dirs,
};
