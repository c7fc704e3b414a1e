/* grow.h - `book grow`: the opening book as a search tree whose playouts are whole games
 * (meta-MCTS, Gaudel, Hoock, Pérez, Sokolovska, Teytaud 2010). docs/book_making.md, section
 * "grow", is the user's manual; this header is the contract of the tree, its statistics,
 * the tree policy and the values.
 *
 * The tree. Its nodes are positions (book keys, so transpositions share a node): every
 * position of the input book, the start position (the root), and every position grown
 * from the games. A game is walked from the root: at each node within max_ply plies the
 * move played (by either side, whether the node held it or not) is credited with the
 * game's result for the side that played it, and the walk goes on while the next position
 * is a node. The first position off the tree is the game's exit; once expand_after games
 * exited at a position it becomes a node, and the games that exited there walk on from it
 * (so the tree is the least fixed point of that rule: the same for any order of the games).
 *
 * The values (expected scores, 0..1). A move's prior p is the expected score of its book
 * score on the logistic scale of GROW_LOGISTIC_CP; without a score, the mean result of all
 * the games at its position for the side to move, shrunk toward 1/2 by `prior` games
 * ((sum of W + D/2 + G/2) / (games + G)). The prior is worth G = `prior` games. A node has two values: Vp with the
 * grown side (the player) to move, Vo with an opponent to move. With n games, W wins and D draws of the mover, a move's
 * value is q = (n (1 - V'(child)) + G p) / (n + G) when its next position is a node with games (V' the child's value
 * for the other role), and otherwise q = (W + D/2 + G p) / (n + G): its results shrunk toward the prior. Vp = max q
 * (the player chooses); Vo = the mean of q weighted by the games the opponents played each move (the replies they were
 * seen to play; all games when no side is named the player; max q without games). A move's score in OUT is its q as the
 * player's move (the child valued with an opponent to move).
 *
 * Confidence (Z = confidence > 0): a move's lower bound is L = q - Z sqrt(q (1 - q) / (n + G)) (at least 0), its
 * value less Z standard errors of a mean of n + G results. Then Vp is the q of the move with the best L (the move a
 * reader that plays the best score plays, not the luckiest), and every move of a node with games is written with L as
 * its score (moves never played included: their n is 0), so few lucky games do not outrank many good ones.
 *
 * The tree policy (grow_tree_choose()): UCB1 with the prior as virtual games,
 *     argmax  q' + X sqrt(ln(1 + N) / (1 + n + v)),   q' = (W + D/2 + G p) / (n + v + G)
 * (the move's own results, not the backed-up value: the games through a move are its
 * playouts)
 * over the node's legal moves, v the games in progress through the move (virtual losses,
 * so that concurrent games spread), N the node's n + v summed, ties broken by a hash of
 * the seed and the move.
 *
 * Progressive widening (W = widen > 0): at a player's node whose k listed moves legal
 * there number fewer than W sqrt(N), and with legal moves not listed, the tree chooses
 * nothing: the player searches among the unlisted moves only (USI `go ... searchmoves`),
 * and the move it finds becomes a new arm once the game is added. Here N counts only the
 * games of book grow through the node (those added with an event grow_event_is_grow()
 * accepts) and the games in progress, not the other records: imported games list moves
 * (k) but never make a node widen. So a node with one move and many grow games is offered
 * a second, and so on: k arms after about (k/W)^2 such games. Widening changes only what
 * the policy chooses in play, never grow_tree_book().
 *
 * The root's moves (root_moves, n > 0): the start position is where the player's first
 * move is chosen, and a user may want the book to open with given moves only (the shipped
 * book's 7g7f and 2g2f, whatever first moves the records hold). Then, at the start
 * position only: the tree policy chooses only among the kept moves it lists, and when it
 * lists none of them, or widening applies there, the player searches among the kept moves it
 * does not list; UCB's N and progressive widening's k and N count the kept moves; Vp is the best
 * over the kept moves; OUT lists the kept moves only (each still filtered by the rules
 * above: a kept move no game played and IN does not list is not added). Every game is still
 * added and walked as above, whatever its first move (a record is a fact about the positions
 * it reached: an opponent's first move as black is its own choice, and the player's replies
 * after it are learned; the positions after an unkept first move stay nodes): so the root's
 * game count, its position statistics, Vo and every other node are what they are without
 * the option, and the priors (the position's mean) count every game. An opponent to move at
 * the start position (the player white) plays freely.
 *
 * Threads: none inside; a GrowTree is used by one thread at a time.
 * Memory: the tree keeps each game's first max_ply moves and small per-position arrays.
 */
#ifndef HAYANAGI_BOOKGEN_GROW_H
#define HAYANAGI_BOOKGEN_GROW_H

#include <stdbool.h>
#include <stdint.h>

#include "book/book.h"
#include "record/reader.h"

/* Centipawns of the logistic scale: expected score E = 1 / (1 + exp(-cp / 600)), the
 * scale YaneuraOu's and Ponanza's win-rate conversions use. */
#define GROW_LOGISTIC_CP 600.0

