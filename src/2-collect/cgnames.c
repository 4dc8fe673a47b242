// SPDX-License-Identifier: GPL-2.0-only
/*
 * The path of a cgroup id, for the groups of -C: a cgroup v2 id (a kernfs
 * node id) says nothing of its path, so a walk of the cgroup2 hierarchy
 * fills a cache of id -> path, walked again for an id it does not know.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cgnames.h"
#include "targets.h"

struct cg_entry {
	uint64_t id;
	char *path;
};

static struct cg_entry *cg_cache;
static size_t cg_nr, cg_cap;

static const char *cg_find(uint64_t id)
{
	for (size_t i = 0; i < cg_nr; i++)
		if (cg_cache[i].id == id)
			return cg_cache[i].path;
	return NULL;
}

static int cg_add(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	struct cg_entry *e;
	uint64_t id = 0;

	(void)st;
	(void)ftw;
	if (type != FTW_D || nsl_cgroup_id(path, &id) || cg_find(id))
		return 0;
	if (cg_nr == cg_cap) {
		size_t cap = cg_cap ? cg_cap * 2 : 64;

		e = realloc(cg_cache, cap * sizeof(*e));
		if (!e)
			return 1;
		cg_cache = e;
		cg_cap = cap;
	}
	e = &cg_cache[cg_nr];
	/* shown relative to the cgroup2 mount, as /proc/PID/cgroup does */
	path += strlen(nsl_cgroup2_root());
	e->path = strdup(*path ? path : "/");
	if (!e->path)
		return 1;
	e->id = id;
	cg_nr++;
	return 0;
}

void nsl_cgroup_cache_free(void)
{
	for (size_t i = 0; i < cg_nr; i++)
		free(cg_cache[i].path);
	free(cg_cache);
	cg_cache = NULL;
	cg_nr = cg_cap = 0;
}

/*
 * An unknown id walks the hierarchy again (new cgroups appear), once per
 * id, and the walk replaces the cache: on a host where cgroups come and
 * go all day it holds the cgroups that exist, not every one ever seen.
 * Callers get a copy. The reports and the HTTP endpoint ask from two
 * threads: a lock.
 */
static pthread_mutex_t cg_lock = PTHREAD_MUTEX_INITIALIZER;

char *nsl_cgroup_path(uint64_t id)
{
	static uint64_t last_miss;
	const char *p;
	char *copy;

	pthread_mutex_lock(&cg_lock);
	p = cg_find(id);
	if (!p && id != last_miss && nsl_cgroup2_root()) {
		nsl_cgroup_cache_free();
		nftw(nsl_cgroup2_root(), cg_add, 16, FTW_PHYS | FTW_MOUNT);
		p = cg_find(id);
		if (!p)
			last_miss = id;
	}
	copy = p ? strdup(p) : NULL;
	pthread_mutex_unlock(&cg_lock);
	return copy;
}
