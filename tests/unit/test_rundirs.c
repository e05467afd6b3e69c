// SPDX-License-Identifier: MIT
/*
 * test_rundirs.c - the directories of the run's private /run: tmpfiles.d
 * lines, a unit's RuntimeDirectory= and its ExecStartPre= mkdir and chown
 * (Debian 12's mosquitto.service, postgresql-common's tmpfiles.d line), and
 * the lines that must be left alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nt/live/rundirs.h"

static const struct nt_rundir *find(const struct nt_rundirs *d, const char *path)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->dir[i].path, path))
			return &d->dir[i];
	return NULL;
}

static void test_tmpfiles_lines(void **state)
{
	struct nt_rundirs d = { 0 };
	const struct nt_rundir *r;

	(void)state;
	assert_int_equal(nt_rundirs_parse_tmpfiles(&d,
						   "# postgresql-common\n"
						   "d /run/postgresql 2775 postgres postgres - -\n"
						   "d! /var/run/lock/ 0755 - -\n"
						   "d /run/user/%U 0700 - -\n"
						   "f /run/utmp 0664 root utmp -\n"
						   "d /var/lib/x 0755 - -\n"
						   "d /run/../etc 0755 - -\n"
						   "L /run/shm - - - - /dev/shm\n"
						   "dx /run/odd\n"),
			 0);
	assert_int_equal(d.n, 2);
	r = find(&d, "/run/postgresql");
	assert_non_null(r);
	assert_int_equal(r->mode, 02775);
	assert_string_equal(r->user, "postgres");
	assert_string_equal(r->group, "postgres");
	r = find(&d, "/run/lock");
	assert_non_null(r);
	assert_int_equal(r->mode, 0755);
	assert_string_equal(r->user, "");
	nt_rundirs_free(&d);
	assert_int_equal(d.n, 0);
}

static void test_unit_mkdir_chown(void **state)
{
	static const char mosquitto[] =
		"[Unit]\nDescription=Mosquitto MQTT Broker\n"
		"ExecStartPre=/bin/mkdir -p /run/unit-section\n"
		"[Service]\nType=notify\n"
		"ExecStart=/usr/sbin/mosquitto -c /etc/mosquitto/mosquitto.conf\n"
		"ExecStartPre=/bin/mkdir -m 740 -p /var/log/mosquitto\n"
		"ExecStartPre=/bin/chown mosquitto /var/log/mosquitto\n"
		"ExecStartPre=/bin/mkdir -m 740 -p /run/mosquitto\n"
		"ExecStartPre=/bin/chown mosquitto /run/mosquitto\n"
		"ExecStartPre=-/usr/bin/install -d /run/installed\n";
	struct nt_rundirs d = { 0 };
	const struct nt_rundir *r;

	(void)state;
	assert_int_equal(nt_rundirs_parse_unit(&d, mosquitto), 0);
	assert_int_equal(d.n, 1);
	r = find(&d, "/run/mosquitto");
	assert_non_null(r);
	assert_int_equal(r->mode, 0740);
	assert_string_equal(r->user, "mosquitto");
	assert_string_equal(r->group, "");
	nt_rundirs_free(&d);
}

static void test_unit_runtime_directory(void **state)
{
	struct nt_rundirs d = { 0 };
	const struct nt_rundir *r;

	(void)state;
	assert_int_equal(
		nt_rundirs_parse_unit(&d, "[Service]\n"
					  "RuntimeDirectory = a b/c\n"
					  "RuntimeDirectoryMode=0750\n"
					  "User=svc\n"
					  "ExecStartPre=+mkdir -pm0700 /run/d --mode=0711 /run/e\n"
					  "ExecStartPre=chown -R 12:34 /run/d /run/unmade\n"),
		0);
	assert_int_equal(d.n, 4);
	r = find(&d, "/run/b/c");
	assert_non_null(r);
	assert_int_equal(r->mode, 0750);
	assert_string_equal(r->user, "svc");
	assert_string_equal(r->group, "svc");
	r = find(&d, "/run/d");
	assert_non_null(r);
	assert_int_equal(r->mode, 0700);
	assert_string_equal(r->user, "12");
	assert_string_equal(r->group, "34");
	assert_int_equal(find(&d, "/run/e")->mode, 0711);
	assert_null(find(&d, "/run/unmade"));
	nt_rundirs_resolve(&d);
	assert_int_equal(find(&d, "/run/d")->uid, 12);
	assert_int_equal(find(&d, "/run/d")->gid, 34);
	nt_rundirs_free(&d);
}

static void test_sorted_parents_first(void **state)
{
	struct nt_rundirs d = { 0 };

	(void)state;
	assert_int_equal(nt_rundirs_parse_tmpfiles(&d, "d /run/a/b\nd /run/a-b\nd /run/a\n"), 0);
	nt_rundirs_sort(&d);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.dir[0].path, "/run/a");
	assert_string_equal(d.dir[1].path, "/run/a-b");
	assert_string_equal(d.dir[2].path, "/run/a/b");
	nt_rundirs_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmpfiles_lines),
		cmocka_unit_test(test_unit_mkdir_chown),
		cmocka_unit_test(test_unit_runtime_directory),
		cmocka_unit_test(test_sorted_parents_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
