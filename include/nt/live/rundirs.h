/* SPDX-License-Identifier: MIT */
/*
 * rundirs.h - the directories a booted system has under /run for its
 * packages, for the run's private /run: what systemd-tmpfiles(8) makes at
 * boot (`d` lines of tmpfiles.d(5)) and what systemd makes as a service
 * starts (RuntimeDirectory=, and the `mkdir`/`chown` commands of
 * ExecStartPre= that units such as Debian's mosquitto.service use). A server
 * started by hand, with its stock configuration, expects them: mosquitto's
 * pid file is /run/mosquitto/mosquitto.pid, written after it dropped to the
 * mosquitto user, in a directory its unit makes and chowns.
 *
 * The parsers are pure functions over text (tested without a file system);
 * nt_rundirs_collect() reads the host's tmpfiles.d and unit directories.
 */
#ifndef NT_LIVE_RUNDIRS_H
#define NT_LIVE_RUNDIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "nt/err.h"

/* A longer path (or user name) is skipped, not cut. */
#define NT_RUNDIR_PATH_MAX 128
#define NT_RUNDIR_NAME_MAX 33

/**
 * struct nt_rundir - one directory of the private /run
 * @path: absolute, under /run (a /var/run path is told as /run: Debian's
 *        /var/run is a symbolic link to it)
 * @mode: its permission bits (with set-gid and sticky bits)
 * @user: its owner's name or number, "" for root
 * @group: its group's name or number, "" for root
 * @uid: @user resolved by nt_rundirs_resolve() (0 until then)
 * @gid: @group resolved likewise
 */
struct nt_rundir {
	char path[NT_RUNDIR_PATH_MAX];
	unsigned mode;
	char user[NT_RUNDIR_NAME_MAX];
	char group[NT_RUNDIR_NAME_MAX];
	uid_t uid;
	gid_t gid;
};

/**
 * struct nt_rundirs - a set of directories, sorted by path once collected
 * @dir: the directories
 * @n: how many
 * @cap: allocated
 */
struct nt_rundirs {
	struct nt_rundir *dir;
	size_t n;
	size_t cap;
};

/**
 * nt_rundirs_parse_tmpfiles() - add the /run directories of one tmpfiles.d file
 * @d: the set
 * @text: the file's text (NUL-terminated)
 *
 * Lines of type `d`, `D`, `v`, `q` or `Q` (with any of tmpfiles.d's type
 * modifiers) whose path is under /run and names no `%` specifier. A `-` mode
 * is 0755, a `-` user or group root. A path already in @d is set again.
 *
 * Return: 0, or -ENOMEM.
 */
int nt_rundirs_parse_tmpfiles(struct nt_rundirs *d, const char *text);

/**
 * nt_rundirs_parse_unit() - add the /run directories one service unit makes
 * @d: the set
 * @text: the unit file's text (NUL-terminated)
 *
 * From its [Service] section: RuntimeDirectory= (mode RuntimeDirectoryMode=,
 * default 0755; owner User= and Group=), and ExecStartPre= commands that are
 * `mkdir [-p] [-m MODE] PATH...` or `chown USER[:GROUP] PATH...` on paths under
 * /run, in their order. Other commands are not run and not read.
 *
 * Return: 0, or -ENOMEM.
 */
int nt_rundirs_parse_unit(struct nt_rundirs *d, const char *text);

/**
 * nt_rundirs_collect() - the directories of the host's packages
 * @d: the set, empty; filled and sorted
 * @err: filled on failure
 *
 * Reads tmpfiles.d(5)'s directories (/etc, /run, /usr/local/lib, /usr/lib,
 * /lib: a file name seen in an earlier one hides the later ones, as
 * systemd-tmpfiles does) and the *.service files of the same unit
 * directories. Unreadable files are skipped. Then resolves owners.
 *
 * Return: 0, or a negative errno (out of memory).
 */
int nt_rundirs_collect(struct nt_rundirs *d, struct nt_err *err);

/**
 * nt_rundirs_resolve() - the owners' numbers, from the host's user database
 * @d: the set
 *
 * A name that does not resolve leaves root.
 */
void nt_rundirs_resolve(struct nt_rundirs *d);

/**
 * nt_rundirs_sort() - sort by path: a directory comes before those below it
 * @d: the set
 */
void nt_rundirs_sort(struct nt_rundirs *d);

/**
 * nt_rundirs_free() - free the set; it is empty afterwards
 * @d: the set
 */
void nt_rundirs_free(struct nt_rundirs *d);

#endif
