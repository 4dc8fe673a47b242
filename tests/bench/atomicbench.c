// SPDX-License-Identifier: GPL-2.0-only
/*
 * atomicbench - ns per add to a counter shared by the CPUs (atomic) and to
 * a CPU's own counter, with 1 CPU and with every CPU busy at once, measured
 * in the kernel with BPF_PROG_TEST_RUN (the programs:
 * tests/bench/atomicbench.bpf.c). A thread per CPU, pinned, runs each
 * program REPEAT times (default 20000) per round, ROUNDS rounds (default
 * 7), all threads started together. Prints one JSON object: per program
 * and number of busy CPUs, the median ns per add (run minus loop_only,
 * over the 64 adds of a run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define ADDS 64
#define MAX_ROUNDS 99
#define MAX_CPUS 256
static const char *const progs[] = { "loop_only", "shared_atomic",
				      "percpu_plain", "percpu_atomic" };
#define NPROGS (sizeof(progs) / sizeof(progs[0]))

struct job {
	int cpu, fd;
	unsigned int repeat;
	pthread_barrier_t *go;
	__u32 ns;
	int err;
};

static void *run(void *arg)
{
	struct job *j = arg;
	unsigned char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = j->repeat);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(j->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(j->go);
	j->err = bpf_prog_test_run_opts(j->fd, &o) ? errno : 0;
	j->ns = o.duration;
	return NULL;
}

/* One round of prog on ncpus CPUs at once: the mean of their ns per run. */
static int round_of(int fd, int ncpus, unsigned int repeat, double *ns)
{
	pthread_t t[MAX_CPUS];
	struct job j[MAX_CPUS];
	pthread_barrier_t go;
	double sum = 0;

	pthread_barrier_init(&go, NULL, ncpus);
	for (int c = 0; c < ncpus; c++) {
		j[c] = (struct job){ .cpu = c, .fd = fd, .repeat = repeat, .go = &go };
		pthread_create(&t[c], NULL, run, &j[c]);
	}
	for (int c = 0; c < ncpus; c++) {
		pthread_join(t[c], NULL);
		if (j[c].err) {
			fprintf(stderr, "atomicbench: test run: %s\n", strerror(j[c].err));
			return -1;
		}
		sum += j[c].ns;
	}
	pthread_barrier_destroy(&go);
	*ns = sum / ncpus;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned int repeat = argc > 2 ? atoi(argv[2]) : 20000;
	unsigned int rounds = argc > 3 ? atoi(argv[3]) : 7;
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), fd[NPROGS], counts[2];
	double ns[NPROGS][MAX_ROUNDS], med[2][NPROGS];
	struct bpf_object *obj;

	if (argc < 2 || !repeat || !rounds || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: atomicbench OBJECT [REPEAT [ROUNDS (<= %d)]]\n", MAX_ROUNDS);
		return 2;
	}
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "atomicbench: cannot load %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (size_t p = 0; p < NPROGS; p++)
		fd[p] = bpf_program__fd(bpf_object__find_program_by_name(obj, progs[p]));
	counts[0] = 1;
	counts[1] = ncpus;
	for (int k = 0; k < 2; k++) {
		for (unsigned int r = 0; r < rounds; r++)
			for (size_t p = 0; p < NPROGS; p++)
				if (round_of(fd[p], counts[k], repeat, &ns[p][r]))
					return 1;
		for (size_t p = 0; p < NPROGS; p++) {
			qsort(ns[p], rounds, sizeof(ns[p][0]), cmp);
			med[k][p] = ns[p][rounds / 2];
		}
	}
	printf("{\"repeat\": %u, \"rounds\": %u, \"adds_per_run\": %d, \"cpus\": %d",
	       repeat, rounds, ADDS, ncpus);
	for (int k = 0; k < 2; k++)
		for (size_t p = 1; p < NPROGS; p++)
			printf(", \"%s_%dcpu_ns_per_add\": %.2f", progs[p], counts[k],
			       (med[k][p] - med[k][0]) / ADDS);
	printf("}\n");
	bpf_object__close(obj);
	return 0;
}
