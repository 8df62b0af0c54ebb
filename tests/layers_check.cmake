# The layers point one way (docs/architecture.md). Run as a test:
#   cmake -DSOURCE_DIR=<repository> -P tests/layers_check.cmake
# Each folder of src/hysim may include only the folders listed for it; files directly in
# src/hysim (the simulator) sit above the engine's folders, and study (sweeps, comparisons,
# reproductions) above everything. No file of src/hysim includes the program (apps/) or CLI11.
# The clients: apps/ (the program) includes public headers of hysim/ and apps/; python/ and
# bench/ include public headers of hysim/, never apps/. Also: no public header reaches spdlog
# (the private hysim/core/log.hpp) through its includes.
cmake_minimum_required(VERSION 3.20)

set(allowed_core core)
set(allowed_run core run)
set(allowed_solvers core solvers)
set(allowed_events core run solvers events)
set(allowed_simulator core run solvers events simulator)
set(allowed_models core models)
set(allowed_lang core models lang)
set(allowed_rules core models lang rules)
set(allowed_output core run output)
set(allowed_peers core run solvers events peers)
set(allowed_ensemble core ensemble)
set(allowed_study core run solvers events simulator models lang rules output peers ensemble study)

# Headers of src/hysim that are not installed (CMakeLists.txt): the engine's own.
set(private_headers core/log.hpp events/event_emitter.hpp events/zeno.hpp)

# The layer of a path relative to src/hysim: its first folder, or "simulator".
function(layer_of relative out)
  if(relative MATCHES "^([a-z_]+)/")
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  else()
    set(${out} simulator PARENT_SCOPE)
  endif()
endfunction()

set(root ${SOURCE_DIR}/src/hysim)
file(GLOB_RECURSE files RELATIVE ${root} ${root}/*.hpp ${root}/*.cpp)
set(violations "")
foreach(file ${files})
  layer_of(${file} layer)
  if(NOT DEFINED allowed_${layer})
    string(APPEND violations "\n  ${file}: folder '${layer}' is not a known layer")
    continue()
  endif()
  file(STRINGS ${root}/${file} clients REGEX "^#include [\"<](apps|CLI)/")
  foreach(line ${clients})
    string(APPEND violations "\n  ${file} (${layer}): ${line}")
  endforeach()
  file(STRINGS ${root}/${file} lines REGEX "^#include [\"<]hysim/")
  foreach(line ${lines})
    string(REGEX REPLACE "^#include [\"<]hysim/([^\">]+)[\">].*" "\\1" included "${line}")
    layer_of(${included} target)
    list(FIND allowed_${layer} ${target} found)
    if(found LESS 0)
      string(APPEND violations "\n  ${file} (${layer}) includes hysim/${included} (${target})")
    endif()
  endforeach()
endforeach()

# The clients: what each folder may include of the repository's own folders.
set(client_apps apps)
set(client_python "")
set(client_bench "")
set(client_count 0)
foreach(client apps python bench)
  file(GLOB_RECURSE client_files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${client}/*.hpp ${SOURCE_DIR}/${client}/*.cpp)
  foreach(file ${client_files})
    math(EXPR client_count "${client_count} + 1")
    file(STRINGS ${SOURCE_DIR}/${file} lines REGEX "^#include [\"<][a-z_]+/")
    foreach(line ${lines})
      string(REGEX REPLACE "^#include [\"<]([a-z_]+)/([^\">]+)[\">].*" "\\1;\\2" parts "${line}")
      list(GET parts 0 folder)
      list(GET parts 1 included)
      if(folder STREQUAL "hysim")
        if(included IN_LIST private_headers)
          string(APPEND violations "\n  ${file} includes the private header hysim/${included}")
        endif()
      elseif(IS_DIRECTORY ${SOURCE_DIR}/${folder} AND NOT folder IN_LIST client_${client})
        string(APPEND violations "\n  ${file} (${client}) includes ${folder}/${included}")
      endif()
    endforeach()
  endforeach()
endforeach()

# Headers a user of the library includes, and everything they include.
set(queue simulator.hpp events/strategy.hpp peers/peers.hpp models/catalog.hpp core/verbosity.hpp
          run/option_table.hpp output/csv_writer.hpp lang/build.hpp study/sweep.hpp study/comparison.hpp
          study/reproduce.hpp study/shpakov.hpp study/stop.hpp study/out_folder.hpp study/reference_file.hpp)
set(seen "")
while(queue)
  list(POP_FRONT queue header)
  if(header IN_LIST seen OR NOT EXISTS ${root}/${header})
    continue()
  endif()
  list(APPEND seen ${header})
  file(STRINGS ${root}/${header} lines REGEX "^#include [\"<](hysim/|spdlog/)")
  foreach(line ${lines})
    if(line MATCHES "spdlog/")
      string(APPEND violations "\n  public header ${header} includes spdlog")
    endif()
    if(line MATCHES "hysim/([^\">]+)[\">]")
      list(APPEND queue ${CMAKE_MATCH_1})
    endif()
  endforeach()
endwhile()

list(LENGTH files count)
list(LENGTH seen public)
if(violations)
  message(FATAL_ERROR "layering violations:${violations}")
endif()
message(STATUS "layers: ${count} files, every include points down; ${client_count} files of apps, python and bench "
               "include what they may; ${public} public headers, none reaches spdlog")
