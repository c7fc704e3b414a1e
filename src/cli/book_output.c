/* book_output.c - the outputs of the book verbs (commands.h): which files at OUT are
 * refused by their content (game records for a book verb, a book for a records verb), the
 * book writers with a progress display, and where and how the closing "wrote ..." line is
 * printed (docs/book_making.md, "Output files"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "book/book.h"
#include "book/open.h"
#include "cli/commands.h"
#include "record/reader.h"

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

static bool write_book(const char *path, const Book *b, bool quiet, bool comments, BookWriteReport *wr) {
    char err[512];
    BookWriteOptions wo = {.log = stderr, .quiet = quiet, .write_comments = comments};
    bool ok = book_write(path, NULL, b, &wo, wr, err, sizeof err);
    if (!ok)
        fprintf(stderr, "hayanagi book: %s (%s is untouched)\n", err, path);
    return ok;
}

bool cli_write_book(const char *path, const Book *b, bool quiet, BookWriteReport *wr) {
    return write_book(path, b, quiet, false, wr);
}

bool cli_write_book_with_comments(const char *path, const Book *b, bool quiet, BookWriteReport *wr) {
    return write_book(path, b, quiet, true, wr);
}
