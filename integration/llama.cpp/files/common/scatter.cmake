# llama-scatter: common/scatter.cpp in llama.cpp's common library, linked to libllama_scatter.
# Included by common/CMakeLists.txt (one line of integration/llama.cpp/hooks.patch). The
# llama-scatter superbuild defines the target (and sets LLAMA_SCATTER_SUPERBUILD); otherwise an
# installed llama-scatter package is used (-DCMAKE_PREFIX_PATH=<its prefix>).
target_sources(${TARGET} PRIVATE scatter.cpp scatter.h)
if (NOT LLAMA_SCATTER_SUPERBUILD AND NOT TARGET llama_scatter::llama_scatter)
    find_package(llama_scatter 0.1 REQUIRED)
endif()
target_link_libraries(${TARGET} PUBLIC llama_scatter::llama_scatter)

# The web UI's scatter settings read the parameter table above and the library's presets from
# tools/ui/src/lib/constants/scatter-table.generated.ts, written by a small program before the
# UI's npm build (tools/ui defines that build's target after this folder: the dependency is
# added once the whole tree is read). The file in the UI's sources is only replaced when its
# content changes, so that an unchanged table costs no npm build.
if (LLAMA_BUILD_UI)
    set(_scatter_ui_dir "${PROJECT_SOURCE_DIR}/tools/ui")
    set(_scatter_ui_table "${CMAKE_CURRENT_BINARY_DIR}/scatter-table.generated.ts")
    add_executable(llama-scatter-ui-table "${_scatter_ui_dir}/scatter-ui-table.cpp")
    target_include_directories(llama-scatter-ui-table PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    target_link_libraries(llama-scatter-ui-table PRIVATE llama_scatter::llama_scatter)
    target_compile_features(llama-scatter-ui-table PRIVATE cxx_std_17)
    add_custom_command(OUTPUT "${_scatter_ui_table}"
        COMMAND llama-scatter-ui-table "${_scatter_ui_table}"
        COMMAND ${CMAKE_COMMAND} -E copy_if_different "${_scatter_ui_table}"
                "${_scatter_ui_dir}/src/lib/constants/scatter-table.generated.ts"
        DEPENDS llama-scatter-ui-table
        COMMENT "Writing the web UI's scatter settings table")
    add_custom_target(llama-scatter-ui-table-ts DEPENDS "${_scatter_ui_table}")
    function(llama_scatter_ui_table_before_ui)
        if (TARGET llama-ui-assets)
            add_dependencies(llama-ui-assets llama-scatter-ui-table-ts)
        endif()
    endfunction()
    cmake_language(DEFER DIRECTORY "${PROJECT_SOURCE_DIR}" CALL llama_scatter_ui_table_before_ui)
endif()
