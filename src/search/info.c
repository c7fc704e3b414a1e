/* info.c - see info.h. */
#include "search/info.h"

#include "search/search.h"

void search_info_set_value(SearchInfo *in, Value v) {
    if (v >= VALUE_MATE_IN_MAX_PLY) {
        in->score_kind = INFO_SCORE_MATE;
        in->score = VALUE_MATE - v;
    } else if (v <= VALUE_MATED_IN_MAX_PLY) {
        in->score_kind = INFO_SCORE_MATED;
        in->score = VALUE_MATE + v;
    } else {
        in->score_kind = INFO_SCORE_CP;
        in->score = v;
    }
}
