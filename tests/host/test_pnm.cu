// tests/host/test_pnm.cu - the strict PGM/PPM reader of the interp workload
// (examples/interp/pnm.hpp) without a GPU.
//
// Good files: P6 and P5 with comments and mixed white space in the header
// (a comment right after the magic, CR LF, tabs), odd sizes, a payload that
// starts with white-space and '#' bytes, a random 37 x 23 image written by
// write_ppm and read back byte for byte; the header read alone; the grey to
// RGB and random-alpha conversions. Bad ones, each a tcore::error naming the
// file and the problem: a missing file, a directory, an empty file, another
// magic (P3, P7, "BM"), maxval 65535 and 15, a truncated payload, bytes after
// the payload, a header that ends early, a width of 0, a non-numeric height,
// no white space after maxval or after the
// magic.
#include "common/test_util.hpp"

#include "examples/interp/interp_host.hpp"
#include "examples/interp/pnm.hpp"

#include <tcore/check.cuh>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using tcore::test::rng;
using tcore::test::tally;
namespace ex = tcore::examples::interp;
namespace fs = std::filesystem;

namespace {

/// A fresh folder for the test's files, removed on scope exit.
struct temp_folder {
    fs::path path;
    temp_folder()
    {
        const char* base = std::getenv("TMPDIR");
        char tmpl[512];
        std::snprintf(tmpl, sizeof tmpl, "%s/tcore-test-pnm-XXXXXX", base && *base ? base : "/tmp");
        if (const char* made = mkdtemp(tmpl)) path = made;
    }
    ~temp_folder()
    {
        std::error_code ec;
        if (!path.empty()) fs::remove_all(path, ec);
    }
    std::string write(const std::string& name, const std::string& bytes) const
    {
        const std::string p = (path / name).string();
        std::ofstream f(p, std::ios::binary);
        f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return p;
    }
};

std::string bytes_of(const std::vector<unsigned char>& v) { return std::string(v.begin(), v.end()); }

/// The message of the tcore::error `read` throws ("" if it throws none or another kind).
template <class F>
std::string error_of(F read, bool& threw_other)
{
    threw_other = false;
    try {
        read();
    } catch (const tcore::error& e) {
        return e.what();
    } catch (...) {
        threw_other = true;
    }
    return "";
}

void check_good(tally& t, const temp_folder& dir, rng& r)
{
    // P6, 3 x 2, comments on their own lines and after a number.
    std::vector<unsigned char> rgb(18);
    for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<unsigned char>(i * 13 + 7);
    const std::string p6 = dir.write("good.ppm", "P6\n# made by hand\n3 2 # width height\n255\n" + bytes_of(rgb));
    try {
        const ex::image im = ex::read_pnm(p6);
        t.check(im.width == 3 && im.height == 2 && im.channels == 3 && im.data == rgb,
                "P6 with comments: %d x %d x %d, data %s", im.width, im.height, im.channels,
                im.data == rgb ? "equal" : "differs");
    } catch (const std::exception& e) {
        t.check(false, "P6 with comments: %s", e.what());
    }

    // P5, 5 x 3 (odd), a comment right after the magic, tabs, CR LF, and a
    // payload that starts with LF, '#' and a space (only one white-space
    // byte ends the header).
    std::vector<unsigned char> grey(15);
    grey[0] = '\n', grey[1] = '#', grey[2] = ' ';
    for (std::size_t i = 3; i < grey.size(); ++i) grey[i] = static_cast<unsigned char>(250 - i);
    const std::string p5 = dir.write("odd.pgm", std::string("P5#grey\r\n5\t3\r\n255\n") + bytes_of(grey));
    try {
        const ex::image im = ex::read_pnm(p5);
        t.check(im.width == 5 && im.height == 3 && im.channels == 1 && im.data == grey,
                "P5 odd size with CR LF and tabs: %d x %d x %d, data %s", im.width, im.height, im.channels,
                im.data == grey ? "equal" : "differs");
        const ex::pnm_header h = ex::read_pnm_header(p5);
        t.check(h.width == 5 && h.height == 3 && h.channels == 1 && h.data_offset == 18 && h.payload_bytes() == 15,
                "P5 header alone: %d x %d x %d at %llu", h.width, h.height, h.channels,
                static_cast<unsigned long long>(h.data_offset));
        const ex::image c3 = ex::grey_to_rgb(im);
        bool same = c3.channels == 3 && c3.width == 5 && c3.height == 3;
        for (int y = 0; y < 3 && same; ++y)
            for (int x = 0; x < 5; ++x)
                for (int c = 0; c < 3; ++c) same = same && c3.at(x, y, c) == im.at(x, y, 0);
        t.check(same, "grey_to_rgb copies each grey value to three channels");
        const ex::image c4 = ex::with_random_alpha(c3, 42), again = ex::with_random_alpha(c3, 42);
        bool rgb_kept = c4.channels == 4, alpha_varies = false;
        for (int y = 0; y < 3 && rgb_kept; ++y)
            for (int x = 0; x < 5; ++x) {
                for (int c = 0; c < 3; ++c) rgb_kept = rgb_kept && c4.at(x, y, c) == c3.at(x, y, c);
                alpha_varies = alpha_varies || c4.at(x, y, 3) != c4.at(0, 0, 3);
            }
        t.check(rgb_kept && alpha_varies && c4.data == again.data,
                "with_random_alpha keeps RGB (%d), varies alpha (%d), repeats for a seed (%d)", rgb_kept, alpha_varies,
                c4.data == again.data);
    } catch (const std::exception& e) {
        t.check(false, "P5 odd size: %s", e.what());
    }

    // write_ppm's own output, 37 x 23 random RGB, read back byte for byte.
    ex::image im = ex::make_image(37, 23, 3);
    for (unsigned char& v : im.data) v = static_cast<unsigned char>(r.uniform(0, 256));
    const std::string w = (dir.path / "written.ppm").string();
    ex::write_ppm(w, im.data.data(), im.width, im.height, im.channels);
    try {
        const ex::image back = ex::read_pnm(w);
        t.check(back.width == 37 && back.height == 23 && back.channels == 3 && back.data == im.data,
                "write_ppm -> read_pnm round trip");
    } catch (const std::exception& e) {
        t.check(false, "write_ppm -> read_pnm: %s", e.what());
    }
}

void check_bad(tally& t, const temp_folder& dir)
{
    const std::string six(6, 'x'), eighteen(18, 'x');
    const struct {
        const char* name;
        std::string bytes;  // empty: do not write (missing file); "<dir>": the folder itself
        const char* words;
    } cases[] = {
        {"missing.ppm", "", "no such file"},
        {"<dir>", "", "is a directory"},
        {"empty.ppm", "\x01", "empty file"},
        {"plain.ppm", "P3\n3 2\n255\n" + eighteen, "P3 (plain or bitmap PNM) is not read"},
        {"pam.pam", "P7\nWIDTH 3\n", "not a PGM/PPM file (magic 'P7'"},
        {"bitmap.bmp", "BM\x10\x00", "not a PGM/PPM file (magic 'BM'"},
        {"deep.ppm", "P6\n3 2\n65535\n" + eighteen + eighteen, "maxval 65535 (16-bit samples): only maxval 255"},
        {"shallow.pgm", "P5\n3 2\n15\n" + six, "maxval 15: only maxval 255"},
        {"short.ppm", "P6\n3 2\n255\n" + eighteen.substr(0, 17), "truncated: 17 bytes of pixel data, 3 x 2 x 3 = 18"},
        {"long.pgm", "P5\n3 2\n255\n" + six + "P5", "2 bytes after the pixel data"},
        {"early.ppm", "P6\n3 2\n", "the header ends before its maxval"},
        {"zero.pgm", "P5\n0 2\n255\n", "width is 0"},
        {"word.pgm", "P5\n3 two\n255\n" + six, "height 'two' is not a whole number"},
        {"tight.pgm", "P5\n3 2\n255#\n" + six, "maxval is not followed by one white-space character"},
        {"glued.pgm", "P53 2\n255\n" + six, "no white space before the width"},
    };
    for (const auto& c : cases) {
        std::string path = (dir.path / c.name).string();
        if (std::string(c.name) == "<dir>") path = dir.path.string();
        else if (std::string(c.name) == "empty.ppm") path = dir.write(c.name, "");
        else if (!c.bytes.empty()) path = dir.write(c.name, c.bytes);
        bool other = false;
        const std::string msg = error_of([&] { ex::read_pnm(path); }, other);
        t.check(!other && msg.find(path + ": ") == 0 && msg.find(c.words) != std::string::npos,
                "%s: expected a tcore::error '%s: ...%s...', got '%s'%s", c.name, path.c_str(), c.words, msg.c_str(),
                other ? " (another exception)" : "");
        const std::string head = error_of([&] { ex::read_pnm_header(path); }, other);
        t.check(head == msg, "%s: read_pnm_header says '%s', read_pnm '%s'", c.name, head.c_str(), msg.c_str());
    }
}

}  // namespace

int main()
{
    tally t;
    rng r(0x9e3d);
    const temp_folder dir;
    if (dir.path.empty()) {
        std::printf("FAIL: cannot make a temporary folder\n");
        return 1;
    }
    check_good(t, dir, r);
    check_bad(t, dir);
    return t.finish();
}
