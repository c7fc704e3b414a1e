/* usi.h - the USI engine loop. */
#ifndef HAYANAGI_USI_USI_H
#define HAYANAGI_USI_USI_H

#include <stdio.h>

/* Reads USI commands from in and answers on out until `quit` or end of input.
 * Returns the process exit status. */
int usi_main(FILE *in, FILE *out);

#endif
