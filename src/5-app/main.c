// SPDX-License-Identifier: GPL-2.0-only
/*
 * netstacklat: latency inside the Linux network receive stack.
 *
 * Lifecycle: parse options (cli.c) -> check what can be checked
 * (preflight.c) -> open the sink (output.c) and /metrics' socket (jail.c)
 * -> resolve the names of -n, -i, -c (targets.c) -> probe attach methods,
 * load and attach (src/1-setup) -> every interval
 * read the maps and write a report (loop.c) -> on COUNT reached or
 * SIGINT/SIGTERM/SIGHUP a final report, then everything is detached.
 */
#include <errno.h>
#include <malloc.h>
#include <pwd.h>
#include <sys/fsuid.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "atomic.h"
#include "jail.h"
#include "namerproc.h"
#include "jailchild.h"
#include "listing.h"
#include "loader.h"
#include "log.h"
#include "loop.h"
#include "cli.h"
#include "options.h"
#include "output.h"
#include "preflight.h"
#include "privs.h"

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG && !nsl_verbose)
		return 0;
	if (level == LIBBPF_INFO && !nsl_verbose)
		return 0;
	if (nsl_libbpf_quiet && !nsl_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/*
 * A read-only file system where the directory is not: systemd's
 * ProtectSystem=strict, which the package's unit sets, lets it write only
 * under ReadWritePaths= (issue #45: a textfile directory refused, no hint)
 */
static const char *erofs_hint(int err)
{
	if (err != -EROFS)
		return "";
	return getenv("INVOCATION_ID") ?
		" (a systemd unit's ProtectSystem=strict: add the directory to its "
		"ReadWritePaths=, systemctl edit netstacklat)" :
		" (mounted read-only)";
}

/*
 * The sink is opened before anything is loaded, so that a bad path fails
 * early. The atomic Prometheus file is created anew every interval, long
 * after every capability is dropped (and with --user, as that user):
 * check now that its temporary can be made so.
 */
static int open_output(const struct nsl_options *o, struct nsl_output *out)
{
	struct nsl_output_conf c = { .path = o->output, .format = o->format,
				     .append = o->append };
	const struct passwd *pw = o->user ? getpwnam(o->user) : NULL;
	uid_t fsuid;
	gid_t fsgid;
	int err;

	/*
	 * With --user, opened as that user (its file-system ids): it opens
	 * the file again after dropping root (rotation, SIGHUP), and a link
	 * planted for us can only lead where it may write anyway. Where it
	 * may not (a directory of root's), as root, the file given to it.
	 */
	if (pw) {
		fsuid = setfsuid(pw->pw_uid);
		fsgid = setfsgid(pw->pw_gid);
		err = nsl_output_open(out, &c);
		setfsgid(fsgid);
		setfsuid(fsuid);
		if (err != -EACCES)
			goto opened;
		c.chown = true;
		c.uid = pw->pw_uid;
	}
	err = nsl_output_open(out, &c);
opened:

	if (err == -ENXIO)
		pr_warn("-o: %s is a FIFO that nobody reads (start its reader first)\n",
			o->output);
	else if (err == -ELOOP)
		pr_warn("-o: %s is a symbolic link: refused (it could lead to anyone's file; "
			"give the file's own path)\n", o->output);
	else if (err == -EMLINK)
		pr_warn("-o: %s has other hard links: refused (it could be anyone's file)\n",
			o->output);
	else if (err == -EINVAL && o->format == NSL_FMT_PROMETHEUS)
		pr_warn("-o: %s is not a regular file: -F prometheus replaces its file at each "
			"report (node_exporter's textfile collector), so it needs one\n", o->output);
	else if (err == -ENOENT && o->format == NSL_FMT_PROMETHEUS)
		pr_warn("-o: the directory of %s does not exist\n", o->output);
	else if (err)
		pr_warn("-o: cannot open %s: %s%s\n", o->output, strerror(-err),
			erofs_hint(err));
	if (err)
		return err;
	if (!nsl_output_is_atomic(out))
		return 0;
	err = nsl_privs_try(o->user, nsl_output_try_temporary, out);
	if (err == -ENOENT)
		pr_warn("-o: the directory of %s does not exist\n", o->output);
	else if (err)
		pr_warn("-o: cannot create a temporary beside %s as %s without capabilities: %s%s\n",
			o->output, o->user ? o->user : "root", strerror(-err),
			erofs_hint(err));
	return err;
}

#define NSL_MMAP_BYTES (256 << 10)	/* allocations from here on: mmap */

int main(int argc, char **argv)
{
	struct nsl_options opts;
	struct nsl_loader l = { .rx_tstamp_fd = -1, .ifname_fd = -1, .links_fd = -1 };
	struct nsl_jail http = NSL_JAIL_INIT;
	struct nsl_output out = { 0 };
	int err;

	/*
	 * Reports, /metrics answers and the readers' sets of thousands of
	 * groups reach megabytes. A fixed threshold (glibc raises its own
	 * to the size of every mapping freed) keeps them in mappings of
	 * their own, given back to the kernel when freed, rather than in
	 * heap memory that stays resident (issue #31: 150 MB after one
	 * report of 4,096 groups at --resolution 8 without it).
	 */
	mallopt(M_MMAP_THRESHOLD, NSL_MMAP_BYTES);
	/* the /metrics server's process, started by us (src/4-sink/jail.c) */
	if (argc > 1 && !strcmp(argv[1], NSL_JAIL_ARGV1))
		return nsl_jail_child_main(argc, argv);
	/* the container namer, started by us (src/2-collect/namer.c) */
	if (argc > 1 && !strcmp(argv[1], NSL_NAMER_ARGV1))
		nsl_namer_main(argc, argv);
	nsl_hold_signals();
	if (nsl_parse_options(argc, argv, &opts, 0)) {
		pr_warn("%s\n", opts.errmsg);
		nsl_free_options(&opts);
		return 2;
	}
	if (opts.info_only) {	/* --version, --help: printed by the parser */
		nsl_free_options(&opts);
		return 0;
	}
	nsl_verbose = opts.verbose;
	for (unsigned int i = 0; i < opts.nr_warnings; i++)
		pr_warn("warning: %s\n", opts.warnings[i]);
	libbpf_set_print(libbpf_print);
	/* -l without root: the hooks and their methods, as upstream listed */
	if (opts.list_probes && (!nsl_privs_can_load() || nsl_in_user_namespace())) {
		nsl_list_hooks_unprobed(stdout);
		nsl_free_options(&opts);
		return 0;
	}
	err = nsl_preflight_user(&opts);
	if (!err)
		err = nsl_preflight(&opts);
	if (err)
		goto cleanup;

	if (opts.listen_port) {
		err = nsl_jail_bind(&http, opts.listen_addr, opts.listen_port, opts.user);
		if (err) {
			pr_warn("--listen: cannot listen on %s port %u: %s\n",
				*opts.listen_addr ? opts.listen_addr : "every address",
				opts.listen_port, strerror(-err));
			goto cleanup;
		}
		/* not the word the scripts wait for ("attached") */
		if (opts.user_taken)
			pr_info("--listen: running as user '%s' after set-up "
				"(root without --user)\n", opts.user);
	}
	err = open_output(&opts, &out);
	if (!err)
		err = nsl_loader_resolve(&l, &opts);
	if (!err)
		err = nsl_loader_probe(&l, &opts);
	if (err)
		goto cleanup;
	if (opts.list_probes) {
		/* what really loads: a verifier may refuse what probing let by */
		if (nsl_loader_nr_attached(&l) && !nsl_loader_load(&l, &opts))
			nsl_loader_attach_netns_gone(&l);
		printf("hooks and how they attach on this kernel:\n");
		nsl_list_hooks(&l, stdout, true);
		nsl_list_kernel_notes(&l, stdout);
		nsl_list_group_policy(&l, &opts, stdout);
		goto cleanup;
	}
	err = nsl_install_signals();
	if (!err)
		err = nsl_loader_attach(&l, &opts);
	if (err)
		goto cleanup;
	/* says "attached" once set-up is done (nsl_list_attached()) */
	err = nsl_run(&l, &opts, &out, &http);
cleanup:
	nsl_jail_stop(&http);
	nsl_loader_close(&l);
	if (nsl_output_close(&out) && !err)
		err = -EIO;	/* a report may be lost: exit 1 */
	nsl_free_options(&opts);
	return err < 0 ? 1 : 0;
}
