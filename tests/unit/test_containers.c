// SPDX-License-Identifier: GPL-2.0-only
/*
 * Containers by name (src/2-collect/containers.c): the cgroup paths of
 * each runtime and cgroup driver, and the names from each runtime's state,
 * laid out under a directory the test gives as NSL_TEST_STATE_ROOT. What
 * must name nothing: a conmon scope, a path without a container, a state
 * file that is a link, writable by others, or not root's.
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
#include "containers.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "1e2d3c4b-5a69-4788-9a0b-c1d2e3f40516"
#define UID_ "1e2d3c4b_5a69_4788_9a0b_c1d2e3f40516"

static char root[64];
static char cgroot[96];

/* containers.c asks where the cgroup2 mount is: here, the test's tree */
const char *nsl_cgroup2_root(void)
{
	return cgroot;
}

/* the cgroup REL (and its parents) in the test's tree, owned by uid */
static void cgroup(const char *rel, uid_t uid)
{
	char path[512], *slash;

	snprintf(path, sizeof(path), "%s%s/", cgroot, rel);
	for (slash = strchr(path + strlen(cgroot) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	path[strlen(path) - 1] = '\0';
	assert_int_equal(chown(path, uid, uid), 0);
}

static void parsed(const char *path, const char *runtime, const char *pod_uid)
{
	struct nsl_container c = { 0 };

	const char *scope = strstr(path, ID);

	/* the path up to the end of the container's own cgroup */
	assert_int_equal(nsl_container_parse_path(path, &c), (int)(strchrnul(scope, '/') - path));
	if (runtime)
		assert_string_equal(c.runtime, runtime);
	else
		assert_null(c.runtime);
	assert_string_equal(c.id, ID);
	if (pod_uid)
		assert_string_equal(c.pod_uid, pod_uid);
	else
		assert_null(c.pod_uid);
	free(c.pod_uid);
}

static void not_parsed(const char *path)
{
	struct nsl_container c = { 0 };

	assert_int_equal(nsl_container_parse_path(path, &c), -1);
	assert_null(c.pod_uid);
}

static void test_paths(void **state)
{
	(void)state;
	/* the systemd cgroup driver */
	parsed("/system.slice/docker-" ID ".scope", "docker", NULL);
	parsed("/machine.slice/libpod-" ID ".scope", "podman", NULL);
	parsed("/machine.slice/libpod-" ID ".scope/container", "podman", NULL);
	parsed("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	       ".slice/cri-containerd-" ID ".scope", "containerd", UID);
	parsed("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope", "cri-o", UID);
	parsed("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	       ".slice/cri-containerd-" ID ".scope/init.scope", "containerd", UID);
	/* rootless podman: parsed, but its user made it: nsl_container_of_cgroup() refuses it */
	parsed("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope",
	       "podman", NULL);
	/* cgroupfs: docker's, podman's, kubelet's (and k3s') */
	parsed("/docker/" ID, "docker", NULL);
	parsed("/libpod_parent/libpod-" ID, "podman", NULL);
	parsed("/kubepods/besteffort/pod" UID "/" ID, NULL, UID);
	parsed("/kubepods/pod" UID "/" ID, NULL, UID);
	/* no container */
	not_parsed("/");
	not_parsed("/system.slice/ssh.service");
	not_parsed("/machine.slice/libpod-conmon-" ID ".scope");
	not_parsed("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-" ID ".scope");
	not_parsed("/system.slice/docker-" ID "0.scope");
	not_parsed("/system.slice/docker-0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.scope");
	not_parsed("/tenant/" ID);		/* 64 hex digits, no runtime's place */
	not_parsed("/kubepods/besteffort/" ID);	/* under kubepods, not a pod's */
}

static void put(const char *rel, const char *text, mode_t mode)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	unlink(path);	/* a link an earlier case left is not followed */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void names(const char *path, const char *runtime, const char *name, const char *ns,
		  const char *pod, const char *uid, const char *container)
{
	struct nsl_container *c;
	const char *want[] = { name, ns, pod, uid, container };

	cgroup(path, 0);
	c = nsl_container_of_cgroup(path);
	assert_non_null(c);
	assert_string_equal(c->runtime, runtime);
	const char *got[] = { c->name, c->pod_namespace, c->pod, c->pod_uid, c->container };

	for (size_t i = 0; i < 5; i++) {
		if (want[i])
			assert_string_equal(got[i], want[i]);
		else
			assert_null(got[i]);
	}
	nsl_container_free(c);
}

#define CRI_BUNDLE "{\"ociVersion\":\"1.0.2\",\"annotations\":{" \
	"\"io.kubernetes.cri.container-type\":\"container\"," \
	"\"io.kubernetes.cri.container-name\":\"nginx\"," \
	"\"io.kubernetes.cri.sandbox-name\":\"web-0\"," \
	"\"io.kubernetes.cri.sandbox-namespace\":\"shop\"," \
	"\"io.kubernetes.cri.sandbox-uid\":\"" UID "\"}}"
#define CRIO_BUNDLE "{\"annotations\":{\"io.kubernetes.pod.name\":\"db-1\"," \
	"\"io.kubernetes.pod.namespace\":\"data\",\"io.kubernetes.pod.uid\":\"" UID "\"," \
	"\"io.kubernetes.container.name\":\"postgres\"}}"

static void test_state(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		print_message("not root: state files must be root's\n");
		skip();
	}
	/* containerd, in the k8s.io namespace, either cgroup driver */
	put("/run/containerd/io.containerd.runtime.v2.task/k8s.io/" ID "/config.json",
	    CRI_BUNDLE, 0644);
	names("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	      ".slice/cri-containerd-" ID ".scope", "containerd", NULL, "shop", "web-0", UID, "nginx");
	names("/kubepods/besteffort/pod" UID "/" ID, "containerd", NULL, "shop", "web-0", UID, "nginx");
	/* CRI-O; and podman's name from containers/storage */
	put("/run/containers/storage/overlay-containers/" ID "/userdata/config.json",
	    CRIO_BUNDLE, 0600);
	names("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope", "cri-o",
	      NULL, "data", "db-1", UID, "postgres");
	put("/var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"ab\",\"names\":[\"other\"]},{\"id\":\"" ID "\",\"names\":[\"shop-web\"]}]",
	    0600);
	names("/machine.slice/libpod-" ID ".scope", "podman", "shop-web", NULL, NULL, NULL, NULL);
	/* docker's name, without its '/' */
	put("/var/lib/docker/containers/" ID "/config.v2.json", "{\"Name\":\"/cache\"}", 0600);
	names("/system.slice/docker-" ID ".scope", "docker", "cache", NULL, NULL, NULL, NULL);
	/* writable by others, or by its group: not believed */
	put("/var/lib/docker/containers/" ID "/config.v2.json", "{\"Name\":\"/cache\"}", 0602);
	names("/docker/" ID, "docker", NULL, NULL, NULL, NULL, NULL);
	put("/var/lib/docker/containers/" ID "/config.v2.json", "{\"Name\":\"/cache\"}", 0620);
	names("/docker/" ID, "docker", NULL, NULL, NULL, NULL, NULL);
	/* not root's */
	put("/var/lib/docker/containers/" ID "/config.v2.json", "{\"Name\":\"/cache\"}", 0600);
	{
		char p[512];

		snprintf(p, sizeof(p), "%s/var/lib/docker/containers/" ID "/config.v2.json", root);
		assert_int_equal(chown(p, 65534, 65534), 0);
		names("/docker/" ID, "docker", NULL, NULL, NULL, NULL, NULL);
		/* a link, even to a good file */
		assert_int_equal(unlink(p), 0);
		assert_int_equal(symlink("../../../containers/storage/overlay-containers/"
					 "containers.json", p), 0);
		names("/docker/" ID, "docker", NULL, NULL, NULL, NULL, NULL);
	}
	/* not JSON, or not what is expected: nothing, no crash */
	put("/run/containerd/io.containerd.runtime.v2.task/k8s.io/" ID "/config.json",
	    "{\"annotations\":[1,2", 0644);
	names("/kubepods/pod" UID "/" ID, "cri-o", NULL, "data", "db-1", UID, "postgres");
	put("/run/containers/storage/overlay-containers/" ID "/userdata/config.json",
	    "{\"annotations\":{\"io.kubernetes.pod.name\":7}}", 0600);
	names("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope", "cri-o",
	      NULL, NULL, NULL, UID, NULL);
	/* a path that names no container: no container */
	cgroup("/system.slice/ssh.service", 0);
	assert_null(nsl_container_of_cgroup("/system.slice/ssh.service"));
	assert_null(nsl_container_of_cgroup(NULL));
	/* a cgroup root did not make: a tenant's, named after a container */
	put("/var/lib/docker/containers/" ID "/config.v2.json", "{\"Name\":\"/cache\"}", 0600);
	names("/system.slice/docker-" ID ".scope", "docker", "cache", NULL, NULL, NULL, NULL);
	cgroup("/user.slice/user-1000.slice/user@1000.service/docker-" ID ".scope", 1000);
	assert_null(nsl_container_of_cgroup("/user.slice/user-1000.slice/user@1000.service/docker-"
					    ID ".scope"));
	/* nor one that is not there; one its processes made below it counts as its own */
	assert_null(nsl_container_of_cgroup("/docker/"
		"fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"));
	cgroup("/system.slice/docker-" ID ".scope/init.scope", 1000);
	{
		struct nsl_container *c = nsl_container_of_cgroup(
			"/system.slice/docker-" ID ".scope/init.scope");

		assert_non_null(c);
		assert_string_equal(c->name, "cache");
		nsl_container_free(c);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/nsl-containers-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(cgroot, sizeof(cgroot), "%s/cgroup", root);
	assert_int_equal(mkdir(cgroot, 0755), 0);
	setenv("NSL_TEST_STATE_ROOT", root, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_state),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
