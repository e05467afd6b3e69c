// SPDX-License-Identifier: MIT
/*
 * frame.c - the guest's result frames (see nt/vm/guest.h): pure parsing,
 * every length checked against the bytes there are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "nt/vm/guest.h"

static const char begin[] = "NT-FRAME ";
static const char end[] = "NT-END ";

static int header(const char *line, size_t n, struct nt_vm_frame *f, unsigned long *crc)
{
	char text[128], kind[16];
	unsigned long long len;
	int used = 0;

	if (n >= sizeof(text))
		return -EBADMSG;
	memcpy(text, line, n);
	text[n] = '\0';
	if (sscanf(text, "NT-FRAME %15s %u %d %llu %lx%n", kind, &f->index, &f->status, &len, crc,
		   &used) != 5 ||
	    (size_t)used != n)
		return -EBADMSG;
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	f->len = (size_t)len;
	return 0;
}

int nt_vm_frame_next(const char *buf, size_t len, size_t *pos, struct nt_vm_frame *f)
{
	const char *p = buf + *pos, *nl;
	unsigned long crc;
	size_t left = len - *pos;
	int ret;

	memset(f, 0, sizeof(*f));
	if (left >= sizeof(end) - 1 && memcmp(p, end, sizeof(end) - 1) == 0)
		return memchr(p, '\n', left) ? 0 : -ENODATA;
	if (left < sizeof(begin) - 1)
		return -ENODATA;
	if (memcmp(p, begin, sizeof(begin) - 1) != 0)
		return -EBADMSG;
	nl = memchr(p, '\n', left);
	if (!nl)
		return -ENODATA;
	ret = header(p, (size_t)(nl - p), f, &crc);
	if (ret < 0)
		return ret;
	left -= (size_t)(nl + 1 - p);
	if (f->len >= left)
		return -ENODATA;
	f->data = nl + 1;
	if (f->data[f->len] != '\n' || crc32(0, (const Bytef *)f->data, (uInt)f->len) != crc)
		return -EBADMSG;
	*pos = (size_t)(f->data + f->len + 1 - buf);
	return 1;
}
