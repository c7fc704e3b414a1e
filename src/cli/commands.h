/* commands.h - subcommands of `hayanagi` that live outside main.c. */
#ifndef HAYANAGI_CLI_COMMANDS_H
#define HAYANAGI_CLI_COMMANDS_H

/* `hayanagi csa` (cmd_csa.c): play on a CSA server; argv[0] is "csa". Returns the exit
 * status (0 played, 1 failure, 2 usage error, 130 interrupted). */
int cmd_csa(int argc, char **argv);

/* `hayanagi book <verb> ...` (book/verbs.c, the table of the verbs in src/cli/book/): argv[0]
 * is the verb. Returns the process exit status
 * (0 success, 1 failure, 2 usage error, 3 lookup miss). */
int cmd_book(int argc, char **argv);

/* `hayanagi match ...` (docs/match.md): plays two USI engines against each other; argv[0]
 * is "match".
 * Returns 0 when the match ran, 1 on failure (an engine did not start, the record could
 * not be written), 2 for a usage error, 130 when interrupted by Ctrl-C. */
int cmd_match(int argc, char **argv);

/* `hayanagi bench [--depth=N | --nodes=N]` (cmd_bench.c): the USI bench with default
 * options, its node-count signature printed last. Returns 0, 1 on failure, 2 for a usage
 * error. */
int cmd_bench(int argc, char **argv);

#endif
