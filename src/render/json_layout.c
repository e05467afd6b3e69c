// SPDX-License-Identifier: MIT
/*
 * json_layout.c - json-c's text of a tree cut at its values (see
 * nt/render/json_layout.h).
 *
 * The mark is a NUL byte: json-c writes none of its own (a NUL inside a
 * string is escaped as \u0000; keys are C strings), so every NUL in the
 * marked text is a value's place, in the order json-c printed the values.
 * That order is the walk's below: json-c prints an object's members in the
 * order they were added, as json_object_object_foreach() visits them, and an
 * array's elements by index.
 */
#include <errno.h>
#include <json-c/printbuf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nt/render/json.h"
#include "nt/render/json_layout.h"
#include "out_buf.h"

/**
 * struct cut - one value's place
 * @v: the value (a reference)
 * @type: its type, looked up once
 * @before: bytes of layout text before it, since the previous value
 */
struct cut {
	struct json_object *v;
	enum json_type type;
	size_t before;
};

/**
 * struct nt_json_layout - a tree's text, cut
 * @flags: the json-c flags it was printed with
 * @depth: the level it was indented at
 * @n: values
 * @cut: each value's place, in print order
 * @tail: bytes of text after the last value
 * @text: the text between the values, indented, without the values
 */
struct nt_json_layout {
	int flags, depth;
	size_t n;
	struct cut *cut;
	size_t tail;
	char *text;
};

/**
 * struct values - the tree's values, gathered in print order
 * @v: them
 * @n: how many
 * @cap: slots in @v
 */
struct values {
	struct json_object **v;
	size_t n, cap;
};

static int values_add(struct values *vs, struct json_object *v)
{
	if (vs->n == vs->cap) {
		size_t cap = vs->cap ? vs->cap * 2 : 64;
		struct json_object **p = realloc(vs->v, cap * sizeof(struct json_object *));

		if (!p)
			return -ENOMEM;
		vs->v = p;
		vs->cap = cap;
	}
	vs->v[vs->n++] = v;
	return 0;
}

static int gather(struct json_object *o, struct values *vs);

