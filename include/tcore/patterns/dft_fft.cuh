// tcore/patterns/dft_fft.cuh - the former include path of the FFT launcher:
// tcore::fft_plan now lives in tcore/patterns/device/fft.cuh.
#pragma once
#include "device/fft.cuh"
