# llama-server's web UI, built once for every build folder: `npm ci` and `npm run build` of the tree's
# tools/ui take two to four minutes of the two cores, and their output (plain JavaScript, CSS and
# HTML) does not depend on the build folder, its compiler or its target. The first build folder that
# builds the UI keeps its dist/ in LLAMA_SCATTER_WEB_UI_CACHE under a key of everything the UI build
# reads (the UI's sources as the patched tree has them, our synced files among them, Node's and
# npm's versions, the build number it stamps); a build folder configured later with the same key
# gets a copy of that dist/ in its patched tree's tools/ui/dist, which upstream's
# scripts/ui-assets.cmake embeds as it embeds any prebuilt UI (its first choice) without running npm.
# The bytes differ from a fresh build's only by SvelteKit's version stamp (a build time).
set(LLAMA_SCATTER_WEB_UI_CACHE "${_default_cache}/web-ui" CACHE PATH
    "The web UI's built dist/ folders, one per key of its sources and tools, shared by build folders (empty: every build folder runs npm)")

# Before the tree is added: the UI of TREE taken from the cache where it holds TREE's key. A dist/ a
# former configure took from the cache, its key in .llama-scatter-dist, is removed when the key
# changed (an edit of the UI); a dist/ of the user's own tree is left alone.
function(llama_scatter_web_ui_reuse tree node npm)
    set(_ui "${tree}/tools/ui")
    set(_marker "${_ui}/.llama-scatter-dist")
    file(GLOB_RECURSE _sources LIST_DIRECTORIES false RELATIVE "${_ui}" "${_ui}/*")
    list(FILTER _sources EXCLUDE REGEX "^(node_modules|dist)/|^\\.npmrc$|^\\.llama-scatter-dist$")
    list(SORT _sources)
    execute_process(COMMAND "${node}" --version OUTPUT_VARIABLE _node_version ERROR_QUIET)
    execute_process(COMMAND "${npm}" --version OUTPUT_VARIABLE _npm_version ERROR_QUIET)
    set(_inputs "node ${_node_version}npm ${_npm_version}build ${LLAMA_BUILD_NUMBER}\n")
    foreach(_file IN LISTS _sources)
        file(SHA256 "${_ui}/${_file}" _hash)
        string(APPEND _inputs "${_file} ${_hash}\n")
    endforeach()
    string(SHA256 _key "${_inputs}")
    set(LLAMA_SCATTER_WEB_UI_ENTRY "${LLAMA_SCATTER_WEB_UI_CACHE}/${_key}" PARENT_SCOPE)

    if(EXISTS "${_marker}")
        file(READ "${_marker}" _taken)
        if(NOT _taken STREQUAL _key)
            file(REMOVE_RECURSE "${_ui}/dist")
            file(REMOVE "${_marker}")
        endif()
    endif()
    if(NOT EXISTS "${_ui}/dist" AND EXISTS "${LLAMA_SCATTER_WEB_UI_CACHE}/${_key}/index.html")
        file(COPY "${LLAMA_SCATTER_WEB_UI_CACHE}/${_key}/" DESTINATION "${_ui}/dist")
        file(WRITE "${_marker}" "${_key}")
        message(STATUS "The web UI: the build of ${LLAMA_SCATTER_WEB_UI_CACHE}/${_key}")
    endif()
endfunction()

# After the tree is added: a target that keeps the UI this build folder built with npm under the
# key, for the next build folder.
function(llama_scatter_web_ui_keep tree)
    get_property(_ui_binary DIRECTORY "${tree}/tools/ui" PROPERTY BINARY_DIR)
    add_custom_target(llama_scatter_web_ui_keep ALL
        COMMAND ${CMAKE_COMMAND} "-DDIST=${_ui_binary}/dist" "-DENTRY=${LLAMA_SCATTER_WEB_UI_ENTRY}"
                -P "${PROJECT_SOURCE_DIR}/cmake/web-ui-keep.cmake"
        VERBATIM)
    add_dependencies(llama_scatter_web_ui_keep llama-ui-assets)
endfunction()
