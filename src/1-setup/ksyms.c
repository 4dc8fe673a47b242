// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel symbols' addresses and extents, from /proc/kallsyms.
 *
 * The file is about 120,000 lines (5 MB) that the kernel formats as they
 * are read (kernel/kallsyms.c: s_show() per symbol, through seq_file), so
 * each read costs the kernel as much as it gives. A question reads it once,
 * in large blocks, and parses each line by hand: fgets + sscanf over two
 * passes (one for the addresses, one for the symbols after them) was a
 * sixth of a start-up's time here, and seconds of it in the VM test's
 * guests (TCG). Every address is kept as it goes (1 MB for the length of a
 * question), so that a symbol's extent, up to the next address above it,
 * needs no second pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ksyms.h"

struct ksym_scan {
	const char *const *names;
	int n;
	uint64_t *at;
	uint64_t *addrs;	/* every address seen */
	size_t naddrs, cap;
};

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * One line, without its newline: "ADDRESS TYPE NAME", and "\t[MODULE]"
 * after a module's symbols. The address is zeros when kptr_restrict hides
 * it from us: such a symbol is found as 0, which is "not found".
 */
static int scan_line(struct ksym_scan *s, const char *p, const char *end)
{
	const char *name, *q;
	uint64_t a = 0;
	size_t len;
	int d;

	for (; p < end && (d = hex_digit(*p)) >= 0; p++)
		a = a << 4 | (uint64_t)d;
	if (end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return 0;	/* not a symbol line */
	name = p + 3;
	for (q = name; q < end && *q != '\t' && *q != ' '; q++)
		;
	len = (size_t)(q - name);
	if (s->naddrs == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1 << 17;
		uint64_t *more = realloc(s->addrs, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		s->addrs = more;
		s->cap = cap;
	}
	s->addrs[s->naddrs++] = a;
	for (int i = 0; i < s->n; i++) {
		if (!s->at[i] && s->names[i][0] == name[0] &&
		    strlen(s->names[i]) == len && !memcmp(s->names[i], name, len))
			s->at[i] = a;
	}
	return 0;
}

/* Every line of fd, read in blocks; a line split between two is joined. */
#define KSYM_BLOCK (1 << 16)

static int scan_blocks(struct ksym_scan *s, int fd, char *buf)
{
	size_t have = 0;
	int err = 0;

	for (;;) {
		ssize_t got = read(fd, buf + have, KSYM_BLOCK - have);
		const char *p = buf, *end, *nl;

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		end = buf + have + got;
		while (!err && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			err = scan_line(s, p, nl);
			p = nl + 1;
		}
		if (err)
			return err;
		have = (size_t)(end - p);
		/* the end, or a line longer than the block (none is): as is */
		if (got == 0 || have == KSYM_BLOCK) {
			err = have ? scan_line(s, p, end) : 0;
			if (err || got == 0)
				return err;
			have = 0;
			continue;
		}
		memmove(buf, p, have);
	}
}

static int scan_fd(struct ksym_scan *s, int fd)
{
	char *buf = malloc(KSYM_BLOCK);
	int err;

	if (!buf)
		return -ENOMEM;
	err = scan_blocks(s, fd, buf);
	free(buf);
	return err;
}

int nsl_ksym_ranges_fd(int fd, const char *const *names, int n, uint64_t *at,
		       uint64_t *len)
{
	struct ksym_scan s = { .names = names, .n = n, .at = at };
	int err = scan_fd(&s, fd);

	for (int i = 0; i < n; i++) {
		uint64_t next = 0;

		for (size_t j = 0; !err && at[i] && j < s.naddrs; j++) {
			if (s.addrs[j] > at[i] && (!next || s.addrs[j] < next))
				next = s.addrs[j];
		}
		len[i] = next ? next - at[i] : 0;
	}
	free(s.addrs);
	return err;
}

int nsl_ksym_ranges(const char *const *names, int n, uint64_t *at, uint64_t *len)
{
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = nsl_ksym_ranges_fd(fd, names, n, at, len);
	close(fd);
	return err;
}
