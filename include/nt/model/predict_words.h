/* SPDX-License-Identifier: MIT */
/*
 * nt/model/predict_words.h - the model's decisions in words.
 *
 * The model returns facts (struct nt_predict_why: a rule, a sentence and its
 * numbers); this is the one place they become English, for every format of
 * trace and predict and for the lesson page's WebAssembly model, which is
 * built from src/model/ alone and so links this module too.
 */
#ifndef NT_MODEL_PREDICT_WORDS_H
#define NT_MODEL_PREDICT_WORDS_H

#include "nt/model/predict.h"

/**
 * struct nt_predict_words - room for one sentence
 * @s: the sentence, cut at NT_PREDICT_TEXT_MAX - 1 bytes
 */
struct nt_predict_words {
	char s[NT_PREDICT_TEXT_MAX];
};

/**
 * nt_predict_words() - a decision's sentence
 * @w: the decision
 * @buf: filled
 *
 * Return: @buf->s, so the call can sit in a printf argument list.
 */
const char *nt_predict_words(const struct nt_predict_why *w, struct nt_predict_words *buf);

/**
 * nt_predict_evidence_words() - where the kernel's state differs from the
 * model's, one line: "ping-pong on, predicted off; rcv_mss 536, predicted 1448"
 * @d: the differences (nt_predict_check_evidence())
 * @buf: filled; "" when there are none
 *
 * Return: @buf->s.
 */
const char *nt_predict_evidence_words(const struct nt_predict_evidence_diff *d,
				      struct nt_predict_words *buf);

/* The sentence of @w in a buffer that lives to the end of the enclosing block. */
#define NT_PREDICT_WORDS(w) nt_predict_words((w), &(struct nt_predict_words){ { 0 } })
#define NT_PREDICT_EVIDENCE_WORDS(d) \
	nt_predict_evidence_words((d), &(struct nt_predict_words){ { 0 } })

#endif
