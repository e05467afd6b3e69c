// SPDX-License-Identifier: MIT
/*
 * rundirs.c - the directories under /run that a booted system has for its
 * packages (see nt/live/rundirs.h).
 *
 * Hand-written because no library reads these files: libsystemd exports
 * neither its tmpfiles.d nor its unit file parser, and only the few
 * directory-making lines matter here. The readers are deliberately narrow:
 * a line they do not recognise is skipped, never guessed at.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/live/rundirs.h"

/* systemd-tmpfiles' and systemd's search paths, in their order of precedence. */
static const char *const tmpfiles_dirs[] = { "/etc/tmpfiles.d", "/run/tmpfiles.d",
					     "/usr/local/lib/tmpfiles.d", "/usr/lib/tmpfiles.d",
					     "/lib/tmpfiles.d" };
static const char *const unit_dirs[] = { "/etc/systemd/system", "/run/systemd/system",
					 "/usr/local/lib/systemd/system", "/usr/lib/systemd/system",
					 "/lib/systemd/system" };

#define N_DIRS(a) (sizeof(a) / sizeof((a)[0]))
/* A file bigger than this is read in part: a unit or tmpfiles.d file is a few KiB. */
#define FILE_MAX     ((size_t)64 * 1024)
#define DEFAULT_MODE 0755U
#define TOKENS_MAX   16

/* @in as a path under /run into @out: /var/run/X is /run/X; false when it is not one. */
static bool run_path(const char *in, size_t n, char out[NT_RUNDIR_PATH_MAX])
{
	if (n >= 9 && !strncmp(in, "/var/run/", 9)) {
		in += 4;
		n -= 4;
	}
	while (n > 5 && in[n - 1] == '/')
		n--;
	if (n <= 5 || strncmp(in, "/run/", 5) != 0 || n >= NT_RUNDIR_PATH_MAX)
		return false;
	if (memchr(in, '%', n) || memchr(in, '"', n))
		return false;
	for (size_t i = 0; i + 1 < n; i++)
		if (in[i] == '.' && in[i + 1] == '.')
			return false;
	memcpy(out, in, n);
	out[n] = '\0';
	return true;
}

static bool copy_name(char out[NT_RUNDIR_NAME_MAX], const char *in)
{
	size_t n = strlen(in);

	if (!strcmp(in, "-"))
		n = 0;
	if (n >= NT_RUNDIR_NAME_MAX)
		return false;
	memcpy(out, in, n);
	out[n] = '\0';
	return true;
}

/* The entry for @path, made (mode 0755, root's) when new; NULL when out of memory. */
static struct nt_rundir *entry(struct nt_rundirs *d, const char *path)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->dir[i].path, path))
			return &d->dir[i];
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 32;
		struct nt_rundir *grown = realloc(d->dir, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		d->dir = grown;
		d->cap = cap;
	}
	d->dir[d->n] = (struct nt_rundir){ .mode = DEFAULT_MODE };
	memcpy(d->dir[d->n].path, path, strlen(path) + 1);
	return &d->dir[d->n++];
}

/* An octal mode, or DEFAULT_MODE for "-", a symbolic mode or nonsense. */
static unsigned parse_mode(const char *s)
{
	char *end;
	unsigned long v;

	while (*s == '~' || *s == ':')
		s++;
	v = strtoul(s, &end, 8);
	return (end == s || *end || v > 07777) ? DEFAULT_MODE : (unsigned)v;
}

/* Splits @line (modified) at blanks into @tok; returns how many. */
static size_t split(char *line, char *tok[TOKENS_MAX])
{
	size_t n = 0;

	for (char *at = line; *at && n < TOKENS_MAX;) {
		while (*at && isspace((unsigned char)*at))
			at++;
		if (!*at)
			break;
		tok[n++] = at;
		while (*at && !isspace((unsigned char)*at))
			at++;
		if (*at)
			*at++ = '\0';
	}
	return n;
}

/* Each line of @text, copied into @buf, to @fn; stops at the first error. */
static int each_line(const char *text, void *ctx, int (*fn)(void *ctx, char *line))
{
	char buf[1024];

	for (const char *at = text; *at;) {
		const char *nl = strchr(at, '\n');
		size_t n = nl ? (size_t)(nl - at) : strlen(at);
		int ret = 0;

		if (n < sizeof(buf)) {
			memcpy(buf, at, n);
			buf[n] = '\0';
			ret = fn(ctx, buf);
		}
		if (ret)
			return ret;
		at += n + (nl ? 1 : 0);
	}
	return 0;
}

/* ---- tmpfiles.d(5) -------------------------------------------------------------------------- */

