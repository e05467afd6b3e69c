// SPDX-License-Identifier: MIT
/*
 * spool.c - a document's temporary file (see nt/render/spool.h).
 */
#include <errno.h>

#include "nt/render/escape.h"
#include "nt/render/spool.h"

FILE *nt_spool_new(void)
{
	return tmpfile();
}

int nt_spool_copy(FILE *spool, long from, long to, FILE *out, bool xml_escape)
{
	char buf[8192];
	long left;

	errno = 0;
	/* The spool's own failed write (EFBIG past `ulimit -f`, ENOSPC), when errno says it. */
	if (fflush(spool) == EOF)
		return errno ? -errno : -EIO;
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
