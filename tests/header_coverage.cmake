# tests/header_coverage.cmake - every header under include/ is exercised by
# a test: reached from a file of tests/host or tests/gpu through #include
# lines (directly or through other headers), or a forwarding header (nothing
# but comments, #pragma once and #include lines) whose targets are reached.
# Prints each header with the number of test files that reach it; fails
# naming the headers no test reaches.
#
#   cmake -DSOURCE_DIR=<repo> -P tests/header_coverage.cmake

cmake_minimum_required(VERSION 3.25)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repo> -P header_coverage.cmake")
endif()

# The files a file includes by a quoted or angled path that exists under
# include/, examples/ or tests/ (relative to the file first), as absolute paths.
function(included_files file out)
  file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  get_filename_component(dir ${file} DIRECTORY)
  set(found "")
  foreach(line IN LISTS lines)
    if(line MATCHES "#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
      set(name ${CMAKE_MATCH_1})
      foreach(base IN ITEMS ${dir} ${SOURCE_DIR}/include ${SOURCE_DIR}/examples ${SOURCE_DIR}/tests ${SOURCE_DIR})
        get_filename_component(candidate ${name} ABSOLUTE BASE_DIR ${base})
        if(EXISTS ${candidate} AND NOT IS_DIRECTORY ${candidate})
          list(APPEND found ${candidate})
          break()
        endif()
      endforeach()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES found)
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE headers ${SOURCE_DIR}/include/*.cuh ${SOURCE_DIR}/include/*.hpp)
file(GLOB tests ${SOURCE_DIR}/tests/host/test_*.cu ${SOURCE_DIR}/tests/host/test_*.cpp ${SOURCE_DIR}/tests/gpu/test_*.cu)
list(SORT headers)

# reached_by_<header hash>: the count of test files whose include closure holds it.
foreach(test IN LISTS tests)
  set(seen "")
  set(queue ${test})
  while(queue)
    list(POP_FRONT queue current)
    included_files(${current} next)
    foreach(f IN LISTS next)
      if(NOT f IN_LIST seen)
        list(APPEND seen ${f})
        list(APPEND queue ${f})
      endif()
    endforeach()
  endwhile()
  foreach(f IN LISTS seen)
    string(MD5 key ${f})
    math(EXPR reached_${key} "${reached_${key}} + 1")
  endforeach()
endforeach()

set(missing "")
foreach(h IN LISTS headers)
  string(MD5 key ${h})
  set(count ${reached_${key}})
  if(NOT count)
    # A forwarding header counts as covered when each header it includes is.
    file(STRINGS ${h} body REGEX "^[ \t]*[^ \t/]")
    set(forwarding TRUE)
    foreach(line IN LISTS body)
      if(NOT line MATCHES "^[ \t]*#[ \t]*(pragma once|include)")
        set(forwarding FALSE)
      endif()
    endforeach()
    included_files(${h} targets)
    if(forwarding AND targets)
      set(count "forwarding")
      foreach(t IN LISTS targets)
        string(MD5 tkey ${t})
        if(NOT reached_${tkey})
          set(count "")
        endif()
      endforeach()
    endif()
  endif()
  file(RELATIVE_PATH rel ${SOURCE_DIR} ${h})
  if(count)
    message(STATUS "${rel}: ${count}")
  else()
    list(APPEND missing ${rel})
  endif()
endforeach()

if(missing)
  list(JOIN missing "\n  " text)
  message(FATAL_ERROR "headers no test reaches:\n  ${text}")
endif()
list(LENGTH headers n)
message(STATUS "${n} headers, each reached by a test")
