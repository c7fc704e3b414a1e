/* test_think_provenance.c - the provenance line of `book think` (think_provenance.h):
 * what the writer writes the reader reads back field for field, a separator inside the
 * engine name or the budget cannot split a field, the last line of a comment wins, and the
 * date follows SOURCE_DATE_EPOCH (1800000000 s is 2027-01-15T08:00:00Z). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bookgen/think_provenance.h"

static void test_round_trip(void **state) {
    (void)state;
    ThinkProvenance in = {.engine = "YaneuraOu NNUE 8.30",
                          .budget = "go btime 0 wtime 0 byoyomi 1000",
                          .date = "2026-12-06T01:02:03Z",
                          .depth = 22,
                          .nodes = 123456789012ULL},
                    out;
    char line[512];
    assert_string_equal(think_provenance_format(&in, line, sizeof line),
                        "think engine=YaneuraOu NNUE 8.30; budget=go btime 0 wtime 0 byoyomi 1000; depth=22; "
                        "nodes=123456789012; date=2026-12-06T01:02:03Z");
    assert_true(think_provenance_parse(line, &out));
    assert_string_equal(out.engine, in.engine);
    assert_string_equal(out.budget, in.budget);
    assert_string_equal(out.date, in.date);
    assert_int_equal(out.depth, in.depth);
    assert_true(out.nodes == in.nodes);
}

static void test_separators(void **state) {
    (void)state;
    ThinkProvenance in = {.engine = "Evil; depth=99\nthink engine=X", .budget = "go a; b", .date = "d", .depth = 3},
                    out;
    char line[512];
    think_provenance_format(&in, line, sizeof line);
    assert_null(strchr(line, '\n'));
    assert_true(think_provenance_parse(line, &out));
    assert_string_equal(out.engine, "Evil, depth=99,think engine=X");
    assert_string_equal(out.budget, "go a, b");
    assert_int_equal(out.depth, 3);
}

static void test_last_line_wins(void **state) {
    (void)state;
    ThinkProvenance a = {.engine = "Weak", .budget = "nodes 1", .date = "2026-01-01T00:00:00Z", .depth = 5},
                    b = {.engine = "Strong", .budget = "depth 20", .date = "2026-02-01T00:00:00Z", .depth = 20}, out;
    char la[256], lb[256], comment[600];
    snprintf(comment, sizeof comment, "a note\n%s\n%s", think_provenance_format(&a, la, sizeof la),
             think_provenance_format(&b, lb, sizeof lb));
    assert_true(think_provenance_parse(comment, &out));
    assert_string_equal(out.engine, "Strong");
    assert_int_equal(out.depth, 20);
    assert_false(think_provenance_parse("a note; think engine=inside a line", &out));
}

static void test_date(void **state) {
    (void)state;
    char date[32];
    setenv("SOURCE_DATE_EPOCH", "1800000000", 1);
    think_provenance_date(date, sizeof date);
    assert_string_equal(date, "2027-01-15T08:00:00Z");
    setenv("SOURCE_DATE_EPOCH", "not a number", 1);
    think_provenance_date(date, sizeof date);
    assert_int_equal(strlen(date), 20); /* now */
    unsetenv("SOURCE_DATE_EPOCH");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_separators),
        cmocka_unit_test(test_last_line_wins),
        cmocka_unit_test(test_date),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