static int tmpfiles_line(void *ctx, char *line)
{
	struct nt_rundirs *d = ctx;
	char *tok[TOKENS_MAX], path[NT_RUNDIR_PATH_MAX];
	size_t n = split(line, tok);
	struct nt_rundir *e;

	if (n < 2 || !strchr("dDvqQ", tok[0][0]) || !run_path(tok[1], strlen(tok[1]), path))
		return 0;
	/* Type modifiers only after the letter: "d!", "D-", "d=". */
	if (strspn(tok[0] + 1, "!-=~^+") != strlen(tok[0] + 1))
		return 0;
	e = entry(d, path);
	if (!e)
		return -ENOMEM;
	e->mode = n > 2 ? parse_mode(tok[2]) : DEFAULT_MODE;
	if (n <= 3 || !copy_name(e->user, tok[3]))
		e->user[0] = '\0';
	if (n <= 4 || !copy_name(e->group, tok[4]))
		e->group[0] = '\0';
	return 0;
}

int nt_rundirs_parse_tmpfiles(struct nt_rundirs *d, const char *text)
{
	return each_line(text, d, tmpfiles_line);
}

/* ---- service units ------------------------------------------------------------------------- */

struct unit_state {
	struct nt_rundirs *d;
	bool in_service;
	unsigned rt_mode;
	char user[NT_RUNDIR_NAME_MAX];
	char group[NT_RUNDIR_NAME_MAX];
	char runtime[512]; /* RuntimeDirectory='s names, blank-separated */
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* mkdir [-p] [-m MODE | -mMODE | --mode=MODE] PATH... */
static int exec_mkdir(struct nt_rundirs *d, char **tok, size_t n)
{
	unsigned mode = DEFAULT_MODE;
	char path[NT_RUNDIR_PATH_MAX];

	for (size_t i = 1; i < n; i++) {
		const char *t = tok[i];
		struct nt_rundir *e;

		if (!strncmp(t, "--mode=", 7)) {
			mode = parse_mode(t + 7);
		} else if (t[0] == '-' && t[1] != '-' && strchr(t, 'm')) {
			const char *m = strchr(t, 'm');

			mode = m[1] ? parse_mode(m + 1) : (i + 1 < n ? parse_mode(tok[++i]) : mode);
		} else if (t[0] != '-' && run_path(t, strlen(t), path)) {
			e = entry(d, path);
			if (!e)
				return -ENOMEM;
			e->mode = mode;
		}
	}
	return 0;
}

/* chown [-R] USER[:GROUP] PATH... (only paths already made count) */
static int exec_chown(struct nt_rundirs *d, char **tok, size_t n)
{
	const char *owner = NULL;
	char user[NT_RUNDIR_NAME_MAX] = "", group[NT_RUNDIR_NAME_MAX] = "",
	     path[NT_RUNDIR_PATH_MAX];
	bool has_group = false;

	for (size_t i = 1; i < n; i++) {
		if (tok[i][0] == '-')
			continue;
		if (!owner) {
			char *colon = strpbrk(tok[i], ":.");

			owner = tok[i];
			if (colon) {
				*colon = '\0';
				has_group = copy_name(group, colon + 1);
			}
			if (!copy_name(user, owner))
				return 0;
			continue;
		}
		for (size_t j = 0; j < d->n; j++) {
			if (!run_path(tok[i], strlen(tok[i]), path) ||
			    strcmp(d->dir[j].path, path) != 0)
				continue;
			memcpy(d->dir[j].user, user, sizeof(user));
			if (has_group)
				memcpy(d->dir[j].group, group, sizeof(group));
		}
	}
	return 0;
}

static int exec_start_pre(struct unit_state *s, char *value)
{
	char *tok[TOKENS_MAX];
	size_t n;

	/* The prefixes of systemd.service(5)'s command lines: -, @, :, +, !. */
	value += strspn(value, "-@:+!");
	n = split(value, tok);
	if (n == 0)
		return 0;
	if (!strcmp(base_name(tok[0]), "mkdir"))
		return exec_mkdir(s->d, tok, n);
	if (!strcmp(base_name(tok[0]), "chown"))
		return exec_chown(s->d, tok, n);
	return 0;
}

/* "Key = value" into @key and @value (both in @line); false for other lines. */
static bool key_value(char *line, char **key, char **value)
{
	char *eq = strchr(line, '=');
	char *end;

	if (!eq)
		return false;
	*eq = '\0';
	*key = line + strspn(line, " \t");
	for (end = eq; end > *key && isspace((unsigned char)end[-1]); end--)
		end[-1] = '\0';
	*value = eq + 1 + strspn(eq + 1, " \t");
	for (end = *value + strlen(*value); end > *value && isspace((unsigned char)end[-1]);)
		*--end = '\0';
	return true;
}

static int unit_line(void *ctx, char *line)
{
	struct unit_state *s = ctx;
	char *key, *value;
	size_t skip = strspn(line, " \t");

	if (line[skip] == '[') {
		s->in_service = !strncmp(line + skip, "[Service]", 9);
		return 0;
	}
	if (!s->in_service || line[skip] == '#' || line[skip] == ';' ||
	    !key_value(line, &key, &value))
		return 0;
	if (!strcmp(key, "ExecStartPre"))
		return exec_start_pre(s, value);
	if (!strcmp(key, "RuntimeDirectory") && strlen(value) < sizeof(s->runtime))
		memcpy(s->runtime, value, strlen(value) + 1);
	else if (!strcmp(key, "RuntimeDirectoryMode"))
		s->rt_mode = parse_mode(value);
	else if (!strcmp(key, "User") && !copy_name(s->user, value))
		s->user[0] = '\0';
	else if (!strcmp(key, "Group") && !copy_name(s->group, value))
		s->group[0] = '\0';
	return 0;
}

/* RuntimeDirectory=: made as the service starts, owned by User= and Group= (systemd.exec(5)). */
static int unit_runtime_dirs(struct unit_state *s)
{
	char *tok[TOKENS_MAX];
	size_t n = split(s->runtime, tok);

	for (size_t i = 0; i < n; i++) {
		char full[NT_RUNDIR_PATH_MAX], path[NT_RUNDIR_PATH_MAX];
		int len = snprintf(full, sizeof(full), "/run/%s", tok[i]);
		struct nt_rundir *e;

		if (len < 0 || (size_t)len >= sizeof(full) || !run_path(full, (size_t)len, path))
			continue;
		e = entry(s->d, path);
		if (!e)
			return -ENOMEM;
		e->mode = s->rt_mode;
		memcpy(e->user, s->user, sizeof(e->user));
		/* No Group=: the user's own group, which resolving a user-named group gives. */
		memcpy(e->group, s->group[0] ? s->group : s->user, sizeof(e->group));
	}
	return 0;
}

int nt_rundirs_parse_unit(struct nt_rundirs *d, const char *text)
{
	struct unit_state s = { .d = d, .rt_mode = DEFAULT_MODE };
	int ret = each_line(text, &s, unit_line);

	return ret ? ret : unit_runtime_dirs(&s);
}

/* ---- the host's files ---------------------------------------------------------------------- */

/* @dir/@name's text (the first FILE_MAX bytes), or NULL. */
static char *read_text(const char *dir, const char *name)
{
	char path[512];
	int fd, n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	size_t len = 0;
	char *buf;

	if (n < 0 || (size_t)n >= sizeof(path))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(FILE_MAX + 1);
	while (buf && len < FILE_MAX) {
		ssize_t r = read(fd, buf + len, FILE_MAX - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s && !strcmp(name + n - s, suffix);
}

/* Whether @name exists in one of @dirs before @upto (which then hides ours). */
static bool hidden(const char *const *dirs, size_t upto, const char *name)
{
	char path[512];

	for (size_t i = 0; i < upto; i++) {
		int n = snprintf(path, sizeof(path), "%s/%s", dirs[i], name);

		if (n > 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0)
			return true;
	}
	return false;
}

static int read_dirs(struct nt_rundirs *d, const char *const *dirs, size_t n_dirs,
		     const char *suffix, int (*parse)(struct nt_rundirs *, const char *))
{
	for (size_t i = 0; i < n_dirs; i++) {
		DIR *dir = opendir(dirs[i]);
		struct dirent *de;
		int ret = 0;

		while (dir && !ret && (de = readdir(dir))) {
			char *text;

			if (!has_suffix(de->d_name, suffix) || hidden(dirs, i, de->d_name))
				continue;
			text = read_text(dirs[i], de->d_name);
			if (text)
				ret = parse(d, text);
			free(text);
		}
		if (dir)
			closedir(dir);
		if (ret)
			return ret;
	}
	return 0;
}

/* A user's or group's number: digits as they are, a name from the database. */
static bool id_of(const char *name, bool group, unsigned *id)
{
	char *end;
	unsigned long v;

	if (!*name)
		return false;
	v = strtoul(name, &end, 10);
	if (!*end) {
		*id = (unsigned)v;
		return true;
	}
	if (group) {
		struct group *g = getgrnam(name);

		if (g)
			*id = g->gr_gid;
		return g != NULL;
	}
	struct passwd *p = getpwnam(name);

	if (p)
		*id = p->pw_uid;
	return p != NULL;
}

void nt_rundirs_resolve(struct nt_rundirs *d)
{
	for (size_t i = 0; i < d->n; i++) {
		unsigned id = 0;

		d->dir[i].uid = id_of(d->dir[i].user, false, &id) ? id : 0;
		id = 0;
		d->dir[i].gid = id_of(d->dir[i].group, true, &id) ? id : 0;
	}
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct nt_rundir *)a)->path, ((const struct nt_rundir *)b)->path);
}

void nt_rundirs_sort(struct nt_rundirs *d)
{
	if (d->n > 1)
		qsort(d->dir, d->n, sizeof(*d->dir), by_path);
}

int nt_rundirs_collect(struct nt_rundirs *d, struct nt_err *err)
{
	int ret = read_dirs(d, tmpfiles_dirs, N_DIRS(tmpfiles_dirs), ".conf",
			    nt_rundirs_parse_tmpfiles);

	if (!ret)
		ret = read_dirs(d, unit_dirs, N_DIRS(unit_dirs), ".service", nt_rundirs_parse_unit);
	if (ret)
		return nt_err_set(err, ret,
				  "read the directories of the host's packages under /run");
	nt_rundirs_resolve(d);
	nt_rundirs_sort(d);
	return 0;
}

void nt_rundirs_free(struct nt_rundirs *d)
{
	free(d->dir);
	*d = (struct nt_rundirs){ 0 };
}
