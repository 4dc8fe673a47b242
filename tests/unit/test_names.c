// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the tool takes of its namer's answers (src/2-collect/names.c):
 * names as their runtimes and Kubernetes allow them, and nothing else, not
 * even a part; and answers that are malformed (cut short, longer than
 * they say, a NUL inside a name) taken for none.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "names.h"
#include "runtimes.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "1e2d3c4b-5a69-4788-9a0b-c1d2e3f40516"

/* runtimes.c's table, and containers.c's free: the test links names.o alone */
const struct nsl_runtime nsl_rt_containerd = { .name = "containerd" },
			 nsl_rt_crio = { .name = "cri-o" }, nsl_rt_docker = { .name = "docker" },
			 nsl_rt_podman = { .name = "podman" };
const struct nsl_runtime *const nsl_runtimes[] = {
	&nsl_rt_containerd, &nsl_rt_crio, &nsl_rt_docker, &nsl_rt_podman,
};
const size_t nsl_nr_runtimes = sizeof(nsl_runtimes) / sizeof(nsl_runtimes[0]);

void nsl_container_free(struct nsl_container *c)
{
	if (!c)
		return;
	free(c->name);
	free(c->pod);
	free(c->pod_namespace);
	free(c->pod_uid);
	free(c->container);
	free(c);
}

/* a pod's container, every name as Kubernetes has them */
static struct nsl_container pod(void)
{
	struct nsl_container c = { .runtime = "containerd", .id = ID, .pod = "web-0",
				   .pod_namespace = "shop", .pod_uid = UID,
				   .container = "nginx" };
	return c;
}

static const char *invalid_with(const char *field, const char *value)
{
	struct nsl_container c = pod();

	if (!strcmp(field, "id"))
		snprintf(c.id, sizeof(c.id), "%s", value);
	else if (!strcmp(field, "pod"))
		c.pod = (char *)value;
	else if (!strcmp(field, "pod_namespace"))
		c.pod_namespace = (char *)value;
	else if (!strcmp(field, "pod_uid"))
		c.pod_uid = (char *)value;
	else if (!strcmp(field, "container"))
		c.container = (char *)value;
	else
		c.name = (char *)value;
	return nsl_names_invalid(&c);
}

static void ok(const char *field, const char *value)
{
	const char *why = invalid_with(field, value);

	if (why)
		fail_msg("%s '%s' refused (%s)", field, value, why);
}

static void refused(const char *field, const char *value)
{
	const char *why = invalid_with(field, value);

	if (!why || strcmp(why, field) != 0)
		fail_msg("%s '%s' taken (%s)", field, value, why ? why : "valid");
}

