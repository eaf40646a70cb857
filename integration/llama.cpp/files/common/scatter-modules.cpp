// llama-scatter: why a GPU module that ships beside the tools is not in use (common/scatter.h).

#include "scatter.h"

#include "ggml-backend.h"
#include "log.h"

#ifdef __linux__
#include <dlfcn.h>

#include <filesystem>
#include <system_error>

namespace {

// The GPU modules a release may carry, and what a user needs for one to start.
struct gpu_module {
    const char * name;   // libggml-NAME.so, and the backend's name (ggml compares names without case)
    const char * needs;
};
const gpu_module gpu_modules[] = {
    { "vulkan", "a GPU needs the Vulkan loader (Debian, Ubuntu: libvulkan1) and a driver: mesa-vulkan-drivers for "
                "AMD and Intel, NVIDIA's own for NVIDIA; a driver that runs on the CPU, such as lavapipe, is used "
                "only when GGML_VK_VISIBLE_DEVICES names it" },
};

}  // namespace

void common_scatter_note_modules() {
    namespace fs = std::filesystem;
    std::error_code ec;
    // ggml looks for modules beside the program (and in the working directory); the release puts them there.
    const fs::path dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
    if (ec) {
        return;
    }
    for (const gpu_module & module : gpu_modules) {
        const fs::path path = dir / ("libggml-" + std::string(module.name) + ".so");
        if (!fs::exists(path, ec)) {
            continue;
        }
        if (ggml_backend_reg_t reg = ggml_backend_reg_by_name(module.name)) {
            if (ggml_backend_reg_dev_count(reg) == 0) {
                LOG_WRN("llama-scatter: ggml's %s backend found no device, so the model runs on the CPU; %s\n",
                        module.name, module.needs);
            }
        } else if (void * handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            dlclose(handle);
            LOG_WRN("llama-scatter: ggml's %s module loads, but its backend did not start (no driver answered), so "
                    "the model runs on the CPU; %s\n", module.name, module.needs);
        } else {
            LOG_WRN("llama-scatter: ggml's %s module is not loaded (%s), so the model runs on the CPU; %s\n",
                    module.name, dlerror(), module.needs);
        }
    }
}

#else

void common_scatter_note_modules() {}

#endif
