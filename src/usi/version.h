/* version.h - the program's version, in one place: `hayanagi --version` prints it and the
 * USI answer to `usi` carries it in `id name`. */
#ifndef HAYANAGI_USI_VERSION_H
#define HAYANAGI_USI_VERSION_H

#define HAYANAGI_VERSION "0.3.0"

#endif
