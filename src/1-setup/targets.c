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
#include <mntent.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "targets.h"

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
