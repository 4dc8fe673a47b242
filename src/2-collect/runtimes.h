/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The container runtimes whose containers are named (docs/containers.md),
 * one row each: how it names a container's cgroup, where it keeps its
 * state, and how a container's names are read from that state by id.
 * A runtime is one file (rt_*.c) and one row of nsl_runtimes[]
 * (runtimes.c); containers.c asks the table, never a runtime by name.
 */
#ifndef NSL_RUNTIMES_H
#define NSL_RUNTIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "report.h"

/*
 * A container's cgroup, as a component PREFIX ID SUFFIX (ID: 64 hex
 * digits) under a parent named PARENT exactly (NULL: any parent); with
 * pod, under kubepods, the parent a pod's whose name starts with PARENT
 */
struct nsl_cgroup_layout {
	const char *prefix, *suffix, *parent;
	bool pod;
};

struct nsl_runtime {
	const char *name;		/* the runtime label's value */
	/* its cgroups' layouts, up to one with prefix NULL */
	const struct nsl_cgroup_layout *layouts;
	/*
	 * A Kubernetes runtime (a kubelet's, under a CRI): a container of a
	 * pod's cgroup that says no runtime (kubelet's cgroupfs driver:
	 * .../podUID/ID) may be its
	 */
	bool cri;
	/*
	 * Fills c's names (and its pod's) from the runtime's state for
	 * c->id; cgroup: the container's cgroup path (up to its own
	 * component) where a cgroup named it, NULL where a namespace's
	 * state did: a runtime that says where it put the container
	 * checks that it is there. 1: named; 0: the runtime keeps no
	 * container of that id; -1: its state puts that container in
	 * another cgroup (this one poses as it: no container at all).
	 */
	int (*names)(struct nsl_container *c, const char *cgroup);
	/* the directories its state lies under (NULL-terminated) */
	const char *const *state_dirs;
};

extern const struct nsl_runtime nsl_rt_containerd, nsl_rt_crio, nsl_rt_docker, nsl_rt_podman;
extern const struct nsl_runtime *const nsl_runtimes[];
extern const size_t nsl_nr_runtimes;

/* The row of runtime name, or NULL */
const struct nsl_runtime *nsl_runtime_named(const char *name);

/*
 * Every directory that some runtime keeps state under (each once), for
 * the namer's confinement: up to max into dirs; returns how many there
 * are. Paths as the runtimes write them (NSL_TEST_STATE_ROOT not applied).
 */
size_t nsl_runtime_state_dirs(const char **dirs, size_t max);

/*
 * An OCI bundle's config.json (containerd's, CRI-O's): a pod's names from
 * its annotations, each key PFX KEY (container: the container's name in
 * the pod; a sandbox's is none, and CRI-O and cri-dockerd call theirs
 * "POD"). cgroup as names() has it: the spec's linux.cgroupsPath, where
 * it says one, must be that cgroup, and its annotated pod uid the one the
 * cgroup's path says. As names() answers.
 */
struct nsl_bundle_keys {
	const char *pfx, *pod, *ns, *uid, *container;
};
int nsl_bundle_names(struct nsl_container *c, const char *path,
		     const struct nsl_bundle_keys *k, const char *cgroup);

/*
 * Whether a runtime's own words for a container's cgroup (an OCI spec's
 * linux.cgroupsPath: "SLICE:PREFIX:NAME" under systemd's driver, a path
 * under cgroupfs') are cgroup, a path relative to the cgroup2 mount; a
 * pod uid the runtime gives must be the one cgroup's path says. For the
 * runtimes' names() and the unit tests.
 */
bool nsl_cgroup_is(const char *cgroup, const char *said, const struct nsl_container *c,
		   const char *pod_uid);

/* A pod's container name in the pod: none for a sandbox ("POD": CRI-O, cri-dockerd) */
void nsl_set_container_name(struct nsl_container *c, char *name);

#endif /* NSL_RUNTIMES_H */
