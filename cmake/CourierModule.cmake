# courier_module(<name> SOURCES <file>... [USES <module>...] [LINKS <target>...])
#
# One module: the library courier_<name> with the alias courier::<name>, built from exactly the
# listed sources, and linked PUBLIC to the courier modules it USES and the LINKS targets
# (third-party libraries). Includes are rooted at the project: "core/flow/due_gate.hpp".
#
# At configure time every `#include "<module path>/..."` of another courier module in the
# folder must name a module in USES, so the one-way dependencies of docs/architecture.md hold.
# The folder-to-module map is the modules' own declarations (each folder one module), read
# once every module is declared (courier_check_module_includes, run at the end of the top-level
# CMakeLists.txt with courier_check_every_source_built, which checks that no .cpp is left out).
function(courier_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;USES;LINKS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "courier_module(${name}): no SOURCES")
  endif()
  courier_module_files(_files "${ARG_SOURCES}")
  set_property(GLOBAL APPEND PROPERTY COURIER_MODULES ${name})
  set_property(GLOBAL PROPERTY COURIER_MODULE_FILES_${name} "${_files}")
  set_property(GLOBAL PROPERTY COURIER_MODULE_USES_${name} "${ARG_USES}")

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

# The files of a module: its listed sources, the header beside each, and the folder's headers
# that have no source beside them (header-only pieces). Another target's sources in the same
# folder (an executable's main.cpp) are not the module's.
function(courier_module_files out sources)
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
  set(${out} "${_files}" PARENT_SCOPE)
endfunction()

# courier_check_module_includes(): FATAL_ERROR when a module's file includes a header of
# another module that is not in its USES. A header's module is the module declared in the
# header's folder ("core/flow/due_gate.hpp" -> flow, "tools/redrive/cli.hpp" -> redrive_cli);
# "core/version.hpp" is the generated version module. Includes of folders that declare no
# module (tests/support, generated headers) are not checked.
function(courier_check_module_includes)
  get_property(_modules GLOBAL PROPERTY COURIER_MODULES)
  foreach(m IN LISTS _modules)
    get_property(_dir GLOBAL PROPERTY COURIER_MODULE_DIR_${m})
    file(RELATIVE_PATH _rel "${PROJECT_SOURCE_DIR}" "${_dir}")
    string(MAKE_C_IDENTIFIER "dir_${_rel}" _key)
    if(DEFINED _module_of_${_key})
      message(FATAL_ERROR "folder ${_rel} declares two modules: ${_module_of_${_key}} and ${m}")
    endif()
    set(_module_of_${_key} ${m})
  endforeach()
  set(_module_of_dir_core_version_hpp version)
  foreach(name IN LISTS _modules)
    get_property(_files GLOBAL PROPERTY COURIER_MODULE_FILES_${name})
    get_property(_uses GLOBAL PROPERTY COURIER_MODULE_USES_${name})
    foreach(f IN LISTS _files)
      file(STRINGS "${f}" _lines REGEX "^#include \"[^\"]+\"")
      foreach(line IN LISTS _lines)
        string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" _path "${line}")
        get_filename_component(_include_dir "${_path}" DIRECTORY)
        if(_path STREQUAL "core/version.hpp")
          set(_m version)
        else()
          string(MAKE_C_IDENTIFIER "dir_${_include_dir}" _key)
          set(_m "${_module_of_${_key}}")
        endif()
        if(_m STREQUAL "" OR _m STREQUAL name)
          continue()
        endif()
        if(NOT _m IN_LIST _uses)
          message(FATAL_ERROR "courier_module(${name}): ${f} includes \"${_path}\" of module "
                              "'${_m}', which is not in USES (${_uses}); dependencies point one "
                              "way (docs/architecture.md)")
        endif()
      endforeach()
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
