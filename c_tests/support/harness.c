#include "harness.h"

int harness_passed = 0;
int harness_failed = 0;

int harness_finish(const char * suite) {
    printf("%s: %d passed, %d failed\n", suite, harness_passed, harness_failed);
    return harness_failed == 0 && harness_passed > 0 ? 0 : 1;
}
