// SPDX-License-Identifier: GPL-2.0-only
/* The jail's answers, kept and rendered within bounds (jailcache.h). */
#include <errno.h>
#include <stdlib.h>
#include "clock.h"
#include "gzip.h"
#include "jailcache.h"

/* Representation repr, rendered now into kept[repr]: 0 or a negative errno. */
static int render(struct nsl_jail_cache *c, unsigned int repr)
{
	struct nsl_jail_kept *k = &c->kept[repr];
	int64_t t0 = nsl_mono_ns(), took;
	struct nsl_gz z = { 0 };
	const char *type = NULL;
	FILE *f = nsl_gz_open(&z);
	int err = f ? c->app.render(c->app.ctx, repr, f, &type) : -ENOMEM;

	if (f && fclose(f) && !err)
		err = -ENOMEM;
	if (!err && !type)
		err = -EINVAL;
	if (!err && z.len > NSL_JAIL_MAX_ANSWER)
		err = -EFBIG;
	took = nsl_mono_ns() - t0;
	__atomic_add_fetch(&c->render_ns, (uint64_t)took, __ATOMIC_RELAXED);
	/* the next render waits as long as this one took: at most half our time */
	c->render_at_ns = nsl_mono_ns() + took;
	free(k->gz);
	k->gz = NULL;
	if (err) {
		free(z.buf);
		return err;
	}
	k->gz = z.buf;
	k->len = z.len;
	k->plain = z.plain;
	snprintf(k->type, sizeof(k->type), "%s", type);
	k->end_ns = nsl_mono_ns();
	k->took_ns = took;
	return 0;
}

/* Whether kept[repr] is too old to give: older than its render took. */
static bool stale(const struct nsl_jail_cache *c, unsigned int repr, int64_t now)
{
	const struct nsl_jail_kept *k = &c->kept[repr];

	return !k->gz || now - k->end_ns >= k->took_ns;
}

int64_t nsl_jail_cache_due(const struct nsl_jail_cache *c, unsigned int repr, int64_t now)
{
	return stale(c, repr, now) && c->render_at_ns > c->next_answer_ns ?
	       c->render_at_ns : c->next_answer_ns;
}

const struct nsl_jail_kept *nsl_jail_cache_answer(struct nsl_jail_cache *c, unsigned int repr,
						  int *err)
{
	*err = stale(c, repr, nsl_mono_ns()) ? render(c, repr) : 0;
	c->next_answer_ns = nsl_mono_ns() + NSL_JAIL_ANSWER_GAP_MS * 1000000LL;
	return *err ? NULL : &c->kept[repr];
}

uint64_t nsl_jail_cache_render_ns(const struct nsl_jail_cache *c)
{
	return __atomic_load_n(&c->render_ns, __ATOMIC_RELAXED);
}

void nsl_jail_cache_free(struct nsl_jail_cache *c)
{
	for (int r = 0; r < NSL_JAIL_REPRS; r++) {
		free(c->kept[r].gz);
		c->kept[r].gz = NULL;
	}
}
