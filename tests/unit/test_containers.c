// SPDX-License-Identifier: GPL-2.0-only
/*
 * Containers by name (src/2-collect/containers.c): the cgroup paths of
 * each runtime and cgroup driver, and the names from each runtime's state,
 * laid out under a directory the test gives as NSL_TEST_STATE_ROOT. What
 * must name nothing: a conmon scope, a path without a container, a state
 * file that is a link, writable by others, or not root's. podman's
 * namespaces (src/2-collect/rt_podman.c): its state as root podman 4.3 lays
 * it out, naming network namespaces the test makes and pins under
 * /run/netns (as podman does).
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
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "containers.h"
#include "rt_podman.h"
#include "runtimes.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "1e2d3c4b-5a69-4788-9a0b-c1d2e3f40516"
#define UID_ "1e2d3c4b_5a69_4788_9a0b_c1d2e3f40516"
#define PB "b000000000000000000000000000000000000000000000000000000000000000"
#define PA "a000000000000000000000000000000000000000000000000000000000000000"
#define PC "c000000000000000000000000000000000000000000000000000000000000000"
#define PD "d000000000000000000000000000000000000000000000000000000000000000"
#define PE "e000000000000000000000000000000000000000000000000000000000000000"
#define PF "f000000000000000000000000000000000000000000000000000000000000000"
#define PG "0a00000000000000000000000000000000000000000000000000000000000000"
#define PH "0b00000000000000000000000000000000000000000000000000000000000000"
#define PS "0c00000000000000000000000000000000000000000000000000000000000000"

static char root[64];
static char cgroot[96];

/* containers.c asks where the cgroup2 mount is: here, the test's tree */
const char *nsl_cgroup2_root(void)
{
	return cgroot;
}

/* and how /proc/PID/cgroup's paths are the hierarchy's: here, as they are */
const char *nsl_cgroup_path_of_proc(const char *path, char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return path;
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
	/* CRI-O under cgroupfs; cri-dockerd's docker under systemd's driver */
	parsed("/kubepods/besteffort/pod" UID "/crio-" ID, "cri-o", UID);
	parsed("/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" ID ".scope", "docker", UID);
	/* a container's own cgroup named after another: the outermost is it */
	parsed("/system.slice/docker-" ID ".scope/docker-" PB ".scope", "docker", NULL);
	parsed("/kubepods/pod" UID "/" ID "/kubepods/pod" UID "/" PB, NULL, UID);
}

