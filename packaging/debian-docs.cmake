# Run by cpack after it installed the release into its staging folder, before it packs it
# (CPACK_PRE_BUILD_SCRIPTS, cmake/Release.cmake): for the Debian package only, the files Debian's
# policy asks of every package, outside /opt/llama-scatter but under the package's own name, so they
# collide with nothing:
#   /usr/share/doc/llama-scatter/copyright     each licence the release ships, with what it covers
#   /usr/share/doc/llama-scatter/changelog.gz  a native package's changelog, in Debian's format
#   /usr/share/lintian/overrides/llama-scatter the one tag that only says the files are in /opt
#                                              (chosen: cmake/Release.cmake)
if(NOT CPACK_GENERATOR STREQUAL "DEB")
    return()
endif()
set(_root "${CPACK_TEMPORARY_INSTALL_DIRECTORY}")
if(NOT EXISTS "${_root}${CPACK_PACKAGING_INSTALL_PREFIX}/LICENSE")
    message(FATAL_ERROR "llama-scatter: no ${_root}${CPACK_PACKAGING_INSTALL_PREFIX}/LICENSE: cpack's staging folder is not where packaging/debian-docs.cmake looks")
endif()
set(_doc "${_root}/usr/share/doc/${CPACK_PACKAGE_NAME}")
file(MAKE_DIRECTORY "${_doc}" "${_root}/usr/share/lintian/overrides")

# Debian's copyright file (not the machine-readable format: the package is built from several
# projects' sources, none of them Debian's): a heading per licence, then its text as shipped.
set(_covers_LICENSE "llama-scatter: the scatter sampler, libllama_scatter, its header and the patches of llama.cpp's tools")
set(_covers_LICENSE.llama.cpp "llama.cpp and ggml: libllama, libggml*, libmtmd, llama-common and the three tools")
set(_covers_LICENSE.cpp-httplib "cpp-httplib, in llama-server and llama-common")
set(_covers_LICENSE.jsonhpp "nlohmann/json, in llama-common and the tools")
string(CONCAT _text "${CPACK_PACKAGE_NAME} ${CPACK_PACKAGE_VERSION}: the portable release of the scatter sampler for llama.cpp.\n"
    "Its files are in ${CPACK_PACKAGING_INSTALL_PREFIX}, each licence also there as it is below.\n")
set(_names LICENSE)
foreach(_licence IN LISTS CPACK_LLAMA_SCATTER_LICENSES)
    string(REGEX MATCH "^([^=]+)=" _ "${_licence}")
    list(APPEND _names "${CMAKE_MATCH_1}")
endforeach()
foreach(_name IN LISTS _names)
    if(NOT DEFINED _covers_${_name})
        message(FATAL_ERROR "llama-scatter: packaging/debian-docs.cmake does not say what ${_name} covers")
    endif()
    file(READ "${_root}${CPACK_PACKAGING_INSTALL_PREFIX}/${_name}" _body)
    string(APPEND _text "\n----------------------------------------------------------------------\n"
        "${_covers_${_name}} (${CPACK_PACKAGING_INSTALL_PREFIX}/${_name}):\n\n${_body}")
endforeach()
file(WRITE "${_doc}/copyright" "${_text}")

# One entry: the release's changes are CHANGELOG.md's, shipped beside the licences.
file(WRITE "${_doc}/changelog" "${CPACK_PACKAGE_NAME} (${CPACK_PACKAGE_VERSION}) stable; urgency=medium

  * The portable release ${CPACK_PACKAGE_VERSION}: its changes are in
    ${CPACK_PACKAGING_INSTALL_PREFIX}/CHANGELOG.md.

 -- ${CPACK_PACKAGE_CONTACT}  ${CPACK_LLAMA_SCATTER_DATE}
")
find_program(_gzip gzip REQUIRED)
execute_process(COMMAND "${_gzip}" -9 -n -f "${_doc}/changelog" COMMAND_ERROR_IS_FATAL ANY)

file(WRITE "${_root}/usr/share/lintian/overrides/${CPACK_PACKAGE_NAME}" "\
# The release is one folder, /opt/llama-scatter (cmake/Release.cmake): a package of software that is
# not Debian's, beside Debian's own llama.cpp packages rather than over them.
${CPACK_PACKAGE_NAME}: dir-or-file-in-opt
")
