// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the output formats share (src/table.c, src/json.c, src/prom.c):
 * the names of hooks and percentiles, the percentiles they report, and the
 * UTF-8 check of names that come from the system.
 */
#include <stdio.h>
#include "hooks.h"
#include "text.h"

/* A hook id comes from a BPF map key: do not index the table blindly. */
const char *nsl_hook_label(__u32 hook)
{
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