static void test_cgroup_is(void **state)
{
	struct nsl_container c = { .pod_uid = UID };
	const char *sd = "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
			 ".slice/cri-containerd-" ID ".scope";

	(void)state;
	/* systemd's driver: SLICE:PREFIX:NAME */
	assert_true(nsl_cgroup_is(sd, "kubepods-besteffort-pod" UID_ ".slice:cri-containerd:" ID,
				  &c, UID));
	assert_true(nsl_cgroup_is(sd, ":cri-containerd:" ID, &c, NULL));
	assert_false(nsl_cgroup_is(sd, "kubepods-besteffort-pod" UID_ ".slice:cri-containerd:" PB,
				   &c, NULL));
	assert_false(nsl_cgroup_is(sd, "system.slice:cri-containerd:" ID, &c, NULL));
	assert_false(nsl_cgroup_is(sd, "kubepods-besteffort-pod" UID_ ".slice:crio:" ID, &c, NULL));
	/* cgroupfs': the path, below whatever holds the hierarchy */
	assert_true(nsl_cgroup_is("/kubepods/besteffort/pod" UID "/" ID,
				  "/kubepods/besteffort/pod" UID "/" ID, &c, NULL));
	assert_true(nsl_cgroup_is("/nsl1/kubepods/besteffort/pod" UID "/" ID,
				  "/kubepods/besteffort/pod" UID "/" ID, &c, NULL));
	assert_false(nsl_cgroup_is("/kubepods/besteffort/pod" UID "/" ID,
				   "/kubepods/burstable/pod" UID "/" ID, &c, NULL));
	assert_false(nsl_cgroup_is("/x/kubepods/besteffort/pod" UID "/" ID, "kubepods", &c, NULL));
	/* nothing said: nothing to check; a pod uid that is not the path's */
	assert_true(nsl_cgroup_is(sd, NULL, &c, NULL));
	assert_false(nsl_cgroup_is(sd, NULL, &c, "00000000-5a69-4788-9a0b-c1d2e3f40516"));
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
	/* k3s' (and RKE2's) containerd, MicroK8s' */
	put("/run/k3s/containerd/io.containerd.runtime.v2.task/k8s.io/" PB "/config.json",
	    CRI_BUNDLE, 0644);
	names("/kubepods/besteffort/pod" UID "/" PB, "containerd", NULL, "shop", "web-0", UID, "nginx");
	put("/var/snap/microk8s/common/run/containerd/io.containerd.runtime.v2.task/k8s.io/" PC
	    "/config.json", CRI_BUNDLE, 0644);
	names("/kubepods/burstable/pod" UID "/" PC, "containerd", NULL, "shop", "web-0", UID, "nginx");
	/* CRI-O under cgroupfs, its pod's infra container ("POD": the pod's) */
	put("/run/containers/storage/overlay-containers/" PB "/userdata/config.json",
	    "{\"annotations\":{\"io.kubernetes.pod.name\":\"db-1\",\"io.kubernetes.pod.namespace\":"
	    "\"data\",\"io.kubernetes.pod.uid\":\"" UID "\",\"io.kubernetes.container.name\":\"POD\"},"
	    "\"linux\":{\"cgroupsPath\":\"/kubepods/besteffort/pod" UID "/crio-" PB "\"}}", 0600);
	names("/kubepods/besteffort/pod" UID "/crio-" PB, "cri-o", NULL, "data", "db-1", UID, NULL);
	/* cri-dockerd: docker's container, the pod's names in its labels */
	put("/var/lib/docker/containers/" PB "/config.v2.json", "{\"Name\":\"/k8s_app_web-0_shop_"
	    UID "_0\",\"Config\":{\"Labels\":{\"io.kubernetes.pod.name\":\"web-0\","
	    "\"io.kubernetes.pod.namespace\":\"shop\",\"io.kubernetes.pod.uid\":\"" UID "\","
	    "\"io.kubernetes.container.name\":\"app\"}}}", 0600);
	names("/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" PB ".scope", "docker",
	      "k8s_app_web-0_shop_" UID "_0", "shop", "web-0", UID, "app");
	/* a bundle that puts its container in another cgroup, or another pod: no container */
	put("/run/containerd/io.containerd.runtime.v2.task/k8s.io/" PD "/config.json",
	    "{\"annotations\":{\"io.kubernetes.cri.sandbox-name\":\"web-0\"},\"linux\":"
	    "{\"cgroupsPath\":\"kubepods-pod" UID_ ".slice:cri-containerd:" PD "\"}}", 0644);
	cgroup("/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" PD ".scope", 0);
	names("/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" PD ".scope", "containerd",
	      NULL, NULL, "web-0", UID, NULL);
	cgroup("/system.slice/cri-containerd-" PD ".scope", 0);
	assert_null(nsl_container_of_cgroup("/system.slice/cri-containerd-" PD ".scope"));
	put("/run/containerd/io.containerd.runtime.v2.task/k8s.io/" PE "/config.json",
	    "{\"annotations\":{\"io.kubernetes.cri.sandbox-uid\":\"00000000-0000-4000-8000-"
	    "000000000000\"}}", 0644);
	cgroup("/kubepods/pod" UID "/" PE, 0);
	assert_null(nsl_container_of_cgroup("/kubepods/pod" UID "/" PE));
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

/* podman's namespaces: the containers' ids */
#define NPINS 4

static char pins[NPINS + 1][64];	/* the namespaces pinned, and a link to the first */

/* A fresh network namespace pinned at pins[k] (as podman pins one): its inode, or 0 */
static uint64_t pin_netns(int k)
{
	struct stat st;
	int fd, status;
	pid_t pid;

	snprintf(pins[k], sizeof(pins[k]), "/run/netns/nsl-unit-%d-%d", (int)getpid(), k);
	mkdir("/run/netns", 0755);
	fd = open(pins[k], O_CREAT | O_EXCL | O_RDONLY | O_CLOEXEC, 0444);
	if (fd < 0)
		return 0;
	close(fd);
	pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWNET) ||
		      mount("/proc/self/ns/net", pins[k], NULL, MS_BIND, NULL) ? 1 : 0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0 || stat(pins[k], &st))
		return 0;
	return (uint64_t)st.st_ino;
}

/* podman's OCI spec of container id: its network namespace at netns, its sandbox */
static void spec(const char *id, const char *netns, const char *sandbox, mode_t mode)
{
	char rel[256], text[1024];

	snprintf(text, sizeof(text), "{\"ociVersion\":\"1.0.2-dev\",\"annotations\":{"
		 "\"io.container.manager\":\"libpod\",%s%s%s\"io.podman.annotations.init\":\"FALSE\"},"
		 "\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"network\",\"path\":\"%s\"},"
		 "{\"type\":\"ipc\"},{\"type\":\"uts\"},{\"type\":\"mount\"}]}}",
		 sandbox ? "\"io.kubernetes.cri-o.SandboxID\":\"" : "", sandbox ? sandbox : "",
		 sandbox ? "\"," : "", netns);
	snprintf(rel, sizeof(rel), NSL_PODMAN_GRAPH "/%s/userdata/config.json", id);
	put(rel, text, mode);
}

