// SPDX-License-Identifier: MIT
/*
 * event.c - the timeline container and the public vocabularies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nt/model/event.h"

int nt_timeline_append(struct nt_timeline *tl, const struct nt_event *ev)
{
	if (tl->n == tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : 256;
		struct nt_event *p = reallocarray(tl->ev, cap, sizeof(*p));

		if (!p)
			return -ENOMEM;
		tl->ev = p;
		tl->cap = cap;
	}

	/* Insertion from the end: a late capture delivery moves back a few slots at most. */
	size_t i = tl->n;
	while (i > 0 && tl->ev[i - 1].t_ns > ev->t_ns)
		i--;
	memmove(&tl->ev[i + 1], &tl->ev[i], (tl->n - i) * sizeof(*ev));
	tl->ev[i] = *ev;
	tl->n++;
	return 0;
}

void nt_timeline_fini(struct nt_timeline *tl)
{
	free(tl->ev);
	tl->ev = NULL;
	tl->n = tl->cap = 0;
}

const char *nt_role_name(enum nt_role role)
{
	switch (role) {
	case NT_ROLE_SYN:
		return "syn";
	case NT_ROLE_SYN_ACK:
		return "syn-ack";
	case NT_ROLE_HANDSHAKE_ACK:
		return "handshake-ack";
	case NT_ROLE_HEADER:
		return "header";
	case NT_ROLE_BODY:
		return "body";
	case NT_ROLE_REQUEST:
		return "request";
	case NT_ROLE_REPLY:
		return "reply";
	case NT_ROLE_PURE_ACK:
		return "pure-ack";
	case NT_ROLE_DATA:
		return "data";
	case NT_ROLE_FIN:
		return "fin";
	case NT_ROLE_RST:
		return "rst";
	case NT_ROLE_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *nt_call_name(enum nt_call call)
{
	switch (call) {
	case NT_CALL_WRITE_HEADER:
		return "write-header";
	case NT_CALL_WRITE_BODY:
		return "write-body";
	case NT_CALL_WRITE_REQUEST:
		return "write-request";
	case NT_CALL_READ_REPLY:
		return "read-reply";
	case NT_CALL_READ_REQUEST:
		return "read-request";
	case NT_CALL_WRITE_REPLY:
		return "write-reply";
	}
	return "unknown";
}

const char *nt_dir_name(enum nt_dir dir)
{
	return dir == NT_DIR_C2T ? "c2t" : "t2c";
}
