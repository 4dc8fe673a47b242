// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "hist.h"
#include "reader.h"

int nsl_reader_init(struct nsl_reader *r, const struct nsl_reader_maps *m,
		    const bool *hook_enabled, bool group_ifindex,
		    bool group_cgroup, bool cumulative, struct nsl_groups *g)
{
	memset(r, 0, sizeof(*r));
	r->m = *m;
	r->nr_slots = nsl_nr_slots(m->schema);
	r->hist_size = nsl_hist_size(m->schema);
	r->group_ifindex = group_ifindex;
	r->group_cgroup = group_cgroup;
	r->grouped = group_ifindex || group_cgroup;
	r->cumulative = cumulative;
	memcpy(r->hook_enabled, hook_enabled, sizeof(r->hook_enabled));
	r->ncpus = libbpf_num_possible_cpus();
	if (r->ncpus <= 0)
		return r->ncpus ? r->ncpus : -EINVAL;
	/* per-CPU values are copied out one after the other, 8-byte aligned */
	r->percpu = calloc(r->ncpus, r->hist_size);
	r->percpu_cnt = calloc(r->ncpus, sizeof(*r->percpu_cnt));
	if (!r->percpu || !r->percpu_cnt)
		return -ENOMEM;
	r->groups = g;
	if (r->grouped && !g)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &r->start);
	r->last = r->start;
	return 0;
}

static void free_set(struct nsl_hist_set *s)
{
	free(s->h);
	free(s->slots);
}

void nsl_reader_free(struct nsl_reader *r)
{
	free(r->percpu);
	free(r->percpu_cnt);
	free_set(&r->prev);
	free_set(&r->cur);
	free_set(&r->out);
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
	if (x->netns != y->netns)
		return x->netns < y->netns ? -1 : 1;
	return 0;
}

