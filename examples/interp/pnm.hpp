// examples/interp/pnm.hpp - a strict reader of binary 8-bit PGM (P5) and
// PPM (P6) files, the user's images of the interp workload (--input
// interp:image=PATH), and the conversions to the 3- and 4-channel images the
// kernels take.
//
// Accepted: the magic "P5" or "P6"; then width, height and maxval as
// decimal numbers, separated by white space (space, tab, CR, LF, VT, FF) and
// comments ('#' to the end of the line); maxval 255; exactly one white-space
// character after maxval; then exactly width * height * channels bytes
// (channels 1 for P5, 3 for P6) and nothing after them. Everything else is
// refused with a tcore::error "<path>: <what is wrong>": a missing file, a
// directory, another magic (plain P1-P3, bitmap P4, PAM P7), a maxval other
// than 255 (16-bit samples included), a short or long payload.
#pragma once

#include "interp_host.hpp"

#include <tcore/check.cuh>
#include <tcore/infra/splitmix64.cuh>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace tcore::examples::interp {

/// What a PGM/PPM header declares, and where its pixel data starts.
struct pnm_header {
    int width = 0, height = 0;
    int channels = 0;              ///< 1 (P5, grey) or 3 (P6, RGB)
    std::uint64_t data_offset = 0;  ///< bytes before the pixel data
    std::uint64_t payload_bytes() const
    {
        return static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) *
               static_cast<std::uint64_t>(channels);
    }
};

/// Throws tcore::error("<path>: <what>").
[[noreturn]] inline void pnm_fail(const std::string& path, const std::string& what) { throw error(path + ": " + what); }

/// The bytes of `s` as text, non-printable ones as \xNN ("P6", "\x89P").
inline std::string pnm_printable(const std::string& s)
{
    std::string out;
    for (unsigned char c : s) {
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            out += buf;
        }
    }
    return out;
}

inline bool pnm_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/// Reads the header of `path` and checks the file's size against it (the
/// pixel data is not read). Throws tcore::error naming the file and the problem.
inline pnm_header read_pnm_header(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) pnm_fail(path, "no such file");
    if (fs::is_directory(st)) pnm_fail(path, "is a directory, not a PGM/PPM file");
    if (!fs::is_regular_file(st)) pnm_fail(path, "not a regular file");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) pnm_fail(path, "cannot read its size (" + ec.message() + ")");
    std::ifstream f(path, std::ios::binary);
    if (!f) pnm_fail(path, "cannot open the file");

    char magic[2] = {0, 0};
    f.read(magic, 2);
    const std::string m(magic, static_cast<std::size_t>(f.gcount()));
    if (m.size() < 2) pnm_fail(path, size == 0 ? "empty file" : "too short for a PGM/PPM header");
    pnm_header h;
    if (m == "P5") h.channels = 1;
    else if (m == "P6") h.channels = 3;
    else if (m[0] == 'P' && m[1] >= '1' && m[1] <= '4')
        pnm_fail(path, "magic " + m + " (plain or bitmap PNM) is not read: binary P5 (PGM) or P6 (PPM) expected");
    else pnm_fail(path, "not a PGM/PPM file (magic '" + pnm_printable(m) + "', P5 or P6 expected)");

    // width, height, maxval: each after white space or comments.
    const char* field_names[3] = {"width", "height", "maxval"};
    long long fields[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        bool separated = false;
        int c = f.get();
        for (;;) {
            if (c == '#') {
                while (c != EOF && c != '\n' && c != '\r') c = f.get();
                separated = true;
            } else if (pnm_space(c)) {
                c = f.get();
                separated = true;
            } else {
                break;
            }
        }
        if (c == EOF) pnm_fail(path, std::string("the header ends before its ") + field_names[i]);
        if (!separated) pnm_fail(path, std::string("no white space before the ") + field_names[i]);
        std::string digits;
        while (c != EOF && !pnm_space(c) && c != '#') {
            digits += static_cast<char>(c);
            if (digits.size() > 12) break;
            c = f.get();
        }
        bool number = !digits.empty() && digits.size() <= 9;
        for (char d : digits) number = number && d >= '0' && d <= '9';
        if (!number)
            pnm_fail(path, std::string(field_names[i]) + " '" + pnm_printable(digits) + "' is not a whole number");
        fields[i] = std::stoll(digits);
        if (fields[i] == 0) pnm_fail(path, std::string(field_names[i]) + " is 0");
        if (i < 2) {
            f.unget();  // the separator is read by the next field
        } else if (c == EOF) {
            pnm_fail(path, "the file ends after maxval (no pixel data)");
        } else if (!pnm_space(c)) {
            pnm_fail(path, "maxval is not followed by one white-space character");
        }
    }
    if (fields[2] != 255)
        pnm_fail(path, "maxval " + std::to_string(fields[2]) + (fields[2] > 255 ? " (16-bit samples)" : "") +
                           ": only maxval 255 (8-bit samples) is read");
    h.width = static_cast<int>(fields[0]);
    h.height = static_cast<int>(fields[1]);
    const std::streamoff at = f.tellg();
    if (at < 0) pnm_fail(path, "cannot tell the header's length");
    h.data_offset = static_cast<std::uint64_t>(at);
    const std::uint64_t have = size - h.data_offset, want = h.payload_bytes();
    const std::string shape = std::to_string(h.width) + " x " + std::to_string(h.height) + " x " +
                              std::to_string(h.channels) + " = " + std::to_string(want) + " bytes expected";
    if (have < want) pnm_fail(path, "truncated: " + std::to_string(have) + " bytes of pixel data, " + shape);
    if (have > want)
        pnm_fail(path, std::to_string(have - want) + " bytes after the pixel data (" + shape +
                           "; one image per file is read)");
    return h;
}

