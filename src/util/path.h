/* path.h - the one rule that turns a directory option and a file option into a path, for
 * BookDir/BookFile and EvalDir/EvalFile alike (YaneuraOu's options, resolved the same way):
 *
 *   1. an absolute file is used as it is;
 *   2. an empty directory means the working directory;
 *   3. an absolute directory is joined with the file;
 *   4. a relative directory is looked up next to the executable first (so the engine finds
 *      its book and net wherever a GUI starts it); the working directory's dir/file is used
 *      instead only when it exists and the one beside the executable does not.
 */
#ifndef HAYANAGI_UTIL_PATH_H
#define HAYANAGI_UTIL_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the path for dir and file (both non-NULL) into out (out_len bytes, caller-owned)
 * by the rule above. Returns false when it does not fit (out then holds a truncated,
 * unusable path). */
bool path_resolve(const char *dir, const char *file, char *out, size_t out_len);

/* mkdir -p: makes dir a directory, creating it (mode 0777 less the umask) and its missing
 * parents. Returns true when dir is a directory now (symbolic links to directories count),
 * *created (may be NULL) saying whether this call made dir itself (rmdir undoes it). Returns
 * false with the reason in err: "DIR: exists and is not a directory" (or "DIR: PARENT exists
 * and is not a directory") when a file of another kind sits where a directory is asked for,
 * "DIR: <the system's reason>" when mkdir fails. */
bool path_make_dirs(const char *dir, bool *created, char *err, size_t err_len);

#endif
