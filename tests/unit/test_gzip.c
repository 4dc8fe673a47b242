// SPDX-License-Identifier: GPL-2.0-only
/*
 * The gzip members of /metrics' answers (src/4-sink/gzip.c): what is
 * written comes back byte for byte, through zlib's own gzip reader and
 * through ours in pieces of any size; a truncated member is an error,
 * never a short answer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "gzip.h"

/* n bytes of an exposition-like text: lines that repeat with a counter */
static char *make_text(size_t n)
{
	char *t = malloc(n + 64);
	size_t len = 0;

	assert_non_null(t);
	for (unsigned int i = 0; len < n; i++)
		len += (size_t)sprintf(t + len, "netstacklat_latency_seconds_bucket"
				       "{hook=\"tcp-socket-read\",le=\"%u\"} %u\n", i % 97, i * 7919);
	return t;
}

/* writes text through a gzip stream: fwrite in pieces of `piece` bytes */
static void compress_text(struct nsl_gz *z, const char *text, size_t n, size_t piece)
{
	FILE *f = nsl_gz_open(z);

	assert_non_null(f);
	for (size_t off = 0; off < n; off += piece)
		assert_int_equal(fwrite(text + off, 1, n - off < piece ? n - off : piece, f),
				 n - off < piece ? n - off : piece);
	assert_int_equal(fclose(f), 0);
	assert_non_null(z->buf);
	assert_int_equal(z->plain, n);
}

/* our reader, max bytes a call; returns the bytes read (-1: error) */
static ssize_t gunzip_all(const struct nsl_gz *z, char *out, size_t cap, size_t max)
{
	struct nsl_gunzip g;
	size_t len = 0;
	ssize_t r;

	assert_int_equal(nsl_gunzip_init(&g, z->buf, z->len), 0);
	while ((r = nsl_gunzip_read(&g, out + len, cap - len < max ? cap - len : max)) > 0)
		len += (size_t)r;
	nsl_gunzip_end(&g);
	return r < 0 ? -1 : (ssize_t)len;
}

static void test_round_trip(void **state)
{
	static const size_t sizes[] = { 0, 1, 4095, 100000, 3000000 };
	static const size_t pieces[] = { 1, 7, 4096, 1 << 20 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		char *text = make_text(n), *out = malloc(n + 1);

		assert_non_null(out);
		for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
			struct nsl_gz z;
			uLongf back = n + 1;
			z_stream zs = { 0 };

			if (n > 100000 && pieces[p] < 4096)
				continue;	/* slow, and no different */
			compress_text(&z, text, n, pieces[p]);
			/* gzip: the magic bytes, and zlib's reader agrees */
			assert_true(z.len >= 18);
			assert_int_equal((unsigned char)z.buf[0], 0x1f);
			assert_int_equal((unsigned char)z.buf[1], 0x8b);
			assert_int_equal(inflateInit2(&zs, 16 + 15), Z_OK);
			zs.next_in = (Bytef *)z.buf;
			zs.avail_in = (uInt)z.len;
			zs.next_out = (Bytef *)out;
			zs.avail_out = (uInt)back;
			assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
			assert_int_equal(zs.total_out, n);
			assert_memory_equal(out, text, n);
			inflateEnd(&zs);
			/* ours, in pieces of every size */
			for (size_t m = 1; m <= 65536; m *= 16) {
				if (n > 100000 && m < 4096)
					continue;
				memset(out, 0, n + 1);
				assert_int_equal(gunzip_all(&z, out, n + 1, m), (ssize_t)n);
				assert_memory_equal(out, text, n);
			}
			free(z.buf);
		}
		free(text);
		free(out);
	}
}

/* an exposition is made small: the reason answers are kept compressed */
static void test_compresses(void **state)
{
	size_t n = 1 << 22;
	char *text = make_text(n);
	struct nsl_gz z;

	(void)state;
	compress_text(&z, text, n, 8192);
	assert_true(z.len < n / 10);
	free(z.buf);
	free(text);
}

static void test_truncated_is_error(void **state)
{
	size_t n = 200000;
	char *text = make_text(n), *out = malloc(n + 1);
	struct nsl_gz z;

	(void)state;
	assert_non_null(out);
	compress_text(&z, text, n, 8192);
	z.len -= 9;	/* the trailer (CRC, size) and a byte of data */
	assert_int_equal(gunzip_all(&z, out, n + 1, 4096), -1);
	z.len = 10;	/* the header alone */
	assert_int_equal(gunzip_all(&z, out, n + 1, 4096), -1);
	free(z.buf);
	free(text);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_compresses),
		cmocka_unit_test(test_truncated_is_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
