# The layer guard at compile time (docs/architecture.md, "Build").
#
# Sources include their headers with the folder in front ("sim/engine.h"), so the include
# directory decides which folders a file can reach.  Instead of the source root, each target
# gets ${CMAKE_BINARY_DIR}/layers/<row>/ (row "tests/sim" -> layers/tests-sim/): a folder of
# symbolic links, made here at configure time, one per source folder that cmake/layers.txt
# allows the row, each pointing at that folder in the source tree.  Headers are read through
# the links, so edits need no reconfigure; an include of any other folder finds no file and
# the build fails.  scripts/check-layers.sh applies the same table by grep.
#
#   sgd_layer(<target> <row>)   gives <target> the include directory of <row> (PRIVATE:
#                               a target's view never leaks to the targets that link it).

file(STRINGS ${CMAKE_SOURCE_DIR}/cmake/layers.txt _sgd_layer_rows REGEX "^[A-Za-z]")
set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_SOURCE_DIR}/cmake/layers.txt)
foreach(_row IN LISTS _sgd_layer_rows)
  string(STRIP "${_row}" _row)
  string(REGEX REPLACE "[ \t]+" ";" _row "${_row}")
  list(POP_FRONT _row _folder)
  string(REPLACE "/" "-" _name "${_folder}")
  set(_dir ${CMAKE_BINARY_DIR}/layers/${_name})
  file(MAKE_DIRECTORY ${_dir})
  # Links the table no longer lists go (file(REMOVE) removes a link, never what it points to).
  file(GLOB _old RELATIVE ${_dir} LIST_DIRECTORIES true ${_dir}/*)
  foreach(_entry IN LISTS _old)
    if(NOT _entry IN_LIST _row)
      if(NOT IS_SYMLINK ${_dir}/${_entry})
        message(FATAL_ERROR "${_dir}/${_entry} is not a link made by cmake/layers.cmake")
      endif()
      file(REMOVE ${_dir}/${_entry})
    endif()
  endforeach()
  foreach(_dep IN LISTS _row)
    set(_src ${CMAKE_SOURCE_DIR}/${_dep})
    if(NOT IS_DIRECTORY ${_src})
      message(FATAL_ERROR "cmake/layers.txt: row ${_folder} names ${_dep}, which is no folder")
    endif()
    set(_link ${_dir}/${_dep})
    if(IS_SYMLINK ${_link})
      file(READ_SYMLINK ${_link} _points_to)
      if(NOT _points_to STREQUAL _src)
        file(REMOVE ${_link})
      endif()
    endif()
    if(NOT IS_SYMLINK ${_link})
      file(CREATE_LINK ${_src} ${_link} SYMBOLIC)
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY SGD_LAYER_DIR_${_name} ${_dir})
endforeach()

function(sgd_layer target row)
  string(REPLACE "/" "-" name "${row}")
  get_property(dir GLOBAL PROPERTY SGD_LAYER_DIR_${name})
  if(NOT dir)
    message(FATAL_ERROR "cmake/layers.txt has no row ${row} (for target ${target})")
  endif()
  target_include_directories(${target} PRIVATE ${dir})
endfunction()
