# tests/sass/find_sass_tools.cmake - included by the check scripts (cmake -P):
# finds cuobjdump and nvdisasm as configured (-DCUOBJDUMP=, -DNVDISASM=), else
# again now in TOOL_DIRS (a|b) and the CUDA Toolkit, and puts nvdisasm on PATH
# for cuobjdump -sass. Stops with a message saying how to get them.
set(how_to_get "Install them with `tests/sass/get-cuobjdump.sh build/tools` (pip: nvidia-cuda-cuobjdump, \
nvidia-cuda-nvdisasm) and put build/tools/nvidia/cu13/bin on PATH, or configure with \
-DTCORE_CUOBJDUMP=<path to cuobjdump>; they also come with a full CUDA Toolkit.")

# Tools: as configured, else searched again now (they may have been installed since).
string(REPLACE "|" ";" tool_dirs "${TOOL_DIRS}")
if(NOT CUOBJDUMP OR NOT EXISTS "${CUOBJDUMP}")
  find_program(CUOBJDUMP_NOW NAMES cuobjdump PATHS ${tool_dirs} /usr/local/cuda/bin)
  set(CUOBJDUMP "${CUOBJDUMP_NOW}")
endif()
if(NOT CUOBJDUMP)
  message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: cuobjdump not found. ${how_to_get}")
endif()
get_filename_component(cuobjdump_dir "${CUOBJDUMP}" DIRECTORY)
if(NOT NVDISASM OR NOT EXISTS "${NVDISASM}")
  find_program(NVDISASM_NOW NAMES nvdisasm PATHS ${cuobjdump_dir} ${tool_dirs} /usr/local/cuda/bin)
  set(NVDISASM "${NVDISASM_NOW}")
endif()
if(NOT NVDISASM)
  message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: nvdisasm (which cuobjdump -sass runs) not found. ${how_to_get}")
endif()
get_filename_component(nvdisasm_dir "${NVDISASM}" DIRECTORY)
set(ENV{NVDISASM_PATH} "${nvdisasm_dir}")
set(ENV{PATH} "${nvdisasm_dir}:$ENV{PATH}")

