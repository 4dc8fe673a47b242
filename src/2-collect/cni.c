// SPDX-License-Identifier: GPL-2.0-only
/*
 * libcni caches each attachment's result in NSL_CNI_RESULTS/NET-ID-IF
 * (libcni/api.go, cacheAdd(): JSON of kind "cniCacheV1", mode 0600 in a
 * directory of 0700, written by the runtime that calls the plugins, as
 * root): "containerId", the container it was set up for (a pod's sandbox
 * under containerd and CRI-O), and the namespace it was set up in,
 * "netns" (libcni 1.2+), else the "sandbox" of its result's interfaces.
 * Both runtimes give the plugins a path where they bind-mounted the
 * namespace, /var/run/netns/cni-UUID. What names a namespace here is that
 * path's inode, looked at now: a stale entry (a pod gone, its mount
 * with it) names nothing, and a path outside /run/netns (or /var/run/
 * netns), through a link, with "..", or on another file system than
 * nsfs is not looked at: the file is root's, but its paths come from the
 * runtime's callers. A namespace that two containers' results claim is
 * named by neither (a pod's several interfaces are one container's).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cni.h"
#include "statefile.h"

/* The namespace path of a cached result: "netns", else an interface's "sandbox". */
static char *netns_path(json_object *cached)
{
	json_object *result, *ifaces;
	char *path = nsl_str_of(cached, "netns");
	size_t n;

	if (path || !json_object_object_get_ex(cached, "result", &result) ||
	    !json_object_object_get_ex(result, "interfaces", &ifaces) ||
	    !json_object_is_type(ifaces, json_type_array))
		return path;
	n = json_object_array_length(ifaces);
	for (size_t i = 0; i < n && !path; i++)
		path = nsl_str_of(json_object_array_get_idx(ifaces, i), "sandbox");
	return path;
}

size_t nsl_cni_sandboxes(const uint64_t *ino, size_t n,
			 char (*ids)[NSL_CONTAINER_ID_LEN + 1])
{
	char dir[4096], file[512];
	struct dirent *e;
	size_t found = 0;
	DIR *d;

	for (size_t i = 0; i < n; i++)
		ids[i][0] = '\0';
	if (nsl_state_path(dir, NSL_CNI_RESULTS) || !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		json_object *cached;
		char *kind, *id, *path;
		uint64_t at = 0;

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(file, sizeof(file), "%s/%s", NSL_CNI_RESULTS, e->d_name) >= sizeof(file))
			continue;
		cached = nsl_state_json(file);
		kind = nsl_str_of(cached, "kind");
		id = nsl_str_of(cached, "containerId");
		path = netns_path(cached);
		if (kind && !strcmp(kind, "cniCacheV1") && id && nsl_is_id(id, strlen(id)) && path)
			at = nsl_pinned_netns(path);
		for (size_t i = 0; at && i < n; i++) {
			if (ino[i] != at || ids[i][0] == '-')
				continue;
			if (!ids[i][0]) {
				memcpy(ids[i], id, sizeof(ids[i]));
				found++;
			} else if (strcmp(ids[i], id) != 0) {
				ids[i][0] = '-';	/* two containers say it is theirs */
				ids[i][1] = '\0';
				found--;
			}
		}
		free(kind);
		free(id);
		free(path);
		json_object_put(cached);
	}
	closedir(d);
	return found;
}
