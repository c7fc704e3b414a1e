/* usi_mcts.c - the MCTS options of the USI engine (usi_mcts.h). */
#include "usi/usi_mcts.h"

MctsProvider usi_mcts_setup(OptionTable *t, const SearchOptions *so, const Book *book, MctsOptions *o,
                            UsiMctsProviders *pv) {
    mcts_options_default(o);
    MctsParams *p = &o->params;
    p->c_init = (double)options_int(t, OPTION_C_init) / 100.0;
    p->c_base = (double)options_int(t, OPTION_C_base);
    p->c_fpu_reduction = (double)options_int(t, OPTION_C_fpu_reduction) / 100.0;
    p->c_init_root = (double)options_int(t, OPTION_C_init_root) / 100.0;
    p->c_base_root = (double)options_int(t, OPTION_C_base_root);
    p->c_fpu_reduction_root = (double)options_int(t, OPTION_C_fpu_reduction_root) / 100.0;
    o->threads = so->threads;
    o->tree_mb = (size_t)options_int(t, OPTION_UCT_Hash);
    o->reuse_tree = options_bool(t, OPTION_ReuseSubtree);
    o->entering_king_rule = so->entering_king_rule;
    o->max_moves_to_draw = so->max_moves_to_draw;
    o->resign_value = so->resign_value;
    o->time = so->time;
    ab_provider_defaults(&pv->ab);
    pv->ab.temperature_cp = (double)options_int(t, OPTION_PolicyTemperature);
    pv->ab.rules = *so;
    MctsProvider ab = ab_provider(&pv->ab);
    if (!options_bool(t, OPTION_Use_Book_Policy) || !book)
        return ab;
    pv->book.inner = ab;
    pv->book.book = book;
    pv->book.alpha = (double)options_int(t, OPTION_BookPolicyAlpha) / 100.0;
    return policybook_provider(&pv->book);
}
