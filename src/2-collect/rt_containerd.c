// SPDX-License-Identifier: GPL-2.0-only
/*
 * containerd (runtimes.h): its CRI plugin's containers, under systemd's
 * cgroup driver cri-containerd-ID.scope (under cgroupfs' a pod's
 * .../podUID/ID, which says no runtime). A task's OCI bundle lies in
 * STATE/io.containerd.runtime.v2.task/NAMESPACE/ID/config.json (the v2
 * shim API: containerd 1.x and 2.x alike; the CRI's namespace is k8s.io),
 * its annotations io.kubernetes.cri.sandbox-name, -namespace, -uid and
 * container-name; a sandbox has no container-name. The state directory
 * is containerd's --state, which distributions move: k3s and RKE2 run
 * theirs at /run/k3s/containerd, MicroK8s at
 * /var/snap/microk8s/common/run/containerd. Each is looked at.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include "runtimes.h"
#include "statefile.h"

static const char *const task_dirs[] = {
	"/run/containerd/io.containerd.runtime.v2.task",
	"/run/k3s/containerd/io.containerd.runtime.v2.task",			/* k3s, RKE2 */
	"/var/snap/microk8s/common/run/containerd/io.containerd.runtime.v2.task",
	NULL,
};

static const struct nsl_bundle_keys cri_keys = {
	"io.kubernetes.cri.", "sandbox-name", "sandbox-namespace", "sandbox-uid",
	"container-name",
};

/* The task's bundle in one state directory, in whichever namespace it is */
static int in_tasks(struct nsl_container *c, const char *tasks, const char *cgroup)
{
	char dir[4096], path[4096];
	struct dirent *d;
	int found = 0;
	DIR *ns;

	ns = nsl_state_path(dir, tasks) ? NULL : opendir(dir);
	if (!ns)
		return 0;
	while (!found && (d = readdir(ns))) {
		if (d->d_name[0] == '.' || strlen(d->d_name) > 255)
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s/config.json", tasks, d->d_name, c->id);
		found = nsl_bundle_names(c, path, &cri_keys, cgroup);
	}
	closedir(ns);
	return found;
}

static int containerd_names(struct nsl_container *c, const char *cgroup)
{
	for (const char *const *t = task_dirs; *t; t++) {
		int found = in_tasks(c, *t, cgroup);

		if (found > 0)
			c->runtime = nsl_rt_containerd.name;
		if (found)
			return found;
	}
	return 0;
}

static const struct nsl_cgroup_layout layouts[] = {
	{ "cri-containerd-", ".scope", NULL, false },
	{ NULL, NULL, NULL, false },
};

const struct nsl_runtime nsl_rt_containerd = {
	.name = "containerd",
	.layouts = layouts,
	.cri = true,
	.names = containerd_names,
	.state_dirs = task_dirs,
};
