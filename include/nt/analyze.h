/* SPDX-License-Identifier: MIT */
/*
 * analyze.h - the offline command: find Nagle/delayed-ACK stall episodes in
 * capture files (pcap, pcapng, standard input) with the same decoder and
 * renderers as live traces.
 */
#ifndef NT_ANALYZE_H
#define NT_ANALYZE_H

/**
 * nt_analyze_main() - `nagle-trace analyze [options] FILE... [filter expression]`
 * @argc: argument count, argv[0] is "analyze"
 * @argv: the arguments
 *
 * Parses its own options, prints errors itself (one line, "nagle-trace: ...")
 * and returns; only main() exits.
 *
 * Return: an exit status (enum nt_exit).
 */
int nt_analyze_main(int argc, char **argv);

#endif
