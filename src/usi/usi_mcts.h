/* usi_mcts.h - the engine's MCTS mode: its USI options and the provider stack the USI
 * loop hands to mcts_go().
 *
 * Options (declared in USI_OPTION_LIST, usi/options.h; dlshogi's names where dlshogi has
 * them; constants in hundredths as there):
 *   UseMCTS (check, false)          `go` searches with MCTS instead of alpha-beta
 *   C_init 144, C_base 28288, C_fpu_reduction 27,
 *   C_init_root 116, C_base_root 25617, C_fpu_reduction_root 0   the PUCT constants
 *   PolicyTemperature (cp, 100)     the alpha-beta provider's softmax temperature
 *   Use_Book_Policy (check, false)  mix the loaded book into priors and values
 *   BookPolicyAlpha (percent, 50)   the PolicyBook alpha
 *   UCT_Hash (MB, 256)              the tree's memory
 *   ReuseSubtree (check, true)      keep the subtree of the new position between moves
 */
#ifndef HAYANAGI_USI_USI_MCTS_H
#define HAYANAGI_USI_USI_MCTS_H

#include "book/book.h"
#include "mcts/mcts.h"
#include "usi/policybook.h"
#include "mcts/provider_ab.h"
#include "usi/options.h"

/* The providers of one search; owned by the USI engine, alive while the search runs. */
typedef struct {
    AbProviderOptions ab;
    PolicyBookProvider book;
} UsiMctsProviders;

/* Reads the options into *o and *pv (so gives threads, rules and time options) and
 * returns the provider to search with: the alpha-beta provider, wrapped by PolicyBook
 * when Use_Book_Policy is set and book is non-NULL. */
MctsProvider usi_mcts_setup(OptionTable *t, const SearchOptions *so, const Book *book, MctsOptions *o,
                            UsiMctsProviders *pv);

#endif
