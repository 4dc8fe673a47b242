// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's walks of the standing hooks (nsl_walks[],
 * bpf/standing.bpf.h), for the reader (reader.c): each run before the
 * histograms are read, its sockets standing kept in the reader.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "clock.h"
#include "log.h"
#include "reader.h"
#include "walks.h"

/*
 * Test seam: NSL_TEST_FAIL_WALK=prog:N makes the walk of that program
 * (nsl_walks[]) fail at its first N reports, as an iterator the kernel
 * cannot make (EAGAIN) would: it can only make the tool see less.
 */
void nsl_walks_test_seam(struct nsl_reader *r)
{
	const char *list = getenv("NSL_TEST_FAIL_WALK"), *colon;

	if (!list || !(colon = strchr(list, ':')))
		return;
	for (int w = 0; w < NSL_NR_WALKS; w++)
		if ((size_t)(colon - list) == strlen(nsl_walks[w].prog) &&
		    !strncmp(list, nsl_walks[w].prog, colon - list))
			r->walk_test_fail[w] = (unsigned int)strtoul(colon + 1, NULL, 10);
}

/* Reads the group keys a walk's iterator fd gives, after r->standing. */
static int read_walk(struct nsl_reader *r, int fd)
{
	size_t have = 0;
	ssize_t n;

	for (;;) {
		if (r->nr_standing + 64 > r->cap_standing) {
			size_t cap = 2 * r->cap_standing + 64;
			struct nsl_group_key *k = realloc(r->standing, cap * sizeof(*k));

			if (!k)
				return -ENOMEM;
			r->standing = k;
			r->cap_standing = cap;
		}
		/* whole records fit (64 of them): a read ends at one's end */
		n = read(fd, (char *)(r->standing + r->nr_standing) + have,
			 64 * sizeof(*r->standing) - have);
		if (n <= 0)
			return n < 0 ? -errno : 0;
		/* a part of a record (never seen) stays where the next read ends it */
		r->nr_standing += (have + n) / sizeof(*r->standing);
		have = (have + n) % sizeof(*r->standing);
	}
}

/*
 * The standing hooks' walks (nsl_walks[], bpf/standing.bpf.h), before the
 * histograms are read: each looks at the sockets it visits, so that a
 * queue standing with no arrival and no read has its time up to now in
 * this report, and gives the group key of each socket whose queue
 * stands, kept in r->standing. A walk that fails (an iterator the kernel
 * cannot make for want of memory, a read cut short: EAGAIN, ENOMEM,
 * EINTR, none of them for good) leaves this report without it, the
 * histograms are read all the same, and it is tried again at the next
 * report: counted into walk_failed of the hooks it serves, said once.
 * Where it failed after some records, those sockets are counted standing.
 */
void nsl_walks_run(struct nsl_reader *r)
{
	int64_t began = nsl_mono_ns();

	r->nr_standing = 0;
	if (r->m.walk_round)
		(*r->m.walk_round)++;
	for (int w = 0; w < NSL_NR_WALKS; w++) {
		int fd, err;

		if (r->m.walk_fds[w] < 0)
			continue;
		if (r->walk_test_fail[w]) {
			r->walk_test_fail[w]--;
			fd = -EAGAIN;
		/* the sockets' walks see the namespace they are made in */
		} else if (!nsl_walks[w].every_netns && r->m.walk_thread) {
			fd = nsl_walkns_iter(r->m.walk_thread, r->m.walk_fds[w]);
		} else if ((fd = bpf_iter_create(r->m.walk_fds[w])) < 0) {
			fd = -errno;
		}
		err = fd < 0 ? fd : read_walk(r, fd);
		if (fd >= 0)
			close(fd);
		if (!err)
			continue;
		for (int h = 0; h < NSL_NR_HOOKS; h++)
			if ((nsl_walks[w].hooks & (1u << h)) && r->hook_enabled[h])
				r->walk_failed[h]++;
		if (r->walk_said[w])
			continue;
		r->walk_said[w] = true;
		pr_warn("cannot run %s (%s): tried again at each report, the "
			"failures counted (walk_failed); meanwhile a silent "
			"queue's time waits for its next look, its socket not "
			"counted standing\n", nsl_walks[w].what, strerror(-err));
	}
	/*
	 * This report holds the standing time up to its walks: a run a
	 * later look finds already standing starts no earlier (its time
	 * before went into no report, the walks not having seen it)
	 */
	if (r->m.report_ns)
		*r->m.report_ns = began;
}
