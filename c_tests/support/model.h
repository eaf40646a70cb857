/* For the suites that run the real model (its path is argv[1]). Built
 * only against a llama.cpp that loads today's models (c_tests/CMakeLists.txt). */
#ifndef SCATTER_TEST_MODEL_H
#define SCATTER_TEST_MODEL_H

#include "ggml-backend.h"
#include "llama.h"

/* Limits llama.cpp's log to errors, initialises the backend and loads the
 * model of argv[1] on the CPU, or wholly on test_device() (support/device.h)
 * where one is asked for. NULL, after a failed CHECK, when there is no such argument or
 * the model does not load. */
struct llama_model * model_load(int argc, char ** argv);

/* Frees the model (NULL is fine) and the backend. */
void model_free(struct llama_model * model);

#endif
