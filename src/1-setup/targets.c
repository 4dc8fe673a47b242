// SPDX-License-Identifier: GPL-2.0-only
/*
 * What -n, -i and -c name, resolved to what the BPF side filters on: the
 * inode of a network namespace (nsfs), interface indices (per namespace,
 * so looked up inside the one -n selects), cgroup v2 ids (kernfs node
 * ids); and the filter maps filled with them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader.h"
#include "log.h"
#include "setup.h"
#include "targets.h"
#include "netstacklat.skel.h"

int nsl_netns_inode(const char *path, uint64_t *ino)
{
	struct stat st, self;

	if (stat(path, &st))
		return -errno;
	/* every nsfs file lives on the same internal device as our own */
	if (stat("/proc/self/ns/net", &self))
		return -errno;
	if (st.st_dev != self.st_dev)
		return -EINVAL;
	*ino = st.st_ino;
	return 0;
}

/*
 * A path to the network namespace with inode ino, to enter it: the names
 * `ip netns` gives (/run/netns), else any process living in it.
 */
int nsl_netns_find(uint64_t ino, char *path, size_t len)
{
	const char *dirs[] = { "/run/netns", "/proc" };

	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *e;

		while (dir && (e = readdir(dir)) != NULL) {
			uint64_t found = 0;

			if (e->d_name[0] == '.' ||
			    (d == 1 && (e->d_name[0] < '0' || e->d_name[0] > '9')))
				continue;
			snprintf(path, len, d == 0 ? "%s/%s" : "%s/%s/ns/net",
				 dirs[d], e->d_name);
			if (!nsl_netns_inode(path, &found) && found == ino) {
				closedir(dir);
				return 0;
			}
		}
		if (dir)
			closedir(dir);
	}
	path[0] = '\0';
	return -ENOENT;
}

int nsl_netns_enter(const char *path, int *saved)
{
	int fd, self, err = 0;

	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -errno;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		close(self);
		return err;
	}
	*saved = self;
	return 0;
}

int nsl_netns_leave(int saved)
{
	int err = setns(saved, CLONE_NEWNET) ? -errno : 0;

	close(saved);
	return err;
}

/*
 * The cgroup id of bpf_get_current_cgroup_id() is the kernfs node id, which
 * is what name_to_handle_at() returns as the file handle of a cgroup2
 * directory (kernfs_encode_fh()).
 */
int nsl_cgroup_id(const char *path, uint64_t *id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -errno;
	if (h.fh.handle_bytes != sizeof(uint64_t))
		return -EINVAL;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

/*
 * Where cgroup v2 is mounted: /sys/fs/cgroup on unified systems,
 * /sys/fs/cgroup/unified on hybrid ones (the machines we test on).
 */
const char *nsl_cgroup2_root(void)
{
	static char root[256];
	struct mntent *m;
	FILE *f;

	if (root[0])
		return root;
	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return NULL;
	while ((m = getmntent(f)) != NULL) {
		if (!strcmp(m->mnt_type, "cgroup2")) {
			snprintf(root, sizeof(root), "%s", m->mnt_dir);
			break;
		}
	}
	endmntent(f);
	return root[0] ? root : NULL;
}

/*
 * The root of our cgroup namespace as a path of the hierarchy under the
 * cgroup2 mount ("" where they are one), for nsl_cgroup_path_of_proc().
 * /proc/PID/cgroup shows a process's cgroup relative to the root of the
 * reader's cgroup namespace (proc_cgroup_show(): cgroup_path_ns() with
 * current->nsproxy->cgroup_ns), "/.." stepping out of it. On a cgroup v2
 * node a container gets a private cgroup namespace (containerd's CRI and
 * CRI-O give one to every non-privileged container, docker and podman do
 * by default), and a DaemonSet mounts the node's hierarchy in (hostPath
 * /sys/fs/cgroup): it reads another pod's process as "0::/../../kubepods
 * .slice/..." while the mount holds "/kubepods.slice/...". Joining the
 * host's cgroup namespace would take CAP_SYS_ADMIN and a host process's
 * ns/cgroup (PID 1's is not readable everywhere: not on our build
 * machine); what we have is enough:
 *  - /proc/self/mountinfo shows the mount's root relative to our
 *    namespace's root too (cgroup_show_path()): "/../.." says that the
 *    namespace's root is 2 levels below the mount's root ("/": the same,
 *    or a mount of our namespace's own: nothing outside it to name);
 *  - our own cgroup, P below that root (/proc/self/cgroup), is the one at
 *    that depth plus P's whose cgroup.procs lists our pid (it lists pids
 *    as our PID namespace numbers them), and whose path ends with P.
 * Looked for once, and never again: a container's cgroup namespace does
 * not move. -1 where it cannot be told (then "/.." paths name nothing).
 */
static int nsroot_known;		/* 0: not looked for; 1: found; -1: cannot tell */
static char nsroot[4096];

/* The depth of our cgroup namespace's root below the cgroup2 mount's root, or -1 */
static int nsroot_depth(const char *mnt)
{
	char line[8192], root[4096], point[4096];
	int depth = -1;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	while (f && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - cgroup2 ");

		if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 ||
		    strcmp(point, mnt))
			continue;
		depth = 0;
		for (const char *r = root; *r && depth >= 0; r += 3)
			depth = strncmp(r, "/..", 3) || (r[3] && r[3] != '/') ? -1 : depth + 1;
		if (!strcmp(root, "/"))
			depth = 0;
	}
	if (f)
		fclose(f);
	return depth;
}

