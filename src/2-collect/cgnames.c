// SPDX-License-Identifier: GPL-2.0-only
/*
 * The path of a cgroup id, for the groups of -C: a cgroup v2 id (a kernfs
 * node id) says nothing of its path, so a walk of the cgroup2 hierarchy
 * fills a cache of id -> path.
 *
 * Relies on cgroup ids never being reused (kernfs node ids grow, 64 bits)
 * and on an id being asked for only after the BPF side saw a packet of
 * that cgroup: an id a later walk does not find is gone for good, or lies
 * outside what our mount shows (a cgroup namespace). Such ids are cached
 * as absent, so that they cost no walk again; an id not seen yet costs at
 * most one walk per tick (nsl_cgroup_names_tick()), however many ask.
 *
 * A hash table of our own (open addressing on the 64-bit id): glibc's
 * hsearch takes string keys and one table per process, and a 64-bit key
 * needs nothing more than this.
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

/*
 * CG_PENDING: to be looked for at the next walk allowed; its path, if
 * any, is the one it had (asked again because that path is wrong now).
 */
enum { CG_EMPTY, CG_NAMED, CG_PENDING, CG_ABSENT };

struct cg_entry {
	uint64_t id;
	char *path;		/* relative to the cgroup2 mount, or NULL */
	uint64_t asked;		/* the tick it was last asked for */
	int state;
};

struct cg_table {
	struct cg_entry *e;
	size_t cap, nr;		/* cap: a power of two, at most half full */
};

static struct cg_table cg;
static uint64_t cg_tick, cg_walked = UINT64_MAX;
/* the reports and the HTTP endpoint ask from two threads */
static pthread_mutex_t cg_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(const struct cg_table *t, uint64_t id)
{
	size_t i = (size_t)(id * 0x9e3779b97f4a7c15ULL) & (t->cap - 1);

	while (t->e[i].state != CG_EMPTY && t->e[i].id != id)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static struct cg_entry *cg_find(const struct cg_table *t, uint64_t id)
{
	struct cg_entry *e;

	if (!t->cap)
		return NULL;
	e = &t->e[slot_of(t, id)];
	return e->state == CG_EMPTY ? NULL : e;
}

static int grow(struct cg_table *t)
{
	struct cg_table n = { .cap = t->cap ? t->cap * 2 : 64 };

	n.e = calloc(n.cap, sizeof(*n.e));
	if (!n.e)
		return -1;
	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i].state != CG_EMPTY)
			n.e[slot_of(&n, t->e[i].id)] = t->e[i];
	n.nr = t->nr;
	free(t->e);
	*t = n;
	return 0;
}

/* A new entry for id (not in t), taking path; NULL when out of memory. */
static struct cg_entry *cg_insert(struct cg_table *t, uint64_t id, char *path, int state)
{
	struct cg_entry *e;

	if ((t->nr + 1) * 2 > t->cap && grow(t))
		return NULL;
	e = &t->e[slot_of(t, id)];
	*e = (struct cg_entry){ .id = id, .path = path, .asked = cg_tick, .state = state };
	t->nr++;
	return e;
}

static void table_free(struct cg_table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->e[i].path);
	free(t->e);
	*t = (struct cg_table){ 0 };
}

static struct cg_table walk_into;	/* nftw() takes no argument */

static int cg_add(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	uint64_t id = 0;
	char *rel;

	(void)st;
	(void)ftw;
	if (type != FTW_D || nsl_cgroup_id(path, &id) || cg_find(&walk_into, id))
		return 0;
	/* shown relative to the cgroup2 mount, as /proc/PID/cgroup does */
	path += strlen(nsl_cgroup2_root());
	rel = strdup(*path ? path : "/");
	if (!rel || !cg_insert(&walk_into, id, rel, CG_NAMED)) {
		free(rel);
		return 1;
	}
	return 0;
}

/*
 * The walk replaces the named entries: on a host where cgroups come and
 * go all day the cache holds the cgroups that exist, not every one ever
 * seen. The ids asked for and not found stay, as absent, while they are
 * still asked for (this tick or the last).
 */
static void walk(void)
{
	walk_into = (struct cg_table){ 0 };
	if (nftw(nsl_cgroup2_root(), cg_add, 16, FTW_PHYS | FTW_MOUNT) == 1) {
		table_free(&walk_into);	/* out of memory: keep what we had */
		return;
	}
	for (size_t i = 0; i < cg.cap; i++) {
		struct cg_entry *o = &cg.e[i], *n;

		if ((o->state == CG_PENDING || o->state == CG_ABSENT) &&
		    o->asked + 1 >= cg_tick && !cg_find(&walk_into, o->id) &&
		    (n = cg_insert(&walk_into, o->id, NULL, CG_ABSENT)))
			n->asked = o->asked;
	}
	table_free(&cg);
	cg = walk_into;
}

char *nsl_cgroup_path(uint64_t id, bool recheck)
{
	struct cg_entry *e;
	char *copy = NULL;

	if (!nsl_cgroup2_root())
		return NULL;
	pthread_mutex_lock(&cg_lock);
	e = cg_find(&cg, id);
	if (e)
		e->asked = cg_tick;
	else
		e = cg_insert(&cg, id, NULL, CG_PENDING);
	if (e && recheck && e->state == CG_NAMED)
		e->state = CG_PENDING;
	if (e && e->state == CG_PENDING && cg_walked != cg_tick) {
		cg_walked = cg_tick;
		walk();
		e = cg_find(&cg, id);
	}
	/* a pending one waits for the next tick's walk with the path it had */
	if (e && e->path)
		copy = strdup(e->path);
	pthread_mutex_unlock(&cg_lock);
	return copy;
}

void nsl_cgroup_names_tick(void)
{
	pthread_mutex_lock(&cg_lock);
	cg_tick++;
	pthread_mutex_unlock(&cg_lock);
}


void nsl_cgroup_cache_free(void)
{
	pthread_mutex_lock(&cg_lock);
	table_free(&cg);
	cg_walked = UINT64_MAX;
	pthread_mutex_unlock(&cg_lock);
}