static int gather_members(struct json_object *o, struct values *vs)
{
	json_object_object_foreach(o, key, val)
	{
		(void)key;
		/* A null member is "null" in the text itself. */
		if (val && gather(val, vs) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int gather(struct json_object *o, struct values *vs)
{
	switch (json_object_get_type(o)) {
	case json_type_object:
		return gather_members(o, vs);
	case json_type_array:
		for (size_t i = 0, n = json_object_array_length(o); i < n; i++) {
			struct json_object *e = json_object_array_get_idx(o, i);

			if (e && gather(e, vs) < 0)
				return -ENOMEM;
		}
		return 0;
	case json_type_null:
		return 0;
	default:
		return values_add(vs, o);
	}
}

static int print_mark(struct json_object *o, struct printbuf *pb, int level, int flags)
{
	(void)o;
	(void)level;
	(void)flags;
	return printbuf_memappend(pb, "", 1);
}

/* Each value prints itself as json-c does again (an integer through nt_json_int64_fast()'s digits). */
static void unmark(struct values *vs)
{
	for (size_t i = 0; i < vs->n; i++) {
		if (json_object_get_type(vs->v[i]) == json_type_int)
			nt_json_int64_speed_up(vs->v[i]);
		else
			json_object_set_serializer(vs->v[i], NULL, NULL, NULL);
	}
}

/* Cuts @marked (json-c's text with a NUL per value) into @l, indenting each line at @l->depth. */
static int cut_text(struct nt_json_layout *l, const char *marked, size_t len, struct values *vs)
{
	size_t indent = (size_t)l->depth * 2, lines = 0, k = 0;
	char *p;

	for (size_t i = 0; i < len; i++)
		lines += marked[i] == '\n';
	l->text = malloc(len + lines * indent + 1);
	l->cut = calloc(vs->n ? vs->n : 1, sizeof(*l->cut));
	if (!l->text || !l->cut)
		return -ENOMEM;
	p = l->text;
	l->tail = 0;
	for (size_t i = 0; i < len; i++) {
		if (marked[i] == '\0') {
			if (k == vs->n)
				return -EINVAL;
			l->cut[k].v = json_object_get(vs->v[k]);
			l->cut[k].type = json_object_get_type(vs->v[k]);
			l->cut[k].before = l->tail;
			l->tail = 0;
			l->n = ++k;
			continue;
		}
		*p++ = marked[i];
		l->tail++;
		if (marked[i] == '\n') {
			memset(p, ' ', indent);
			p += indent;
			l->tail += indent;
		}
	}
	return k == vs->n ? 0 : -EINVAL;
}

struct nt_json_layout *nt_json_layout_new(struct json_object *tree, int flags, int depth)
{
	struct nt_json_layout *l = calloc(1, sizeof(*l));
	struct values vs = { 0 };
	const char *marked;
	size_t len;
	int ret;

	if (!l || gather(tree, &vs) < 0) {
		free(vs.v);
		free(l);
		return NULL;
	}
	l->flags = flags;
	l->depth = depth;
	for (size_t i = 0; i < vs.n; i++)
		json_object_set_serializer(vs.v[i], print_mark, NULL, NULL);
	marked = json_object_to_json_string_length(tree, flags, &len);
	ret = marked ? cut_text(l, marked, len, &vs) : -ENOMEM;
	unmark(&vs);
	free(vs.v);
	if (ret < 0) {
		nt_json_layout_free(l);
		return NULL;
	}
	return l;
}

bool nt_json_layout_fits(const struct nt_json_layout *l, int flags, int depth)
{
	return l->flags == flags && l->depth == depth;
}

/*
 * A string json-c prints as it is, between quotes: printable ASCII but the
 * quote, the backslash and (unless the flags say not to) the slash, which
 * json-c escapes. Anything else is left to json-c.
 */
static bool plain_string(const char *s, size_t n, int flags)
{
	bool slash_ok = flags & JSON_C_TO_STRING_NOSLASHESCAPE;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\' || (c == '/' && !slash_ok))
			return false;
	}
	return true;
}

static bool write_json_c(struct out_buf *b, struct json_object *v, int flags)
{
	size_t n;
	const char *s = json_object_to_json_string_length(v, flags, &n);

	return s && out_buf_add(b, s, n);
}

static bool write_int(struct out_buf *b, int64_t v)
{
	char digits[NT_JSON_INT64_CHARS];
	char *end = digits + sizeof(digits);
	char *p = nt_json_int64_digits(v, end);

	return out_buf_add(b, p, (size_t)(end - p));
}

/* @s between quotes, or json-c's text of @v (made from @s when NULL) where it escapes. */
static bool write_string(struct out_buf *b, const char *s, size_t n, struct json_object *v,
			 int flags)
{
	bool ok;

	if (plain_string(s, n, flags))
		return out_buf_add(b, "\"", 1) && out_buf_add(b, s, n) && out_buf_add(b, "\"", 1);
	if (v)
		return write_json_c(b, v, flags);
	v = json_object_new_string_len(s, (int)n);
	ok = v && write_json_c(b, v, flags);
	json_object_put(v);
	return ok;
}

static bool write_value(struct out_buf *b, const struct cut *c, int flags)
{
	switch (c->type) {
	case json_type_int:
		return write_int(b, json_object_get_int64(c->v));
	case json_type_boolean:
		return json_object_get_boolean(c->v) ? out_buf_add(b, "true", 4)
						     : out_buf_add(b, "false", 5);
	case json_type_string:
		return write_string(b, json_object_get_string(c->v),
				    (size_t)json_object_get_string_len(c->v), c->v, flags);
	default:
		return write_json_c(b, c->v, flags);
	}
}

/*
 * The layout's text with value @i written by @put in its place. Inlined into
 * each caller with its @put, so the walk is written once and neither caller
 * pays a call through a pointer a value (half a million stalls at 10,000
 * flows, 14 values each).
 */
static inline __attribute__((always_inline)) bool
walk(const struct nt_json_layout *l, struct out_buf *b,
     bool (*put)(struct out_buf *b, const struct nt_json_layout *l, size_t i, const void *ctx),
     const void *ctx)
{
	const char *text = l->text;

	for (size_t i = 0; i < l->n; i++) {
		size_t before = l->cut[i].before;

		if (!out_buf_add(b, text, before) || !put(b, l, i, ctx))
			return false;
		text += before;
	}
	return out_buf_add(b, text, l->tail);
}

/* The tree's own value @i, as json-c holds it. */
static bool put_tree_value(struct out_buf *b, const struct nt_json_layout *l, size_t i,
			   const void *ctx)
{
	(void)ctx;
	return write_value(b, &l->cut[i], l->flags);
}

bool nt_json_layout_put(const struct nt_json_layout *l, struct out_buf *b)
{
	return walk(l, b, put_tree_value, NULL);
}

bool nt_json_layout_takes(const struct nt_json_layout *l, const struct nt_json_value *v, size_t n)
{
	if (n != l->n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (l->cut[i].type != (v[i].s ? json_type_string : json_type_int))
			return false;
	return true;
}

/* Value @i of the caller's (@ctx), checked by nt_json_layout_takes() to be of the place's type. */
static bool put_given_value(struct out_buf *b, const struct nt_json_layout *l, size_t i,
			    const void *ctx)
{
	const struct nt_json_value *v = (const struct nt_json_value *)ctx + i;

	return v->s ? write_string(b, v->s, strlen(v->s), NULL, l->flags) : write_int(b, v->i);
}

bool nt_json_layout_put_values(const struct nt_json_layout *l, struct out_buf *b,
			       const struct nt_json_value *v)
{
	return walk(l, b, put_given_value, v);
}

int nt_json_layout_write(const struct nt_json_layout *l, FILE *out)
{
	struct out_buf b;

	out_buf_init(&b, out);
	return nt_json_layout_put(l, &b) && out_buf_flush(&b) ? 0 : out_buf_failed(out);
}

int nt_json_layout_write_values(const struct nt_json_layout *l, FILE *out,
				const struct nt_json_value *v)
{
	struct out_buf b;

	out_buf_init(&b, out);
	return nt_json_layout_put_values(l, &b, v) && out_buf_flush(&b) ? 0 : out_buf_failed(out);
}

void nt_json_layout_free(struct nt_json_layout *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		json_object_put(l->cut[i].v);
	free(l->cut);
	free(l->text);
	free(l);
}
