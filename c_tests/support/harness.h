/* Minimal test harness: CHECK records a failure and goes on, so one run
 * reports every broken invariant; harness_finish prints the totals in the
 * "N passed, N failed" form and gives the exit code. */
#ifndef SCATTER_TEST_HARNESS_H
#define SCATTER_TEST_HARNESS_H

#include <stdio.h>

extern int harness_passed;
extern int harness_failed;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (cond) {                                                         \
            harness_passed++;                                               \
        } else {                                                            \
            harness_failed++;                                               \
            if (harness_failed <= 40) {                                     \
                fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__,      \
                        __LINE__, #cond);                                   \
                fprintf(stderr, __VA_ARGS__);                               \
                fputc('\n', stderr);                                        \
            }                                                               \
        }                                                                   \
    } while (0)

/* Prints the totals; returns the process exit code. */
int harness_finish(const char * suite);

#endif
