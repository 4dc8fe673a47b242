/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A container's names as the namer sends them to the tool (namer.c):
 * their wire format, and what the tool takes as a name. The namer reads
 * what tenants wrote, as root; the tool takes nothing from it that is not
 * a name as its runtime or Kubernetes would have it: an answer that says
 * otherwise names nothing (never a part of it), so that a namer gone
 * wrong can put no bytes of its choosing into a report or a label.
 */
#ifndef NSL_NAMES_H
#define NSL_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "report.h"

/* The longest answer: five names of at most 253 bytes, and the rest */
#define NSL_ANSWER_MAX 2048

/*
 * c (or none: NULL) as the answer to question seq, into a
 * (NSL_ANSWER_MAX bytes); its length
 */
size_t nsl_answer_encode(const struct nsl_container *c, uint32_t seq, unsigned char *a);

/*
 * An answer of len bytes: 0 and *seq, *c (NULL for none; the caller frees
 * it), or -EBADMSG where it is not one (*c NULL). Its names are taken as
 * they are: nsl_names_invalid() judges them.
 */
int nsl_answer_decode(const unsigned char *a, size_t len, uint32_t *seq,
		      struct nsl_container **c);

/*
 * NULL where every name of c is one its runtime or Kubernetes allows,
 * else the first that is not ("id", "pod_uid", ...):
 *   id             none, or 64 lowercase hex digits
 *   pod_uid        a UUID (8-4-4-4-12 lowercase hex), or 32 lowercase hex
 *                  digits (a static pod's: kubelet hashes its manifest)
 *   pod            a DNS-1123 subdomain (at most 253 bytes)
 *   pod_namespace  a DNS-1123 label (at most 63)
 *   container      a DNS-1123 label (at most 63)
 *   name           docker's and podman's [a-zA-Z0-9][a-zA-Z0-9_.-]*, at
 *                  most 253 bytes
 */
const char *nsl_names_invalid(const struct nsl_container *c);

#endif /* NSL_NAMES_H */
