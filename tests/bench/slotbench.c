// SPDX-License-Identifier: GPL-2.0-only
/*
 * slotbench - ns per bucket lookup at resolution 1 and 8, and per --sample
 * random reload, measured in the kernel with BPF_PROG_TEST_RUN (the
 * programs: tests/bench/slotbench.bpf.c).
 *
 *   slotbench OBJECT [REPEAT [ROUNDS]]
 *
 * Each program runs REPEAT times (default 20000) per round, ROUNDS rounds
 * (default 7), the programs interleaved; the kernel reports the mean
 * duration of a run. Prints one JSON object: per program the median ns per
 * run, and per lookup or reload (run minus loop_only, over the 256 of a
 * run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "slots.h"

#define LOOKUPS 256
#define MAX_ROUNDS 99
static const char *const progs[] = { "loop_only", "slot_log2", "slot_schema3",
					   "sample_reload", "sample_reload_helper" };
#define NPROGS (sizeof(progs) / sizeof(progs[0]))

static int cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned int repeat = argc > 2 ? atoi(argv[2]) : 20000;
	unsigned int rounds = argc > 3 ? atoi(argv[3]) : 7;
	__u32 ns[NPROGS][MAX_ROUNDS], med[NPROGS];
	unsigned char pkt[64] = { 0 };
	struct bpf_object *obj;
	struct bpf_map *rodata;
	const void *cur;
	size_t size;
	void *init;
	int fd[NPROGS];

	if (argc < 2 || !repeat || !rounds || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: slotbench OBJECT [REPEAT [ROUNDS (<= %d)]]\n", MAX_ROUNDS);
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "slotbench: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* thr[8], the only read-only datum: schema 3's, as netstacklat's cfg */
	rodata = bpf_object__find_map_by_name(obj, ".rodata");
	cur = rodata ? bpf_map__initial_value(rodata, &size) : NULL;
	if (!cur || size < 8 * sizeof(__u64) || !(init = malloc(size))) {
		fprintf(stderr, "slotbench: no thresholds in %s\n", argv[1]);
		return 1;
	}
	memcpy(init, cur, size);
	memcpy(init, nsl_schema_thresholds(3), 8 * sizeof(__u64));
	if (bpf_map__set_initial_value(rodata, init, size)) {
		fprintf(stderr, "slotbench: cannot set the thresholds\n");
		return 1;
	}
	free(init);
	if (bpf_object__load(obj)) {
		fprintf(stderr, "slotbench: cannot load %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (size_t p = 0; p < NPROGS; p++)
		fd[p] = bpf_program__fd(bpf_object__find_program_by_name(obj, progs[p]));
	for (unsigned int r = 0; r < rounds; r++) {
		for (size_t p = 0; p < NPROGS; p++) {
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt,
				    .data_size_in = sizeof(pkt), .repeat = repeat);

			if (bpf_prog_test_run_opts(fd[p], &o)) {
				fprintf(stderr, "slotbench: test run of %s: %s\n", progs[p],
					strerror(errno));
				return 1;
			}
			ns[p][r] = o.duration;
		}
	}
	printf("{\"repeat\": %u, \"rounds\": %u, \"lookups_per_run\": %d", repeat, rounds, LOOKUPS);
	for (size_t p = 0; p < NPROGS; p++) {
		qsort(ns[p], rounds, sizeof(ns[p][0]), cmp);
		med[p] = ns[p][rounds / 2];
		printf(", \"%s_ns_per_run\": %u", progs[p], med[p]);
	}
	for (size_t p = 1; p < NPROGS; p++)
		printf(", \"%s_ns_per_lookup\": %.2f", progs[p],
		       ((double)med[p] - med[0]) / LOOKUPS);
	printf("}\n");
	bpf_object__close(obj);
	return 0;
}
