// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "reader.h"
#include "sysinfo.h"

int nsl_reader_init(struct nsl_reader *r, int hist_fd, int group_fd,
		    int counters_fd, const bool *hook_enabled, bool group_ifindex,
		    bool group_cgroup, bool cumulative, int ifname_fd)
{
	memset(r, 0, sizeof(*r));
	r->ifname_fd = ifname_fd;
	r->hist_fd = hist_fd;
	r->group_fd = group_fd;
	r->counters_fd = counters_fd;
	r->group_ifindex = group_ifindex;
	r->group_cgroup = group_cgroup;
	r->grouped = group_ifindex || group_cgroup;
	r->cumulative = cumulative;
	memcpy(r->hook_enabled, hook_enabled, sizeof(r->hook_enabled));
	r->ncpus = libbpf_num_possible_cpus();
	if (r->ncpus <= 0)
		return r->ncpus ? r->ncpus : -EINVAL;
	/* percpu values are copied out with 8-byte aligned strides */
	r->percpu = calloc(r->ncpus, sizeof(*r->percpu));
	r->percpu_cnt = calloc(r->ncpus, sizeof(*r->percpu_cnt));
	if (!r->percpu || !r->percpu_cnt)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &r->start);
	r->last = r->start;
	return 0;
}

void nsl_reader_free(struct nsl_reader *r)
{
	free(r->percpu);
	free(r->percpu_cnt);
	free(r->prev);
	free(r->cur);
	free(r->out);
	memset(r, 0, sizeof(*r));
}

static int key_cmp(const void *a, const void *b)
{
	const struct nsl_group_key *x = a, *y = b;

	if (x->hook != y->hook)
		return x->hook < y->hook ? -1 : 1;
	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	if (x->cgroup != y->cgroup)
		return x->cgroup < y->cgroup ? -1 : 1;
	return 0;
}

/* The three arrays are swapped around, so all share one capacity. */
static int reserve(struct nsl_reader *r, size_t n)
{
	struct nsl_report_hist **arrs[] = { &r->prev, &r->cur, &r->out };

	if (n <= r->cap)
		return 0;
	n = n < 16 ? 16 : n * 2;
	for (size_t i = 0; i < 3; i++) {
		void *p = realloc(*arrs[i], n * sizeof(**arrs[i]));

		if (!p)
			return -ENOMEM;
		*arrs[i] = p;
	}
	r->cap = n;
	return 0;
}

/* Looks up key in a per-CPU histogram map and sums the CPUs into *h. */
static int read_hist(struct nsl_reader *r, int fd, const void *key,
		     struct nsl_report_hist *h)
{
	if (bpf_map_lookup_elem(fd, key, r->percpu))
		return -errno;
	memset(h->buckets, 0, sizeof(h->buckets));
	h->count = h->sum_ns = 0;
	for (int c = 0; c < r->ncpus; c++) {
		for (int b = 0; b < NSL_NR_BUCKETS; b++)
			h->buckets[b] += r->percpu[c].buckets[b];
		h->sum_ns += r->percpu[c].sum_ns;
	}
	for (int b = 0; b < NSL_NR_BUCKETS; b++)
		h->count += h->buckets[b];
	return 0;
}

