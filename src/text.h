/* SPDX-License-Identifier: GPL-2.0-only */
/* Text helpers the output formats share (src/text.c). */
#ifndef NSL_TEXT_H
#define NSL_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "report.h"

/* room for a percentile name such as "p99.9" */
#define PCT_LEN 16

/* The hook's name; a hook id from a BPF map key is not trusted blindly. */
const char *nsl_hook_label(__u32 hook);

/* "p99.9": the percentile's name, made from its value so no list can lag. */
void nsl_pct_name(char *buf, size_t len, double p);

/* The percentile in *v; false if it lies in the open-ended last bucket. */
bool nsl_bounded_percentile(const struct nsl_report_hist *h, double p,
			    uint64_t *v);

/*
 * Length of the valid UTF-8 sequence at s (at most left bytes), 0 if there
 * is none.
 */
size_t nsl_utf8_len(const unsigned char *s, size_t left);

#endif /* NSL_TEXT_H */
