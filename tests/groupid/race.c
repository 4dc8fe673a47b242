// SPDX-License-Identifier: GPL-2.0-only
/*
 * Group ids under the allocation race (issue #23): two threads, pinned to
 * two CPUs, run a program that adds the same new group keys at once
 * (BPF_PROG_TEST_RUN; tests/groupid/race.bpf.c), ROUNDS times; between
 * rounds every key is reclaimed as the reader does (key deleted, id
 * pushed back). Prints, for the scheme netstacklat uses and for the one it
 * replaced, the ids lost and the new keys that found no id:
 *
 *   race.c OBJ [ROUNDS]  ->  "new lost=0 full=0 races=R" / "old lost=L"
 *
 * lost: ids that neither a key holds nor the free queue has at the end
 * of a round. races: rounds in which take_old lost an id (the race hit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "netstacklat.h"

#define NKEYS 64
#define NIDS (NKEYS + 2)	/* as in race.bpf.c */
#define REPEAT 256

static int prog_fd;
static pthread_barrier_t start;

static void *runner(void *arg)
{
	char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = REPEAT);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(long)arg, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(&start);
	if (bpf_prog_test_run_opts(prog_fd, &o))
		perror("BPF_PROG_TEST_RUN");
	return NULL;
}

/* Both threads run the program once (REPEAT times each), at the same time. */
static void race(void)
{
	pthread_t t[2];

	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, runner, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

/* Deletes every key; returns how many, their ids in ids (NULL: dropped). */
static int drain_keys(int map, __u32 *ids)
{
	struct nsl_group_key key, next;
	int n = 0;

	while (!bpf_map_get_next_key(map, NULL, &next)) {
		key = next;
		if (ids && !bpf_map_lookup_elem(map, &key, &ids[n]))
			n++;
		else if (!ids)
			n++;
		bpf_map_delete_elem(map, &key);
	}
	return n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 2000;
	struct bpf_object *obj;
	int ids_fd, free_fd, bss_ok;
	long lost_new = 0, lost_old = 0, races = 0;
	__u64 full = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OBJ [ROUNDS]\n", argv[0]);
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "cannot load %s\n", argv[1]);
		return 1;
	}
	ids_fd = bpf_object__find_map_fd_by_name(obj, "ids");
	free_fd = bpf_object__find_map_fd_by_name(obj, "free_ids");
	pthread_barrier_init(&start, NULL, 2);

	/* the scheme in use: ids from the queue, given back by the "reader" */
	prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "take_new"));
	for (__u32 id = 0; id < NIDS; id++)
		bpf_map_update_elem(free_fd, NULL, &id, 0);
	for (int r = 0; r < rounds; r++) {
		__u32 held[NIDS + 1], id;
		int n, seen[NIDS] = { 0 }, free_n = 0, dup = 0;

		race();
		n = drain_keys(ids_fd, held);
		for (int i = 0; i < n; i++)
			dup += held[i] >= NIDS || seen[held[i]]++;
		/* count the free queue by emptying it, then refill it whole */
		while (!bpf_map_lookup_and_delete_elem(free_fd, NULL, &id)) {
			dup += id >= NIDS || seen[id]++;
			free_n++;
		}
		lost_new += NIDS - n - free_n + dup;
		for (id = 0; id < NIDS; id++)
			bpf_map_update_elem(free_fd, NULL, &id, 0);
	}
	{
		struct bpf_map *bss = bpf_object__find_map_by_name(obj, ".bss");
		int zero = 0;
		struct { __u64 full; __u32 next_id; } v;

		bss_ok = bss && !bpf_map_lookup_elem(bpf_map__fd(bss), &zero, &v);
		if (bss_ok)
			full = v.full;
		/* the control: ids from a counter, as before */
		prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "take_old"));
		for (int r = 0; bss_ok && r < rounds; r++) {
			int n;

			v.next_id = 0;
			bpf_map_update_elem(bpf_map__fd(bss), &zero, &v, 0);
			race();
			n = drain_keys(ids_fd, NULL);
			bpf_map_lookup_elem(bpf_map__fd(bss), &zero, &v);
			lost_old += v.next_id - n;
			races += v.next_id != (__u32)n;
		}
	}
	if (!bss_ok) {
		fprintf(stderr, "cannot read the object's .bss\n");
		return 1;
	}
	printf("new lost=%ld full=%llu rounds=%d\n", lost_new,
	       (unsigned long long)full, rounds);
	printf("old lost=%ld races=%ld\n", lost_old, races);
	return 0;
}