/// The image of `path`: 1 channel (P5) or 3 (P6), rows packed. Throws
/// tcore::error naming the file and the problem.
inline image read_pnm(const std::string& path)
{
    const pnm_header h = read_pnm_header(path);
    image im = make_image(h.width, h.height, h.channels);
    std::ifstream f(path, std::ios::binary);
    if (!f) pnm_fail(path, "cannot open the file");
    f.seekg(static_cast<std::streamoff>(h.data_offset));
    f.read(reinterpret_cast<char*>(im.data.data()), static_cast<std::streamsize>(im.data.size()));
    if (static_cast<std::uint64_t>(f.gcount()) != h.payload_bytes())
        pnm_fail(path, "truncated while reading: " + std::to_string(f.gcount()) + " of " +
                           std::to_string(h.payload_bytes()) + " bytes of pixel data");
    return im;
}

/// A grey image as RGB (each value copied to three channels); an RGB or
/// RGBA image is returned as it is.
inline image grey_to_rgb(const image& in)
{
    if (in.channels != 1) return in;
    image out = make_image(in.width, in.height, 3);
    for (std::size_t i = 0; i < in.data.size(); ++i)
        for (std::size_t c = 0; c < 3; ++c) out.data[3 * i + c] = in.data[i];
    return out;
}

/// An RGB image with a fourth channel of pseudo-random alpha values 0..255
/// (splitmix64 of `seed`: the same for the same seed).
inline image with_random_alpha(const image& rgb, std::uint64_t seed)
{
    require(rgb.channels == 3, "with_random_alpha", "an RGB image expected");
    image out = make_image(rgb.width, rgb.height, 4);
    splitmix64 r(seed);
    const std::size_t pixels = static_cast<std::size_t>(rgb.width) * static_cast<std::size_t>(rgb.height);
    for (std::size_t p = 0; p < pixels; ++p) {
        const std::uint64_t z = r.next();
        for (std::size_t c = 0; c < 3; ++c) out.data[4 * p + c] = rgb.data[3 * p + c];
        out.data[4 * p + 3] = static_cast<unsigned char>(z >> 56);
    }
    return out;
}

}  // namespace tcore::examples::interp