/* Whether the cgroup at full (a directory) lists process pid */
static bool lists_pid(int dir, const char *name, long pid)
{
	char buf[4096];
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC), procs;
	ssize_t n;
	bool found = false;

	if (fd < 0)
		return false;
	procs = openat(fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	close(fd);
	if (procs < 0)
		return false;
	/* a pid is on a line of its own; a read may end inside one: carried over */
	size_t kept = 0;

	while (!found && (n = read(procs, buf + kept, sizeof(buf) - 1 - kept)) > 0) {
		char *s = buf, *nl;

		buf[kept + (size_t)n] = '\0';
		while (!found && (nl = strchr(s, '\n'))) {
			*nl = '\0';
			found = atol(s) == pid;
			s = nl + 1;
		}
		kept = strlen(s);
		memmove(buf, s, kept);
	}
	close(procs);
	return found;
}

/*
 * The cgroup depth levels below rel (a path under the mount, dir its
 * directory) that lists pid and ends with tail: its path into nsroot
 */
static bool find_self(int dir, char *rel, size_t len, int depth, long pid, const char *tail)
{
	struct dirent *e;
	bool found = false;
	DIR *d;
	int fd;

	/* (not dup(): the namer's seccomp list has no such call) */
	if ((fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (e = readdir(d))) {
		int n, sub;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		n = snprintf(rel + len, sizeof(nsroot) - len, "/%s", e->d_name);
		if (n < 0 || len + (size_t)n >= sizeof(nsroot))
			continue;
		if (depth == 1) {
			size_t t = strlen(tail), all = len + (size_t)n;

			found = all >= t && !strcmp(rel + all - t, tail) &&
				lists_pid(dirfd(d), e->d_name, pid);
			continue;
		}
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue;
		found = find_self(sub, rel, len + (size_t)n, depth - 1, pid, tail);
		close(sub);
	}
	if (!found)
		rel[len] = '\0';
	closedir(d);
	return found;
}

static void find_nsroot(void)
{
	const char *mnt = nsl_cgroup2_root();
	char own[4096], *p = NULL;
	int depth = mnt ? nsroot_depth(mnt) : -1, dir, below = 0;
	FILE *f;

	nsroot_known = -1;
	if (depth == 0)
		nsroot_known = 1;	/* nsroot "" */
	if (depth <= 0)
		return;
	/* where we are below our namespace's root: "0::P" */
	f = fopen("/proc/self/cgroup", "re");
	while (f && fgets(own, sizeof(own), f))
		if (!strncmp(own, "0::/", 4)) {
			p = own + 3;
			p[strcspn(p, "\n")] = '\0';
			break;
		}
	if (f)
		fclose(f);
	if (!p || strstr(p, "/.."))
		return;
	if (!strcmp(p, "/"))
		p[0] = '\0';
	for (const char *c = p; *c; c++)
		below += *c == '/';
	dir = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	nsroot[0] = '\0';
	if (find_self(dir, nsroot, 0, depth + below, (long)getpid(), p)) {
		nsroot[strlen(nsroot) - strlen(p)] = '\0';
		nsroot_known = 1;
	}
	close(dir);
}

const char *nsl_cgroup_path_of_proc(const char *path, char *buf, size_t size)
{
	const char *rest = path, *end;
	int up = 0, depth = 0, k = 0, n;

	if (!nsroot_known)
		find_nsroot();
	if (nsroot_known < 0)
		return strncmp(path, "/..", 3) || (path[3] && path[3] != '/') ? path : NULL;
	while (!strncmp(rest, "/..", 3) && (!rest[3] || rest[3] == '/'))
		rest += 3, up++;
	for (const char *c = nsroot; *c; c++)
		depth += *c == '/';
	if (up > depth)
		return NULL;
	/* nsroot's first depth - up components, then the rest */
	for (end = nsroot; *end; end++)
		if (*end == '/' && k++ == depth - up)
			break;
	n = snprintf(buf, size, "%.*s%s", (int)(end - nsroot), nsroot, *rest ? rest : "/");
	return n > 0 && (size_t)n < size ? buf : NULL;
}

/*
 * The namespace -n selects, when it is not our own, is entered to look up
 * interface names and to create netfilter links (both are per namespace).
 * *saved is -1 when there is nothing to enter.
 */
int nsl_enter_target_netns(struct nsl_loader *l, int *saved)
{
	int err;

	*saved = -1;
	if (!l->netns_path[0])
		return 0;
	err = nsl_netns_enter(l->netns_path, saved);
	if (err)
		pr_warn("-n: cannot enter %s: %s\n", l->netns_path, strerror(-err));
	return err;
}

int nsl_leave_target_netns(int saved, int err)
{
	if (saved >= 0 && nsl_netns_leave(saved) && !err) {
		pr_warn("cannot return to our own network namespace\n");
		err = -EIO;
	}
	return err;
}

/*
 * Interface names are looked up in the namespace -n selects when it is a
 * path (ifindex is per namespace). With -I a socket made there stays open
 * so the reader can name the interfaces later (SIOCGIFNAME answers in the
 * socket's namespace); with -n -1 an index has no single name. Without
 * -I none is kept: after set-up the tool holds no socket in another
 * namespace it has no use for (issue #32).
 */
static int resolve_ifaces(struct nsl_loader *l, const struct nsl_options *o,
			  uint32_t *idx)
{
	int saved = -1, err;

	err = nsl_enter_target_netns(l, &saved);
	if (err)
		return err;
	/*
	 * with -n -1, the names of our own namespace's interfaces; and
	 * where they lead (src/2-collect/peers.c: a route netlink socket
	 * answers for the namespace it was made in)
	 */
	if (o->group_ifindex) {
		l->ifname_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		l->links_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	}
	for (unsigned int i = 0; i < o->nr_ifaces && !err; i++) {
		const char *name = o->ifaces[i].name;
		char what[IF_NAMESIZE + 32];

		/*
		 * An index no interface has is the same mistake as a name none
		 * has; but under -n -1 it may be another namespace's (indices
		 * are per namespace).
		 */
		if (name[0]) {
			idx[i] = if_nametoindex(name);
			if (idx[i])
				continue;
			snprintf(what, sizeof(what), "'%s'", name);
		} else {
			idx[i] = o->ifaces[i].index;
			if (if_indextoname(idx[i], what))
				continue;
			if (o->netns == NSL_NETNS_ALL) {
				pr_warn("-i: no interface with index %u in netstacklat's own network namespace; with -n -1 it may be another namespace's: going on\n",
					idx[i]);
				continue;
			}
			snprintf(what, sizeof(what), "with index %u", idx[i]);
		}
		pr_warn("-i: no interface %s%s%s\n", what, saved >= 0 ? " in " : "",
			saved >= 0 ? l->netns_path : "");
		err = -ENODEV;
	}
	return nsl_leave_target_netns(saved, err);
}

static int resolve_netns(struct nsl_loader *l, const struct nsl_options *o,
			 uint64_t *ino)
{
	int err = 0;

	switch (o->netns) {
	case NSL_NETNS_ALL:
		*ino = 0;
		err = nsl_netns_inode("/proc/self/ns/net", &l->nf_netns_ino);
		break;
	case NSL_NETNS_INODE:
		*ino = l->nf_netns_ino = o->netns_ino;
		err = nsl_netns_find(o->netns_ino, l->netns_path, sizeof(l->netns_path));
		if (err)
			pr_warn("-n: no network namespace with inode %llu: %s\n",
				(unsigned long long)o->netns_ino, strerror(-err));
		break;
	case NSL_NETNS_PATH:
		err = nsl_netns_inode(o->netns_path, ino);
		if (err)
			pr_warn("-n: %s is not a network namespace: %s\n",
				o->netns_path, strerror(-err));
		l->nf_netns_ino = *ino;
		snprintf(l->netns_path, sizeof(l->netns_path), "%s", o->netns_path);
		break;
	case NSL_NETNS_OWN:
		err = nsl_netns_inode("/proc/self/ns/net", ino);
		if (err)
			pr_warn("cannot read our own network namespace: %s\n",
				strerror(-err));
		l->nf_netns_ino = *ino;
		break;
	}
	return err;
}

static int fill_set(int fd, const void *key)
{
	__u8 one = 1;

	return bpf_map_update_elem(fd, key, &one, BPF_ANY) ? -errno : 0;
}

/* -p's bitmap (bpf/maps.bpf.h, filter_pid): pid's bit set in its word */
static int fill_pid(int fd, __u32 pid)
{
	__u32 word = pid / 64;
	__u64 bits;

	if (pid >= NSL_PID_LIMIT)
		return -ERANGE;
	if (bpf_map_lookup_elem(fd, &word, &bits))
		return -errno;
	bits |= 1ULL << (pid % 64);
	return bpf_map_update_elem(fd, &word, &bits, BPF_ANY) ? -errno : 0;
}

/* Filter maps: after load (the maps exist), before attach (no samples yet). */
int nsl_fill_filters(struct nsl_loader *l, const struct nsl_options *o)
{
	struct netstacklat_bpf *s = l->skel;
	int err = 0;

	for (unsigned int i = 0; i < o->nr_ifaces && !err; i++)
		err = fill_set(bpf_map__fd(s->maps.filter_ifindex), &l->ifidx[i]);
	for (unsigned int i = 0; i < o->nr_pids && !err; i++)
		err = fill_pid(bpf_map__fd(s->maps.filter_pid), o->pids[i]);
	for (unsigned int i = 0; i < o->nr_cgroups && !err; i++)
		err = fill_set(bpf_map__fd(s->maps.filter_cgroup), &l->cgids[i]);
	if (err)
		pr_warn("cannot fill filter maps: %s\n", strerror(-err));
	return err;
}

/*
 * -c PATH: a cgroup v2 directory as given (absolute, or relative to the
 * working directory), else relative to the cgroup2 mount, the way -C and
 * /proc/PID/cgroup show it ("/system.slice/x.service").
 */
static int cgroup_path_id(const char *path, uint64_t *id)
{
	const char *root = nsl_cgroup2_root();
	char full[PATH_MAX];
	int err = nsl_cgroup_id(path, id);

	if (!err || !root)
		return err;
	snprintf(full, sizeof(full), "%s/%s", root, path + (*path == '/'));
	return nsl_cgroup_id(full, id) ? err : 0;
}

/*
 * -c ID: -ESTALE where no cgroup has that id now, found by opening the
 * file handle the id is (kernfs_fh_to_dentry(): ESTALE for an id no node
 * has); 0 where one has, and where we cannot tell (no cgroup2 mount, no
 * CAP_DAC_READ_SEARCH).
 */
static int cgroup_id_missing(uint64_t id)
{
	const char *root = nsl_cgroup2_root();
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id, dir, cg, err = 0;

	if (!root || name_to_handle_at(AT_FDCWD, root, &h.fh, &mount_id, 0))
		return 0;
	dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return 0;
	memcpy(h.fh.f_handle, &id, sizeof(id));
	cg = open_by_handle_at(dir, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg >= 0)
		close(cg);
	else if (errno == ESTALE || errno == ENOENT)
		err = -ESTALE;
	close(dir);
	return err;
}

static int resolve_cgroups(const struct nsl_options *o, uint64_t *ids)
{
	for (unsigned int i = 0; i < o->nr_cgroups; i++) {
		int err;

		ids[i] = o->cgroups[i].id;
		if (!o->cgroups[i].path) {
			if (cgroup_id_missing(ids[i])) {
				pr_warn("-c: no cgroup has the id %llu now (ids as -C "
					"prints them; or give its path)\n",
					(unsigned long long)ids[i]);
				return -ENOENT;
			}
			continue;
		}
		err = cgroup_path_id(o->cgroups[i].path, &ids[i]);
		if (err) {
			pr_warn("-c: %s is not a cgroup v2 directory, nor one under %s: %s\n",
				o->cgroups[i].path, nsl_cgroup2_root() ?: "(no cgroup2 mount)",
				strerror(-err));
			return err;
		}
	}
	return 0;
}

uint32_t nsl_loader_groups(const struct nsl_options *o)
{
	return o->group_ifindex || o->group_cgroup ? o->max_groups : 1;
}

int nsl_loader_resolve(struct nsl_loader *l, const struct nsl_options *o)
{
	/* the netns first: interface names are looked up inside it */
	int err = resolve_netns(l, o, &l->netns_ino);

	if (!err)
		err = resolve_ifaces(l, o, l->ifidx);
	if (!err)
		err = resolve_cgroups(o, l->cgids);
	return err;
}
