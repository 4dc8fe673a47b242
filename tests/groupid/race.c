// SPDX-License-Identifier: GPL-2.0-only
/*
 * Group ids under the allocation race (issue #23): two threads, pinned to
 * two CPUs, run a program that adds the same new group keys at once
 * (BPF_PROG_TEST_RUN; tests/groupid/race.bpf.c), ROUNDS times; between
 * rounds every key is reclaimed as the reader does (key deleted, id
 * pushed back). Prints, for the scheme netstacklat uses and for the one it
 * replaced, the ids lost and the new keys that found no id:
 *
 *   race.c OBJ [ROUNDS]  ->  "new lost=0 full=0 races=R" / "old lost=L" /
 *                             "retire failed=F gone=G rounds=N"
 *
 * lost: ids that neither a key holds nor the free queue has at the end
 * of a round. races: rounds in which take_old lost an id (the race hit).
 * gone: the last phase races the same way while a third thread deletes
 * the keys as fast as it can, as the reader retires a group whose
 * interface or cgroup went away (issue #33 item 4): a key that vanished
 * between a CPU's failed add and its look-up. Each take must still end
 * with an id (failed=0; gone: takes that ended on a vanished key, which
 * nsl_group_id() no longer returns). It takes three CPUs at once (two
 * adds, one delete): on two, the retirer runs only between runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "netstacklat.h"

#define NKEYS 64
#define NIDS (NKEYS + 3)	/* as in race.bpf.c */
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

/* Global name of the object's .bss (its BTF): where, and *size; or NULL. */
static const struct btf_var_secinfo *bss_var(struct bpf_object *obj, const char *name)
{
	const struct btf *btf = bpf_object__btf(obj);
	int sec = btf ? btf__find_by_name_kind(btf, ".bss", BTF_KIND_DATASEC) : -1;
	const struct btf_type *t = sec > 0 ? btf__type_by_id(btf, sec) : NULL;
	const struct btf_var_secinfo *v = t ? btf_var_secinfos(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++, v++)
		if (!strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, v->type)->name_off), name))
			return v;
	return NULL;
}

/*
 * Reads (set NULL) or writes global name of the object's .bss, of the
 * size its BTF gives (at most 8 bytes, little-endian). 0 or -1.
 */
static int bss_rw(struct bpf_object *obj, const char *name, __u64 *val, const __u64 *set)
{
	struct bpf_map *bss = bpf_object__find_map_by_name(obj, ".bss");
	const struct btf_var_secinfo *v = bss_var(obj, name);
	char buf[256];
	int zero = 0;

	if (!bss || !v || v->size > sizeof(*val) || v->offset + v->size > sizeof(buf) ||
	    bpf_map__value_size(bss) > sizeof(buf) ||
	    bpf_map_lookup_elem(bpf_map__fd(bss), &zero, buf))
		return -1;
	if (!set) {
		*val = 0;
		memcpy(val, buf + v->offset, v->size);
		return 0;
	}
	memcpy(buf + v->offset, set, v->size);
	return bpf_map_update_elem(bpf_map__fd(bss), &zero, buf, 0) ? -1 : 0;
}

static int bss_read(struct bpf_object *obj, const char *name, __u64 *val)
{
	return bss_rw(obj, name, val, NULL);
}

static int bss_write(struct bpf_object *obj, const char *name, __u64 v)
{
	return bss_rw(obj, name, NULL, &v);
}

static volatile int racing;

static int ids_fd, free_fd;

/*
 * Deletes keys as they appear while the runners race, and hands their ids
 * back at once (the reader retiring, without its wait: the ids are not
 * counted in this phase, only what the takes returned).
 */
static void *retirer(void *arg)
{
	struct nsl_group_key key;
	cpu_set_t set;
	__u32 id;

	(void)arg;
	/* a third CPU where there is one: then it deletes during runs */
	CPU_ZERO(&set);
	CPU_SET(2, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (racing)
		if (!bpf_map_get_next_key(ids_fd, NULL, &key) &&
		    !bpf_map_lookup_elem(ids_fd, &key, &id) &&
		    !bpf_map_delete_elem(ids_fd, &key))
			bpf_map_update_elem(free_fd, NULL, &id, 0);
	return NULL;
}

/* Every id on the free queue (emptied before), as the loader fills it. */
static void fill_free(void)
{
	for (__u32 id = 0; id < NIDS; id++)
		bpf_map_update_elem(free_fd, NULL, &id, 0);
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
	int bss_ok;
	long lost_new = 0, lost_old = 0, races = 0;
	__u64 full = 0, gone = 0, full_before = 0, full_after = 0;

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
	fill_free();
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
		fill_free();
	}
	bss_ok = !bss_read(obj, "full", &full);
	/* the control: ids from a counter, as before */
	prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "take_old"));
	for (int r = 0; bss_ok && r < rounds; r++) {
		__u64 next_id = 0;
		int n;

		bss_ok = !bss_write(obj, "next_id", 0);
		race();
		n = drain_keys(ids_fd, NULL);
		bss_ok = bss_ok && !bss_read(obj, "next_id", &next_id);
		lost_old += next_id - n;
		races += next_id != (__u64)n;
	}
	/* take_new again, while a third thread retires the keys as they come */
	bss_ok = bss_ok && !bss_read(obj, "full", &full_before);
	prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "take_new"));
	for (int r = 0; bss_ok && r < rounds; r++) {
		pthread_t t;
		__u32 id;

		racing = 1;
		pthread_create(&t, NULL, retirer, NULL);
		race();
		racing = 0;
		pthread_join(t, NULL);
		drain_keys(ids_fd, NULL);
		while (!bpf_map_lookup_and_delete_elem(free_fd, NULL, &id))
			;
		fill_free();
	}
	bss_ok = bss_ok && !bss_read(obj, "gone", &gone) && !bss_read(obj, "full", &full_after);
	if (!bss_ok) {
		fprintf(stderr, "cannot read the object's .bss\n");
		return 1;
	}
	printf("new lost=%ld full=%llu rounds=%d\n", lost_new,
	       (unsigned long long)full, rounds);
	printf("old lost=%ld races=%ld\n", lost_old, races);
	printf("retire failed=%llu gone=%llu rounds=%d\n",
	       (unsigned long long)(full_after - full_before + gone),
	       (unsigned long long)gone, rounds);
	return 0;
}
