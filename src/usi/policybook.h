/* policybook.h - PolicyBook (Qhapaq Lab's PolicyBook note; docs/mcts.md): the opening book as a prior for MCTS.
 *
 * When the position is in the book, with alpha the BookPolicyAlpha option (0.5 as in
 * dlshogi):
 *     prior(m) = (1 - alpha) * policy(m) + alpha * bookrate(m)
 *     value    = (1 - alpha) * value     + alpha * score_to_value(score of the top entry)
 * where bookrate(m) is m's share of the counts of the book's legal moves in this
 * position (0 for a move the book lacks; equal shares when every count is 0), and the
 * top entry is the first after book_sort_moves() (most played, then best score). The
 * value is left alone when the top entry has no score. Positions are found with
 * book_lookup() (any format read into the book IR: DB2016, SBK, ...).
 *
 * The mixer is a provider that wraps another one, so the tree never knows about books; it
 * lives in usi/, the lowest layer that may see both mcts/ and book/ (tests/lint/layers.sh).
 */
#ifndef HAYANAGI_USI_POLICYBOOK_H
#define HAYANAGI_USI_POLICYBOOK_H

#include "book/book.h"
#include "mcts/provider.h"

/* Mixes the book's candidates into priors[0..n) (for moves[0..n), legal in the position)
 * and *value as above. Returns true when the book had a legal move here (something was
 * mixed). */
bool policybook_mix(const BookMoveList *book_moves, const Move *moves, int n, double alpha, float *priors,
                    double *value);

typedef struct {
    MctsProvider inner;
    const Book *book; /* read only; shared by every thread */
    double alpha;
} PolicyBookProvider;

/* The provider that asks pb->inner and mixes pb->book in; pb must outlive it. */
MctsProvider policybook_provider(PolicyBookProvider *pb);

#endif
