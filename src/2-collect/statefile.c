// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "statefile.h"

bool nsl_is_id(const char *s, size_t n)
{
	if (n != NSL_CONTAINER_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

int nsl_state_path(char full[4096], const char *path)
{
	const char *root = getenv("NSL_TEST_STATE_ROOT");

	return (size_t)snprintf(full, 4096, "%s%s", root ? root : "", path) < 4096 ? 0 : -1;
}

/*
 * The contents of a state file (NUL-terminated), or NULL: absent, a link,
 * not a regular file root owns and only root may write, or too large.
 */
static char *read_state(const char *path)
{
	char full[4096];
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd;

	if (nsl_state_path(full, path))
		return NULL;
	fd = open(full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size > NSL_STATE_MAX ||
	    !(buf = malloc((size_t)st.st_size + 1)))
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)r;
	}
	buf[got] = '\0';
out:
	close(fd);
	return buf;
}

char *nsl_state_text(const char *path)
{
	return read_state(path);
}

json_object *nsl_state_json(const char *path)
{
	char *text = read_state(path);
	json_object *o = text ? json_tokener_parse(text) : NULL;

	free(text);
	return o;
}

uint64_t nsl_pinned_netns(const char *path)
{
	struct stat self, st;

	if (!path || (strncmp(path, "/run/netns/", 11) != 0 &&
		      strncmp(path, "/var/run/netns/", 15) != 0) ||
	    strstr(path, "/..") || stat("/proc/self/ns/net", &self) || lstat(path, &st) ||
	    st.st_dev != self.st_dev)
		return 0;
	return (uint64_t)st.st_ino;
}

char *nsl_str_of(json_object *obj, const char *key)
{
	json_object *v;
	const char *s;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	return *s ? strndup(s, NSL_NAME_MAX) : NULL;
}
