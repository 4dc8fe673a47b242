/* SPDX-License-Identifier: GPL-2.0-only */
/* Software RX timestamps: turning them on, and knowing when they are. */
#ifndef NSL_RXTSTAMP_H
#define NSL_RXTSTAMP_H

/*
 * Turns on software RX timestamping for the whole kernel for as long as the
 * returned socket stays open (see nsl_enable_rx_timestamps() for why).
 * Returns the fd or a negative errno.
 */
int nsl_enable_rx_timestamps(void);

/*
 * Waits until the kernel really stamps received packets (the first user's
 * request takes effect a moment later), by non-IP frames to itself over
 * loopback (needs CAP_NET_RAW), stamped for settle_ms in a row. 0,
 * -ETIMEDOUT after timeout_ms, or another negative errno when it cannot
 * tell.
 */
int nsl_rx_timestamps_wait(int timeout_ms, int settle_ms);

#endif /* NSL_RXTSTAMP_H */
