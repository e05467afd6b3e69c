/* SPDX-License-Identifier: MIT */
/*
 * json_layout.h - json-c's text of a tree, cut at the tree's values, for a
 * tree printed many times with other values.
 *
 * A template tree (the analyze flow: some 150 values) is printed once per
 * flow. json-c walks its objects each time: a call into its print buffer
 * per key, quote, colon, comma and indentation, the keys escaped again, and
 * then nt_json_write() scans the text once more to indent it at its depth.
 * That was most of a large analyze --format json (docs/performance.md).
 *
 * A layout is made by json-c itself: every value of the tree is given a
 * serializer that prints a mark, the tree is printed with the document's
 * flags, and the text is cut at the marks and indented at its depth once.
 * Printing the tree again is then the text between the marks, in order, and
 * each value's own text in between: the very bytes json-c would print, as
 * long as the tree keeps its shape (the same objects under the same keys and
 * in the same arrays; only their values change). The layout cannot see a
 * change of shape: its owner keeps one layout per shape
 * (analysis_json_flow.c).
 */
#ifndef NT_RENDER_JSON_LAYOUT_H
#define NT_RENDER_JSON_LAYOUT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct nt_json_layout;
struct out_buf;

/**
 * nt_json_layout_new() - the layout of @tree as printed now
 * @tree: an object or array; its scalar values (integers, booleans,
 *        doubles, strings) are the places cut. Their serializers are
 *        json-c's own again afterwards, integers nt_json_int64_fast()'s
 *        (which prints the same digits).
 * @flags: json-c's JSON_C_TO_STRING_* flags
 * @depth: each line after the first indented by @depth levels, as
 *         nt_json_write() does
 *
 * The layout holds a reference to each value; the caller keeps @tree's
 * shape while the layout is used.
 *
 * Return: the layout, or NULL without memory.
 */
struct nt_json_layout *nt_json_layout_new(struct json_object *tree, int flags, int depth);

/**
 * nt_json_layout_fits() - is @l the layout of @flags at @depth
 * @l: a layout
 * @flags: as given to nt_json_layout_new()
 * @depth: as given to nt_json_layout_new()
 *
 * Return: true when it was made with those.
 */
bool nt_json_layout_fits(const struct nt_json_layout *l, int flags, int depth);

/**
 * nt_json_layout_write() - print the tree with the values it holds now
 * @l: its layout
 * @out: the stream
 *
 * Return: 0, -ENOMEM (json-c could not print a value) or the write's
 * negative errno (-EIO without one).
 */
int nt_json_layout_write(const struct nt_json_layout *l, FILE *out);

/**
 * nt_json_layout_put() - nt_json_layout_write() into a writer's buffer
 * @l: its layout
 * @b: the buffer (src/render/out_buf.h), flushed by the caller: a writer
 *     of many trees in a row (analyze's "stalls") writes them all through
 *     one buffer instead of one fwrite() each
 *
 * Return: false when a value could not be printed or a flush failed (the
 * stream's ferror() tells which).
 */
bool nt_json_layout_put(const struct nt_json_layout *l, struct out_buf *b);

/**
 * struct nt_json_value - a value for one of a layout's places, given as it
 * is rather than through the tree's json-c object
 * @s: a string's text (a C string), NULL for an integer
 * @i: the integer, when @s is NULL
 */
struct nt_json_value {
	const char *s;
	int64_t i;
};

/**
 * nt_json_layout_takes() - can @v fill @l's places
 * @l: a layout
 * @v: values, in the tree's print order
 * @n: how many
 *
 * Return: true when @l has @n places and each is of @v's type there (an
 * integer where @v has an integer, a string where a string): what
 * nt_json_layout_put_values() needs, checked once for a writer of many.
 */
bool nt_json_layout_takes(const struct nt_json_layout *l, const struct nt_json_value *v, size_t n);

/**
 * nt_json_layout_put_values() - nt_json_layout_put() with other values
 * @l: its layout
 * @b: the buffer, as for nt_json_layout_put()
 * @v: one value a place, in print order, of the types nt_json_layout_takes()
 *     accepted
 *
 * The bytes json-c would print for the tree holding @v's values, without
 * setting them in json-c's objects and reading them back: for a writer of
 * half a million trees of one shape (analyze's "stalls"), the values go
 * straight from its own struct to the text.
 *
 * Return: false when a string could not be escaped (no memory) or a flush
 * failed (the stream's ferror() tells which).
 */
bool nt_json_layout_put_values(const struct nt_json_layout *l, struct out_buf *b,
			       const struct nt_json_value *v);

/**
 * nt_json_layout_write_values() - nt_json_layout_put_values() to a stream
 * @l: its layout
 * @out: the stream
 * @v: the values, as for nt_json_layout_put_values()
 *
 * Return: 0, -ENOMEM (a string could not be escaped) or the write's
 * negative errno (-EIO without one).
 */
int nt_json_layout_write_values(const struct nt_json_layout *l, FILE *out,
				const struct nt_json_value *v);

/**
 * nt_json_layout_free() - drop a layout and its references; NULL is fine
 * @l: the layout
 */
void nt_json_layout_free(struct nt_json_layout *l);

#endif
