// SPDX-License-Identifier: GPL-2.0-only
/* /metrics (metrics.h): the render callbacks the HTTP server calls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collect.h"
#include "format.h"
#include "httproute.h"
#include "log.h"
#include "metrics.h"

/*
 * Test seam: NETSTACKLAT_TEST_PAD_BYTES=N pads the exposition with N bytes
 * of comment lines (which parsers ignore; at most 64 MiB), so that the
 * HTTP tests get answers of megabytes without thousands of groups
 * (tests/integration/test_http_abuse.sh).
 */
static void pad_for_tests(FILE *f)
{
	static const char line[] = "# padding for tests (NETSTACKLAT_TEST_PAD_BYTES)\n";
	const char *env = getenv("NETSTACKLAT_TEST_PAD_BYTES");
	long want = env ? strtol(env, NULL, 10) : 0;

	if (want > 64L << 20)
		want = 64L << 20;
	for (long n = 0; n < want; n += sizeof(line) - 1)
		fputs(line, f);
}

static int render_metrics(void *ctx, unsigned int repr, FILE *f, const char **type)
{
	struct nsl_metrics *m = ctx;
	int err;

	if (m->rd.groups)
		nsl_groups_lock(m->rd.groups);
	err = nsl_reader_read(&m->rd, &m->rep);
	if (!err)
		err = nsl_bpfstats_read(&m->bs, &m->rep);
	m->rep.reports_lost = m->out ? nsl_output_lost(m->out) : 0;
	m->rep.served = true;
	m->rep.server_restarts = nsl_jail_restarts(m->jail);
	m->rep.server_render_ns = nsl_jail_render_ns(m->jail);
	if (err)
		goto out;
	if (repr == NSL_REPR_PROTOBUF) {
		err = nsl_format_prometheus_pb(f, &m->rep);
		*type = "application/vnd.google.protobuf; "
			"proto=io.prometheus.client.MetricFamily; encoding=delimited";
	} else {
		nsl_format_prometheus(f, &m->rep);
		pad_for_tests(f);
		*type = "text/plain; version=0.0.4; charset=utf-8";
	}
	if (!err && ferror(f))
		err = -ENOMEM;
out:
	/* the report points into the table (names, gone groups' totals) */
	if (m->rd.groups)
		nsl_groups_unlock(m->rd.groups);
	return err;
}

int nsl_metrics_start(struct nsl_jail *jail, struct nsl_metrics *m,
		      const struct nsl_loader *l, const bool *attached,
		      const struct nsl_options *o, const struct nsl_bpfstats *bs,
		      struct nsl_groups *g, const struct nsl_output *out)
{
	const struct nsl_jail_app app = { .ctx = m, .render = render_metrics };
	int err = nsl_collect_reader_init(&m->rd, l, attached, o, true, g);

	if (err) {
		pr_warn("--listen: cannot set up a map reader: %s\n", strerror(-err));
		return err;
	}
	nsl_collect_for_prometheus(&m->rd, o);
	m->out = out;
	m->jail = jail;
	/* the same programs, their totals: cumulative, no fd of its own */
	m->bs = *bs;
	m->bs.cumulative = true;
	m->bs.stats_fd = -1;
	err = nsl_jail_start(jail, &app);
	if (err)
		pr_warn("--listen: cannot start the HTTP server\n");
	else if (!*o->listen_addr)
		pr_info("metrics on http://*:%u/metrics (every address)\n", o->listen_port);
	else
		pr_info("metrics on http://%s%s%s:%u/metrics\n",
			strchr(o->listen_addr, ':') ? "[" : "", o->listen_addr,
			strchr(o->listen_addr, ':') ? "]" : "", o->listen_port);
	return err;
}

void nsl_metrics_free(struct nsl_metrics *m)
{
	nsl_reader_free(&m->rd);
}
