/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the tool tells its service manager (systemd's Type=notify, through
 * libsystemd's sd_notify(); nothing without $NOTIFY_SOCKET): that it runs,
 * with what, and, under WatchdogSec=, that its report loop still turns.
 */
#ifndef NSL_SERVICE_H
#define NSL_SERVICE_H

#include <time.h>

/* READY=1 once every hook is attached and set-up is done; STATUS=status. */
void nsl_service_ready(const char *status);

/*
 * Called from the report loop before each sleep: WATCHDOG=1 when systemd
 * asks for it, and *sleep capped at half its timeout, so that only a loop
 * that stalls (a report that cannot be made or written) misses it.
 */
void nsl_service_alive(struct timespec *sleep);

/* STOPPING=1: the tool is on its way out. */
void nsl_service_stopping(void);

#endif
