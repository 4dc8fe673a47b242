// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/1-setup/ksyms.c on kallsyms text the test writes: addresses and
 * extents (to the next address above, wherever it is in the file), module
 * symbols, hidden addresses, lines split across the reader's blocks, a
 * last line without its newline.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>
#include "../../src/1-setup/ksyms.h"

/* fd of a file holding text (unlinked: gone with the fd) */
static int text_fd(const char *text)
{
	char path[] = "/tmp/nsl-ksyms-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void ranges(const char *text, const char *const *names, int n,
		   uint64_t *at, uint64_t *len)
{
	int fd = text_fd(text);

	memset(at, 0, n * sizeof(*at));
	memset(len, 0, n * sizeof(*len));
	assert_int_equal(nsl_ksym_ranges_fd(fd, names, n, at, len), 0);
	close(fd);
}

static void test_addresses_and_extents(void **state)
{
	static const char *const names[] = { "udp_recvmsg", "veth_xmit", "nope", "last" };
	uint64_t at[4], len[4];

	(void)state;
	ranges("ffffffff81000000 T _stext\n"
	       "ffffffff81a00000 T udp_recvmsg\n"
	       "ffffffff81a00000 T udp_recvmsg_alias\n"
	       "ffffffff81a00400 t udp_recvmsg.cold\n"
	       "ffffffff81a00040 t later_but_closer\n"
	       "ffffffffc0001000 t veth_xmit\t[veth]\n"
	       "ffffffffc0001200 t veth_poll\t[veth]\n"
	       "ffffffffc0002000 T last\n",
	       names, 4, at, len);
	assert_int_equal(at[0], 0xffffffff81a00000ull);
	/* the next address above, not the next line */
	assert_int_equal(len[0], 0x40);
	assert_int_equal(at[1], 0xffffffffc0001000ull);
	assert_int_equal(len[1], 0x200);
	assert_int_equal(at[2], 0);
	assert_int_equal(len[2], 0);
	/* nothing above: no extent */
	assert_int_equal(at[3], 0xffffffffc0002000ull);
	assert_int_equal(len[3], 0);
}

/* a prefix of a name, or a name a prefix of the one asked, is not it */
static void test_whole_names_only(void **state)
{
	static const char *const names[] = { "udp_rcv" };
	uint64_t at[1], len[1];

	(void)state;
	ranges("ffffffff81000010 T udp_rcv_x\n"
	       "ffffffff81000020 T udp_rc\n"
	       "ffffffff81000030 T udp_rcv\n"
	       "ffffffff81000050 T after\n", names, 1, at, len);
	assert_int_equal(at[0], 0xffffffff81000030ull);
	assert_int_equal(len[0], 0x20);
}

/* kptr_restrict: every address 0, so nothing is found */
static void test_hidden(void **state)
{
	static const char *const names[] = { "a", "b" };
	uint64_t at[2], len[2];

	(void)state;
	ranges("0000000000000000 T a\n0000000000000000 T b\n", names, 2, at, len);
	assert_int_equal(at[0], 0);
	assert_int_equal(at[1], 0);
	assert_int_equal(len[0], 0);
}

/*
 * 200,000 lines (several of the reader's 64 KiB blocks, so lines split
 * across them), the symbol asked for near the end, on the last line
 * without its newline, and one straddling a block boundary wherever it is.
 */
static void test_many_blocks(void **state)
{
	static const char *const names[] = { "sym_123457", "sym_199999", "sym_0" };
	size_t cap = 200000 * 32, off = 0;
	char *text = malloc(cap + 1);
	uint64_t at[3], len[3];

	(void)state;
	assert_non_null(text);
	for (int i = 0; i < 200000; i++)
		off += (size_t)snprintf(text + off, cap - off, "%016llx T sym_%d%s",
					0xffffffff81000000ull + 16ull * (uint64_t)i, i,
					i < 199999 ? "\n" : "");
	ranges(text, names, 3, at, len);
	free(text);
	assert_int_equal(at[0], 0xffffffff81000000ull + 16ull * 123457);
	assert_int_equal(len[0], 16);
	assert_int_equal(at[1], 0xffffffff81000000ull + 16ull * 199999);
	assert_int_equal(len[1], 0);
	assert_int_equal(at[2], 0xffffffff81000000ull);
	assert_int_equal(len[2], 16);
}

/* what is not a symbol line is skipped, and the lines around it are read */
static void test_odd_lines(void **state)
{
	static const char *const names[] = { "x" };
	uint64_t at[1], len[1];

	(void)state;
	ranges("\n"
	       "garbage\n"
	       "ffffffff8100000z T x\n"
	       "ffffffff81000100 T x\n"
	       "ffffffff81000180 T y\n", names, 1, at, len);
	assert_int_equal(at[0], 0xffffffff81000100ull);
	assert_int_equal(len[0], 0x80);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addresses_and_extents),
		cmocka_unit_test(test_whole_names_only),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_many_blocks),
		cmocka_unit_test(test_odd_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
