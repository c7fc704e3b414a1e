/* io.c - the one book reader and the one book writer of the book verbs (io.h), the records
 * reader, and the outputs (io.h): which files at OUT are
 * refused by their content (game records for a book verb, a book for a records verb), the
 * book writers with a progress display, and where and how the closing "wrote ..." line is
 * printed (docs/book_making.md, "Output files"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdint.h>

#include "book/book.h"
#include "book/open.h"
#include "cli/book/io.h"
#include "record/reader.h"
#include "util/atomic_file.h"
#include "util/progress.h"

/* What an existing regular file at path holds, by its content (book/open.h's evidence
 * first, then record/reader.h's): *book the book format or NULL, the return the record
 * format or REC_FMT_AUTO. Nothing (both unknown) when the file is missing, empty, not a
 * regular file or unreadable: then there is nothing to protect, or the write reports why. */
static RecordFormat existing_kind(const char *path, const BookFormat **book) {
    *book = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0)
        return REC_FMT_AUTO;
    FILE *f = fopen(path, "rb");
    char *head = f ? malloc(1 << 16) : NULL;
    size_t len = head ? fread(head, 1, 1 << 16, f) : 0;
    if (f)
        fclose(f);
    RecordFormat rf = REC_FMT_AUTO;
    char err[256];
    if (head && len) {
        *book = book_format_detect_memory(path, head, len, (uint64_t)sb.st_size, err, sizeof err);
        if (!*book)
            rf = record_format_sniff(head, len);
    }
    free(head);
    return rf;
}

static const char *record_format_label(RecordFormat f) {
    return f == REC_FMT_CSA ? "CSA" : f == REC_FMT_KIF ? "KIF" : f == REC_FMT_KI2 ? "KI2" : "USI";
}

bool cli_check_output(const char *verb, const char *path) {
    char err[512];
    if (!book_format_for_output(path, err, sizeof err)) {
        fprintf(stderr, "hayanagi book %s: %s\n", verb, err);
        return false;
    }
    if (record_format_from_path(path) != REC_FMT_AUTO) {
        fprintf(stderr, "hayanagi book %s: the output %s is named like a game record; name the book .db or .sbk\n",
                verb, path);
        return false;
    }
    /* By content too: a forgotten OUT makes the last input (a game list named games.txt)
     * the output, and the book would replace it. */
    const BookFormat *bf;
    RecordFormat rf = existing_kind(path, &bf);
    if (rf != REC_FMT_AUTO) {
        fprintf(stderr,
                "hayanagi book %s: the output %s holds game records (%s), an input, not a book: refusing to "
                "overwrite it (was OUT forgotten?)\n",
                verb, path, record_format_label(rf));
        return false;
    }
    return true;
}

bool cli_check_record_output(const char *prog, const char *path) {
    const BookFormat *bf;
    existing_kind(path, &bf);
    if (bf) {
        fprintf(stderr, "%s: the output %s holds a book (%s), an input, not records: refusing to overwrite it\n", prog,
                path, book_format_name(bf));
        return false;
    }
    return true;
}

FILE *cli_report_file(const char *out) { return strcmp(out, "-") == 0 ? stderr : stdout; }

FILE *cli_say_wrote(const char *out, const BookWriteReport *wr) {
    FILE *f = cli_report_file(out);
    fprintf(f, "wrote %s: %llu positions, %llu moves", out, (unsigned long long)wr->positions,
            (unsigned long long)wr->moves);
    return f;
}

Book *cli_read_book(const char *path, const BookFormat *fmt, const BookReadOptions *ro, BookReadReport *rep) {
    char err[512];
    BookReadReport local;
    if (!rep)
        rep = &local;
    Book *b = book_open_read(path, fmt, ro, rep, err, sizeof err);
    if (!b) {
        fprintf(stderr, "hayanagi book: %s\n", err);
        if (record_format_from_path(path) != REC_FMT_AUTO)
            fprintf(stderr, "hayanagi book: %s looks like a game record, not a book: is the BOOK argument missing?\n",
                    path);
        return NULL;
    }
    /* What was not read is a warning, printed under --quiet too (that drops the progress) */
    if (rep->note[0])
        fprintf(stderr, "%s\n", rep->note);
    return b;
}

bool cli_write_book(const char *path, const BookFormat *fmt, const Book *b, const BookWriteOptions *wo,
                    BookWriteReport *wr) {
    char err[512];
    bool ok = book_write(path, fmt, b, wo, wr, err, sizeof err);
    if (!ok)
        cli_say_not_written("hayanagi book", err, path);
    return ok;
}

void cli_say_not_written(const char *prog, const char *err, const char *out) {
    if (atomic_file_streams(out))
        fprintf(stderr, "%s: %s (%s is a stream: what was written before the error may have reached its reader)\n",
                prog, err, out);
    else
        fprintf(stderr, "%s: %s (%s is untouched)\n", prog, err, out);
}

/* ---- records ---- */

static void rec_error(void *ctx, const char *file, uint64_t line, const char *reason) {
    (void)ctx;
    fprintf(stderr, "warning: %s:%llu: %s (record skipped)\n", file, (unsigned long long)line, reason);
}

static uint64_t file_size(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

int cli_read_records(char **files, int n, RecordGameFn on_game, void *ctx, const bool *oom, bool variations, bool quiet,
                     RecordStats *stats) {
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += file_size(files[i]);
    Progress pr;
    progress_start(&pr, stderr, "reading records", total, quiet);
    RecordStats st = {0};
    int rc = 0;
    for (int i = 0; i < n && !*oom; i++) {
        char err[512];
        RecordReadOptions ro = {.on_game = on_game,
                                .on_error = rec_error,
                                .ctx = ctx,
                                .variations = variations,
                                .progress = &pr,
                                .progress_base = st.bytes};
        if (!record_read_file(files[i], REC_FMT_AUTO, &ro, &st, err, sizeof err)) {
            fprintf(stderr, "hayanagi book: %s\n", err);
            rc = 1;
        }
        progress_update(&pr, st.bytes);
    }
    progress_finish(&pr);
    fprintf(stderr, "%llu games, %llu moves, %llu bad records skipped\n", (unsigned long long)st.games,
            (unsigned long long)st.moves, (unsigned long long)st.errors);
    if (*oom) {
        fprintf(stderr, "hayanagi book: out of memory\n");
        rc = 1;
    }
    if (stats)
        *stats = st;
    return rc;
}
