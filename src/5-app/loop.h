/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report loop: once the hooks are attached, every interval the groups'
 * lifecycle and a report to the sink, until COUNT reports, a signal
 * (SIGINT, SIGTERM, SIGHUP: a final report first) or the sink's reader
 * leaving; /metrics served meanwhile.
 */
#ifndef NSL_LOOP_H
#define NSL_LOOP_H

#include "jail.h"
#include "loader.h"
#include "options.h"
#include "output.h"

/* SIGINT, SIGTERM, SIGHUP blocked (kept pending) during set-up. */
void nsl_hold_signals(void);

/*
 * The stop signals' handlers, then unblocked (one held since
 * nsl_hold_signals() is handled now); SIGPIPE ignored. 0 or a negative
 * errno.
 */
int nsl_install_signals(void);

/*
 * Runs the loop on the attached hooks of l: sets up the collection stage,
 * drops privileges, starts /metrics if http has a socket, reports to out.
 * 0 at the end (COUNT, a signal, the reader gone), or a negative errno
 * after a message: -EIO when a run with COUNT lost reports (a daemon's
 * losses never change its status).
 */
int nsl_run(struct nsl_loader *l, const struct nsl_options *o,
	    struct nsl_output *out, struct nsl_jail *http);

#endif /* NSL_LOOP_H */
