#!/usr/bin/env bash
# tests/sass/get-cuobjdump.sh [PREFIX] - installs cuobjdump and nvdisasm (the
# disassembly test needs both) from PyPI into PREFIX (default build/tools),
# for CUDA installs that lack them. They land in PREFIX/nvidia/cu13/bin; that
# folder is printed last. CMake finds them there when PREFIX is the default
# build/tools, or via PATH, or with -DTCORE_CUOBJDUMP=<path to cuobjdump>.
# cuobjdump 13.2 reads CUDA 13.0 binaries; TCORE_CUOBJDUMP_VERSION overrides.
set -euo pipefail

prefix=${1:-build/tools}
version=${TCORE_CUOBJDUMP_VERSION:-13.2.86}
python=${PYTHON:-python3}
bin="$prefix/nvidia/cu${version%%.*}/bin"

if [ ! -x "$bin/cuobjdump" ] || [ ! -x "$bin/nvdisasm" ]; then
  PIP_ROOT_USER_ACTION=ignore "$python" -m pip install --quiet --disable-pip-version-check \
    --no-warn-script-location --upgrade --target "$prefix" \
    "nvidia-cuda-cuobjdump==$version" "nvidia-cuda-nvdisasm==$version" >&2
  chmod +x "$bin/cuobjdump" "$bin/nvdisasm"
fi
"$bin/cuobjdump" --version | tail -n 1 >&2
echo "$bin"
