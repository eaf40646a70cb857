# cmake --install: header, shared and static library, CMake package
# `llama_scatter` (targets llama_scatter::llama_scatter and
# llama_scatter::llama_scatter_static) and pkg-config `llama-scatter`
# (shared) and `llama-scatter-static`.
# llama.cpp's own install rules put libllama, ggml and their packages into
# the same prefix, so the prefix is self-contained.
include(CMakePackageConfigHelpers)

set(_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/llama_scatter")

install(FILES "${PROJECT_SOURCE_DIR}/include/llama-scatter.h" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
if(WIN32)
    # The DLL beside the programs (bin/, or the release's top folder); import libraries for MinGW and MSVC.
    install(FILES "${LLAMA_SCATTER_SHARED}" DESTINATION "${CMAKE_INSTALL_BINDIR}")
    install(FILES "${LLAMA_SCATTER_IMPLIB}" "${LLAMA_SCATTER_MSVC_IMPLIB}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
else()
    install(FILES
        "${LLAMA_SCATTER_SHARED}"
        "${PROJECT_BINARY_DIR}/lib/${LLAMA_SCATTER_SONAME}"
        "${PROJECT_BINARY_DIR}/lib/libllama_scatter.so"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}")
    # Installed, the library finds llama.cpp's libraries beside it: $ORIGIN only.
    install(CODE "
        file(RPATH_CHANGE FILE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/${LLAMA_SCATTER_SHARED_FILE}\"
             OLD_RPATH \"\$ORIGIN:$<TARGET_FILE_DIR:llama>\" NEW_RPATH \"\$ORIGIN\")")
endif()
if(TARGET llama_scatter_static)
    install(FILES "${LLAMA_SCATTER_STATIC}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
endif()
# `cmake --install --strip` (what cpack runs for the release: CPACK_STRIP_FILES) strips what
# install(TARGETS) installs, llama.cpp's libraries and programs; the library is cargo's, installed as
# files, so it is stripped here the same way. The shared library keeps what it exports
# (--strip-unneeded: the release profile's line tables and the symbol table go: x64's 5.2 MB to 0.5);
# the static one loses its debug sections only (--strip-debug: its symbols are what a linker needs,
# as Debian's policy 10.1 has it). A plain `cmake --install` keeps both whole.
function(llama_scatter_install_strip file how)
    install(CODE "
        if(CMAKE_INSTALL_DO_STRIP)
            execute_process(COMMAND \"${CMAKE_STRIP}\" ${how} \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${file}\"
                COMMAND_ERROR_IS_FATAL ANY)
        endif()")
endfunction()
if(CMAKE_STRIP)
    if(WIN32)
        # Not the static library: MinGW's strip stops at a member of rustc's archive that has no sections.
        llama_scatter_install_strip("${CMAKE_INSTALL_BINDIR}/${LLAMA_SCATTER_SHARED_FILE}" --strip-unneeded)
    else()
        llama_scatter_install_strip("${CMAKE_INSTALL_LIBDIR}/${LLAMA_SCATTER_SHARED_FILE}" --strip-unneeded)
    endif()
    if(TARGET llama_scatter_static AND NOT WIN32)
        get_filename_component(_static_file "${LLAMA_SCATTER_STATIC}" NAME)
        llama_scatter_install_strip("${CMAKE_INSTALL_LIBDIR}/${_static_file}" --strip-debug)
    endif()
endif()

configure_package_config_file(
    "${PROJECT_SOURCE_DIR}/cmake/llama_scatterConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/llama_scatterConfig.cmake"
    INSTALL_DESTINATION "${_cmake_dir}"
    PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
    "${PROJECT_BINARY_DIR}/llama_scatterConfigVersion.cmake"
    COMPATIBILITY ${LLAMA_SCATTER_COMPATIBILITY})
install(FILES
    "${PROJECT_BINARY_DIR}/llama_scatterConfig.cmake"
    "${PROJECT_BINARY_DIR}/llama_scatterConfigVersion.cmake"
    DESTINATION "${_cmake_dir}")

foreach(_pc llama-scatter llama-scatter-static)
    configure_file("${PROJECT_SOURCE_DIR}/cmake/${_pc}.pc.in" "${PROJECT_BINARY_DIR}/${_pc}.pc" @ONLY)
    install(FILES "${PROJECT_BINARY_DIR}/${_pc}.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endforeach()

# The SillyTavern extension, for users of the installed llama-server (README: copied into SillyTavern's
# extensions folder).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/integration/sillytavern/llama-scatter"
    DESTINATION "${CMAKE_INSTALL_DATADIR}/llama-scatter/sillytavern")

# The patched tools: llama.cpp's own rules install llama-server and mtmd;
# the other two tools and the shared libraries the three link go here.
if(LLAMA_SCATTER_TOOLS_BUILT)
    install(TARGETS llama-cli llama-completion llama-cli-impl llama-completion-impl llama-server-impl llama-common
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
endif()
