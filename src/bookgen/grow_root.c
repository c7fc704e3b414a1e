/* grow_root.c - the moves `book grow` may play and list at the start position
 * (`--root-moves`, `--keep-root`; bookgen/grow.h, docs/book_making.md "The root's moves"):
 * a list given as USI text, or the moves the input book lists there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bookgen/grow.h"
#include "shogi/notation.h"

int grow_root_moves_parse(const char *text, Move16 *out, char *err, size_t err_len) {
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    int n = 0;
    for (const char *s = text; *s;) {
        size_t skip = strspn(s, ", \t"), len;
        s += skip;
        if (!*s)
            break;
        len = strcspn(s, ", \t");
        char word[16];
        Move m = MOVE_NONE;
        if (len < sizeof word) {
            memcpy(word, s, len);
            word[len] = '\0';
            m = position_parse_usi_move(&pos, word);
        }
        if (m == MOVE_NONE) {
            snprintf(err, err_len, "'%.*s' is not a legal USI move at the start position", (int)(len < 64 ? len : 64),
                     s);
            return -1;
        }
        Move16 m16 = move_to_move16(m);
        for (int i = 0; i < n; i++)
            if (out[i] == m16) {
                snprintf(err, err_len, "%s is given twice", word);
                return -1;
            }
        out[n++] = m16; /* at most the 30 legal moves of the start position, each once */
        s += len;
    }
    if (n == 0)
        snprintf(err, err_len, "no move given");
    return n > 0 ? n : -1;
}

int grow_root_moves_of_book(const Book *in, Move16 *out) {
    Position pos;
    StateInfo st;
    position_set_startpos(&pos, &st);
    BookMoveList *list = malloc(sizeof *list); /* BOOK_MAX_MOVES moves: too large for the stack */
    if (!list)
        return -1;
    int n = 0;
    if (!in || !book_lookup(in, &pos, list))
        list->n = 0;
    for (int i = 0; i < list->n; i++) {
        Move16 m = list->moves[i].move;
        bool seen = false;
        for (int j = 0; j < n && !seen; j++)
            seen = out[j] == m;
        if (!seen && position_legal_move_from16(&pos, m) != MOVE_NONE)
            out[n++] = m;
    }
    free(list);
    return n;
}