/* Histograms by group: key, then serial (a key's groups in their order). */
static int hist_cmp(const void *a, const void *b)
{
	const struct nsl_report_hist *x = a, *y = b;
	int c = key_cmp(&x->key, &y->key);

	if (c)
		return c;
	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/* Histogram i of set s, its slots in place. */
static struct nsl_report_hist *set_hist(const struct nsl_reader *r,
					struct nsl_hist_set *s, size_t i)
{
	s->h[i].buckets = s->slots + i * r->nr_slots;
	return &s->h[i];
}

/*
 * Moves set s's slots to a buffer for n histograms. A sorted set's
 * histograms point into its slots out of order: each keeps its place.
 */
static int grow_slots(const struct nsl_reader *r, struct nsl_hist_set *s,
		      size_t count, size_t n)
{
	uint64_t *slots = calloc(n * r->nr_slots, sizeof(uint64_t));

	if (!slots)
		return -ENOMEM;
	if (count)
		memcpy(slots, s->slots, count * r->nr_slots * sizeof(uint64_t));
	for (size_t j = 0; j < count; j++)
		s->h[j].buckets = slots + (s->h[j].buckets - s->slots);
	free(s->slots);
	s->slots = slots;
	return 0;
}

/* The three sets are swapped around, so all share one capacity. */
static int reserve(struct nsl_reader *r, size_t n)
{
	struct nsl_hist_set *sets[] = { &r->prev, &r->cur, &r->out };
	size_t counts[] = { r->nr_prev, r->nr_cur, 0 };

	if (n <= r->cap)
		return 0;
	n = n < 16 ? 16 : n * 2;
	for (size_t i = 0; i < 3; i++) {
		void *h = realloc(sets[i]->h, n * sizeof(*sets[i]->h));

		if (!h)
			return -ENOMEM;
		sets[i]->h = h;
		if (grow_slots(r, sets[i], counts[i], n))
			return -ENOMEM;
	}
	r->cap = n;
	return 0;
}

/* Adds a histogram value (struct nsl_hist of the schema's size) into *h. */
static void add_value(const struct nsl_reader *r, struct nsl_report_hist *h,
		      const void *value)
{
	const __u64 *v = value;	/* sum_ns, then the slots */

	h->sum_ns += v[0];
	for (unsigned int b = 0; b < r->nr_slots; b++) {
		h->buckets[b] += v[1 + b];
		h->count += v[1 + b];
	}
}

/* A new, zeroed histogram with key at the end of the current totals. */
static struct nsl_report_hist *new_total(struct nsl_reader *r,
					 const struct nsl_group_key *key)
{
	struct nsl_report_hist *h;

	if (reserve(r, r->nr_cur + 1))
		return NULL;
	h = set_hist(r, &r->cur, r->nr_cur);
	memset(h->buckets, 0, r->nr_slots * sizeof(uint64_t));
	h->key = *key;
	h->count = h->sum_ns = h->sum_wraps = 0;
	h->schema = r->m.schema;
	/* the sets are reused: nothing of the histogram that was here */
	h->serial = h->gone_tick = 0;
	h->gone = false;
	h->cgroup_path = NULL;
	h->ifname[0] = '\0';
	return h;
}

/* Ungrouped: one per-CPU histogram per hook (and HOL), summed over the CPUs. */
static int read_hooks(struct nsl_reader *r)
{
	for (__u32 hook = 0; hook < NSL_NR_HISTS; hook++) {
		struct nsl_group_key key = { .hook = hook };
		struct nsl_report_hist *h;

		if (!r->hook_enabled[hook])
			continue;
		if (!(h = new_total(r, &key)))
			return -ENOMEM;
		if (bpf_map_lookup_elem(r->m.hist_fd, &hook, r->percpu))
			return -errno;
		for (int c = 0; c < r->ncpus; c++)
			add_value(r, h, (char *)r->percpu + c * r->hist_size);
		r->nr_cur++;
	}
	return 0;
}

/*
 * Which groups a read shows (src/groups.h): the live ones; gone ones in
 * the first read after they were found gone and after they were
 * reclaimed (their last late samples), and while keep_gone_s lasts.
 */
static bool group_shown(const struct nsl_reader *r, const struct nsl_group *gr,
			const struct timespec *now)
{
	if (gr->state == NSL_GROUP_LIVE)
		return true;
	if (gr->gone_tick > r->seen_tick ||
	    (gr->state == NSL_GROUP_GONE && gr->reclaim_tick > r->seen_tick))
		return true;
	return nsl_seconds_between(&gr->gone_at, now) < r->keep_gone_s;
}

static int add_group(struct nsl_reader *r, const struct nsl_group *gr)
{
	struct nsl_report_hist *h = new_total(r, &gr->key);

	if (!h)
		return -ENOMEM;
	add_value(r, h, nsl_group_values(r->groups, gr));
	h->serial = gr->serial;
	h->gone = gr->state != NSL_GROUP_LIVE;
	h->gone_tick = gr->gone_tick;
	h->cgroup_path = gr->cgroup_path;
	/* the name the table keeps: a gone interface's too */
	snprintf(h->ifname, sizeof(h->ifname), "%s", gr->ifname);
	r->nr_cur++;
	return 0;
}

/*
 * Grouped: the groups of the table (src/groups.c), their histograms
 * group_hist[id], shared by the CPUs, read straight from the mapping; a
 * reclaimed group's final totals from the table.
 */
static int read_groups(struct nsl_reader *r)
{
	struct nsl_groups *g = r->groups;
	struct timespec now;
	size_t n = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (uint32_t id = 0; id < g->c.max; id++)
		if (g->by_id[id] && group_shown(r, g->by_id[id], &now) &&
		    add_group(r, g->by_id[id]))
			return -ENOMEM;
	for (size_t i = 0; i < g->nr_gone; i++)
		if (group_shown(r, g->gone[i], &now) && add_group(r, g->gone[i]))
			return -ENOMEM;
	if (!r->nr_cur)
		return 0;	/* no groups: no array yet, for qsort() either */
	qsort(r->cur.h, r->nr_cur, sizeof(r->cur.h[0]), hist_cmp);
	if (!r->unique_keys)
		return 0;
	/*
	 * One series per label set: a key back while its old group's final
	 * totals are kept shows as the new group (a counter reset).
	 */
	for (size_t i = 0; i < r->nr_cur; i++) {
		if (i + 1 < r->nr_cur && !key_cmp(&r->cur.h[i].key, &r->cur.h[i + 1].key))
			continue;
		r->cur.h[n++] = r->cur.h[i];
	}
	r->nr_cur = n;
	return 0;
}

static int read_totals(struct nsl_reader *r)
{
	r->nr_cur = 0;
	return r->grouped ? read_groups(r) : read_hooks(r);
}

static void subtract(const struct nsl_reader *r, struct nsl_report_hist *d,
		     const struct nsl_report_hist *p)
{
	for (unsigned int b = 0; b < r->nr_slots; b++)
		d->buckets[b] -= p->buckets[b];
	d->count -= p->count;
	d->sum_ns -= p->sum_ns;
}

static int read_counters(struct nsl_reader *r, struct nsl_report *rep)
{
	for (__u32 h = 0; h < NSL_NR_HOOKS; h++) {
		if (bpf_map_lookup_elem(r->m.counters_fd, &h, r->percpu_cnt))
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

int nsl_reader_read(struct nsl_reader *r, struct nsl_report *rep)
{
	struct nsl_hist_set tmp;
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
		struct nsl_report_hist *d = set_hist(r, &r->out, n);
		const struct nsl_report_hist *p = NULL;
		uint64_t *slots = d->buckets;

		*d = r->cur.h[i];
		d->buckets = slots;
		memcpy(slots, r->cur.h[i].buckets, r->nr_slots * sizeof(uint64_t));
		if (r->nr_prev)
			p = bsearch(d, r->prev.h, r->nr_prev, sizeof(*p), hist_cmp);
		if (r->cumulative) {
			/*
			 * The total's u64 sum wrapped since the last read if it
			 * is below that read's: less than 2^64 ns pass between
			 * two reads. The count goes on to the next read's.
			 */
			d->sum_wraps = p ? p->sum_wraps + (d->sum_ns < p->sum_ns) : 0;
			r->cur.h[i].sum_wraps = d->sum_wraps;
		} else if (p) {
			subtract(r, d, p);
		}
		/*
		 * a group with nothing new this interval is left out, but for
		 * the report that finds it gone: its last
		 */
		if (r->grouped && !d->count && !(d->gone && d->gone_tick > r->seen_tick))
			continue;
		n++;
	}
	err = read_counters(r, rep);
	if (err)
		return err;
	rep->interval_s = nsl_seconds_between(r->cumulative ? &r->start : &r->last, &now);
	r->last = now;
	rep->cumulative = r->cumulative;
	rep->group_ifindex = r->group_ifindex;
	rep->group_cgroup = r->group_cgroup;
	memcpy(rep->hook_enabled, r->hook_enabled, sizeof(rep->hook_enabled));
	rep->schema = r->m.schema;
	rep->sample_every = r->m.sample_every;
	rep->group_netns = r->m.group_netns;
	rep->status = r->status;
	rep->hists = r->out.h;
	rep->nr_hists = n;
	if (r->grouped) {
		rep->groups_live = r->groups->live;
		rep->groups_reclaimed = r->groups->reclaimed;
		if (!r->cumulative)
			rep->groups_reclaimed -= r->prev_reclaimed;
		r->prev_reclaimed = r->groups->reclaimed;
		r->seen_tick = r->groups->tick;
	}
	/* this read's totals are the next read's baseline */
	tmp = r->prev;
	r->prev = r->cur;
	r->cur = tmp;
	r->nr_prev = r->nr_cur;
	return 0;
}
