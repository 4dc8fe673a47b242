/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tool's version: debian/changelog's (test_package checks that the
 * installed binary says the package's), in --version and build_info.
 */
#ifndef NSL_VERSION_H
#define NSL_VERSION_H

#define NSL_VERSION "0.1.0"

#endif
