/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The jail's child (jail.h): the /metrics server process the parent
 * starts with argv[1] NSL_JAIL_ARGV1. It shuts itself in, then serves
 * (src/4-sink/http.c) what it asks the parent for over its channel.
 */
#ifndef NSL_JAILCHILD_H
#define NSL_JAILCHILD_H

/* The child's life, after the exec: serves until the parent goes. Never returns. */
int nsl_jail_child_main(int argc, char **argv);

#endif /* NSL_JAILCHILD_H */
