/* SPDX-License-Identifier: MIT */
/*
 * json.h - how every JSON document of nagle-trace is built and written:
 * json-c lays out each value, written as it is made, so a document of
 * 100,000 rounds or flows never exists as one tree in memory.
 *
 * A document is written member by member: each member's value is built as
 * a json-c object, serialised with NT_JSON_FLAGS and written at its depth
 * (json-c's pretty printer indents two spaces a level), so the bytes are
 * exactly what json-c would print for the whole tree. Allocation failures
 * while building are noted in a flag and the document is not written.
 */
#ifndef NT_RENDER_JSON_H
#define NT_RENDER_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "nt/model/predict.h"

/*
 * Schema versions, bumped with any incompatible change to a document:
 * live runs (docs/json-schema.md), analyze (docs/analyze.md) and run
 * (docs/run.md).
 */
#define NT_JSON_SCHEMA_TRACE   3
#define NT_JSON_SCHEMA_ANALYZE 5
/* `nagle-trace run` (docs/nagle-trace-run.schema.json): analyze's members plus "run". */
#define NT_JSON_SCHEMA_RUN 4

#define NT_JSON_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)
/* A JSON Lines record (nt_json_line()). */
#define NT_JSON_LINE_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/**
 * nt_json_put() - add @v under @key to @o, which has no such key yet
 * @oom: set when @v (or earlier @o) could not be allocated or added
 * @o: the object; NULL (a failed allocation) only sets @oom
 * @key: a key that outlives the document (a literal or a name table's string)
 * @v: the value, consumed; NULL sets @oom (use nt_json_put_null() for null)
 *
 * Return: @v, or NULL when it was not added.
 */
struct json_object *nt_json_put(bool *oom, struct json_object *o, const char *key,
				struct json_object *v);

/**
 * nt_json_put_null() - add a null under @key
 * @oom: set on failure
 * @o: the object
 * @key: as for nt_json_put()
 */
void nt_json_put_null(bool *oom, struct json_object *o, const char *key);

/**
 * nt_json_put_i64() - add an integer under @key, or null when not @is_set
 * @oom: set on failure
 * @o: the object
 * @key: as for nt_json_put()
 * @v: the value
 * @is_set: whether it is known
 */
void nt_json_put_i64(bool *oom, struct json_object *o, const char *key, int64_t v, bool is_set);

/**
 * nt_json_put_str() - add a string under @key, or null for NULL
 * @oom: set on failure
 * @o: the object
 * @key: as for nt_json_put()
 * @v: the string, or NULL
 */
void nt_json_put_str(bool *oom, struct json_object *o, const char *key, const char *v);

/**
 * nt_json_merge() - add every member of @src to @o, in order (keys copied,
 * values shared)
 * @oom: set on failure
 * @o: the object
 * @src: the members to add
 */
void nt_json_merge(bool *oom, struct json_object *o, struct json_object *src);

/**
 * nt_json_append() - append @v to the array @a
 * @oom: set on failure
 * @a: the array
 * @v: the value, consumed
 */
void nt_json_append(bool *oom, struct json_object *a, struct json_object *v);

/* An unsigned count as JSON can hold it (json-c's integers are int64_t): clamped to INT64_MAX. */
static inline int64_t nt_json_clamp_u64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/**
 * nt_json_u64() - an unsigned count as a JSON integer, clamped to INT64_MAX
 * @v: the count
 *
 * Return: a new object, or NULL.
 */
struct json_object *nt_json_u64(uint64_t v);

/**
 * nt_json_int64_fast() - an integer that prints its digits itself
 * @v: its first value (json_object_set_int64() changes it)
 *
 * The very text json-c prints, without json-c's snprintf() per integer: for
 * objects printed many times, as the analyze flow template's.
 *
 * Return: the object, NULL without memory.
 */
struct json_object *nt_json_int64_fast(int64_t v);

/**
 * nt_json_int64_speed_up() - give an integer nt_json_int64_fast()'s printing
 * @o: an integer object
 */
void nt_json_int64_speed_up(struct json_object *o);

/* The longest text of an int64_t: "-9223372036854775808" is 20 bytes. */
#define NT_JSON_INT64_CHARS 20

/**
 * nt_json_int64_digits() - the text json-c prints for @v, written backwards
 * @v: the value
 * @end: one past the last byte to write; NT_JSON_INT64_CHARS bytes before it
 *       are free
 *
 * Return: the text's first byte (it runs to @end; no NUL is written).
 */
char *nt_json_int64_digits(int64_t v, char *end);

/**
 * nt_json_tool() - the "tool" member's value: name, version, and the
 * command when given
 * @oom: set on failure
 * @command: "analyze", "run", ... or NULL
 *
 * Return: a new object, or NULL.
 */
struct json_object *nt_json_tool(bool *oom, const char *command);

/**
 * nt_json_library_version() - json-c's version, for --version
 *
 * Return: a static string.
 */
const char *nt_json_library_version(void);

/**
 * nt_json_why() - a decision of the model as {"rule", "text"}
 * @oom: set on failure
 * @w: the decision
 *
 * Return: the object, or NULL when @w has no rule (the caller writes null).
 */
struct json_object *nt_json_why(bool *oom, const struct nt_predict_why *w);

/**
 * nt_json_put_why() - add a decision under @key (nt_json_why()), or null
 * when it has no rule
 * @oom: set on failure
 * @o: the object
 * @key: as for nt_json_put()
 * @w: the decision
 */
void nt_json_put_why(bool *oom, struct json_object *o, const char *key,
		     const struct nt_predict_why *w);

/**
 * nt_json_write() - write @o (not consumed; NULL is null) as a value whose
 * first line is already placed and whose other lines start at @depth
 * @out: the stream
 * @o: the value
 * @depth: its level in the document (two spaces each)
 *
 * Return: 0, -ENOMEM (serialising failed) or -EIO.
 */
int nt_json_write(FILE *out, struct json_object *o, int depth);

/**
 * nt_json_line() - write @o (not consumed) on one line, compact, then a
 * newline, and flush: one record of a JSON Lines stream (--format jsonl)
 * @out: the stream
 * @o: the record
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_json_line(FILE *out, struct json_object *o);

/**
 * nt_json_line_end() - end a JSON Lines record: the newline, then a flush,
 * so a consumer reading line by line (| jq, a tail -f) sees each record as
 * it is made
 * @out: the stream
 *
 * Return: 0 or -EIO.
 */
int nt_json_line_end(FILE *out);

/**
 * nt_json_record_end() - end a JSON Lines record of a document: the newline
 * only
 * @out: the stream
 *
 * For the records of a report written all at once (an analysis in jsonl:
 * analyze's is a document, spooled and copied out at the end; run's ends
 * with the summary record, nt_json_line(), which flushes): a flush per
 * record there was a write(2) per record, half a million system calls for
 * a capture of 500,000 stalls.
 *
 * Return: 0 or -EIO.
 */
int nt_json_record_end(FILE *out);

/**
 * nt_json_member() - write `"key": value` at @depth, then ",\n" or "\n"
 * @out: the stream
 * @key: the member's name (written as is: a literal identifier)
 * @o: the value, consumed (NULL is null)
 * @depth: the member's level
 * @more: more members follow
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_json_member(FILE *out, const char *key, struct json_object *o, int depth, bool more);

#endif
