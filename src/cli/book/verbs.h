/* verbs.h - the verbs of `hayanagi book`, one file each under src/cli/book/, dispatched by
 * the table in verbs.c (docs/architecture.md, "The command line"). Only that table and each
 * verb's own file include this header: a verb never calls another verb, and the helpers the
 * verbs share (io.h, options.h, engines.h) include no verb.
 *
 * Every function takes argv[0] = the verb and returns the process exit status: 0 success,
 * 1 failure, 2 usage error, 3 lookup miss (lookup), 130 interrupted (the long jobs). */
#ifndef HAYANAGI_CLI_BOOK_VERBS_H
#define HAYANAGI_CLI_BOOK_VERBS_H

int book_verb_info(int argc, char **argv);          /* info.c */
int book_verb_lookup(int argc, char **argv);        /* lookup.c */
int book_verb_sort(int argc, char **argv);          /* convert.c */
int book_verb_convert(int argc, char **argv);       /* convert.c */
int book_verb_check(int argc, char **argv);         /* check.c */
int book_verb_gen_synthetic(int argc, char **argv); /* gen_synthetic.c (hidden, for the benchmarks) */
int book_verb_build(int argc, char **argv);         /* build.c */
int book_verb_merge(int argc, char **argv);         /* merge.c */
int book_verb_minimax(int argc, char **argv);       /* minimax.c */
int book_verb_think(int argc, char **argv);         /* think.c */
int book_verb_expand(int argc, char **argv);        /* expand.c */
int book_verb_import_losses(int argc, char **argv); /* import_losses.c */
int book_verb_learn(int argc, char **argv);         /* learn.c */
int book_verb_grow(int argc, char **argv);          /* grow.c */
int book_verb_rival_learn(int argc, char **argv);   /* rival_learn.c */
int book_verb_records(int argc, char **argv);       /* records.c */
int book_verb_openings(int argc, char **argv);      /* openings.c */
int book_verb_prune(int argc, char **argv);         /* prune.c */
int book_verb_report(int argc, char **argv);        /* report.c */

#endif
