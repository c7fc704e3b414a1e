/* rules.h - how a game ends: checkmate, repetition (sennichite) with perpetual check,
 * entering-king declaration (CSA 24/27-point rules, handicap variants, Try rule), and
 * the max-moves draw. Also mate-in-one detection. */
#ifndef HAYANAGI_SHOGI_RULES_H
#define HAYANAGI_SHOGI_RULES_H

#include "shogi/position.h"

/* The option values of YaneuraOu's EnteringKingRule, in its order. */
typedef enum {
    EKR_NONE, /* NoEnteringKing */
    EKR_24,   /* CSARule24: 31 points or more wins, for both sides */
    EKR_24_H, /* CSARule24H: as EKR_24, white's target lowered by its handicap */
    EKR_27,   /* CSARule27: black needs 28 points, white 27 */
    EKR_27_H, /* CSARule27H: as EKR_27, white's target lowered by its handicap */
    EKR_TRY,  /* TryRule: the king reaching the enemy king's starting square wins */
    EKR_NB
} EnteringKingRule;

/* The USI option spelling of a rule ("CSARule27"...). */
const char *entering_king_rule_name(EnteringKingRule r);
/* Parses an option spelling; returns false for an unknown name. */
bool entering_king_rule_parse(const char *name, EnteringKingRule *out);

/* The points colour c needs to declare under rule r in a game with this material. For
 * the _H rules the material missing from a full set (a handicap) is taken off white's
 * target, as YaneuraOu does: two-piece handicap under CSARule27H gives white 17. */
int entering_king_target(const Position *pos, EnteringKingRule r, Color c);
/* The declaring side's points: 5 for each bishop, rook, horse or dragon, 1 for other
 * pieces, counting its hand and its pieces in the enemy camp, king excluded. */
int entering_king_points(const Position *pos, Color c);

/* The declaration the side to move may make now: MOVE_WIN when a point rule's
 * conditions all hold (king in the enemy camp, not in check, at least 10 other pieces
 * there, enough points), for EKR_TRY the legal king move onto the try square, else
 * MOVE_NONE. */
Move position_declaration(const Position *pos, EnteringKingRule r);

typedef enum {
    REPETITION_NONE,
    REPETITION_DRAW,
    REPETITION_WIN,      /* the opponent gave check all through the cycle: side to move wins */
    REPETITION_LOSE,     /* the side to move gave check all through the cycle */
    REPETITION_SUPERIOR, /* same board, side to move holds at least as much in hand */
    REPETITION_INFERIOR
} RepetitionState;

/* For the search: looks back up to max_back plies (not past a null move or the root)
 * for an earlier occurrence of this board with the same side to move. Returns its
 * verdict and, through *distance (may be NULL), how many plies back it lies. */
RepetitionState position_repetition(const Position *pos, int max_back, int *distance);

/* For adjudication: REPETITION_NONE unless this position (board, hands, side) has now
 * occurred for the fourth time in the history; then DRAW, or WIN/LOSE for the side to
 * move when one side's every move since the first occurrence was a check. */
RepetitionState position_sennichite(const Position *pos);

typedef enum {
    GAME_ONGOING,
    GAME_MATED,          /* the side to move has no legal move and loses */
    GAME_REPETITION,     /* fourfold repetition, a draw */
    GAME_PERPETUAL_WIN,  /* fourfold repetition by the opponent's perpetual check */
    GAME_PERPETUAL_LOSS, /* fourfold repetition by our own perpetual check */
    GAME_MAX_MOVES       /* max_moves moves have been played: a draw */
} GameState;

/* The state of the game at pos for adjudication, in the order the rules apply: mate,
 * repetition, then the move limit (max_moves 0 means none). Declarations are actions
 * and are checked with position_declaration(). */
GameState position_game_state(const Position *pos, int max_moves);

/* What the rules alone say about a node inside a search tree (alpha-beta and MCTS ask the
 * same question here, so both trees apply the same rules in the same order). */
typedef enum {
    TREE_RULE_NONE,           /* nothing: search the node */
    TREE_RULE_REPETITION,     /* the board recurs (position_repetition() DRAW): a draw */
    TREE_RULE_PERPETUAL_WIN,  /* the opponent checked all through the cycle: side to move wins */
    TREE_RULE_PERPETUAL_LOSS, /* we checked all through the cycle: side to move loses */
    TREE_RULE_DECLARATION,    /* the side to move may declare (ekr): it wins with its next action */
    TREE_RULE_MOVE_LIMIT      /* max_moves_to_draw (> 0) plies played: a draw */
} TreeRule;

/* The rule verdict for pos inside a tree, in this order: repetition within 32 plies (not
 * past a null move or the root, as position_repetition()), then the declaration under
 * ekr (none for EKR_NONE), then the move limit (pos->ply - 1 >= max_moves_to_draw when
 * max_moves_to_draw > 0). Superior and inferior repetitions are TREE_RULE_NONE. Mate and
 * the lack of legal moves are for the caller, which knows its move list. */
TreeRule position_tree_rule(const Position *pos, EnteringKingRule ekr, int max_moves_to_draw);

/* A move that mates at once, or MOVE_NONE. pos is restored before returning. */
Move position_mate_in_one(Position *pos);

#endif
