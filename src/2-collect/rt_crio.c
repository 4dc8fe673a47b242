// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRI-O (runtimes.h): crio-ID.scope under systemd's cgroup driver,
 * .../podUID/crio-ID under cgroupfs' (crio-conmon-ID holds its monitor:
 * not an id, no name). Its containers live in containers/storage, each
 * OCI spec at /run/containers/storage/overlay-containers/ID/userdata/
 * config.json, with the annotations io.kubernetes.pod.name, .namespace,
 * .uid and io.kubernetes.container.name, which is "POD" for the pod's
 * infra (sandbox) container: the pod's, no container's.
 */
#include <stdio.h>
#include "runtimes.h"

static const char *const dirs[] = { "/run/containers/storage/overlay-containers", NULL };

static const struct nsl_bundle_keys keys = {
	"io.kubernetes.", "pod.name", "pod.namespace", "pod.uid", "container.name",
};

static int crio_names(struct nsl_container *c, const char *cgroup)
{
	char path[256];
	int found;

	snprintf(path, sizeof(path), "%s/%s/userdata/config.json", dirs[0], c->id);
	found = nsl_bundle_names(c, path, &keys, cgroup);
	if (found > 0)
		c->runtime = nsl_rt_crio.name;
	return found;
}

static const struct nsl_cgroup_layout layouts[] = {
	{ "crio-", ".scope", NULL, false },
	{ "crio-", "", "pod", true },		/* cgroupfs: kubepods/QOS/podUID/crio-ID */
	{ NULL, NULL, NULL, false },
};

const struct nsl_runtime nsl_rt_crio = {
	.name = "cri-o",
	.layouts = layouts,
	.cri = true,
	.names = crio_names,
	.state_dirs = dirs,
};
