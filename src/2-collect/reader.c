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
#include "log.h"
#include "reader.h"
#include "walks.h"

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
	r->dense = calloc(1, r->hist_size);
	if (!r->percpu || !r->percpu_cnt || !r->dense)
		return -ENOMEM;
	r->groups = g;
	if (r->grouped && !g)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &r->start);
	r->last = r->start;
	nsl_walks_test_seam(r);
	return 0;
}

void nsl_reader_free(struct nsl_reader *r)
{
	free(r->percpu);
	free(r->percpu_cnt);
	free(r->dense);
	free(r->standing);
	nsl_free_set(&r->prev);
	nsl_free_set(&r->cur);
	nsl_free_set(&r->out);
	memset(r, 0, sizeof(*r));
}

/*
 * Adds a histogram to the current totals: key, and a histogram value
 * (its head, struct nsl_hist, then nr_slots slots), of whose slots it
 * keeps the range that holds samples.
 */
static struct nsl_report_hist *new_total(struct nsl_reader *r,
					 const struct nsl_group_key *key,
					 const uint64_t *value)
{
	const uint64_t *v = value + NSL_HIST_HEAD;
	unsigned int lo, nr = nsl_slot_range(v, r->nr_slots, &lo);
	struct nsl_report_hist *h = nsl_set_add(&r->cur, nr);

	if (!h)
		return NULL;
	h->key = *key;
	h->schema = r->m.schema;
	h->lo = lo;
	h->sum_ns = value[NSL_HIST_SUM];
	h->standing[NSL_SV_SECONDS] = value[NSL_HIST_STANDING_NS];
	h->standing[NSL_SV_BEGUN] = value[NSL_HIST_STANDING_BEGUN];
	for (unsigned int b = 0; b < nr; b++) {
		h->buckets[b] = v[lo + b];
		h->count += v[lo + b];
	}
	return h;
}

/* Whether hist's samples go to groups (the BPF side's hook_hist()). */
static bool hist_grouped(const struct nsl_reader *r, __u32 hist)
{
	return nsl_hist_grouped(hist, r->group_ifindex, r->m.group_netns,
				r->group_cgroup);
}

/*
 * The per-CPU histograms (the hist map) of the enabled histograms that
 * are not grouped, each summed over the CPUs into a total keyed {hook}:
 * every one without grouping; under -C all but the read hooks', whose
 * totals keep the key, and so the output, that their one group {hook}
 * had before they left the groups (no cgroup, no serial, never gone).
 */
