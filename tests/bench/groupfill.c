// SPDX-License-Identifier: GPL-2.0-only
/*
 * groupfill - gives a running netstacklat -C the groups of a large host,
 * without the traffic: scripts/bench-memory measures what the userspace
 * takes (RSS, render time) at --max-groups groups.
 *
 *   groupfill PID HOOK SCHEMA FIRST_OCTAVE LAST_OCTAVE < CGROUP_IDS
 *
 * For each cgroup id read (one per line) it does what the BPF side does
 * for a new group key (bpf/group_id.bpf.h): pops a free id from
 * free_ids, sets group_ids[{HOOK, 0, cgroup, 0}] to it, and fills
 * group_hist[id] with samples in every slot of the octaves FIRST_OCTAVE
 * .. LAST_OCTAVE (2^FIRST to 2^(LAST+1) ns: a histogram as wide as a busy
 * host's, 1 us to 16 ms for 10 .. 23). The maps are the ones PID holds
 * (/proc/PID/fdinfo). Prints how many groups it added.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "netstacklat.h"
#include "hist.h"

/* The fd of the map called name that pid holds, or -1. */
static int map_of(int pid, const char *name)
{
	char path[64], line[128];
	struct dirent *d;
	DIR *dir;
	int fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	dir = opendir(path);
	while (dir && fd < 0 && (d = readdir(dir))) {
		char file[320];
		FILE *f;
		unsigned int id;

		snprintf(file, sizeof(file), "%s/%s", path, d->d_name);
		f = fopen(file, "r");
		while (f && fgets(line, sizeof(line), f)) {
			struct bpf_map_info info = { 0 };
			__u32 len = sizeof(info);
			int mfd;

			if (sscanf(line, "map_id: %u", &id) != 1)
				continue;
			mfd = bpf_map_get_fd_by_id(id);
			if (mfd >= 0 && !bpf_obj_get_info_by_fd(mfd, &info, &len) &&
			    !strcmp(info.name, name)) {
				fd = mfd;
				break;
			}
			if (mfd >= 0)
				close(mfd);
		}
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return fd;
}

int main(int argc, char **argv)
{
	int ids_fd, hist_fd, free_fd, pid, added = 0;
	unsigned int hook, schema, first, last;
	unsigned long long cgroup;
	__u64 *value;
	size_t size;

	if (argc != 6) {
		fprintf(stderr, "usage: groupfill PID HOOK SCHEMA FIRST_OCTAVE LAST_OCTAVE < CGROUP_IDS\n");
		return 2;
	}
	pid = atoi(argv[1]);
	hook = atoi(argv[2]);
	schema = atoi(argv[3]);
	first = atoi(argv[4]);
	last = atoi(argv[5]);
	ids_fd = map_of(pid, "group_ids");
	hist_fd = map_of(pid, "group_hist");
	free_fd = map_of(pid, "free_ids");
	if (ids_fd < 0 || hist_fd < 0 || free_fd < 0) {
		fprintf(stderr, "groupfill: no group maps held by %d\n", pid);
		return 1;
	}
	size = nsl_hist_size(schema);
	value = calloc(1, size);
	if (!value || last >= 63 || first > last)
		return 2;
	/* the slots of those octaves (nsl_slot(): octave e starts at (e << s) + 1) */
	for (__u32 s = (first << schema) + 1; s < ((last + 1) << schema) + 1 &&
	     s < nsl_nr_slots(schema); s++) {
		value[NSL_HIST_HEAD + s] = 1000 + (s * 7919) % 997;
		value[0] += value[NSL_HIST_HEAD + s] << (s >> schema);
	}
	while (scanf("%llu", &cgroup) == 1) {
		struct nsl_group_key key = { .hook = hook, .cgroup = cgroup };
		__u32 id;

		if (bpf_map_lookup_and_delete_elem(free_fd, NULL, &id))
			break;	/* the table is full */
		if (bpf_map_update_elem(hist_fd, &id, value, BPF_ANY) ||
		    bpf_map_update_elem(ids_fd, &key, &id, BPF_NOEXIST)) {
			fprintf(stderr, "groupfill: %s\n", strerror(errno));
			return 1;
		}
		added++;
	}
	printf("%d\n", added);
	return 0;
}
