/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a slot of a histogram means, at each schema (--resolution): set-up
 * hands the thresholds to the BPF object, the formats read the bounds.
 */
#ifndef NSL_SLOTS_H
#define NSL_SLOTS_H

#include <stdint.h>
#include "netstacklat.h"

/* The thresholds of a schema (include/schema.h), for nsl_slot(). */
const __u64 *nsl_schema_thresholds(unsigned int schema);
/*
 * The largest latency in ns that slot of a histogram of the schema holds,
 * hook's (the standing hooks' slots at schema 0 are their own:
 * nsl_hook_slot(), include/hist.h); UINT64_MAX when it has no bound (the
 * last log2 bucket).
 */
uint64_t nsl_upper_ns(unsigned int schema, unsigned int hook, unsigned int slot);
/* The native histogram bucket index of a slot (schema >= 1, slot >= 1). */
int nsl_native_index(unsigned int schema, unsigned int slot);

#endif /* NSL_SLOTS_H */
