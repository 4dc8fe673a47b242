// SPDX-License-Identifier: GPL-2.0-only
/*
 * settai - read or set the kernel's TAI offset, for the test that the tool
 * follows it (NTP daemons set it after boot; leap seconds change it).
 *
 *   settai          prints the TAI offset in seconds
 *   settai N        sets it to N seconds (adjtimex ADJ_TAI, needs
 *                   CAP_SYS_TIME), prints the previous one
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>

int main(int argc, char **argv)
{
	struct timex tx = { 0 };
	char *end;
	long n;

	if (argc > 2) {
		fprintf(stderr, "usage: settai [SECONDS]\n");
		return 2;
	}
	if (adjtimex(&tx) < 0) {
		fprintf(stderr, "settai: adjtimex: %s\n", strerror(errno));
		return 1;
	}
	printf("%d\n", tx.tai);
	if (argc < 2)
		return 0;
	errno = 0;
	n = strtol(argv[1], &end, 10);
	if (errno || *end || end == argv[1] || n < 0 || n > 1000) {
		fprintf(stderr, "settai: bad offset '%s' (0..1000 seconds)\n", argv[1]);
		return 2;
	}
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TAI;
	tx.constant = n;
	if (adjtimex(&tx) < 0) {
		fprintf(stderr, "settai: adjtimex(ADJ_TAI, %ld): %s\n", n, strerror(errno));
		return 1;
	}
	return 0;
}
