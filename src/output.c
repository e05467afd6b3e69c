// SPDX-License-Identifier: MIT
/*
 * output.c - complete-or-absent report files (see nt/output.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt/output.h"

int nt_output_open(struct nt_output *out, const char *path, struct nt_err *err)
{
	mode_t mask;
	int fd;

	memset(out, 0, sizeof(*out));
	out->path = path;
	if (!path) {
		out->fp = stdout;
		return 0;
	}
	if (asprintf(&out->tmp_path, "%s.XXXXXX", path) < 0) {
		out->tmp_path = NULL;
		return nt_err_set(err, -ENOMEM, "write \"%s\"", path);
	}
	fd = mkstemp(out->tmp_path);
	if (fd < 0) {
		int e = -errno;

		free(out->tmp_path);
		out->tmp_path = NULL;
		return nt_err_set(err, e, "write \"%s\"", path);
	}
	/* mkstemp() makes the file 0600; a report is an ordinary file: 0666 & ~umask. */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	out->fp = fdopen(fd, "w");
	if (!out->fp) {
		int e = -errno;

		close(fd);
		nt_output_abort(out);
		return nt_err_set(err, e, "write \"%s\"", path);
	}
	return 0;
}

int nt_output_open_spooled(struct nt_output *out, const char *path, struct nt_err *err)
{
	FILE *spool;
	int ret = nt_output_open(out, path, err);

	if (ret < 0 || path)
		return ret;
	spool = tmpfile();
	if (spool) {
		out->fp = spool;
		out->spooled = true;
	}
	return 0;
}

/* Copies the spool to standard output: 0 or a negative errno (-EPIPE when the reader left). */
static int copy_spool(FILE *spool)
{
	char buf[65536];
	size_t n;

	if (fflush(spool) == EOF || fseek(spool, 0, SEEK_SET) < 0)
		return -errno ? -errno : -EIO;
	while ((n = fread(buf, 1, sizeof(buf), spool)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			return -errno ? -errno : -EIO;
	if (ferror(spool))
		return -EIO;
	return fflush(stdout) == EOF ? (-errno ? -errno : -EIO) : 0;
}

int nt_output_commit(struct nt_output *out, struct nt_err *err)
{
	const char *name = out->path ? out->path : "standard output";
	int ret = 0;

	if (!out->fp)
		return 0;
	if (out->spooled) {
		ret = copy_spool(out->fp);
		fclose(out->fp);
		out->fp = NULL;
		out->spooled = false;
		return ret ? nt_err_set(err, ret, "write %s", name) : 0;
	}
	if (fflush(out->fp) == EOF || ferror(out->fp))
		ret = -errno ? -errno : -EIO;
	if (out->path) {
		if (fclose(out->fp) == EOF && !ret)
			ret = -errno;
		out->fp = NULL;
		if (!ret && rename(out->tmp_path, out->path) < 0)
			ret = -errno;
		if (ret) {
			nt_output_abort(out);
			return nt_err_set(err, ret, "write \"%s\"", name);
		}
		free(out->tmp_path);
		out->tmp_path = NULL;
		return 0;
	}
	out->fp = NULL;
	if (ret)
		return nt_err_set(err, ret, "write %s", name);
	return 0;
}

void nt_output_abort(struct nt_output *out)
{
	if (out->fp && out->fp != stdout)
		fclose(out->fp);
	out->fp = NULL;
	out->spooled = false;
	if (out->tmp_path) {
		unlink(out->tmp_path);
		free(out->tmp_path);
		out->tmp_path = NULL;
	}
}
