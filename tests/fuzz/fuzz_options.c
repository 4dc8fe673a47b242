// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the option parser. The input is a command line:
 * arguments separated by NUL or newline bytes (so corpus files are readable
 * one argument per line), at most MAX_ARGS of them. Each argument gets a
 * heap buffer of its exact size, so that ASan sees any read past its end.
 *
 *   make fuzz                   # FUZZ_TIME seconds, new inputs in .output/fuzz/new/options
 *   .output/fuzz/fuzz_options -runs=0 tests/fuzz/corpus/options   # replay
 */
#include <argp.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* --help, --usage and --version print to stdout: not to the terminal. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_WRONLY);

	(void)argc;
	(void)argv;
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	return 0;
}

static int is_sep(uint8_t c)
{
	return c == '\0' || c == '\n';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2];
	struct nsl_options o;
	int argc = 0, err;
	size_t i = 0;

	argv[argc++] = strdup("netstacklat");
	while (i < size && argc <= MAX_ARGS) {
		size_t len = 0;

		while (i + len < size && !is_sep(data[i + len]))
			len++;
		argv[argc] = malloc(len + 1);
		if (!argv[argc])
			break;
		memcpy(argv[argc], data + i, len);
		argv[argc][len] = '\0';
		argc++;
		i += len + 1;
	}
	argv[argc] = NULL;

	err = nsl_parse_options(argc, argv, &o, ARGP_NO_EXIT | ARGP_NO_ERRS);
	/* what options.h promises: a failure has a message, success sane values */
	if (strnlen(o.errmsg, sizeof(o.errmsg)) == sizeof(o.errmsg) ||
	    (err && !o.errmsg[0]))
		abort();
	if (!err && (o.interval_s < 0.01 || o.interval_s > 86400 * 365 ||
		     o.nr_pids > NSL_MAX_FILTER_ENTRIES ||
		     o.nr_ifaces > NSL_MAX_FILTER_ENTRIES ||
		     o.nr_cgroups > NSL_MAX_FILTER_ENTRIES ||
		     o.max_groups < 1 || (o.listen_port && !o.listen_addr[0])))
		abort();
	nsl_free_options(&o);

	for (int a = 0; a < argc; a++)
		free(argv[a]);
	return 0;
}
