# -DTCORE_WORKLOADS="spmv;stencil" builds those workloads only (their
# examples, benchmark entries, kernel libraries and tests); empty, the
# default, builds every workload. tcore_workload_enabled(<name> <var>) sets
# <var> to whether workload <name> is built.
set(TCORE_WORKLOADS "" CACHE STRING "Workloads to build (a ;-list of examples/ folder names, or mma_peak); empty: all")

function(tcore_workload_enabled name var)
  if(TCORE_WORKLOADS STREQUAL "" OR name IN_LIST TCORE_WORKLOADS)
    set(${var} TRUE PARENT_SCOPE)
  else()
    set(${var} FALSE PARENT_SCOPE)
  endif()
endfunction()

# The workload a test file belongs to: tests/<kind>/test_<workload>.cu or
# test_<workload>_<part>.cu, with <workload> a folder of examples/ (or
# mma_peak); empty for tests of the kit as a whole (fragments, harness, ...).
function(tcore_test_workload stem var)
  set(owner "")
  file(GLOB entries LIST_DIRECTORIES true RELATIVE ${PROJECT_SOURCE_DIR}/examples ${PROJECT_SOURCE_DIR}/examples/*)
  foreach(w IN LISTS entries mma_peak)
    if(stem STREQUAL "test_${w}" OR stem MATCHES "^test_${w}_")
      set(owner ${w})
    endif()
  endforeach()
  set(${var} ${owner} PARENT_SCOPE)
endfunction()
