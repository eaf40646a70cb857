# llama-scatter: common/scatter.cpp in llama.cpp's common library, linked to libllama_scatter.
# Included by common/CMakeLists.txt (one line of integration/llama.cpp/hooks.patch). The
# llama-scatter superbuild defines the target (and sets LLAMA_SCATTER_SUPERBUILD); otherwise an
# installed llama-scatter package is used (-DCMAKE_PREFIX_PATH=<its prefix>).
target_sources(${TARGET} PRIVATE scatter.cpp scatter-modules.cpp scatter.h)
if (NOT LLAMA_SCATTER_SUPERBUILD AND NOT TARGET llama_scatter::llama_scatter)
    find_package(llama_scatter 0.1 REQUIRED)
endif()
target_link_libraries(${TARGET} PUBLIC llama_scatter::llama_scatter)

