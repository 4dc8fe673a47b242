/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libmicrohttpd is loaded when serving starts, not linked: it pulls in
 * GnuTLS and its chain (nettle, hogweed, gmp, p11-kit, tasn1, idn2,
 * unistring), 2.5 MiB resident in every run, --listen or not, whose
 * constructors would run as root at exec. Loaded by nsl_mhd_load(), from
 * nsl_http_serve(), in the jailed server process alone
 * (src/4-sink/jailchild.c): after the privilege drop.
 * Debian bookworm's soname; the header it is built against gives the types.
 */
#ifndef NSL_MHD_H
#define NSL_MHD_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

#define NSL_MHD_SONAME "libmicrohttpd.so.12"
/* the functions http.c and answers.c call, each a pointer in struct nsl_mhd */
#define MHD_FUNCS(X) X(start_daemon) X(stop_daemon) X(run) X(get_timeout)	\
	X(get_daemon_info) X(get_connection_info) X(lookup_connection_value)	\
	X(create_response_from_buffer) X(add_response_header) X(queue_response)	\
	X(create_response_from_buffer_with_free_callback_cls) X(destroy_response)	\
	X(create_response_from_callback)
#define MHD_FN_PTR(name) __typeof__(MHD_##name) *name;
struct nsl_mhd {
	MHD_FUNCS(MHD_FN_PTR)
};
#undef MHD_FN_PTR

/* Filled by nsl_mhd_load(): NULL pointers before. */
extern struct nsl_mhd nsl_mhd;

/* Loads the library once (later calls do nothing). 0 or a negative errno. */
int nsl_mhd_load(void);

#endif /* NSL_MHD_H */
