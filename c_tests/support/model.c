#include "model.h"

#include <stdio.h>

#include "harness.h"

static void quiet_log(enum ggml_log_level level, const char * text, void * user) {
    (void) user;
    if (level == GGML_LOG_LEVEL_ERROR) {
        fputs(text, stderr);
    }
}

struct llama_model * model_load(int argc, char ** argv) {
    CHECK(argc == 2, "usage: %s MODEL.gguf", argv[0]);
    if (argc != 2) {
        return NULL;
    }
    llama_log_set(quiet_log, NULL);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model * model = llama_model_load_from_file(argv[1], mp);
    CHECK(model != NULL, "could not load %s", argv[1]);
    return model;
}

void model_free(struct llama_model * model) {
    if (model) {
        llama_model_free(model);
    }
    llama_backend_free();
}
