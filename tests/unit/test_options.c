/* test_options.c - the typed USI option table: every OptionId names its own option, and
 * setoption validates values the way docs/usi.md says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "usi/options.h"

static void test_ids_and_names_agree(void **state) {
    (void)state;
    static OptionTable t;
    options_init(&t);
    for (int id = 0; id < OPTION_COUNT; id++) {
        Option *o = options_find(&t, t.items[id].name);
        assert_non_null(o);
        assert_int_equal(o->id, id);
        assert_ptr_equal(options_get(&t, (OptionId)id), o);
    }
    assert_string_equal(options_get(&t, OPTION_Hash)->name, "Hash");
    assert_string_equal(options_get(&t, OPTION_BookFile)->name, "BookFile");
    assert_int_equal(options_int(&t, OPTION_Hash), 256);
    assert_true(options_bool(&t, OPTION_USI_OwnBook));
    assert_string_equal(options_string(&t, OPTION_EnteringKingRule), "CSARule27");
    assert_null(options_find(&t, "Hahs"));
}

static void test_setoption(void **state) {
    (void)state;
    static OptionTable t;
    options_init(&t);
    char err[256];
    /* Names are case-insensitive; the value is validated and normalised. */
    Option *o = options_set_from_usi(&t, "name hash value 64", err, sizeof err);
    assert_non_null(o);
    assert_int_equal(o->id, OPTION_Hash);
    assert_int_equal(options_int(&t, OPTION_Hash), 64);
    assert_true(options_take_changed(&t, OPTION_Hash));
    assert_false(options_take_changed(&t, OPTION_Hash));
    assert_null(options_set_from_usi(&t, "name Hash value 0", err, sizeof err));
    assert_null(options_set_from_usi(&t, "name Hash value 12x", err, sizeof err));
    assert_int_equal(options_int(&t, OPTION_Hash), 64);
    assert_null(options_set_from_usi(&t, "name USI_Ponder value yes", err, sizeof err));
    assert_non_null(options_set_from_usi(&t, "name EnteringKingRule value tryrule", err, sizeof err));
    assert_string_equal(options_string(&t, OPTION_EnteringKingRule), "TryRule");
    assert_null(options_set_from_usi(&t, "name EnteringKingRule value CSARule28", err, sizeof err));
    /* A string value may hold spaces; <empty> is the empty string. */
    assert_non_null(options_set_from_usi(&t, "name BookFile value my book.db", err, sizeof err));
    assert_string_equal(options_string(&t, OPTION_BookFile), "my book.db");
    assert_non_null(options_set_from_usi(&t, "name BookFile value <empty>", err, sizeof err));
    assert_string_equal(options_string(&t, OPTION_BookFile), "");
    assert_null(options_set_from_usi(&t, "name NoSuchOption value 1", err, sizeof err));
    assert_non_null(strstr(err, "unknown option"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_and_names_agree),
        cmocka_unit_test(test_setoption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
