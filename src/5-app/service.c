// SPDX-License-Identifier: GPL-2.0-only
/*
 * systemd's notification protocol through libsystemd (service.h). Each call
 * is one datagram to $NOTIFY_SOCKET, or nothing where it is unset: a run
 * from a shell, or under Type=exec, pays one getenv().
 */
#include <stdint.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include "log.h"
#include "service.h"

void nsl_service_ready(const char *status)
{
	int err = sd_notifyf(0, "READY=1\nSTATUS=%s", status);

	if (err < 0)
		pr_warn("cannot tell the service manager that the tool runs "
			"($NOTIFY_SOCKET): %s\n", strerror(-err));
}

void nsl_service_alive(struct timespec *sleep)
{
	uint64_t usec, half_ns;

	/* WATCHDOG_USEC (and WATCHDOG_PID, ours) as systemd sets them */
	if (sd_watchdog_enabled(0, &usec) <= 0)
		return;
	sd_notify(0, "WATCHDOG=1");
	half_ns = usec * 1000 / 2;
	if ((uint64_t)sleep->tv_sec * 1000000000ULL + (uint64_t)sleep->tv_nsec > half_ns) {
		sleep->tv_sec = half_ns / 1000000000ULL;
		sleep->tv_nsec = half_ns % 1000000000ULL;
	}
}

void nsl_service_stopping(void)
{
	sd_notify(0, "STOPPING=1");
}
