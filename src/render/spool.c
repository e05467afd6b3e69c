// SPDX-License-Identifier: MIT
/*
 * spool.c - a document's temporary file (see nt/render/spool.h).
 */
#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "nt/render/escape.h"
#include "nt/render/spool.h"

FILE *nt_spool_new(void)
{
	return tmpfile();
}

/*
 * stdio keeps no errno with a stream's error flag, and glibc drops the
 * buffer it could not write (a second fflush() then succeeds): the write's
 * errno is long gone by the time a renderer looks at ferror(). So the file
 * is asked why: at the file-size limit (RLIMIT_FSIZE: write(2) said EFBIG,
 * SIGXFSZ being ignored), or on a file system with no block left (ENOSPC).
 */
int nt_spool_error(FILE *spool)
{
	struct statvfs fs;
	struct rlimit rl;
	struct stat st;
	int fd;

	if (!ferror(spool))
		return 0;
	fd = fileno(spool);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -EIO;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)st.st_size >= rl.rlim_cur)
		return -EFBIG;
	if (fstatvfs(fd, &fs) == 0 && fs.f_bavail == 0)
		return -ENOSPC;
	return -EIO;
}

int nt_spool_copy(FILE *spool, long from, long to, FILE *out, bool xml_escape)
{
	char buf[8192];
	long left;

	/* The spool's own failed write (EFBIG past `ulimit -f`, ENOSPC), now or before. */
	if (fflush(spool) == EOF || ferror(spool))
		return nt_spool_error(spool);
	if (to < 0) {
		if (fseek(spool, 0, SEEK_END) < 0)
			return -errno;
		to = ftell(spool);
	}
	if (fseek(spool, from, SEEK_SET) < 0)
		return -errno;
	for (left = to - from; left > 0;) {
		size_t want = (size_t)left < sizeof(buf) - 1 ? (size_t)left : sizeof(buf) - 1;
		size_t got = fread(buf, 1, want, spool);

		if (got == 0)
			return -EIO;
		if (xml_escape) {
			buf[got] = '\0';
			/* The spool holds text nagle-trace wrote: no NUL bytes inside. */
			nt_escape_xml(out, buf);
		} else {
			fwrite(buf, 1, got, out);
		}
		left -= (long)got;
	}
	/* Back to the end: the spool may still be written to. */
	return fseek(spool, 0, SEEK_END) < 0 ? -errno : 0;
}