typedef struct {
    int max_ply;              /* the walk credits moves at plies 1..max_ply; >= 1 */
    int expand_after;         /* K: games that must exit at a position for it to become a node; >= 1 */
    double prior;             /* G: the prior's weight in games; >= 0 */
    double explore;           /* X: the UCB exploration constant; >= 0 */
    double widen;             /* W: progressive widening, 0 off; >= 0 */
    double confidence;        /* Z: scores are lower bounds q - Z se, nodes valued by them; 0 off; >= 0 */
    uint64_t seed;            /* ties of the tree policy */
    const char *player;       /* the grown side's name in the records (exact); borrowed */
    const Move16 *root_moves; /* the moves kept at the start position (above); borrowed, copied */
    int n_root_moves;         /* their number; 0: every move (no restriction) */
} GrowOptions;

typedef struct {
    uint64_t games;      /* games added (from the root, with a result) */
    uint64_t grow_games; /* of them, games book grow played (grow_event_is_grow()) */
    uint64_t nodes;      /* positions in the tree */
    uint64_t grown;      /* of them, not in the input book */
    uint64_t book_plies; /* moves credited over all games (plies in book) */
    uint64_t moves;      /* (position, move) pairs in the tree */
} GrowSummary;

typedef struct GrowTree GrowTree;

/* The event book grow writes in each record it plays ("$EVENT:" of its CSA files), the
 * game's number following: "hayanagi book grow, game 12". */
#define GROW_EVENT "hayanagi book grow, game "

/* True when a record's event (RecordGame.event; NULL or "" when none) begins with
 * GROW_EVENT: a game book grow played, whichever run and directory it came from. */
bool grow_event_is_grow(const char *event);

/* Parses text, USI moves separated by commas or blanks ("7g7f,2g2f"), each legal at the
 * start position and given once, into out (the caller's, MAX_MOVES entries). Returns
 * their number (>= 1); -1 with the reason in err (the first bad word named) otherwise. */
int grow_root_moves_parse(const char *text, Move16 *out, char *err, size_t err_len);

/* The moves in lists at the start position that are legal there, each once, in in's
 * order, into out (the caller's, MAX_MOVES entries): what `--keep-root` keeps. Returns
 * their number, 0 when in (may be NULL) lists none; -1 when memory runs out. */
int grow_root_moves_of_book(const Book *in, Move16 *out);

/* A new tree holding every position and move of in (borrowed: it must outlive the tree,
 * and grow_tree_book() copies it) and the root. o is copied (o->player borrowed, the
 * o->root_moves array copied). NULL when memory runs out. */
GrowTree *grow_tree_create(const Book *in, const GrowOptions *o);

void grow_tree_free(GrowTree *t);

typedef enum {
    GROW_ADDED,     /* the game is in the tree */
    GROW_NOT_ROOT,  /* it does not start at the root: skipped */
    GROW_NO_RESULT, /* it has no result (unfinished, or a result the reader does not know) */
    GROW_OOM        /* out of memory: the tree is unusable */
} GrowAddResult;

/* Adds one finished game (root_sfen and the legal moves from it, its result, the player
 * names as the record gives them: the grown side is the one named o->player; its event as
 * the record gives it, NULL or "" when none: grow_event_is_grow() tells book grow's own
 * games, which alone count for progressive widening). All strings borrowed for the call.
 * Nodes that the game makes reach K exits are expanded at once. */
GrowAddResult grow_tree_add_game(GrowTree *t, const char *root_sfen, const Move *moves, int n, RecordResult result,
                                 const char *black, const char *white, const char *event);

/* The tree policy for the position after moves[0..n) from the start position: true and
 * the move in *out when every position on the way is a node (the game is still in the
 * book), n < max_ply, the node has a legal move and progressive widening does not apply;
 * false otherwise (the player searches: among grow_tree_widen()'s moves when it names any).
 * At the start position under root_moves it chooses among the kept moves only.
 * The chosen move counts as a game in progress until grow_tree_release(t, n, moves, *out). */
bool grow_tree_choose(GrowTree *t, const Move *moves, int n, Move *out);

/* Progressive widening at the position after moves[0..n) (a node, n < max_ply): the
 * number of legal moves the node does not list, written to out (MAX_MOVES entries, the
 * caller's), when the widening rule applies there; 0 otherwise. At the start position
 * under root_moves: the kept legal moves it does not list, when widening applies or it
 * lists none of them (whatever widen is). */
int grow_tree_widen(GrowTree *t, const Move *moves, int n, Move *out);

/* Ends the game in progress that grow_tree_choose() counted for the move `m` played after
 * moves[0..n). */
void grow_tree_release(GrowTree *t, const Move *moves, int n, Move m);

/* Counts so far. */
void grow_tree_summary(const GrowTree *t, GrowSummary *s);

/* The book the tree stands for: the input book with, at every node with games, every
 * move's count set to its games, its score to cp(q) (centipawns on the logistic scale,
 * the mover's view; a move without games keeps its input score), its statistics to the
 * games and wins by colour, and a comment "grow MOVE: N games +W =D -L, value q, prior p";
 * the position gets its games and wins by colour and a comment with both its values. Moves are
 * ordered by count, then score, then move. A pure function of the input book, the games
 * added (in any order) and the options max_ply, expand_after, prior, confidence, player
 * and root_moves (not of the games' events, nor of widen, explore and seed, which steer play only). The
 * caller frees the book; NULL when memory runs out. The tree keeps the values computed
 * (the moves' q) and may go on growing. */
Book *grow_tree_book(GrowTree *t);

/* The expected score of cp centipawns and back (q clamped to [1e-4, 1 - 1e-4]). */
double grow_expected_score(double cp);
int32_t grow_score_cp(double q);

#endif