static int read_hooks(struct nsl_reader *r)
{
	for (__u32 hook = 0; hook < NSL_NR_HISTS; hook++) {
		struct nsl_group_key key = { .hook = hook };

		if (!r->hook_enabled[hook] || hist_grouped(r, hook))
			continue;
		if (bpf_map_lookup_elem(r->m.hist_fd, &hook, r->percpu))
			return -errno;
		memset(r->dense, 0, r->hist_size);
		for (int c = 0; c < r->ncpus; c++) {
			const __u64 *v = (const __u64 *)((char *)r->percpu + c * r->hist_size);

			for (unsigned int i = 0; i < NSL_HIST_HEAD + r->nr_slots; i++)
				r->dense[i] += v[i];
		}
		if (!new_total(r, &key, r->dense))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Which groups a read shows (groups.h): the live ones; gone ones
 * until they are reclaimed (a RETIRING group's totals are the baseline of
 * its late samples: with -r under RETIRE_WAIT_S several reads pass before
 * its reclaim, and one that missed it reported its whole history again
 * as the delta of the read after the reclaim, issue #33), in the read
 * after it, and while keep_gone_s lasts. A read leaves out those with
 * nothing new (nsl_reader_read()).
 */
static bool group_shown(const struct nsl_reader *r, const struct nsl_group *gr,
			const struct timespec *now)
{
	if (gr->state == NSL_GROUP_LIVE || gr->state == NSL_GROUP_RETIRING)
		return true;
	if (gr->gone_tick > r->seen_tick ||
	    (gr->state == NSL_GROUP_GONE && gr->reclaim_tick > r->seen_tick))
		return true;
	return nsl_seconds_between(&gr->gone_at, now) < r->keep_gone_s;
}

static int add_group(struct nsl_reader *r, const struct nsl_group *gr)
{
	struct nsl_report_hist *h;

	/* a snapshot first: the BPF side goes on adding to the mapping */
	nsl_group_values(r->groups, gr, r->dense);
	h = new_total(r, &gr->key, r->dense);
	if (!h)
		return -ENOMEM;
	h->serial = gr->serial;
	h->gone = gr->state != NSL_GROUP_LIVE;
	h->gone_tick = gr->gone_tick;
	h->cgroup_path = gr->cgroup_path;
	h->container = gr->container;
	/* the name the table keeps: a gone interface's too */
	snprintf(h->ifname, sizeof(h->ifname), "%s", gr->ifname);
	return 0;
}

/*
 * Grouped: the groups of the table (groups.c), their histograms
 * group_hist[id], shared by the CPUs, read straight from the mapping; a
 * reclaimed group's final totals from the table; and the hooks that are
 * not grouped (-C: read_hooks()), sorted in among them.
 */
static int read_groups(struct nsl_reader *r)
{
	struct nsl_groups *g = r->groups;
	struct timespec now;
	size_t n = 0;
	int err = read_hooks(r);

	if (err)
		return err;
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (uint32_t id = 0; id < g->c.max; id++)
		if (g->by_id[id] && group_shown(r, g->by_id[id], &now) &&
		    add_group(r, g->by_id[id]))
			return -ENOMEM;
	for (size_t i = 0; i < g->nr_gone; i++)
		if (group_shown(r, g->gone[i], &now) && add_group(r, g->gone[i]))
			return -ENOMEM;
	if (!r->cur.nr_h)
		return 0;	/* no groups: no array yet, for qsort() either */
	qsort(r->cur.h, r->cur.nr_h, sizeof(r->cur.h[0]), nsl_hist_cmp);
	if (!r->unique_keys)
		return 0;
	/*
	 * One series per label set: a key back while its old group's final
	 * totals are kept shows as the new group (a counter reset). The
	 * slots of those left out stay unused until the next read.
	 */
	for (size_t i = 0; i < r->cur.nr_h; i++) {
		if (i + 1 < r->cur.nr_h && !nsl_key_cmp(&r->cur.h[i].key, &r->cur.h[i + 1].key))
			continue;
		r->cur.h[n++] = r->cur.h[i];
	}
	r->cur.nr_h = n;
	return 0;
}

/*
 * The sockets standing now, each in the totals of its group; of a key's
 * groups, the newest (a gone one's final totals sort first). A socket of
 * a group with no histogram (none could be had: map_full) is not counted.
 */
static void count_standing(struct nsl_reader *r)
{
	for (size_t i = 0; i < r->nr_standing && r->cur.nr_h; i++) {
		const struct nsl_group_key *key = &r->standing[i];
		struct nsl_report_hist *h = bsearch(key, r->cur.h, r->cur.nr_h,
						    sizeof(*h), nsl_key_cmp);

		if (!h)
			continue;
		while (h + 1 < r->cur.h + r->cur.nr_h && !nsl_key_cmp(&h[1].key, key))
			h++;
		h->standing[NSL_SV_SOCKETS]++;
	}
}

static int read_totals(struct nsl_reader *r)
{
	int err;

	nsl_walks_run(r);
	nsl_set_clear(&r->cur);
	err = r->grouped ? read_groups(r) : read_hooks(r);
	if (!err)
		count_standing(r);
	return err;
}

/*
 * d = c - p: the same group's totals now and at the last read. Its counts
 * only grow, so p's range lies within c's; d keeps the range of its own
 * non-zero slots. NULL when out of memory.
 */
static struct nsl_report_hist *delta(struct nsl_reader *r,
				     const struct nsl_report_hist *c,
				     const struct nsl_report_hist *p)
{
	struct nsl_report_hist *d = nsl_set_add(&r->out, c->nr);
	unsigned int lo;
	uint64_t *slots;

	if (!d)
		return NULL;
	slots = d->buckets;
	*d = *c;
	d->buckets = slots;
	for (unsigned int b = 0; b < c->nr; b++)
		d->buckets[b] = c->buckets[b] - nsl_report_slot(p, c->lo + b);
	d->count -= p->count;
	d->sum_ns -= p->sum_ns;
	d->standing[NSL_SV_SECONDS] -= p->standing[NSL_SV_SECONDS];
	d->standing[NSL_SV_BEGUN] -= p->standing[NSL_SV_BEGUN];
	d->nr = nsl_slot_range(slots, c->nr, &lo);
	d->buckets = slots + lo;
	d->lo += lo;
	return d;
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
			/* the one counter that userspace counts */
			if (i == NSL_CNT_WALK_FAILED)
				total += r->walk_failed[h];
			rep->counters[h][i] = total;
			if (!r->cumulative)
				rep->counters[h][i] -= r->prev_counters[h][i];
			r->prev_counters[h][i] = total;
		}
	}
	return 0;
}

/*
 * Whether the totals c of a group say something since p (the last read's,
 * or NULL) that its report should show: samples, standing time or
 * episodes begun, or sockets standing now.
 */
static bool news(const struct nsl_reader *r, const struct nsl_report_hist *c,
		 const struct nsl_report_hist *p)
{
	const struct nsl_report_hist none = { 0 };

	if (r->cumulative || !p)
		p = &none;
	return c->count != p->count || c->standing[NSL_SV_SOCKETS] ||
	       c->standing[NSL_SV_SECONDS] != p->standing[NSL_SV_SECONDS] ||
	       c->standing[NSL_SV_BEGUN] != p->standing[NSL_SV_BEGUN];
}

int nsl_reader_read(struct nsl_reader *r, struct nsl_report *rep)
{
	struct nsl_hist_set tmp;
	struct timespec now;
	int err;

	memset(rep, 0, sizeof(*rep));
	nsl_set_clear(&r->out);
	err = read_totals(r);
	if (err)
		return err;
	clock_gettime(CLOCK_MONOTONIC, &now);
	clock_gettime(CLOCK_REALTIME, &rep->time);
	for (size_t i = 0; i < r->cur.nr_h; i++) {
		struct nsl_report_hist *c = &r->cur.h[i], *d;
		const struct nsl_report_hist *p = NULL;

		if (r->prev.nr_h)
			p = bsearch(c, r->prev.h, r->prev.nr_h, sizeof(*p), nsl_hist_cmp);
		if (r->cumulative) {
			/*
			 * The total's u64 sum wrapped since the last read if it
			 * is below that read's: less than 2^64 ns pass between
			 * two reads. The count goes on to the next read's.
			 */
			c->sum_wraps = p ? p->sum_wraps + (c->sum_ns < p->sum_ns) : 0;
		}
		/*
		 * a group with nothing new this interval is left out, but for
		 * the report that finds it gone: its last
		 */
		if (r->grouped && !news(r, c, p) &&
		    !(c->gone && c->gone_tick > r->seen_tick))
			continue;
		/* a cumulative report's histograms are the totals themselves */
		if (r->cumulative || !p)
			d = nsl_set_add(&r->out, 0);
		else
			d = delta(r, c, p);
		if (!d)
			return -ENOMEM;
		if (r->cumulative || !p)
			*d = *c;
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
	/* "v1.1": the v is not part of a version label */
	rep->libbpf_version = libbpf_version_string() + 1;
	rep->hists = r->out.h;
	rep->nr_hists = r->out.nr_h;
	if (r->grouped) {
		rep->groups_live = r->groups->live;
		rep->groups_reclaimed = r->groups->reclaimed;
		rep->groups_evicted = r->groups->evicted;
		if (!r->cumulative) {
			rep->groups_reclaimed -= r->prev_reclaimed;
			rep->groups_evicted -= r->prev_evicted;
		}
		r->prev_reclaimed = r->groups->reclaimed;
		r->prev_evicted = r->groups->evicted;
		r->seen_tick = r->groups->tick;
	}
	/*
	 * this read's totals are the next read's baseline; the report's
	 * histograms point into them (cumulative) or into out, both left
	 * alone until the next read
	 */
	tmp = r->prev;
	r->prev = r->cur;
	r->cur = tmp;
	return 0;
}
