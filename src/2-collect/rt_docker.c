// SPDX-License-Identifier: GPL-2.0-only
/*
 * docker (runtimes.h): docker-ID.scope under systemd's cgroup driver
 * (under kubepods too, where cri-dockerd runs a kubelet's pods), /docker/ID
 * under cgroupfs' (and a pod's .../podUID/ID, which says no runtime). Its
 * state: /var/lib/docker/containers/ID/config.v2.json, "Name" with a
 * leading '/', and the labels cri-dockerd gives a pod's containers in
 * "Config": {"Labels": ...}: io.kubernetes.pod.name, .namespace, .uid
 * and io.kubernetes.container.name ("POD" for the pod's sandbox). docker
 * keeps no cgroup path of a container to check: its cgroup's name and
 * owner (root) are what it has (containers.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtimes.h"
#include "statefile.h"

static const char *const dirs[] = { "/var/lib/docker/containers", NULL };

/* cri-dockerd's labels: the pod's names */
static void pod_labels(struct nsl_container *c, json_object *cfg)
{
	json_object *conf, *labels;

	if (!json_object_object_get_ex(cfg, "Config", &conf) ||
	    !json_object_object_get_ex(conf, "Labels", &labels) ||
	    !json_object_is_type(labels, json_type_object))
		return;
	if (!c->pod)
		c->pod = nsl_str_of(labels, "io.kubernetes.pod.name");
	if (!c->pod_namespace)
		c->pod_namespace = nsl_str_of(labels, "io.kubernetes.pod.namespace");
	if (!c->pod_uid)
		c->pod_uid = nsl_str_of(labels, "io.kubernetes.pod.uid");
	if (c->pod || c->pod_uid)
		nsl_set_container_name(c, nsl_str_of(labels, "io.kubernetes.container.name"));
}

static int docker_names(struct nsl_container *c, const char *cgroup)
{
	char path[256], *name;
	json_object *cfg;

	(void)cgroup;
	snprintf(path, sizeof(path), "%s/%s/config.v2.json", dirs[0], c->id);
	cfg = nsl_state_json(path);
	if (!cfg)
		return 0;
	name = nsl_str_of(cfg, "Name");
	/* docker keeps the name with a leading '/' */
	if (name && name[0] == '/')
		memmove(name, name + 1, strlen(name));
	if (name && !*name) {
		free(name);
		name = NULL;
	}
	if (!c->name)
		c->name = name;
	else
		free(name);
	pod_labels(c, cfg);
	json_object_put(cfg);
	c->runtime = nsl_rt_docker.name;
	return 1;
}

static const struct nsl_cgroup_layout layouts[] = {
	{ "docker-", ".scope", NULL, false },
	{ "", "", "docker", false },		/* cgroupfs */
	{ NULL, NULL, NULL, false },
};

const struct nsl_runtime nsl_rt_docker = {
	.name = "docker",
	.layouts = layouts,
	.cri = true,				/* cri-dockerd */
	.names = docker_names,
	.state_dirs = dirs,
};
