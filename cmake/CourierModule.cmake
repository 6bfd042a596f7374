# courier_module(<name> SOURCES <file>... [USES <module>...] [LINKS <target>...])
#
# One module: the library courier_<name> with the alias courier::<name>, built from exactly the
# listed sources, and linked PUBLIC to the courier modules it USES and the LINKS targets
# (third-party libraries). Includes are rooted at the project: "core/flow/due_gate.hpp".
#
# At configure time every `#include "<module path>/..."` of another courier module in the
# folder must name a module in USES, so the one-way dependencies of docs/architecture.md hold
# (courier_check_every_source_built, below, checks that no .cpp is left out of the build).
function(courier_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;USES;LINKS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "courier_module(${name}): no SOURCES")
  endif()
  courier_check_includes(${name} "${ARG_SOURCES}" "${ARG_USES}")

  add_library(courier_${name} ${ARG_SOURCES})
  add_library(courier::${name} ALIAS courier_${name})
  target_include_directories(courier_${name} PUBLIC "${PROJECT_SOURCE_DIR}")
  set(_deps "")
  foreach(use IN LISTS ARG_USES)
    list(APPEND _deps courier::${use})
  endforeach()
  target_link_libraries(courier_${name} PUBLIC ${_deps} ${ARG_LINKS})
  courier_set_warnings(courier_${name})
  set_property(GLOBAL PROPERTY COURIER_MODULE_DIR_${name} "${CMAKE_CURRENT_SOURCE_DIR}")
endfunction()

# The module a project-rooted include path belongs to: "core/flow/due_gate.hpp" -> flow,
# "actors/messages.hpp" -> actors. Empty for paths that are no module (tests, generated).
function(courier_module_of_include path out)
  set(_m "")
  if(path MATCHES "^core/version\\.hpp$")
    set(_m version)
  elseif(path MATCHES "^core/([a-z_]+)/")
    set(_m ${CMAKE_MATCH_1})
  elseif(path MATCHES "^(actors|admin|topology|demo|mock_webhook|app)/")
    set(_m ${CMAKE_MATCH_1})
  elseif(path MATCHES "^tools/redrive/")
    set(_m redrive_cli)
  endif()
  set(${out} "${_m}" PARENT_SCOPE)
endfunction()

# The files of a module: its listed sources, the header beside each, and the folder's headers
# that have no source beside them (header-only pieces). Another target's sources in the same
# folder (an executable's main.cpp) are not the module's.
function(courier_check_includes name sources uses)
  set(_files "")
  foreach(src IN LISTS sources)
    list(APPEND _files "${CMAKE_CURRENT_SOURCE_DIR}/${src}")
    string(REGEX REPLACE "\\.cpp$" ".hpp" _header "${src}")
    if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${_header}")
      list(APPEND _files "${CMAKE_CURRENT_SOURCE_DIR}/${_header}")
    endif()
  endforeach()
  file(GLOB _headers CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*.hpp")
  foreach(h IN LISTS _headers)
    string(REGEX REPLACE "\\.hpp$" ".cpp" _source "${h}")
    if(NOT EXISTS "${_source}")
      list(APPEND _files "${h}")
    endif()
  endforeach()
  file(RELATIVE_PATH _own_dir "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
  foreach(f IN LISTS _files)
    file(STRINGS "${f}" _lines REGEX "^#include \"[^\"]+\"")
    foreach(line IN LISTS _lines)
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" _path "${line}")
      get_filename_component(_include_dir "${_path}" DIRECTORY)
      courier_module_of_include("${_path}" _m)
      # A folder's own headers (topology/ holds topology and topology_cli) are always allowed.
      if(_m STREQUAL "" OR _m STREQUAL name OR _include_dir STREQUAL _own_dir)
        continue()
      endif()
      if(NOT _m IN_LIST uses)
        message(FATAL_ERROR "courier_module(${name}): ${f} includes \"${_path}\" of module "
                            "'${_m}', which is not in USES (${uses}); dependencies point one "
                            "way (docs/architecture.md)")
      endif()
    endforeach()
  endforeach()
endfunction()

# courier_check_every_source_built(): FATAL_ERROR naming every .cpp of the project (outside
# build/) that no target compiles, so deleting a file from a list, or a folder from the
# add_subdirectory calls, breaks the configuration loudly instead of dropping code or tests.
function(courier_check_every_source_built)
  set(_built "")
  set(_dirs "${PROJECT_SOURCE_DIR}")
  while(_dirs)
    list(POP_FRONT _dirs _dir)
    get_property(_subdirs DIRECTORY "${_dir}" PROPERTY SUBDIRECTORIES)
    list(APPEND _dirs ${_subdirs})
    get_property(_targets DIRECTORY "${_dir}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS _targets)
      get_target_property(_type ${t} TYPE)
      if(_type STREQUAL "INTERFACE_LIBRARY")
        continue()
      endif()
      get_target_property(_sources ${t} SOURCES)
      get_target_property(_source_dir ${t} SOURCE_DIR)
      foreach(src IN LISTS _sources)
        if(src MATCHES "^\\$<")
          continue()
        endif()
        get_filename_component(_abs "${src}" ABSOLUTE BASE_DIR "${_source_dir}")
        list(APPEND _built "${_abs}")
      endforeach()
    endforeach()
  endwhile()
  file(GLOB_RECURSE _all RELATIVE "${PROJECT_SOURCE_DIR}" CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/*.cpp")
  set(_left_out "")
  foreach(f IN LISTS _all)
    # Build trees (build/, or any binary dir inside the source tree) hold CMake's own probes.
    if(f MATCHES "^build[^/]*/" OR f MATCHES "(^|/)CMakeFiles/"
       OR "${PROJECT_SOURCE_DIR}/${f}" MATCHES "^${PROJECT_BINARY_DIR}/"
       OR (NOT COURIER_BUILD_TESTS AND f MATCHES "^tests/"))
      continue()
    endif()
    if(NOT "${PROJECT_SOURCE_DIR}/${f}" IN_LIST _built)
      list(APPEND _left_out "${f}")
    endif()
  endforeach()
  if(_left_out)
    list(JOIN _left_out "\n  " _text)
    message(FATAL_ERROR "these sources are in no target's list (add them, or delete the "
                        "files):\n  ${_text}")
  endif()
endfunction()
