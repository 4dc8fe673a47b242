// SPDX-License-Identifier: GPL-2.0-only
/*
 * The state files' parse cache (src/2-collect/statefile.c): a file of at
 * least NSL_STATE_CACHE_MIN bytes is parsed once while it keeps its
 * identity, and parsed again once it changes: replaced by a rename (a new
 * inode, as containers/storage writes containers.json), or rewritten in
 * place with the same size within the same timestamp tick (its bytes
 * compared: racy). Files under a directory the test gives as
 * NSL_TEST_STATE_ROOT.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "statefile.h"

static char root[64];

/* A JSON list of n entries whose names end in tag (one character) */
static void write_list(const char *path, size_t n, char tag, bool in_place)
{
	char full[200], tmp[256];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", full);
	f = fopen(in_place ? full : tmp, "w");
	assert_non_null(f);
	fputc('[', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s{\"id\":\"%064zx\",\"names\":[\"c%06zu%c\"]}", i ? "," : "", i, i, tag);
	fputc(']', f);
	fclose(f);
	if (!in_place)
		assert_int_equal(rename(tmp, full), 0);
}

/* The name of entry 0 of the list at path, as parsed now (and the object) */
static char last_tag(json_object *o)
{
	json_object *e = json_object_array_get_idx(o, 0), *names;
	const char *s;

	assert_true(json_object_object_get_ex(e, "names", &names));
	s = json_object_get_string(json_object_array_get_idx(names, 0));
	return s[strlen(s) - 1];
}

static void test_parsed_once_while_unchanged(void **state)
{
	json_object *a, *b, *c;

	(void)state;
	write_list("/list.json", 2000, 'a', false);
	a = nsl_state_json("/list.json");
	b = nsl_state_json("/list.json");
	assert_non_null(a);
	assert_ptr_equal(a, b);	/* the same parse, a reference each */
	assert_int_equal(last_tag(b), 'a');
	json_object_put(a);
	json_object_put(b);
	/* replaced by a rename, the same size: parsed again */
	write_list("/list.json", 2000, 'b', false);
	c = nsl_state_json("/list.json");
	assert_non_null(c);
	assert_int_equal(last_tag(c), 'b');
	json_object_put(c);
}

static void test_racy_rewrite_in_place(void **state)
{
	json_object *a, *b;

	(void)state;
	write_list("/racy.json", 2000, 'a', false);
	a = nsl_state_json("/racy.json");
	assert_int_equal(last_tag(a), 'a');
	json_object_put(a);
	/*
	 * the same size, the same inode, at once: with coarse timestamps
	 * (a jiffy) maybe the same ctime, and then only the comparison of
	 * the bytes sees the change. Where the file system stamps a file
	 * whose times were read finely (multigrain timestamps, Linux 6.13+:
	 * as here, where this test passes without the comparison too), the
	 * ctime differs anyway. Either way the parse must be new.
	 */
	write_list("/racy.json", 2000, 'b', true);
	b = nsl_state_json("/racy.json");
	assert_int_equal(last_tag(b), 'b');
	json_object_put(b);
}

static void test_small_and_untrusted(void **state)
{
	char full[256];
	json_object *a, *b;

	(void)state;
	/* small: not kept, parsed each time (a new object) */
	write_list("/small.json", 2, 'a', false);
	a = nsl_state_json("/small.json");
	b = nsl_state_json("/small.json");
	assert_non_null(a);
	assert_ptr_not_equal(a, b);
	json_object_put(a);
	json_object_put(b);
	/* kept, then made writable by others: refused, cache or not */
	write_list("/open.json", 2000, 'a', false);
	a = nsl_state_json("/open.json");
	assert_non_null(a);
	json_object_put(a);
	snprintf(full, sizeof(full), "%s/open.json", root);
	assert_int_equal(chmod(full, 0666), 0);
	assert_null(nsl_state_json("/open.json"));
}

static void test_bounded(void **state)
{
	json_object *o;

	(void)state;
	/* more files than the cache keeps: each read is right all the same */
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < NSL_STATE_CACHE_FILES + 2; i++) {
			char path[32];

			snprintf(path, sizeof(path), "/many%d.json", i);
			if (!round)
				write_list(path, 2000, (char)('a' + i), false);
			o = nsl_state_json(path);
			assert_non_null(o);
			assert_int_equal(last_tag(o), 'a' + i);
			json_object_put(o);
		}
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/nsl-statefile.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	umask(022);
	setenv("NSL_TEST_STATE_ROOT", root, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parsed_once_while_unchanged),
		cmocka_unit_test(test_racy_rewrite_in_place),
		cmocka_unit_test(test_small_and_untrusted),
		cmocka_unit_test(test_bounded),
	};

	if (geteuid() != 0) {
		/* the files must be root's to be read at all */
		printf("# SKIP test_statefile: needs root (state files are root's)\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
