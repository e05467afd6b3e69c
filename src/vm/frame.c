// SPDX-License-Identifier: MIT
/*
 * frame.c - the guest's result frames (see nt/vm/guest.h): pure parsing,
 * every length checked against the bytes there are.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "nt/vm/guest.h"

static const char begin[] = "NT-FRAME ";
static const char end_marker[] = "NT-END ";

/* One unsigned field and the blank after it (or the line's end for the last). */
static bool field(const char **p, const char *end, int base, unsigned long long *v, bool last)
{
	char *stop;

	if (*p >= end || **p < '0' || (base == 10 && **p > '9'))
		return false;
	errno = 0;
	*v = strtoull(*p, &stop, base);
	if (errno || stop == *p || stop > end || (last ? stop != end : *stop != ' '))
		return false;
	*p = stop + !last;
	return true;
}

/* "NT-FRAME KIND INDEX STATUS LENGTH CRC32": every field checked, nothing after them. */
static int header(const char *line, size_t n, struct nt_vm_frame *f, unsigned long *crc)
{
	const char *p = line + sizeof(begin) - 1, *end = line + n, *sp;
	unsigned long long index, status, len, sum;

	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp || sp == p || (size_t)(sp - p) >= sizeof(f->kind))
		return -EBADMSG;
	memcpy(f->kind, p, (size_t)(sp - p));
	f->kind[sp - p] = '\0';
	p = sp + 1;
	if (!field(&p, end, 10, &index, false) || !field(&p, end, 10, &status, false) ||
	    !field(&p, end, 10, &len, false) || !field(&p, end, 16, &sum, true) ||
	    index > UINT32_MAX || status > 255 || sum > UINT32_MAX)
		return -EBADMSG;
	f->index = (unsigned)index;
	f->status = (int)status;
	f->len = (size_t)len;
	*crc = (unsigned long)sum;
	return 0;
}

int nt_vm_frame_next(const char *buf, size_t len, size_t *pos, struct nt_vm_frame *f)
{
	const char *p = buf + *pos, *nl;
	unsigned long crc;
	size_t left = len - *pos;
	int ret;

	memset(f, 0, sizeof(*f));
	if (left >= sizeof(end_marker) - 1 && memcmp(p, end_marker, sizeof(end_marker) - 1) == 0)
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
