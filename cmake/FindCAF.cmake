# FindCAF: the C++ Actor Framework as Debian packages it (libcaf-dev, 0.17.x), which ships
# no CMake package. Defines CAF_FOUND, CAF_VERSION and the imported targets CAF::core and
# CAF::io (when asked for as COMPONENTS).
#
# CAF_ROOT (the tsan preset: the TSan-built CAF that scripts/build-caf-tsan.sh installs) is then
# the only prefix searched, so a missing build fails here instead of Debian's CAF being linked;
# results cached for another prefix (or none) are searched again.
set(_caf_where "")
set(_caf_reason "")
if(CAF_ROOT)
  set(_caf_where PATHS "${CAF_ROOT}" PATH_SUFFIXES include lib NO_DEFAULT_PATH)
  set(_caf_reason "searched only CAF_ROOT=${CAF_ROOT} (scripts/build-caf-tsan.sh installs it)")
endif()
if(NOT "${CAF_ROOT}" STREQUAL "${_CAF_SEARCHED_ROOT}")
  unset(CAF_INCLUDE_DIR CACHE)
  foreach(_comp core io)
    unset(CAF_${_comp}_LIBRARY CACHE)
  endforeach()
  set(_CAF_SEARCHED_ROOT "${CAF_ROOT}" CACHE INTERNAL "CAF_ROOT the CAF_* results were found with")
endif()
find_path(CAF_INCLUDE_DIR NAMES caf/all.hpp ${_caf_where})
if(CAF_INCLUDE_DIR AND EXISTS "${CAF_INCLUDE_DIR}/caf/config.hpp")
  file(STRINGS "${CAF_INCLUDE_DIR}/caf/config.hpp" _caf_version_line
       REGEX "^#define CAF_VERSION [0-9]+")
  string(REGEX REPLACE "^#define CAF_VERSION ([0-9]+).*" "\\1" _caf_version "${_caf_version_line}")
  math(EXPR _caf_major "${_caf_version} / 10000")
  math(EXPR _caf_minor "(${_caf_version} / 100) % 100")
  math(EXPR _caf_patch "${_caf_version} % 100")
  set(CAF_VERSION "${_caf_major}.${_caf_minor}.${_caf_patch}")
endif()

if(NOT CAF_FIND_COMPONENTS)
  set(CAF_FIND_COMPONENTS core)
endif()
foreach(_comp IN LISTS CAF_FIND_COMPONENTS)
  find_library(CAF_${_comp}_LIBRARY NAMES caf_${_comp} ${_caf_where})
  if(CAF_${_comp}_LIBRARY)
    set(CAF_${_comp}_FOUND TRUE)
  endif()
endforeach()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF
  REQUIRED_VARS CAF_INCLUDE_DIR
  VERSION_VAR CAF_VERSION
  HANDLE_COMPONENTS
  REASON_FAILURE_MESSAGE "${_caf_reason}")

if(CAF_FOUND)
  foreach(_comp IN LISTS CAF_FIND_COMPONENTS)
    if(CAF_${_comp}_FOUND AND NOT TARGET CAF::${_comp})
      add_library(CAF::${_comp} UNKNOWN IMPORTED)
      set_target_properties(CAF::${_comp} PROPERTIES
        IMPORTED_LOCATION "${CAF_${_comp}_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}")
    endif()
  endforeach()
  if(TARGET CAF::io AND TARGET CAF::core)
    set_property(TARGET CAF::io APPEND PROPERTY INTERFACE_LINK_LIBRARIES CAF::core)
  endif()
endif()
mark_as_advanced(CAF_INCLUDE_DIR)
