/* fuzz_csa.c - libFuzzer target for the CSA reader (and the USI list reader, picked by
 * the first byte); the checks are in record_fuzz.h. */
#include "record_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    return record_fuzz_one(data, size, (data[0] & 1) ? REC_FMT_USI : REC_FMT_CSA, false);
}
