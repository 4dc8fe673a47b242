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
