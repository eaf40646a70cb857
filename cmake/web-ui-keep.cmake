# Build step of cmake/WebUi.cmake: DIST, the web UI this build folder built with npm, copied to
# ENTRY, the cache's folder for its key, unless ENTRY is there already or this build folder took its
# UI from elsewhere (the cache, or the tree's own dist/: it then has no DIST). The copy is made
# beside ENTRY and renamed into place, so that another build never reads half of one.
if(EXISTS "${ENTRY}/index.html" OR NOT EXISTS "${DIST}/index.html")
    return()
endif()
string(RANDOM LENGTH 12 _suffix)
set(_partial "${ENTRY}.partial-${_suffix}")
file(COPY "${DIST}/" DESTINATION "${_partial}")
file(RENAME "${_partial}" "${ENTRY}" RESULT _renamed)
if(NOT _renamed EQUAL 0)
    # Another build kept the same key first.
    file(REMOVE_RECURSE "${_partial}")
endif()
