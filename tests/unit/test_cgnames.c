// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cgroup name cache (src/2-collect/cgnames.c) on a directory tree
 * that stands in for the cgroup2 mount: ids are the directories' inode
 * numbers (as kernfs gives cgroup directories), through this file's own
 * nsl_cgroup2_root() and nsl_cgroup_id(), which counts the walks of the
 * tree: at most one per tick, none for an id known to be absent.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cgnames.h"
#include "targets.h"

static char root[64];
static uint64_t walks;	/* each walk asks for the root's id first */

const char *nsl_cgroup2_root(void)
{
	return root;
}

int nsl_cgroup_id(const char *path, uint64_t *id)
{
	struct stat st;

	walks += !strcmp(path, root);
	if (stat(path, &st))
		return -errno;
	*id = st.st_ino;
	return 0;
}

static uint64_t dir(const char *rel)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (stat(path, &st))
		assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

static void assert_path(uint64_t id, bool recheck, const char *want)
{
	char *p = nsl_cgroup_path(id, recheck);

	if (!want)
		assert_null(p);
	else
		assert_string_equal(p, want);
	free(p);
}

static int make_tree(void **state)
{
	(void)state;
	strcpy(root, "/tmp/nsl-test-cgnames.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	nsl_cgroup_cache_free();
	nsl_cgroup_names_tick();
	return 0;
}

static int remove_tree(void **state)
{
	char cmd[128];

	(void)state;
	nsl_cgroup_cache_free();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void test_names(void **state)
{
	uint64_t a = dir("/a"), b = dir("/a/b"), w = walks;

	(void)state;
	assert_path(b, false, "/a/b");
	assert_path(a, false, "/a");
	assert_path(dir(""), false, "/");
	assert_int_equal(walks - w, 1);
}

/* However many unknown ids ask in one tick: one walk. */
static void test_one_walk_per_tick(void **state)
{
	uint64_t w, c;

	(void)state;
	dir("/a");
	w = walks;
	for (uint64_t id = 1000000; id < 1000100; id++)
		assert_path(id, false, NULL);
	assert_int_equal(walks - w, 1);
	/* a cgroup made after this tick's walk: named at the next tick */
	c = dir("/c");
	assert_path(c, false, NULL);
	assert_int_equal(walks - w, 1);
	nsl_cgroup_names_tick();
	assert_path(c, false, "/c");
	assert_int_equal(walks - w, 2);
}

/*
 * Ids a walk did not find are absent for good (ids are never reused):
 * idle groups outside the mount (a cgroup namespace) asked at every tick
 * cost no walk (they cost one each, every tick, before).
 */
static void test_absent_cost_nothing(void **state)
{
	uint64_t w;

	(void)state;
	dir("/a");
	w = walks;
	for (int tick = 0; tick < 10; tick++) {
		for (uint64_t id = 2000000; id < 2000050; id++)
			assert_path(id, false, NULL);
		nsl_cgroup_names_tick();
		/*
		 * tick 0: the first id's walk; the 49 asked after it may be
		 * newer than that walk: tick 1's. None after.
		 */
		assert_int_equal(walks - w, tick ? 2 : 1);
	}
}

/* A path that is wrong now: the next walk says where it went, or that it is gone. */
static void test_recheck(void **state)
{
	uint64_t b, gone, w;
	char from[256], to[256];

	(void)state;
	dir("/a");
	b = dir("/a/b");
	gone = dir("/g");
	dir("/c");
	assert_path(b, false, "/a/b");
	assert_path(gone, false, "/g");
	snprintf(from, sizeof(from), "%s/a/b", root);
	snprintf(to, sizeof(to), "%s/c/b", root);
	assert_int_equal(rename(from, to), 0);
	snprintf(from, sizeof(from), "%s/g", root);
	assert_int_equal(rmdir(from), 0);
	/* this tick walked already: the old paths until the next */
	w = walks;
	assert_path(b, true, "/a/b");
	assert_path(gone, true, "/g");
	assert_int_equal(walks, w);
	nsl_cgroup_names_tick();
	assert_path(b, true, "/c/b");
	assert_path(gone, true, NULL);
	assert_int_equal(walks - w, 1);
	/* and they stay so, with no walk more */
	nsl_cgroup_names_tick();
	assert_path(b, false, "/c/b");
	assert_path(gone, false, NULL);
	assert_int_equal(walks - w, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, make_tree, remove_tree)
		T(test_names),
		T(test_one_walk_per_tick),
		T(test_absent_cost_nothing),
		T(test_recheck),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
