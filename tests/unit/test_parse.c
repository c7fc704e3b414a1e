/* test_parse.c - strict command-line numbers (util/parse.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/parse.h"

static void test_accepts_whole_numbers(void **state) {
    (void)state;
    long long v = 0;
    assert_true(parse_integer("42", 0, 100, &v));
    assert_int_equal(v, 42);
    assert_true(parse_integer("-7", -10, 10, &v));
    assert_int_equal(v, -7);
    assert_true(parse_integer("+7", -10, 10, &v));
    assert_int_equal(v, 7);
    assert_true(parse_integer("100", 0, 100, &v)); /* the bounds are inclusive */
    assert_int_equal(v, 100);
}

static void test_refuses_everything_else(void **state) {
    (void)state;
    const char *bad[] = {"", " 4", "4 ", "4x", "x4", "-", "+", "0x10", "1e3", "101", "-1", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long long v = 12345;
        if (parse_integer(bad[i], 0, 100, &v))
            fail_msg("accepted \"%s\"", bad[i]);
        assert_int_equal(v, 12345); /* untouched */
    }
    long long v = 1;
    assert_false(parse_integer(NULL, 0, 100, &v));
}

static void test_unsigned(void **state) {
    (void)state;
    uint64_t v = 0;
    assert_true(parse_unsigned("18446744073709551615", &v)); /* UINT64_MAX */
    assert_true(v == UINT64_MAX);
    assert_true(parse_unsigned("0", &v));
    assert_true(v == 0);
    assert_true(parse_unsigned("010", &v)); /* decimal, not octal */
    assert_true(v == 10);
    const char *bad[] = {"", " 4", "4 ", "4x", "-1", "+1", "0x10", "18446744073709551616"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 12345;
        if (parse_unsigned(bad[i], &v))
            fail_msg("accepted \"%s\"", bad[i]);
        assert_true(v == 12345); /* untouched */
    }
    assert_false(parse_unsigned(NULL, &v));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_whole_numbers),
        cmocka_unit_test(test_refuses_everything_else),
        cmocka_unit_test(test_unsigned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