static int read_totals(struct nsl_reader *r)
{
	struct nsl_group_key key, next;
	int err;

	r->nr_cur = 0;
	if (!r->grouped) {
		for (__u32 h = 0; h < NSL_NR_HOOKS; h++) {
			if (!r->hook_enabled[h])
				continue;
			if ((err = reserve(r, r->nr_cur + 1)))
				return err;
			memset(&r->cur[r->nr_cur], 0, sizeof(r->cur[0]));
			r->cur[r->nr_cur].key.hook = h;
			if ((err = read_hist(r, r->hist_fd, &h, &r->cur[r->nr_cur])))
				return err;
			r->nr_cur++;
		}
		return 0;
	}
	for (err = bpf_map_get_next_key(r->group_fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(r->group_fd, &key, &next)) {
		key = next;
		if ((err = reserve(r, r->nr_cur + 1)))
			return err;
		memset(&r->cur[r->nr_cur], 0, sizeof(r->cur[0]));
		r->cur[r->nr_cur].key = key;
		/* a group cannot vanish (we never delete), but be tolerant */
		if (read_hist(r, r->group_fd, &key, &r->cur[r->nr_cur]) == 0)
			r->nr_cur++;
	}
	if (err != -ENOENT)
		return err;
	qsort(r->cur, r->nr_cur, sizeof(r->cur[0]), key_cmp);
	return 0;
}

static void subtract(struct nsl_report_hist *d, const struct nsl_report_hist *p)
{
	for (int b = 0; b < NSL_NR_BUCKETS; b++)
		d->buckets[b] -= p->buckets[b];
	d->count -= p->count;
	d->sum_ns -= p->sum_ns;
}

static void name_group(struct nsl_reader *r, struct nsl_report_hist *h)
{
	struct ifreq ifr = { .ifr_ifindex = h->key.ifindex };

	h->ifname[0] = '\0';
	h->cgroup_path = NULL;
	if (r->group_ifindex && h->key.ifindex && r->ifname_fd >= 0 &&
	    !ioctl(r->ifname_fd, SIOCGIFNAME, &ifr))
		snprintf(h->ifname, sizeof(h->ifname), "%s", ifr.ifr_name);
	if (r->group_cgroup && h->key.cgroup)
		h->cgroup_path = nsl_cgroup_path(h->key.cgroup);
}

static int read_counters(struct nsl_reader *r, struct nsl_report *rep)
{
	for (__u32 h = 0; h < NSL_NR_HOOKS; h++) {
		if (bpf_map_lookup_elem(r->counters_fd, &h, r->percpu_cnt))
			return -errno;
		for (int i = 0; i < NSL_NR_COUNTERS; i++) {
			uint64_t total = 0;

			for (int c = 0; c < r->ncpus; c++)
				total += r->percpu_cnt[c].cnt[i];
			rep->counters[h][i] = total;
			if (!r->cumulative)
				rep->counters[h][i] -= r->prev_counters[h][i];
			r->prev_counters[h][i] = total;
		}
	}
	return 0;
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

int nsl_reader_read(struct nsl_reader *r, struct nsl_report *rep)
{
	struct nsl_report_hist *tmp;
	struct timespec now;
	size_t n = 0;
	int err;

	memset(rep, 0, sizeof(*rep));
	err = read_totals(r);
	if (err)
		return err;
	clock_gettime(CLOCK_MONOTONIC, &now);
	clock_gettime(CLOCK_REALTIME, &rep->time);
	for (size_t i = 0; i < r->nr_cur; i++) {
		struct nsl_report_hist *d = &r->out[n];
		const struct nsl_report_hist *p = NULL;

		*d = r->cur[i];
		if (!r->cumulative && r->nr_prev)
			p = bsearch(&d->key, r->prev, r->nr_prev, sizeof(*p), key_cmp);
		if (p)
			subtract(d, p);
		/* a group with nothing new this interval is left out */
		if (r->grouped && !d->count)
			continue;
		name_group(r, d);
		n++;
	}
	err = read_counters(r, rep);
	if (err)
		return err;
	rep->interval_s = seconds_between(r->cumulative ? &r->start : &r->last, &now);
	r->last = now;
	rep->cumulative = r->cumulative;
	rep->group_ifindex = r->group_ifindex;
	rep->group_cgroup = r->group_cgroup;
	memcpy(rep->hook_enabled, r->hook_enabled, sizeof(rep->hook_enabled));
	rep->hists = r->out;
	rep->nr_hists = n;
	/* this read's totals are the next read's baseline */
	tmp = r->prev;
	r->prev = r->cur;
	r->cur = tmp;
	r->nr_prev = r->nr_cur;
	return 0;
}
