// SPDX-License-Identifier: MIT
/*
 * closer.c - one background thread that closes captures (see
 * nt/capture/closer.h). A queue under a mutex; the thread sleeps on a
 * condition variable until a capture arrives or it is told to finish.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "nt/capture/closer.h"

struct pending {
	struct nt_capture cap;
	struct pending *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct pending *queue;
static bool finishing;
static bool running;
static pthread_t thread;

static void *closer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		struct pending *p = queue;

		if (!p && finishing)
			break;
		if (!p) {
			pthread_cond_wait(&wake, &lock);
			continue;
		}
		queue = p->next;
		pthread_mutex_unlock(&lock);
		nt_capture_close(&p->cap); /* the grace period passes here, unlocked */
		free(p);
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Starts the thread with every signal blocked; false if it could not be. */
static bool start(void)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&thread, NULL, closer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret == 0;
}

void nt_capture_close_later(struct nt_capture *cap)
{
	struct pending *p = malloc(sizeof(*p)), **tail = &queue;

	if (!p) {
		nt_capture_close(cap);
		return;
	}
	pthread_mutex_lock(&lock);
	if (!running) {
		finishing = false;
		running = start();
	}
	if (!running) {
		pthread_mutex_unlock(&lock);
		free(p);
		nt_capture_close(cap);
		return;
	}
	p->cap = *cap;
	p->next = NULL;
	/* Oldest first, so the closes end in the order the runs did. */
	while (*tail)
		tail = &(*tail)->next;
	*tail = p;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	cap->ops = NULL;
}

void nt_capture_closer_drain(void)
{
	pthread_mutex_lock(&lock);
	if (!running) {
		pthread_mutex_unlock(&lock);
		return;
	}
	finishing = true;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	pthread_mutex_lock(&lock);
	running = false;
	pthread_mutex_unlock(&lock);
}
