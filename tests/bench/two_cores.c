// SPDX-License-Identifier: MIT
/*
 * two_cores.c - do two threads run at once on this machine, now?
 *
 *   cc -O1 -pthread -o two_cores tests/bench/two_cores.c && ./two_cores
 *
 * Runs the same fixed loop on one thread, then on two at once, and prints
 * both wall times and their ratio: 1.0 means the second thread had a core
 * of its own, 2.0 that the two took turns on one. On a shared VM it varies
 * from run to run (2.0x and 0.91-1.03x on one evening: commit 25c54f1), so a benchmark of
 * anything threaded is read against it, measured in the same session.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define LOOPS 400000000UL

static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *spin(void *arg)
{
	unsigned long x = 0;

	for (unsigned long i = 0; i < LOOPS; i++)
		x += i * i;
	sink = x;
	return arg;
}

int main(void)
{
	pthread_t t;
	double t0, one, two;

	t0 = now_ms();
	spin(NULL);
	one = now_ms() - t0;
	t0 = now_ms();
	if (pthread_create(&t, NULL, spin, NULL) != 0)
		return 1;
	spin(NULL);
	pthread_join(t, NULL);
	two = now_ms() - t0;
	printf("one thread %.1f ms, two at once %.1f ms: %.2fx\n", one, two, two / one);
	return 0;
}
