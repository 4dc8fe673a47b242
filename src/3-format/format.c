// SPDX-License-Identifier: GPL-2.0-only
/*
 * One report in the format asked for (table.c, json.c, prom.c), flushed
 * at once: readers of JSON Lines sit behind tail -f and pipes.
 */
#include <errno.h>
#include "format.h"

int nsl_format_report(FILE *out, const struct nsl_report *r,
		      const struct nsl_format_opts *o)
{
	/* errno is only read after a failure; clear it so it is not stale */
	errno = 0;
	if (o->format == NSL_FMT_JSON)
		nsl_format_json(out, r);
	else if (o->format == NSL_FMT_PROMETHEUS)
		nsl_format_prometheus(out, r);
	else
		nsl_format_table(out, r, o);
	/*
	 * Flush every report: readers of JSON Lines sit behind tail -f and
	 * pipes. The stream's error flag also catches a write that failed
	 * while the buffer was being filled.
	 */
	if (fflush(out) == EOF || ferror(out))
		return errno > 0 ? -errno : -EIO;
	return 0;
}
