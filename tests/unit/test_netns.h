/* SPDX-License-Identifier: MIT */
/*
 * test_netns.h - a function run in a fresh network namespace, in a forked
 * child, for the unit tests that must not touch this process's network
 * (test_rtnl, test_wire). Include after <cmocka.h>.
 */
#ifndef NT_TEST_NETNS_H
#define NT_TEST_NETNS_H

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nt/err.h"

/* The child's exit status when no namespace could be made: the test is skipped. */
#define SKIP_STATUS 77

/*
 * Run @fn in a forked child inside a fresh network namespace, which leaves
 * this process where it is. Root (or `unshare -Urn`) can unshare the network
 * namespace alone; otherwise a user namespace brings the capability with it.
 * The child sends back its status and error message through a pipe.
 */
static inline void run_in_fresh_netns(int (*fn)(struct nt_err *err), int *ret_out,
				      struct nt_err *err)
{
	int fds[2], status, ret;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct nt_err child_err = { { 0 } };

		close(fds[0]);
		if (unshare(CLONE_NEWNET) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			_exit(SKIP_STATUS);
		ret = fn(&child_err);
		if (write(fds[1], &ret, sizeof(ret)) != sizeof(ret) ||
		    write(fds[1], &child_err, sizeof(child_err)) != sizeof(child_err))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == SKIP_STATUS) {
		close(fds[0]);
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(read(fds[0], ret_out, sizeof(*ret_out)), sizeof(*ret_out));
	assert_int_equal(read(fds[0], err, sizeof(*err)), sizeof(*err));
	close(fds[0]);
}

#endif