static void test_names_as_kubernetes_has_them(void **state)
{
	char s[300];

	(void)state;
	ok("id", "");
	ok("id", ID);
	refused("id", "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef");
	refused("id", "0123456789abcdef");
	refused("id", "g123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	ok("pod_uid", UID);
	ok("pod_uid", "0123456789abcdef0123456789abcdef");	/* a static pod's */
	refused("pod_uid", "1E2D3C4B-5A69-4788-9A0B-C1D2E3F40516");
	refused("pod_uid", "1e2d3c4b_5a69_4788_9a0b_c1d2e3f40516");
	refused("pod_uid", "1e2d3c4b-5a69-4788-9a0b-c1d2e3f4051");
	refused("pod_uid", "1e2d3c4b-5a69-4788-9a0b-c1d2e3f40516/../..");
	refused("pod_uid", "");
	ok("pod", "web-0");
	ok("pod", "web-0.shop.example");
	refused("pod", "Web-0");
	refused("pod", "-web");
	refused("pod", "web-");
	refused("pod", "web..0");
	refused("pod", ".web");
	refused("pod", "web.-0");
	refused("pod", "web\n0");
	refused("pod", "web\"} 1\nevil{");
	refused("pod", "");
	memset(s, 'a', 253), s[253] = '\0';
	for (int i = 63; i < 253; i += 64)
		s[i] = '.';
	ok("pod", s);
	memset(s, 'a', 254), s[254] = '\0';
	for (int i = 63; i < 254; i += 64)
		s[i] = '.';
	refused("pod", s);
	memset(s, 'a', 64), s[64] = '\0';
	refused("pod", s);	/* a label of 64 */
	ok("pod_namespace", "shop");
	refused("pod_namespace", "shop.example");
	memset(s, 'a', 63), s[63] = '\0';
	ok("pod_namespace", s);
	ok("container", s);
	s[63] = 'a', s[64] = '\0';
	refused("pod_namespace", s);
	refused("container", s);
	ok("container", "nginx");
	refused("container", "POD");
	refused("container", "nginx_1");
	ok("name", "cache");
	ok("name", "Web_1.a-b");
	ok("name", "0");
	refused("name", "_cache");
	refused("name", ".cache");
	refused("name", "/cache");
	refused("name", "ca che");
	refused("name", "");
	memset(s, 'a', 253), s[253] = '\0';
	ok("name", s);
	s[253] = 'a', s[254] = '\0';
	refused("name", s);
}

/* an answer as the namer sends it comes back the same */
static void test_answer_round_trip(void **state)
{
	unsigned char a[NSL_ANSWER_MAX];
	struct nsl_container c = pod(), *got;
	uint32_t seq = 0;
	size_t len = nsl_answer_encode(&c, 7, a);

	(void)state;
	assert_int_equal(nsl_answer_decode(a, len, &seq, &got), 0);
	assert_int_equal(seq, 7);
	assert_non_null(got);
	assert_string_equal(got->runtime, "containerd");
	assert_string_equal(got->id, ID);
	assert_null(got->name);
	assert_string_equal(got->pod, "web-0");
	assert_string_equal(got->pod_namespace, "shop");
	assert_string_equal(got->pod_uid, UID);
	assert_string_equal(got->container, "nginx");
	assert_null(nsl_names_invalid(got));
	nsl_container_free(got);
	len = nsl_answer_encode(NULL, 8, a);
	assert_int_equal(nsl_answer_decode(a, len, &seq, &got), 0);
	assert_int_equal(seq, 8);
	assert_null(got);
}

/* cut short, longer, an id of another length, a NUL in a name: not answers */
static void test_answer_malformed(void **state)
{
	unsigned char a[NSL_ANSWER_MAX + 1];
	struct nsl_container c = pod(), *got = (void *)1;
	uint32_t seq;
	size_t len = nsl_answer_encode(&c, 1, a);
	unsigned char *nginx;

	(void)state;
	for (size_t cut = 0; cut < len; cut++) {
		assert_int_equal(nsl_answer_decode(a, cut, &seq, &got), -EBADMSG);
		assert_null(got);
	}
	a[len] = 0;
	assert_int_equal(nsl_answer_decode(a, len + 1, &seq, &got), -EBADMSG);
	nginx = memmem(a, len, "nginx", 5);
	assert_non_null(nginx);
	nginx[2] = '\0';	/* "ng\0nx": not "ng" */
	assert_int_equal(nsl_answer_decode(a, len, &seq, &got), -EBADMSG);
	assert_null(got);
	len = nsl_answer_encode(&c, 1, a);
	a[6] = 63;		/* the id's length: 64 or none */
	assert_int_equal(nsl_answer_decode(a, len, &seq, &got), -EBADMSG);
	a[6] = 64;
	a[5] = 9;		/* a runtime not known */
	assert_int_equal(nsl_answer_decode(a, len, &seq, &got), -EBADMSG);
	a[5] = 1;
	a[4] = 2;		/* present: 0 or 1 */
	assert_int_equal(nsl_answer_decode(a, len, &seq, &got), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_as_kubernetes_has_them),
		cmocka_unit_test(test_answer_round_trip),
		cmocka_unit_test(test_answer_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
