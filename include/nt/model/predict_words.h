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

/* The sentence of @w in a buffer that lives to the end of the enclosing block. */
#define NT_PREDICT_WORDS(w) nt_predict_words((w), &(struct nt_predict_words){ { 0 } })

#endif
