// SPDX-License-Identifier: MIT
/*
 * procs_prepare.c - the plan of a run (struct procs_spawn_plan), made before
 * the init is cloned: the run's /etc files from the host's, the commands'
 * scripts and environments, and which descriptor goes where. The init only
 * carries it out (procs_init.c), without allocating.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/live/procs.h"
#include "nt/live/procs_plan.h"
#include "procs_int.h"

/* A host file's text, or *out = NULL when it does not exist. */
static int read_host_file(const char *path, char **out, struct nt_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	char *buf;

	*out = NULL;
	if (fd < 0)
		return errno == ENOENT ? 0 : nt_err_set(err, -errno, "read %s", path);
	buf = malloc(NT_PROCS_ETC_MAX_BYTES + 1);
	if (!buf) {
		close(fd);
		return nt_err_set(err, -ENOMEM, "read %s", path);
	}
	while (len < NT_PROCS_ETC_MAX_BYTES) {
		ssize_t n = read(fd, buf + len, NT_PROCS_ETC_MAX_BYTES - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int ret = nt_err_set(err, -errno, "read %s", path);

			free(buf);
			close(fd);
			return ret;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static int plan_etc(struct procs_spawn_plan *plan, const struct nt_lab *lab, struct nt_err *err)
{
	char *host = NULL;
	int ret = read_host_file("/etc/hosts", &host, err);

	if (ret)
		return ret;
	if (!host)
		return nt_err_set(err, -ENOENT,
				  "the host has no /etc/hosts for the run's own to cover");
	plan->hosts_text = nt_procs_hosts_text(lab->client_addr_str, lab->target_addr_str, host);
	free(host);
	if (!plan->hosts_text)
		return nt_err_set(err, -ENOMEM, "prepare the run's /etc/hosts");
	ret = read_host_file("/etc/nsswitch.conf", &host, err);
	if (ret || !host)
		return ret;
	plan->nsswitch_text = nt_procs_nsswitch_text(host);
	free(host);
	return plan->nsswitch_text ? 0 : nt_err_set(err, -ENOMEM, "prepare /etc/nsswitch.conf");
}

/* "LD_PRELOAD=@lib ..." into @slot, then onto @set; nothing when @lib is NULL. */
static int plan_preload(char **slot, const char *lib, char **set, size_t *n)
{
	if (!lib)
		return 0;
	*slot = nt_procs_preload_value(lib, getenv("LD_PRELOAD"));
	if (!*slot)
		return -ENOMEM;
	set[(*n)++] = *slot;
	return 0;
}

static int plan_env(struct procs_spawn_plan *plan, const struct nt_procs_config *cfg,
		    struct nt_err *err)
{
	char *set[4];
	size_t n = 2;

	snprintf(plan->addr_env[0], sizeof(plan->addr_env[0]), "NT_CLIENT_ADDR=%s",
		 cfg->lab->client_addr_str);
	snprintf(plan->addr_env[1], sizeof(plan->addr_env[1]), "NT_TARGET_ADDR=%s",
		 cfg->lab->target_addr_str);
	/* Filled by the init once the port is known (procs_init.c: port_env()). */
	snprintf(plan->port_env, sizeof(plan->port_env), "NT_TARGET_PORT=");
	set[0] = plan->addr_env[0];
	set[1] = plan->addr_env[1];
	if (plan_preload(&plan->preload_env[PROCS_TARGET], cfg->target_preload, set, &n))
		return nt_err_set(err, -ENOMEM, "prepare the target's environment");
	plan->side[PROCS_TARGET].envp = nt_procs_env_build(environ, set, n);
	n = 2;
	set[n++] = plan->port_env;
	if (plan_preload(&plan->preload_env[PROCS_CLIENT], cfg->client_preload, set, &n))
		return nt_err_set(err, -ENOMEM, "prepare the client's environment");
	plan->side[PROCS_CLIENT].envp = nt_procs_env_build(environ, set, n);
	if (!plan->side[PROCS_TARGET].envp || !plan->side[PROCS_CLIENT].envp)
		return nt_err_set(err, -ENOMEM, "prepare the commands' environments");
	return 0;
}

/*
 * dash (Debian's /bin/sh, 0.5.12) forks even for `sh -c 'one command'`, so
 * the teardown's SIGTERM would kill the shell and report the shell's death
 * instead of the command's own exit (a server's clean shutdown, say). A
 * shell that traps TERM survives it; the programs it starts get the default
 * action back (execve() resets caught signals, unlike ignored ones), so they
 * are terminated as before, and the shell exits with their status. The trap is
 * a line of its own before the user's text, which the user's own traps override.
 */
static int plan_scripts(struct procs_spawn_plan *plan, const struct nt_procs_config *cfg,
			struct nt_err *err)
{
	if (asprintf(&plan->script[PROCS_TARGET], "trap : TERM\n%s", cfg->job.target_cmd) < 0 ||
	    asprintf(&plan->script[PROCS_CLIENT], "trap : TERM\n%s", cfg->job.client_cmd) < 0) {
		plan->script[PROCS_TARGET] = plan->script[PROCS_CLIENT] = NULL;
		return nt_err_set(err, -ENOMEM, "prepare the commands");
	}
	if (cfg->job.ready_cmd) {
		plan->script[PROCS_READY] = strdup(cfg->job.ready_cmd);
		if (!plan->script[PROCS_READY])
			return nt_err_set(err, -ENOMEM, "prepare the commands");
	}
	return 0;
}

void procs_plan_free(struct procs_spawn_plan *plan)
{
	if (!plan)
		return;
	for (int who = 0; who < PROCS_WHO_COUNT; who++)
		free(plan->script[who]);
	free(plan->side[0].envp);
	free(plan->side[1].envp);
	free(plan->preload_env[0]);
	free(plan->preload_env[1]);
	free(plan->hosts_text);
	free(plan->nsswitch_text);
	nt_rundirs_free(&plan->run_dirs);
	free(plan);
}

int procs_plan_make(struct procs_spawn_plan *plan, const struct nt_procs_config *cfg,
		    struct nt_err *err)
{
	int ret;

	plan->grace_ns = cfg->job.term_grace_ns;
	ret = plan_etc(plan, cfg->lab, err);
	if (!ret)
		ret = nt_rundirs_collect(&plan->run_dirs, err);
	if (!ret)
		ret = plan_scripts(plan, cfg, err);
	if (!ret)
		ret = plan_env(plan, cfg, err);
	return ret;
}

void procs_plan_sides(struct procs_spawn_plan *plan, const struct nt_procs_config *cfg,
		      int target_w, int client_err_w)
{
	struct procs_side_plan *t = &plan->side[PROCS_TARGET], *c = &plan->side[PROCS_CLIENT];

	t->argv[0] = c->argv[0] = "sh";
	t->argv[1] = c->argv[1] = "-c";
	t->argv[2] = plan->script[PROCS_TARGET];
	c->argv[2] = plan->script[PROCS_CLIENT];
	t->netns_fd = cfg->lab->target_ns;
	t->stdin_fd = -1;
	t->stdout_fd = t->stderr_fd = target_w;
	c->netns_fd = cfg->lab->client_ns;
	c->stdin_fd = cfg->client_stdin_fd;
	c->stdout_fd = cfg->client_stdout_fd;
	c->stderr_fd = client_err_w;
	if (plan->script[PROCS_READY]) {
		struct procs_side_plan *r = &plan->side[PROCS_READY];

		/* The client's namespace and environment; its output is not ours to show. */
		*r = (struct procs_side_plan){ .argv = { "sh", "-c", plan->script[PROCS_READY] },
					       .envp = c->envp,
					       .netns_fd = cfg->lab->client_ns,
					       .stdin_fd = -1,
					       .stdout_fd = -1,
					       .stderr_fd = -1 };
	}
}

/* The init: clone, and in the child become it. Closes the init's ends on our side. */
