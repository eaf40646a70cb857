#include "device.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The first device of the RPC server at `endpoint`, or NULL. */
static ggml_backend_dev_t rpc_device(const char * endpoint) {
    ggml_backend_reg_t rpc = ggml_backend_reg_by_name("RPC");
    CHECK(rpc != NULL, "LLAMA_SCATTER_TEST_RPC is set but this llama.cpp has no RPC backend (GGML_RPC)");
    if (!rpc) {
        return NULL;
    }
    typedef ggml_backend_reg_t (*add_server_fn)(const char * endpoint);
    /* ISO C converts no object pointer to a function pointer; POSIX
     * (dlsym) guarantees the representations agree. */
    void * address = ggml_backend_reg_get_proc_address(rpc, "ggml_backend_rpc_add_server");
    add_server_fn add_server = NULL;
    if (address) {
        memcpy(&add_server, &address, sizeof add_server);
    }
    ggml_backend_reg_t server = add_server ? add_server(endpoint) : NULL;
    CHECK(server != NULL && ggml_backend_reg_dev_count(server) > 0, "no RPC device at %s", endpoint);
    if (!server || ggml_backend_reg_dev_count(server) == 0) {
        return NULL;
    }
    /* The suite gets the device itself (for llama_model_params.devices or
     * a backend of its own), so the server's registry need not join ggml's
     * list, as --rpc makes it. */
    return ggml_backend_reg_dev_get(server, 0);
}

ggml_backend_dev_t test_device(void) {
    static bool chosen = false;
    static ggml_backend_dev_t device = NULL;
    if (chosen) {
        return device;
    }
    chosen = true;
    const char * endpoint = getenv("LLAMA_SCATTER_TEST_RPC");
    const char * name = getenv("LLAMA_SCATTER_TEST_DEVICE");
    if (endpoint && *endpoint) {
        device = rpc_device(endpoint);
    } else if (name && *name) {
        device = ggml_backend_dev_by_name(name);
        CHECK(device != NULL, "LLAMA_SCATTER_TEST_DEVICE: no device named %s", name);
    }
    return device;
}
