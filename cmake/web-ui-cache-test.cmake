# The test web_ui_cache: cmake/WebUi.cmake's reuse and keep steps on scratch trees in WORK, with
# stand-ins for node and npm that print a version (the steps only ask them for it). What it checks is
# what a stale cache would break silently: a build folder embedding a UI built from other sources.
cmake_minimum_required(VERSION 3.21)
set(_default_cache "${WORK}/unused")
set(LLAMA_SCATTER_WEB_UI_CACHE "${WORK}/cache")
set(LLAMA_BUILD_NUMBER 1)
include("${CMAKE_CURRENT_LIST_DIR}/WebUi.cmake")

# CONDITION, an if() condition as text, holds, or the test fails saying WHY.
function(expect condition why)
    cmake_language(EVAL CODE "if(NOT (${condition}))\n message(FATAL_ERROR [[web_ui_cache: ${why}]])\nendif()")
endfunction()

# A stand-in for node or npm printing VERSION.
function(tool name version)
    file(CONFIGURE OUTPUT "${WORK}/bin/${name}" CONTENT "#!/bin/sh\necho ${version}\n")
    file(CHMOD "${WORK}/bin/${name}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endfunction()

# A patched tree's tools/ui, as npm leaves it after `npm ci` (node_modules/, our .npmrc).
function(tree dir)
    file(WRITE "${dir}/tools/ui/package.json" "{\"name\": \"ui\"}\n")
    file(WRITE "${dir}/tools/ui/src/app.js" "export const scatter = 1;\n")
    file(WRITE "${dir}/tools/ui/node_modules/vite/index.js" "installed\n")
    file(WRITE "${dir}/tools/ui/.npmrc" "cache=${dir}/npm\n")
endfunction()

# reuse on TREE; the key in OUT_KEY (the cache entry's name).
function(reuse tree out_key)
    llama_scatter_web_ui_reuse("${tree}" "${WORK}/bin/node" "${WORK}/bin/npm")
    get_filename_component(_key "${LLAMA_SCATTER_WEB_UI_ENTRY}" NAME)
    set(${out_key} "${_key}" PARENT_SCOPE)
    set(LLAMA_SCATTER_WEB_UI_ENTRY "${LLAMA_SCATTER_WEB_UI_ENTRY}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK}")
tool(node v20.19.0)
tool(npm 10.8.2)
tree("${WORK}/first")
tree("${WORK}/second")
set(_ui "${WORK}/second/tools/ui")

# An empty cache: nothing to take, the first build folder runs npm.
reuse("${WORK}/first" key)
expect("NOT EXISTS \"${WORK}/first/tools/ui/dist\"" "an empty cache gives no dist/")

# The first build folder keeps what npm built; a second keep of the same key leaves it.
file(WRITE "${WORK}/build/dist/index.html" "built from app.js 1\n")
execute_process(COMMAND ${CMAKE_COMMAND} "-DDIST=${WORK}/build/dist" "-DENTRY=${LLAMA_SCATTER_WEB_UI_ENTRY}"
                -P "${CMAKE_CURRENT_LIST_DIR}/web-ui-keep.cmake" RESULT_VARIABLE _kept)
expect("_kept EQUAL 0" "web-ui-keep.cmake failed")
expect("EXISTS \"${LLAMA_SCATTER_WEB_UI_CACHE}/${key}/index.html\"" "the built UI is kept under its key")
file(WRITE "${WORK}/other/dist/index.html" "another build\n")
execute_process(COMMAND ${CMAKE_COMMAND} "-DDIST=${WORK}/other/dist" "-DENTRY=${LLAMA_SCATTER_WEB_UI_ENTRY}"
                -P "${CMAKE_CURRENT_LIST_DIR}/web-ui-keep.cmake")
file(READ "${LLAMA_SCATTER_WEB_UI_CACHE}/${key}/index.html" _entry)
expect("_entry STREQUAL \"built from app.js 1\n\"" "a kept entry is never overwritten")

# A second tree with the same sources gets that UI, marked as taken from the cache.
reuse("${WORK}/second" same)
expect("same STREQUAL key" "same sources, same tools: the same key")
expect("EXISTS \"${_ui}/dist/index.html\"" "the cached UI is copied in")
file(READ "${_ui}/.llama-scatter-dist" _marker)
expect("_marker STREQUAL key" "the marker names the key")

# What npm writes and our .npmrc do not change the key.
file(WRITE "${_ui}/node_modules/vite/index.js" "reinstalled\n")
file(WRITE "${_ui}/.npmrc" "cache=/elsewhere\n")
reuse("${WORK}/second" same)
expect("same STREQUAL key" "node_modules/ and .npmrc are not the UI's sources")

# An edited source: another key, and the copied UI (now stale) removed, so that npm builds anew.
file(WRITE "${_ui}/src/app.js" "export const scatter = 2;\n")
reuse("${WORK}/second" edited)
expect("NOT edited STREQUAL key" "an edited source changes the key")
expect("NOT EXISTS \"${_ui}/dist\"" "a stale copied UI is removed")
expect("NOT EXISTS \"${_ui}/.llama-scatter-dist\"" "its marker too")

# The edit undone: the cached UI again.
file(WRITE "${_ui}/src/app.js" "export const scatter = 1;\n")
reuse("${WORK}/second" same)
expect("EXISTS \"${_ui}/dist/index.html\"" "the undone edit takes the cached UI again")

# Another Node.js or npm, another key.
tool(node v22.12.0)
reuse("${WORK}/first" other_node)
expect("NOT other_node STREQUAL key" "Node's version is in the key")
tool(node v20.19.0)
tool(npm 11.0.0)
reuse("${WORK}/first" other_npm)
expect("NOT other_npm STREQUAL key" "npm's version is in the key")
tool(npm 10.8.2)

# A dist/ of the user's own (no marker) is left alone, even where the cache holds another UI.
tree("${WORK}/own")
file(WRITE "${WORK}/own/tools/ui/dist/index.html" "the user's own build\n")
reuse("${WORK}/own" own)
expect("own STREQUAL key" "the same sources")
file(READ "${WORK}/own/tools/ui/dist/index.html" _own)
expect("_own STREQUAL \"the user's own build\n\"" "a user's dist/ is never replaced")
file(WRITE "${WORK}/own/tools/ui/src/app.js" "export const scatter = 3;\n")
reuse("${WORK}/own" own)
expect("EXISTS \"${WORK}/own/tools/ui/dist/index.html\"" "a user's dist/ is never removed")

file(REMOVE_RECURSE "${WORK}")
message(STATUS "web_ui_cache: passed")
