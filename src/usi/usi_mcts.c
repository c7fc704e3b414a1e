/* usi_mcts.c - the MCTS options of the USI engine (usi_mcts.h). */
#include "usi/usi_mcts.h"

void usi_mcts_declare_options(OptionTable *t) {
    options_add(t, "UseMCTS", OPT_CHECK, "false", 0, 0, NULL);
    options_add(t, "C_init", OPT_SPIN, "144", 0, 500, NULL);
    options_add(t, "C_base", OPT_SPIN, "28288", 10000, 100000, NULL);
    options_add(t, "C_fpu_reduction", OPT_SPIN, "27", 0, 100, NULL);
    options_add(t, "C_init_root", OPT_SPIN, "116", 0, 500, NULL);
    options_add(t, "C_base_root", OPT_SPIN, "25617", 10000, 100000, NULL);
    options_add(t, "C_fpu_reduction_root", OPT_SPIN, "0", 0, 100, NULL);
    options_add(t, "PolicyTemperature", OPT_SPIN, "100", 1, 10000, NULL);
    options_add(t, "Use_Book_Policy", OPT_CHECK, "false", 0, 0, NULL);
    options_add(t, "BookPolicyAlpha", OPT_SPIN, "50", 0, 100, NULL);
    options_add(t, "UCT_Hash", OPT_SPIN, "256", 1, 65536, NULL);
    options_add(t, "ReuseSubtree", OPT_CHECK, "true", 0, 0, NULL);
}

MctsProvider usi_mcts_setup(OptionTable *t, const SearchOptions *so, const Book *book, MctsOptions *o,
                            UsiMctsProviders *pv) {
    mcts_options_default(o);
    MctsParams *p = &o->params;
    p->c_init = (double)options_int(t, "C_init") / 100.0;
    p->c_base = (double)options_int(t, "C_base");
    p->c_fpu_reduction = (double)options_int(t, "C_fpu_reduction") / 100.0;
    p->c_init_root = (double)options_int(t, "C_init_root") / 100.0;
    p->c_base_root = (double)options_int(t, "C_base_root");
    p->c_fpu_reduction_root = (double)options_int(t, "C_fpu_reduction_root") / 100.0;
    o->threads = so->threads;
    o->tree_mb = (size_t)options_int(t, "UCT_Hash");
    o->reuse_tree = options_bool(t, "ReuseSubtree");
    o->entering_king_rule = so->entering_king_rule;
    o->max_moves_to_draw = so->max_moves_to_draw;
    o->resign_value = so->resign_value;
    o->time = so->time;
    ab_provider_defaults(&pv->ab);
    pv->ab.temperature_cp = (double)options_int(t, "PolicyTemperature");
    pv->ab.rules = *so;
    MctsProvider ab = ab_provider(&pv->ab);
    if (!options_bool(t, "Use_Book_Policy") || !book)
        return ab;
    pv->book.inner = ab;
    pv->book.book = book;
    pv->book.alpha = (double)options_int(t, "BookPolicyAlpha") / 100.0;
    return policybook_provider(&pv->book);
}
