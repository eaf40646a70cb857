#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "ggml-backend.h"
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
    static ggml_backend_dev_t devices[2];
    devices[0] = test_device();
    if (devices[0]) {
        /* Every layer and the output there, so the sampling graph runs there too. */
        mp.devices = devices;
        mp.n_gpu_layers = 999;
        printf("model on device %s (%s)\n", ggml_backend_dev_name(devices[0]),
               ggml_backend_dev_description(devices[0]));
#ifdef MODEL_LAYERS_ON_CPU
        /* LLAMA_SCATTER_TEST_LAYERS=cpu: the repeating layers' weights stay on
         * the CPU (and so their ops), only the output, and so the logits and
         * the sampling graph, on the device: for a device as slow as a
         * software one. (The tensor overrides are not in every llama.h tested;
         * this is built only for the backend-sampling suite.) */
        const char * layers = getenv("LLAMA_SCATTER_TEST_LAYERS");
        if (layers && strcmp(layers, "cpu") == 0) {
            static struct llama_model_tensor_buft_override overrides[2];
            overrides[0].pattern = "blk\\.";
            overrides[0].buft = ggml_backend_cpu_buffer_type();
            mp.tensor_buft_overrides = overrides;
            printf("the layers on the CPU, the output on %s\n", ggml_backend_dev_name(devices[0]));
        }
#endif
    }
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
