// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the output formats share (table.c, json.c, prom.c):
 * the names of hooks and percentiles, the percentiles they report, and the
 * UTF-8 check of names that come from the system.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hooks.h"
#include "stats.h"
#include "text.h"
#include "version.h"

/*
 * The name of a histogram: its hook's, or that of the reads the HOL filter
 * left out. The id comes from a BPF map key: do not index the table blindly.
 */
const char *nsl_hook_label(__u32 hook)
{
	if (hook == NSL_HIST_TCP_READ_HOL)
		return "tcp-socket-read-hol";
	return hook < NSL_NR_HOOKS ? nsl_hooks[hook].name : "unknown";
}

/* "p99.9": the percentile's name, made from its value so no list can lag. */
void nsl_pct_name(char *buf, size_t len, double p)
{
	snprintf(buf, len, "p%g", p * 100);
}

/* The percentile in *v; false if it lies in the open-ended last bucket. */
bool nsl_bounded_percentile(const struct nsl_report_hist *h, double p,
			    uint64_t *v)
{
	*v = nsl_percentile(h, p);
	return *v != UINT64_MAX;
}

/*
 * Length of the valid UTF-8 sequence at s (at most left bytes), 0 if there
 * is none. JSON text and Prometheus label values must be UTF-8, but
 * interface and cgroup names are arbitrary bytes.
 */
size_t nsl_utf8_len(const unsigned char *s, size_t left)
{
	uint32_t cp, min;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates and beyond U+10FFFF */
	if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void nsl_prom_labels(const struct nsl_report *r, const struct nsl_report_hist *h,
		     struct nsl_labels *out)
{
	struct nsl_label *l = out->l;

	out->n = 0;
	l[out->n++] = (struct nsl_label){ "hook", nsl_hook_label(h->key.hook), SIZE_MAX };
	if (r->group_ifindex) {
		l[out->n++] = (struct nsl_label){ "interface", h->ifname, sizeof(h->ifname) };
		snprintf(out->num[0], sizeof(out->num[0]), "%u", h->key.ifindex);
		l[out->n++] = (struct nsl_label){ "ifindex", out->num[0], SIZE_MAX };
	}
	if (r->group_netns) {
		snprintf(out->num[2], sizeof(out->num[2]), "%" PRIu64, (uint64_t)NSL_NETNS_INO(h->key.netns));
		l[out->n++] = (struct nsl_label){ "netns", out->num[2], SIZE_MAX };
	}
	if (r->group_cgroup) {
		if (h->cgroup_path) {
			l[out->n++] = (struct nsl_label){ "cgroup", h->cgroup_path, SIZE_MAX };
		} else {
			snprintf(out->num[1], sizeof(out->num[1]), "%" PRIu64,
				 (uint64_t)h->key.cgroup);
			l[out->n++] = (struct nsl_label){ "cgroup", out->num[1], SIZE_MAX };
		}
	}
	/* the cgroup's container, else the namespace's or the interface's peer's (-I) */
	if (r->group_cgroup || r->group_ifindex)
		nsl_container_labels(h->container, out);
}

/*
 * All four names, each "" where the group has none (the host's groups:
 * all four): a scrape with honor_labels: true fills a target label in
 * only where the scraped series lacks that label, and a label present
 * but empty counts as there; Prometheus drops it only after the merge
 * (scrape.go's mutateSampleLabels(), then the label builder: measured
 * with 2.42 and 3.5, text and protobuf alike, test_prom_k8s_scrapes).
 * Left out, Kubernetes pod discovery's namespace, pod and container,
 * the tool's own pod's, filled in every name a group lacked.
 */
void nsl_container_labels(const struct nsl_container *c, struct nsl_labels *out)
{
	bool pod = c && nsl_container_in_pod(c);
	const char *v[] = {
		pod ? c->pod_namespace : NULL,
		pod ? c->pod : NULL,
		pod ? c->container : NULL,
		c && !pod ? (c->name ? c->name : c->id) : NULL,
	};
	static const char *const names[] = { "namespace", "pod", "container", "name" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		out->l[out->n++] = (struct nsl_label){ names[i], v[i] ? v[i] : "", SIZE_MAX };
}

void nsl_hook_info_labels(const struct nsl_hook_status *st, int h,
			  struct nsl_labels *out)
{
	struct nsl_label *l = out->l;

	out->num[0][0] = '\0';
	if (st->method && st->netns)
		snprintf(out->num[0], sizeof(out->num[0]), "%" PRIu64, st->netns);
	out->n = 0;
	l[out->n++] = (struct nsl_label){ "hook", nsl_hooks[h].name, SIZE_MAX };
	l[out->n++] = (struct nsl_label){ "method", st->method ? st->method : "", SIZE_MAX };
	l[out->n++] = (struct nsl_label){ "netns", out->num[0], sizeof(out->num[0]) };
	if (!st->method)
		l[out->n++] = (struct nsl_label){ "reason", st->why ? st->why : "", SIZE_MAX };
	else if (st->lacks)
		l[out->n++] = (struct nsl_label){ "lacks", st->lacks, SIZE_MAX };
}

void nsl_build_info_labels(const struct nsl_report *r, struct nsl_labels *out)
{
	out->n = 0;
	out->l[out->n++] = (struct nsl_label){ "version", NSL_VERSION, SIZE_MAX };
	out->l[out->n++] = (struct nsl_label){ "libbpf",
		r->libbpf_version ? r->libbpf_version : "", SIZE_MAX };
}

char *nsl_utf8_dup(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;
	size_t n;

	len = strnlen(s, len);
	out = malloc(3 * len + 1);	/* each bad byte: 3 bytes of U+FFFD */
	if (!out)
		return NULL;
	for (o = out; len; p += n, len -= n) {
		n = nsl_utf8_len(p, len);
		if (!n) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			n = 1;
		} else {
			memcpy(o, p, n);
			o += n;
		}
	}
	*o = '\0';
	return out;
}

const char *nsl_standing_metric(char *buf, size_t len, const struct nsl_value_desc *d)
{
	snprintf(buf, len, "netstacklat_%s%s", d->name, d->gauge ? "" : "_total");
	return buf;
}
