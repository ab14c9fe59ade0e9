# Installs tcore from BUILD_DIR into a scratch prefix, then configures and
# builds tests/install/consumer against it with find_package(tcore).
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
if(NOT EXISTS ${prefix}/include/tcore/tcore.cuh)
  message(FATAL_ERROR "installed prefix lacks include/tcore/tcore.cuh")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build
                        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CUDA_ARCHITECTURES=${ARCHS}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer with find_package(tcore) failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed (${rc})")
endif()
message(STATUS "find_package(tcore) consumer built against ${prefix}")
