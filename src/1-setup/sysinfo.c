// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <sys/utsname.h>
#include <time.h>
#include "sysinfo.h"

#include <mntent.h>
#include <stdio.h>

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

struct cg_entry {
	uint64_t id;
	char *path;
};

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

int nsl_kernel_version(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return -1;
	return major << 8 | minor;
}

/*
 * /proc/kallsyms lists every kernel symbol with its address (zeros when
 * kptr_restrict hides them from us). A function's extent is from its
 * address to the next symbol's. Two passes: find the addresses, then the
 * symbol after each.
 */
int nsl_ksym_ranges(const char *const *names, int n, uint64_t *at, uint64_t *len)
{
	char line[512], sym[256], type;
	unsigned long long a;
	FILE *f;

	for (int pass = 0; pass < 2; pass++) {
		f = fopen("/proc/kallsyms", "re");
		if (!f)
			return -errno;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3)
				continue;
			for (int i = 0; i < n; i++) {
				if (pass == 0 && !at[i] && !strcmp(sym, names[i]))
					at[i] = a;
				/* len holds the next address until the end */
				if (pass == 1 && at[i] && a > at[i] &&
				    (!len[i] || a < len[i]))
					len[i] = a;
			}
		}
		fclose(f);
		if (pass == 0)
			memset(len, 0, n * sizeof(*len));
	}
	for (int i = 0; i < n; i++)
		len[i] = at[i] && len[i] ? len[i] - at[i] : 0;
	return 0;
}
