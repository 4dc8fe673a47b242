// SPDX-License-Identifier: GPL-2.0-only
/*
 * An answer of the namer (names.h): the question's tag (a 32-bit
 * sequence number, so that an answer that came too late is never taken
 * for a later question's), a 0 byte (none), or 1 and the container: its
 * runtime's row in nsl_runtimes[] plus one (0: unsaid), the id's length (0
 * or 64) and digits, then five strings (name, pod, pod namespace, pod
 * uid, container), each a 16-bit length (0xffff: none) and its bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "containers.h"
#include "names.h"
#include "runtimes.h"

struct buf {
	unsigned char *p;
	size_t len, cap;
	bool bad;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		b->bad = true;
		return;
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put_str(struct buf *b, const char *s)
{
	size_t n = s ? strnlen(s, 0xfffe) : 0;
	uint16_t len = s ? (uint16_t)n : 0xffff;

	put(b, &len, sizeof(len));
	put(b, s, n);
}

static bool get(struct buf *b, void *v, size_t n)
{
	if (b->len + n > b->cap) {
		b->bad = true;
		return false;
	}
	memcpy(v, b->p + b->len, n);
	b->len += n;
	return true;
}

/*
 * A string of the answer, or NULL (none, or a malformed answer: b->bad).
 * A NUL inside is malformed: strndup() would keep the part before it.
 */
static char *get_str(struct buf *b)
{
	uint16_t len;
	char *s;

	if (!get(b, &len, sizeof(len)))
		return NULL;
	if (len == 0xffff)
		return NULL;
	if (b->len + len > b->cap || memchr(b->p + b->len, '\0', len) ||
	    !(s = strndup((const char *)b->p + b->len, len)))
		return b->bad = true, NULL;
	b->len += len;
	return s;
}

size_t nsl_answer_encode(const struct nsl_container *c, uint32_t seq, unsigned char *a)
{
	struct buf b = { .p = a, .cap = NSL_ANSWER_MAX };
	uint8_t rt = 0, present = c != NULL, idlen;

	put(&b, &seq, sizeof(seq));
	put(&b, &present, 1);
	if (!c)
		return b.len;
	for (size_t i = 0; c->runtime && i < nsl_nr_runtimes; i++)
		if (!strcmp(c->runtime, nsl_runtimes[i]->name))
			rt = (uint8_t)(i + 1);
	idlen = (uint8_t)strnlen(c->id, sizeof(c->id) - 1);
	put(&b, &rt, 1);
	put(&b, &idlen, 1);
	put(&b, c->id, idlen);
	put_str(&b, c->name);
	put_str(&b, c->pod);
	put_str(&b, c->pod_namespace);
	put_str(&b, c->pod_uid);
	put_str(&b, c->container);
	if (b.bad) {	/* cannot be (names are cut at 253): none rather than half */
		a[sizeof(seq)] = 0;
		return sizeof(seq) + 1;
	}
	return b.len;
}

int nsl_answer_decode(const unsigned char *a, size_t len, uint32_t *seq,
		      struct nsl_container **c)
{
	struct buf b = { .p = (unsigned char *)a, .cap = len };
	uint8_t present = 0, rt = 0, idlen = 0;

	*c = NULL;
	if (!get(&b, seq, sizeof(*seq)) || !get(&b, &present, 1) || present > 1)
		return -EBADMSG;
	if (!present)
		return b.len == len ? 0 : -EBADMSG;
	*c = calloc(1, sizeof(**c));
	if (!*c)
		return -ENOMEM;
	if (!get(&b, &rt, 1) || !get(&b, &idlen, 1) || (idlen && idlen != NSL_CONTAINER_ID_LEN) ||
	    rt > nsl_nr_runtimes || !get(&b, (*c)->id, idlen))
		goto bad;
	(*c)->runtime = rt ? nsl_runtimes[rt - 1]->name : NULL;
	(*c)->name = get_str(&b);
	(*c)->pod = get_str(&b);
	(*c)->pod_namespace = get_str(&b);
	(*c)->pod_uid = get_str(&b);
	(*c)->container = get_str(&b);
	if (!b.bad && b.len == len)
		return 0;
bad:
	nsl_container_free(*c);
	*c = NULL;
	return -EBADMSG;
}

static bool lower_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

static bool lower_alnum(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z');
}

/* [s, s + n) of lowercase hex digits, with '-' exactly where dash[] says */
static bool hex_with_dashes(const char *s, size_t n, const char *dash)
{
	if (strlen(s) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (dash[i] == '-' ? s[i] != '-' : !lower_hex(s[i]))
			return false;
	return true;
}

static bool pod_uid_ok(const char *s)
{
	return hex_with_dashes(s, 36, "........-....-....-....-............") ||
	       hex_with_dashes(s, 32, "................................");
}

/*
 * A DNS-1123 label ([a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 bytes), or
 * with dots (a subdomain: labels joined by '.', at most 253 bytes)
 */
static bool dns1123(const char *s, bool subdomain)
{
	size_t n = strlen(s), label = 0;

	if (!n || n > (subdomain ? 253 : 63))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (subdomain && s[i] == '.') {
			if (!label || s[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!lower_alnum(s[i]) && (s[i] != '-' || !label))
			return false;
		if (++label > 63)
			return false;
	}
	return s[n - 1] != '-' && s[n - 1] != '.';
}

/* docker's and podman's container names: [a-zA-Z0-9][a-zA-Z0-9_.-]* */
static bool runtime_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 253)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		bool alnum = lower_alnum(ch) || (ch >= 'A' && ch <= 'Z');

		if (!alnum && (!i || (ch != '_' && ch != '.' && ch != '-')))
			return false;
	}
	return true;
}

const char *nsl_names_invalid(const struct nsl_container *c)
{
	if (c->id[0] && !hex_with_dashes(c->id, NSL_CONTAINER_ID_LEN,
					 "................................"
					 "................................"))
		return "id";
	if (c->pod_uid && !pod_uid_ok(c->pod_uid))
		return "pod_uid";
	if (c->pod && !dns1123(c->pod, true))
		return "pod";
	if (c->pod_namespace && !dns1123(c->pod_namespace, false))
		return "pod_namespace";
	if (c->container && !dns1123(c->container, false))
		return "container";
	if (c->name && !runtime_name(c->name))
		return "name";
	return NULL;
}
