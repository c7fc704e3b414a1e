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

static void test_int_double_range(void **state) {
    (void)state;
    int i = 7;
    assert_true(parse_int("-12", -100, 100, &i));
    assert_int_equal(i, -12);
    assert_false(parse_int("2147483648", 0, 2147483647, &i));
    assert_false(parse_int("5", 6, 9, &i));
    assert_int_equal(i, -12);

    double d = 9;
    assert_true(parse_double("0.5", 0, 1, &d));
    assert_true(d == 0.5);
    assert_true(parse_double("1e-7", 0, 1, &d));
    assert_true(d == 1e-7);
    assert_true(parse_double("-3", -5, 5, &d));
    assert_true(d == -3);
    assert_true(parse_double(".25", 0, 1, &d));
    assert_true(d == 0.25);
    const char *bad[] = {NULL, "", " 1", "1 ", "1x", "nan", "inf", "-inf", "0x10", "1e999", "2", "-", "."};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        d = 9;
        assert_false(parse_double(bad[k], -1, 1, &d));
        assert_true(d == 9);
    }

    long long a = -1, b = -1;
    assert_true(parse_range("2-4", 1, 40, &a, &b));
    assert_int_equal(a, 2);
    assert_int_equal(b, 4);
    assert_true(parse_range("3-3", 1, 40, &a, &b));
    assert_int_equal(a, 3);
    assert_int_equal(b, 3);
    const char *bad_ranges[] = {NULL, "", "4-2", "2", "2-", "-2", "2--4", "2-4x", " 2-4", "0-4", "2-41", "2-+4"};
    for (size_t k = 0; k < sizeof bad_ranges / sizeof bad_ranges[0]; k++) {
        a = b = -1;
        assert_false(parse_range(bad_ranges[k], 1, 40, &a, &b));
        assert_int_equal(a, -1);
        assert_int_equal(b, -1);
    }
}

static void test_size(void **state) {
    (void)state;
    uint64_t v = 7;
    assert_true(parse_size("4G", 0, UINT64_MAX, &v));
    assert_int_equal(v, 4ull << 30);
    assert_true(parse_size("512m", 0, UINT64_MAX, &v));
    assert_int_equal(v, 512ull << 20);
    assert_true(parse_size("1048576", 0, UINT64_MAX, &v));
    assert_int_equal(v, 1048576);
    assert_true(parse_size("64K", 0, UINT64_MAX, &v));
    assert_int_equal(v, 65536);
    assert_true(parse_size("2T", 0, UINT64_MAX, &v));
    assert_int_equal(v, 2ull << 40);
    v = 7;
    static const char *bad[] = {
        "", "G", "4GB", "1.5G", " 4G", "4G ", "-1G", "+4G", "4X", "99999999999999999999", "17179869184T"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_false(parse_size(bad[i], 0, UINT64_MAX, &v));
    assert_false(parse_size(NULL, 0, UINT64_MAX, &v));
    assert_false(parse_size("255K", 256 * 1024, UINT64_MAX, &v)); /* below the range */
    assert_false(parse_size("2G", 0, 1ull << 30, &v));            /* above it */
    assert_int_equal(v, 7);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_whole_numbers),
        cmocka_unit_test(test_refuses_everything_else),
        cmocka_unit_test(test_unsigned),
        cmocka_unit_test(test_int_double_range),
        cmocka_unit_test(test_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
