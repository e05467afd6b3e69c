/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the commands. Each wires a source into the pipeline and returns an
 * exit status (enum nt_exit); main() only picks one and exits with what it
 * returns. Commands, and main(), are the only code that writes to standard
 * output or standard error.
 */
#ifndef NT_CMD_CMD_H
#define NT_CMD_CMD_H

#include <signal.h>

/**
 * nt_cmd_trace() - `nagle-trace [trace] [options]`: the built-in exchange in
 * a fresh lab, per variant
 * @argc: argument count, argv[0] the program
 * @argv: the arguments
 *
 * Return: an exit status (enum nt_exit).
 */
int nt_cmd_trace(int argc, char **argv);

/**
 * nt_cmd_analyze() - `nagle-trace analyze [options] FILE... [filter]`
 * @argc: argument count, argv[0] is "analyze"
 * @argv: the arguments
 *
 * Return: an exit status (enum nt_exit).
 */
int nt_cmd_analyze(int argc, char **argv);

/**
 * nt_cmd_run() - `nagle-trace run --target CMD --client CMD [options]`: the
 * user's own programs in a fresh lab per fix, their stalls and counters
 * @argc: argument count, argv[0] is "run"
 * @argv: the arguments
 *
 * Return: an exit status (enum nt_exit).
 */
int nt_cmd_run(int argc, char **argv);

/**
 * nt_cmd_predict() - `nagle-trace predict [options]`: the model of the
 * kernel's decisions alone, no namespaces (docs/model.md)
 * @argc: argument count, argv[0] "predict"
 * @argv: arguments
 *
 * Return: the exit status.
 */
int nt_cmd_predict(int argc, char **argv);

/**
 * nt_cmd_watch() - `nagle-trace watch [options] [filter]`: stalls on this
 * host as they happen, with the process and the socket's state
 * @argc: argument count (argv[0] is "watch")
 * @argv: arguments
 *
 * Return: the exit status.
 */
int nt_cmd_watch(int argc, char **argv);

/**
 * nt_cmd_completion() - `nagle-trace completion bash`: the bash completion
 * script, made from the option tables, variants and formats
 * @argc: argument count, argv[0] is "completion"
 * @argv: the arguments
 *
 * Return: an exit status (enum nt_exit).
 */
int nt_cmd_completion(int argc, char **argv);

/**
 * nt_cmd_kernels() - `nagle-trace kernels`: the trace on other kernels under
 * qemu, and the model for each checked against it
 * @argc: argument count (argv[0] is "kernels")
 * @argv: arguments
 *
 * Return: an exit status (enum nt_exit).
 */
int nt_cmd_kernels(int argc, char **argv);

/*
 * The stop flag: the signal (SIGINT, SIGTERM) that asked the process to
 * stop, 0 while none did. The only mutable global besides the capture
 * closer's thread; written by the handler, read by the commands' loops.
 */
extern volatile sig_atomic_t nt_cmd_stop;

/**
 * nt_cmd_signals_install() - catch SIGINT and SIGTERM into nt_cmd_stop
 * (without SA_RESTART, so a blocking wait returns EINTR at once); ignore
 * SIGPIPE (a reader that goes away is a write error, not death) and SIGXFSZ
 * (past `ulimit -f`, EFBIG); on the other signals that end a process,
 * remove named temporary files first (nt_output_unlink_temps())
 */
void nt_cmd_signals_install(void);

/**
 * nt_cmd_signals_install_fatal() - for commands without a stop loop
 * (analyze, predict): SIGINT, SIGTERM, SIGHUP and the other signals that end
 * a process remove named temporary files (nt_output_unlink_temps()) and
 * then end it by the same signal, at once; SIGPIPE and SIGXFSZ are ignored
 * as by nt_cmd_signals_install()
 */
void nt_cmd_signals_install_fatal(void);

/**
 * nt_cmd_signals_block() - block SIGINT and SIGTERM, except in the waits
 * @saved: the mask before, to restore; may be NULL
 * @waitmask: the mask to wait with (ppoll(), pselect()): the one before,
 *            without SIGINT and SIGTERM, so a stop ends a wait instead of
 *            landing between the flag's check and the wait
 */
void nt_cmd_signals_block(sigset_t *saved, sigset_t *waitmask);

/**
 * nt_cmd_stop_status() - the exit status of a stop: 130 for SIGINT, 143 for
 * SIGTERM
 *
 * Return: the status, or 0 when no signal asked to stop.
 */
int nt_cmd_stop_status(void);

#endif
