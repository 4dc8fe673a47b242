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
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
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

/*
 * What a result file says, kept per file while it keeps its identity
 * (nsl_state_same(), on the descriptor read): a batch rereads the
 * directory and looks at each file (open, fstat) but parses only the new
 * or changed ones. The directory's mtime is not enough to skip those
 * looks: libcni writes a result in place (os.WriteFile() in cacheAdd()),
 * which changes the file and not the directory. A file changed less than
 * a second before its read (nsl_state_racy()) is not kept: another write
 * in the same jiffy would leave it the same identity. Files gone from the
 * directory leave the cache with it; at most CNI_CACHE_MAX files are
 * kept (a node's pods, one or a few results each), some 450 bytes and
 * the namespace's path each.
 */
#define CNI_CACHE_MAX 4096

struct result {
	char name[256];			/* the file's, in NSL_CNI_RESULTS */
	struct stat st;
	char id[NSL_CONTAINER_ID_LEN + 1];	/* "": not a cniCacheV1 of a container */
	char *path;			/* its namespace's, or NULL */
	bool racy;			/* read while racy, or not read yet: read again */
	bool seen;			/* in the directory at this batch */
};

static struct result *results;
static size_t nr_results;

static struct result *result_of(const char *name)
{
	for (size_t i = 0; i < nr_results; i++)
		if (!strcmp(results[i].name, name))
			return &results[i];
	return NULL;
}

/* What file name (opened: fd, st) says, parsed, into r. */
static void parse_result(struct result *r, int fd, const struct stat *st)
{
	char *text = nsl_state_read(fd, st);
	json_object *cached = text ? json_tokener_parse(text) : NULL;
	char *kind = nsl_str_of(cached, "kind"), *id = nsl_str_of(cached, "containerId");

	free(r->path);
	r->path = NULL;
	r->id[0] = '\0';
	r->st = *st;
	r->racy = nsl_state_racy(st);
	if (kind && !strcmp(kind, "cniCacheV1") && id && nsl_is_id(id, strlen(id))) {
		memcpy(r->id, id, sizeof(r->id));
		r->path = netns_path(cached);
	}
	free(kind);
	free(id);
	free(text);
	json_object_put(cached);
}

/* The files of the directory not seen at this batch leave the cache. */
static void sweep(void)
{
	size_t k = 0;

	for (size_t i = 0; i < nr_results; i++) {
		if (!results[i].seen) {
			free(results[i].path);
			continue;
		}
		results[i].seen = false;
		results[k++] = results[i];
	}
	nr_results = k;
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
	if (nsl_state_path(dir, NSL_CNI_RESULTS) || !(d = opendir(dir))) {
		sweep();	/* none seen: all gone */
		return 0;
	}
	while ((e = readdir(d))) {
		struct result *r, one = { 0 };
		struct stat st;
		uint64_t at = 0;
		int fd;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(r->name) ||
		    (size_t)snprintf(file, sizeof(file), "%s/%s", NSL_CNI_RESULTS, e->d_name) >= sizeof(file) ||
		    (fd = nsl_state_open(file, &st)) < 0)
			continue;
		r = result_of(e->d_name);
		if (!r && nr_results < CNI_CACHE_MAX) {
			struct result *more = realloc(results, (nr_results + 1) * sizeof(*results));

			if (more) {
				results = more;
				r = &results[nr_results++];
				*r = one;
				snprintf(r->name, sizeof(r->name), "%s", e->d_name);
				r->racy = true;	/* parsed below */
			}
		}
		if (!r)
			r = &one;	/* not kept */
		if (r == &one || r->racy || !nsl_state_same(&r->st, &st))
			parse_result(r, fd, &st);
		close(fd);
		r->seen = true;
		if (r->id[0] && r->path)
			at = nsl_pinned_netns(r->path);
		for (size_t i = 0; at && i < n; i++) {
			if (ino[i] != at || ids[i][0] == '-')
				continue;
			if (!ids[i][0]) {
				memcpy(ids[i], r->id, sizeof(ids[i]));
				found++;
			} else if (strcmp(ids[i], r->id) != 0) {
				ids[i][0] = '-';	/* two containers say it is theirs */
				ids[i][1] = '\0';
				found--;
			}
		}
		if (r == &one)
			free(one.path);
	}
	closedir(d);
	sweep();
	return found;
}
