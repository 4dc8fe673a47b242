/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The jail's starter (jailproc.h) from inside: what it is given at the
 * fork, and what it answers each word of ours with.
 */
#ifndef NSL_JAILSTARTER_H
#define NSL_JAILSTARTER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* the starter's answer: a child's pid or a negative errno; a wait status */
struct starter_reply {
	int32_t pid;
	int32_t status;
};

/* Whose the children are: set by root only. */
struct jail_creds {
	bool change;
	uid_t uid;
	gid_t gid, rgid;	/* effective and saved, real: another (jailproc.h) */
	pid_t parent;
};

/*
 * The starter's life, in the forked process: set up, then our words
 * ('S': a new child, 'K': the child killed and reaped) until we close
 * ctl. Never returns.
 */
void __attribute__((noreturn))
nsl_jail_starter_main(int ctl, int sock, int exe, int log, const struct jail_creds *c);

#endif /* NSL_JAILSTARTER_H */
