// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

int nsl_state_open(const char *path, struct stat *st)
{
	char full[4096];
	int fd;

	if (nsl_state_path(full, path))
		return -1;
	fd = open(full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_uid != 0 ||
	    (st->st_mode & (S_IWGRP | S_IWOTH)) || st->st_size > NSL_STATE_MAX) {
		close(fd);
		return -1;
	}
	return fd;
}

char *nsl_state_read(int fd, const struct stat *st)
{
	/* zeroed: a short read leaves no byte undefined for a comparison */
	char *buf = calloc(1, (size_t)st->st_size + 1);
	size_t got = 0;

	while (buf && got < (size_t)st->st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st->st_size - got);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)r;
	}
	return buf;
}

bool nsl_state_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * A file's timestamps are the kernel's coarse clock at the write
 * (current_time(): a jiffy, up to 10 ms, where the file system has no
 * fine-grained timestamps), and its inode number may be reused at once
 * (ext4 hands a freed inode to the next file): two writes in one jiffy
 * that leave the size, or a rename over the file by one that got its
 * freed inode, leave it the same identity. A file changed less than this
 * before it was read is "racy" (git's word for it): its identity is not
 * trusted alone. Its ctime, not its mtime: no call sets that.
 */
#define RACY_NS 1000000000LL

bool nsl_state_racy(const struct stat *st)
{
	struct timespec now;
	long long changed = (long long)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec;

	clock_gettime(CLOCK_REALTIME, &now);
	return (long long)now.tv_sec * 1000000000LL + now.tv_nsec - changed < RACY_NS;
}

char *nsl_state_text(const char *path)
{
	struct stat st;
	int fd = nsl_state_open(path, &st);
	char *text;

	if (fd < 0)
		return NULL;
	text = nsl_state_read(fd, &st);
	close(fd);
	return text;
}

/*
 * The parse cache (statefile.h): the files parsed last, by path, each with
 * the identity it had when read and its parse tree; a racy one (above)
 * also with the bytes it had, which a later read must match. Used by one
 * thread of a process (the namer's, or the tool's tick): no lock.
 */
struct cached {
	char *path;		/* NULL: a free slot */
	struct stat st;		/* st_dev, st_ino, st_size, st_mtim, st_ctim */
	json_object *obj;
	char *text;		/* racy: what was parsed; else NULL */
	uint64_t used;		/* the clock below when last used */
};

static struct cached cache[NSL_STATE_CACHE_FILES];
static size_t cache_bytes;	/* the sizes of the files cached, summed */
static uint64_t cache_clock;

static void drop(struct cached *e)
{
	cache_bytes -= e->path ? (size_t)e->st.st_size : 0;
	free(e->path);
	free(e->text);
	json_object_put(e->obj);
	memset(e, 0, sizeof(*e));
}

/* The least recently used entry, or NULL (none). */
static struct cached *oldest(void)
{
	struct cached *best = NULL;

	for (size_t i = 0; i < NSL_STATE_CACHE_FILES; i++)
		if (cache[i].path && (!best || cache[i].used < best->used))
			best = &cache[i];
	return best;
}

/* obj (parsed from text, which it takes) kept for path, older ones making room. */
static void keep(const char *path, const struct stat *st, json_object *obj, char *text)
{
	struct cached *e = NULL, *old;

	for (size_t i = 0; i < NSL_STATE_CACHE_FILES; i++)
		if (cache[i].path && !strcmp(cache[i].path, path))
			drop(&cache[i]);
	while (cache_bytes + (size_t)st->st_size > NSL_STATE_CACHE_BYTES && (old = oldest()))
		drop(old);
	for (size_t i = 0; i < NSL_STATE_CACHE_FILES && !e; i++)
		if (!cache[i].path)
			e = &cache[i];
	if (!e)
		drop(e = oldest());
	if (!(e->path = strdup(path))) {
		free(text);
		return;
	}
	e->st = *st;
	e->obj = json_object_get(obj);
	e->text = nsl_state_racy(st) ? text : (free(text), NULL);
	e->used = ++cache_clock;
	cache_bytes += (size_t)st->st_size;
}

json_object *nsl_state_json(const char *path)
{
	struct cached *e = NULL;
	json_object *o = NULL;
	struct stat st;
	char full[4096];
	char *text;
	int fd;

	if (nsl_state_path(full, path) || (fd = nsl_state_open(path, &st)) < 0)
		return NULL;
	if (st.st_size >= NSL_STATE_CACHE_MIN)
		for (size_t i = 0; i < NSL_STATE_CACHE_FILES && !e; i++)
			if (cache[i].path && !strcmp(cache[i].path, full) &&
			    nsl_state_same(&cache[i].st, &st))
				e = &cache[i];
	if (e && !e->text) {
		close(fd);
		e->used = ++cache_clock;
		return json_object_get(e->obj);
	}
	text = nsl_state_read(fd, &st);
	close(fd);
	if (e && text && !memcmp(text, e->text, (size_t)st.st_size + 1)) {
		/* racy, and unchanged; once no longer racy, the identity is enough */
		if (!nsl_state_racy(&st)) {
			free(e->text);
			e->text = NULL;
		}
		free(text);
		e->used = ++cache_clock;
		return json_object_get(e->obj);
	}
	o = text ? json_tokener_parse(text) : NULL;
	if (o && st.st_size >= NSL_STATE_CACHE_MIN)
		keep(full, &st, o, text);
	else
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
