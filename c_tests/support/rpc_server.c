/* A ggml RPC server on the CPU backend, as llama.cpp's rpc-server serves
 * one: `scatter_rpc_server HOST:PORT` serves until it is killed. The
 * backend-sampling suite runs against it (support/with-rpc-server.sh). */
#include <stdio.h>

#include "ggml-backend.h"
#include "ggml-rpc.h"

int main(int argc, char ** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s HOST:PORT\n", argv[0]);
        return 2;
    }
    ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (!cpu) {
        fprintf(stderr, "no CPU device\n");
        return 1;
    }
    /* Two threads: this machine's cores; the client waits while it computes. */
    ggml_backend_rpc_start_server(argv[1], NULL, 2, 1, &cpu);
    return 1;
}
