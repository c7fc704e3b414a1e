/* fuzz_packed_sfen.c - libFuzzer target for packed_sfen_decode() on hostile bytes.
 *
 * Decodes the first 32 bytes of the input (shorter inputs are skipped). A rejection must
 * come with a message; an accepted position must be internally consistent and must come
 * back unchanged through encode -> decode, and its encoding must be a fixed point, so a
 * decoder that accepts something it cannot reproduce is caught as well as a crash. The
 * direct decoder must also agree with the SFEN route (packed_sfen_decode_via_sfen()) on
 * the verdict and, when both accept, on the position and its keys. packed_sfen_flip() and
 * packed_sfen_keys() must give the same verdict; flipped twice an accepted input gives its
 * canonical encoding, and the keys are those of the decoded position and its decoded twin. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "shogi/packed_sfen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shogi_init();
    PackedSfen input;
    if (size < sizeof input.data)
        return 0;
    memcpy(input.data, data, sizeof input.data);

    Position pos, via;
    StateInfo st, via_st;
    char err[256] = "", via_err[256] = "";
    int ply = size > sizeof input.data ? data[sizeof input.data] * 4099 - 7 : 1; /* below 1 and past 1000000 too */
    bool ok = packed_sfen_decode(&input, &pos, &st, ply, err, sizeof err);
    PackedSfen flipped, back;
    Key key = 0, twin_key = 0;
    Position at_one; /* flip and keys take no move number: their verdict is the one at ply 1 */
    StateInfo at_one_st;
    bool ok_at_one = packed_sfen_decode(&input, &at_one, &at_one_st, 1, NULL, 0);
    FUZZ_CHECK(ok_at_one == packed_sfen_flip(&input, &flipped));
    FUZZ_CHECK(ok_at_one == packed_sfen_keys(&input, &key, &twin_key));
    /* the two decoders agree on the verdict */
    FUZZ_CHECK(ok == packed_sfen_decode_via_sfen(&input, &via, &via_st, ply, via_err, sizeof via_err));
    if (!ok) {
        FUZZ_CHECK(err[0] != '\0' && via_err[0] != '\0'); /* every rejection says why */
        return 0;
    }
    /* ... and on the position */
    FUZZ_CHECK(memcmp(pos.board, via.board, sizeof pos.board) == 0);
    FUZZ_CHECK(memcmp(pos.hand, via.hand, sizeof pos.hand) == 0);
    FUZZ_CHECK(pos.side == via.side && pos.ply == via.ply);
    FUZZ_CHECK(st.board_key == via_st.board_key && st.hand_key == via_st.hand_key && st.checkers == via_st.checkers);
    FUZZ_CHECK(position_is_consistent(&pos));

    PackedSfen canonical, again;
    packed_sfen_encode(&pos, &canonical);
    Position decoded;
    StateInfo decoded_st;
    /* our own encoding of an accepted position decodes, to the same SFEN (move number
     * included, as the caller gives it back) */
    FUZZ_CHECK(packed_sfen_decode(&canonical, &decoded, &decoded_st, pos.ply, err, sizeof err));
    char before[SFEN_MAX], after[SFEN_MAX];
    FUZZ_CHECK(strcmp(position_to_sfen(&pos, before, true), position_to_sfen(&decoded, after, true)) == 0);
    packed_sfen_encode(&decoded, &again);
    FUZZ_CHECK(packed_sfen_compare(&canonical, &again) == 0);
    FUZZ_CHECK(packed_sfen_flip(&flipped, &back) && packed_sfen_compare(&canonical, &back) == 0);
    FUZZ_CHECK(key == position_key(&pos));
    Position twin;
    StateInfo twin_st;
    FUZZ_CHECK(packed_sfen_decode(&flipped, &twin, &twin_st, 1, err, sizeof err));
    FUZZ_CHECK(twin_key == position_key(&twin));
    return 0;
}
