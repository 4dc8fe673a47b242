/* SPDX-License-Identifier: GPL-2.0-only */
/* The formats of a report: where a new output format goes (src/README.md). */
#ifndef NSL_FORMAT_H
#define NSL_FORMAT_H

#include <stdio.h>
#include "report.h"

/*
 * The formatters, one per output format: table.c, json.c and prom.c
 * (which needs a cumulative report: Prometheus histograms and counters
 * only grow). nsl_format_report() (format.c) calls the one
 * asked for and flushes: 0 or a negative errno on write error.
 */
void nsl_format_table(FILE *out, const struct nsl_report *r,
		      const struct nsl_format_opts *o);
void nsl_format_json(FILE *out, const struct nsl_report *r);
void nsl_format_prometheus(FILE *out, const struct nsl_report *r);
/*
 * The protobuf exposition of Prometheus (prom_pb.c): native histograms
 * at --resolution 2, 4, 8. 0 or a negative errno.
 */
int nsl_format_prometheus_pb(FILE *out, const struct nsl_report *r);
int nsl_format_report(FILE *out, const struct nsl_report *r,
		      const struct nsl_format_opts *o);

#endif /* NSL_FORMAT_H */
