/* SPDX-License-Identifier: MIT */
/*
 * exitcode.h - the exit statuses; a public interface, documented in
 * nagle-trace(1) and README.md. Change only with a schema version bump.
 */
#ifndef NT_EXITCODE_H
#define NT_EXITCODE_H

enum nt_exit {
	NT_EXIT_OK = 0,		 /* what was expected held / file read completely */
	NT_EXIT_EXPECTATION = 1, /* the expectation did not hold, or could not be confirmed */
	NT_EXIT_USAGE = 2,	 /* bad command line */
	NT_EXIT_ENVIRONMENT = 3, /* privileges, a kernel feature, a lab or exchange step failed */
	NT_EXIT_FILE = 4,	 /* a file could not be read or written, or is damaged */
	NT_EXIT_SIGINT = 130,	 /* interrupted by SIGINT: what was captured is rendered */
	NT_EXIT_SIGTERM = 143,	 /* stopped by SIGTERM: likewise */
};

#endif
