// SPDX-License-Identifier: GPL-2.0-only
/*
 * The slots of a histogram at each schema (include/schema.h): the
 * thresholds the BPF side sorts samples by, and what a slot means to a
 * reader of it: its upper bound, its native histogram bucket.
 */
#include "hist.h"
#include "slots.h"

static const __u64 thresholds[NSL_MAX_SCHEMA + 1][8] = NSL_SCHEMA_THRESHOLDS;
static const int schema_f[NSL_MAX_SCHEMA + 1] = NSL_SCHEMA_F;

const __u64 *nsl_schema_thresholds(unsigned int schema)
{
	return thresholds[schema];
}

uint64_t nsl_upper_ns(unsigned int schema, unsigned int hook, unsigned int slot)
{
	return nsl_hook_slot_upper(hook, schema, thresholds[schema], slot);
}

int nsl_native_index(unsigned int schema, unsigned int slot)
{
	return (int)slot - 1 - schema_f[schema];
}
