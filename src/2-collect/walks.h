/* SPDX-License-Identifier: GPL-2.0-only */
/* The standing hooks' walks at each report (walks.c), for reader.c. */
#ifndef NSL_WALKS_H
#define NSL_WALKS_H

#include "reader.h"

/* NSL_TEST_FAIL_WALK=prog:N, the test seam: read once, at the reader's start */
void nsl_walks_test_seam(struct nsl_reader *r);

/*
 * Runs every walk the reader has (r->m.walk_fds), the sockets standing
 * into r->standing, a failed one counted (walk_failed) and tried again
 * at the next report; then notes when the walks began (nsl_report_ns).
 */
void nsl_walks_run(struct nsl_reader *r);

#endif /* NSL_WALKS_H */
