// SPDX-License-Identifier: MIT
/*
 * json_out.c - building and writing JSON documents (see nt/render/json.h).
 */
#include <errno.h>
#include <json-c/printbuf.h>
#include <string.h>

#include "nt/model/predict_words.h"
#include "nt/render/fmt.h"
#include "nt/render/json.h"
#include "nt/version.h"
#include "out_buf.h"

struct json_object *nt_json_put(bool *oom, struct json_object *o, const char *key,
				struct json_object *v)
{
	if (!o || !v ||
	    json_object_object_add_ex(
		    o, key, v, JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT) < 0) {
		json_object_put(v);
		*oom = true;
		return NULL;
	}
	return v;
}

void nt_json_put_null(bool *oom, struct json_object *o, const char *key)
{
	if (!o ||
	    json_object_object_add_ex(
		    o, key, NULL, JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT) < 0)
		*oom = true;
}

void nt_json_put_i64(bool *oom, struct json_object *o, const char *key, int64_t v, bool is_set)
{
	if (is_set)
		nt_json_put(oom, o, key, json_object_new_int64(v));
	else
		nt_json_put_null(oom, o, key);
}

void nt_json_put_str(bool *oom, struct json_object *o, const char *key, const char *v)
{
	if (v)
		nt_json_put(oom, o, key, json_object_new_string(v));
	else
		nt_json_put_null(oom, o, key);
}

void nt_json_merge(bool *oom, struct json_object *o, struct json_object *src)
{
	if (!o || !src) {
		*oom = true;
		return;
	}
	json_object_object_foreach(src, key, val)
	{
		/* Keys copied: @src may go before @o is written. */
		if (json_object_object_add(o, key, json_object_get(val)) < 0) {
			json_object_put(val);
			*oom = true;
		}
	}
}

void nt_json_append(bool *oom, struct json_object *a, struct json_object *v)
{
	if (!a || !v || json_object_array_add(a, v) < 0) {
		json_object_put(v);
		*oom = true;
	}
}

const char *nt_json_library_version(void)
{
	return json_c_version();
}

struct json_object *nt_json_u64(uint64_t v)
{
	return json_object_new_int64(nt_json_clamp_u64(v));
}

/*
 * json-c prints an integer with snprintf("%" PRId64): with the rest of its
 * stdio path, a tenth of a large analyze --format json (docs/performance.md).
 * The digits are the same.
 */
char *nt_json_int64_digits(int64_t v, char *end)
{
	/* Negated as unsigned: INT64_MIN has no positive int64_t counterpart. */
	char *p = nt_fmt_u64_back(v < 0 ? -(uint64_t)v : (uint64_t)v, end);

	if (v < 0)
		*--p = '-';
	return p;
}

static int int64_to_json(struct json_object *o, struct printbuf *pb, int level, int flags)
{
	char buf[NT_JSON_INT64_CHARS];
	char *end = buf + sizeof(buf);
	char *p = nt_json_int64_digits(json_object_get_int64(o), end);

	(void)level;
	(void)flags;
	return printbuf_memappend(pb, p, (int)(end - p));
}

void nt_json_int64_speed_up(struct json_object *o)
{
	json_object_set_serializer(o, int64_to_json, NULL, NULL);
}

struct json_object *nt_json_int64_fast(int64_t v)
{
	struct json_object *o = json_object_new_int64(v);

	if (o)
		nt_json_int64_speed_up(o);
	return o;
}

struct json_object *nt_json_tool(bool *oom, const char *command)
{
	struct json_object *tool = json_object_new_object();

	nt_json_put(oom, tool, "name", json_object_new_string("nagle-trace"));
	nt_json_put(oom, tool, "version", json_object_new_string(NT_VERSION));
	if (command)
		nt_json_put(oom, tool, "command", json_object_new_string(command));
	if (!tool)
		*oom = true;
	return tool;
}

/*
 * Writes @n bytes of @text, each line after the first indented by @depth
 * levels. The indented text is laid out in a buffer and written a buffer at a
 * time: one fwrite() per line and one per indentation cost a sixth of a large
 * analyze --format json (docs/performance.md). The buffer is on the stack, so
 * threads rendering at once (nt/render/chunks.h) share nothing.
 */
static bool write_indented(FILE *out, const char *text, size_t n, int depth)
{
	static const char spaces[] = "                                                ";
	struct out_buf b;
	size_t indent = (size_t)depth * 2;

	out_buf_init(&b, out);
	while (n) {
		const char *nl = memchr(text, '\n', n);
		size_t line = nl ? (size_t)(nl - text) + 1 : n;

		if (!out_buf_add(&b, text, line))
			return false;
		text += line;
		n -= line;
		for (size_t left = nl ? indent : 0; left;) {
			size_t k = left < sizeof(spaces) - 1 ? left : sizeof(spaces) - 1;

			if (!out_buf_add(&b, spaces, k))
				return false;
			left -= k;
		}
	}
	return out_buf_flush(&b);
}

/* A failed stdio write: its own reason (EFBIG, ENOSPC, EPIPE) while errno still holds it. */
static int write_failed(void)
{
	return errno ? -errno : -EIO;
}

int nt_json_write(FILE *out, struct json_object *o, int depth)
{
	size_t n;
	const char *text = json_object_to_json_string_length(o, NT_JSON_FLAGS, &n);

	if (!text)
		return -ENOMEM;
	return write_indented(out, text, n, depth) ? 0 : write_failed();
}

int nt_json_line(FILE *out, struct json_object *o)
{
	size_t n;
	const char *text = json_object_to_json_string_length(o, NT_JSON_LINE_FLAGS, &n);

	if (!text)
		return -ENOMEM;
	if (fwrite(text, 1, n, out) != n)
		return write_failed();
	return nt_json_line_end(out);
}

int nt_json_line_end(FILE *out)
{
	return nt_json_record_end(out) < 0 || fflush(out) == EOF ? write_failed() : 0;
}

int nt_json_record_end(FILE *out)
{
	return fputc('\n', out) == EOF ? write_failed() : 0;
}

int nt_json_member(FILE *out, const char *key, struct json_object *o, int depth, bool more)
{
	int ret;

	fprintf(out, "%*s\"%s\": ", depth * 2, "", key);
	ret = nt_json_write(out, o, depth);
	json_object_put(o);
	if (ret == 0 && fputs(more ? ",\n" : "\n", out) == EOF)
		ret = write_failed();
	return ret;
}

struct json_object *nt_json_why(bool *oom, const struct nt_predict_why *w)
{
	struct nt_predict_words words;
	struct json_object *o;

	if (w->rule == NT_RULE_NONE)
		return NULL;
	o = json_object_new_object();
	nt_json_put(oom, o, "rule", json_object_new_string(nt_predict_rule_name(w->rule)));
	nt_json_put(oom, o, "text", json_object_new_string(nt_predict_words(w, &words)));
	return o;
}

void nt_json_put_why(bool *oom, struct json_object *o, const char *key,
		     const struct nt_predict_why *w)
{
	if (w->rule == NT_RULE_NONE)
		nt_json_put_null(oom, o, key);
	else
		nt_json_put(oom, o, key, nt_json_why(oom, w));
}
