/* fuzz_kif.c - libFuzzer target for the KIF and KI2 readers (picked by the first byte,
 * which also turns variations on); the checks are in record_fuzz.h. */
#include "record_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    return record_fuzz_one(data, size, (data[0] & 1) ? REC_FMT_KI2 : REC_FMT_KIF, (data[0] & 2) != 0);
}