#define PODMAN_ENTRY(id, name) "{\"id\":\"" id "\",\"names\":[\"" name "\"],\"image\":\"500d\"," \
	"\"metadata\":\"{\\\"image-name\\\":\\\"localhost/netstacklat:0.1.0\\\",\\\"name\\\":\\\"" name "\\\"}\"," \
	"\"created\":\"2026-12-06T03:04:31.571836554Z\",\"flags\":{\"MountLabel\":\"\"}}"

static void test_podman_netns(void **state)
{
	uint64_t ino[NPINS + 1] = { 0 };
	char ids[NPINS + 1][NSL_CONTAINER_ID_LEN + 1];
	struct nsl_netns_ask ask[2] = { { 0 } };

	(void)state;
	if (geteuid() != 0) {
		print_message("not root: state files must be root's\n");
		skip();
	}
	for (int k = 0; k < NPINS; k++)
		if (!(ino[k] = pin_netns(k))) {
			print_message("cannot pin a network namespace under /run/netns\n");
			skip();
		}
	snprintf(pins[NPINS], sizeof(pins[NPINS]), "/run/netns/nsl-unit-%d-link", (int)getpid());
	assert_int_equal(symlink(pins[0], pins[NPINS]), 0);
	put(NSL_PODMAN_GRAPH "/containers.json", "[" PODMAN_ENTRY(PA, "web") ","
	    PODMAN_ENTRY(PB, "5d1e7a9c0b2f-infra") "," PODMAN_ENTRY(PC, "shop-db") ","
	    PODMAN_ENTRY(PS, "k8s_POD") "," PODMAN_ENTRY(PD, "k8s_db") ","
	    PODMAN_ENTRY(PE, "one") "," PODMAN_ENTRY(PF, "two") ","
	    PODMAN_ENTRY(PG, "via-link") "," PODMAN_ENTRY(PH, "tenant") ",{\"id\":\"../x\"}]", 0600);
	/* a container in a namespace of its own (netavark or CNI alike) */
	spec(PA, pins[0], NULL, 0644);
	/* one through a link to it, one whose spec others may write: not believed */
	spec(PG, pins[NPINS], NULL, 0644);
	spec(PH, pins[0], NULL, 0666);
	/* a pod: its infra container's, joined by its container (by pid) */
	spec(PB, pins[1], NULL, 0644);
	put(NSL_PODMAN_RUN "/" PB "/userdata/pidfile", "17002", 0644);
	spec(PC, "/proc/17002/ns/net", PB, 0644);
	/* CRI-O's pod: each container names the sandbox's namespace, and the sandbox */
	spec(PS, pins[2], PS, 0644);
	spec(PD, pins[2], PS, 0644);
	/* two containers, one namespace */
	spec(PE, pins[3], NULL, 0644);
	spec(PF, pins[3], NULL, 0644);

	assert_int_equal(nsl_podman_netns(ino, NPINS + 1, ids), 2);
	assert_string_equal(ids[0], PA);
	assert_string_equal(ids[1], "-");
	assert_string_equal(ids[2], PS);
	assert_string_equal(ids[3], "-");
	assert_string_equal(ids[4], "");
	/* the container once its pidfile says another pid: the pod's is its infra's */
	put(NSL_PODMAN_RUN "/" PB "/userdata/pidfile", "17003\n", 0644);
	assert_int_equal(nsl_podman_netns(ino, 2, ids), 2);
	assert_string_equal(ids[1], PB);
	/* not asked, not named */
	ask[0].ino = ino[0];
	ino[0] = 0;
	assert_int_equal(nsl_podman_netns(ino, 1, ids), 0);
	assert_string_equal(ids[0], "");

	/* as the namer asks: no process in it, its name from containers.json */
	ask[1].ino = ino[3];
	nsl_containers_of_netns(ask, 2);
	assert_non_null(ask[0].c);
	assert_string_equal(ask[0].c->runtime, "podman");
	assert_string_equal(ask[0].c->id, PA);
	assert_string_equal(ask[0].c->name, "web");
	assert_null(ask[1].c);
	nsl_container_free(ask[0].c);
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
	for (int k = 0; k <= NPINS; k++)
		if (pins[k][0]) {
			umount2(pins[k], MNT_DETACH);
			unlink(pins[k]);
		}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_cgroup_is),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_podman_netns),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
