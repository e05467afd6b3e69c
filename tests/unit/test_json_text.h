/* SPDX-License-Identifier: MIT */
/*
 * test_json_text.h - the reference the JSON writers' tests compare with:
 * json-c's own text of a tree, every line after the first indented by a
 * depth, the slow way (a byte at a time).
 */
#ifndef NT_TEST_JSON_TEXT_H
#define NT_TEST_JSON_TEXT_H

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* json-c's text of @o printed with @flags, lines after the first indented by @depth levels; NULL without memory. */
static inline char *nt_test_json_c_text(struct json_object *o, int flags, int depth)
{
	const char *text = json_object_to_json_string_ext(o, flags);
	char *out = text ? malloc(strlen(text) * (size_t)(depth * 2 + 1) + 1) : NULL, *p = out;

	if (!out)
		return NULL;
	for (; *text; text++) {
		*p++ = *text;
		if (*text == '\n')
			for (int i = 0; i < depth * 2; i++)
				*p++ = ' ';
	}
	*p = '\0';
	return out;
}

#endif
