/* The ggml device a suite runs scatter's graph on, chosen by the
 * environment, so that one suite runs on the CPU, an RPC server or a GPU. */
#ifndef SCATTER_TEST_DEVICE_H
#define SCATTER_TEST_DEVICE_H

#include "ggml-backend.h"

/* The device the environment asks for, or NULL for the CPU:
 * LLAMA_SCATTER_TEST_RPC=HOST:PORT, an RPC server, or
 * LLAMA_SCATTER_TEST_DEVICE=NAME, a device by its ggml name (Vulkan0,
 * CUDA0). A CHECK fails where the one asked for is not there. */
ggml_backend_dev_t test_device(void);

#endif
