// Host helpers for the D2Q9 LBM core (header-only, C++17): the C++ counterpart of spgen.lbm.
//
// Grids, the 40-byte record stream of LBM.md, equilibrium initialisation, macroscopic
// moments and .npy I/O of record streams. Cell layout and arithmetic follow
// compiler/spgen/lbm/_grid.py so a grid built here equals the Python one bit for bit.
// Bad input throws std::invalid_argument / std::runtime_error with a message.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace afushell {
namespace lbm {

// One stream element: f0..f8 then attr, ten little-endian 32-bit words (LBM.md).
struct Record {
    float f[9];
    std::uint32_t attr;
};
static_assert(sizeof(Record) == 40, "an LBM record is 40 bytes");
static_assert(std::is_standard_layout<Record>::value && std::is_trivially_copyable<Record>::value,
              "records are copied to and from the card as raw bytes");

// attr bits [1:0]; 3 is reserved and treated as a wall by the core.
enum : std::uint32_t { FLUID = 0, WALL = 1, MOVING_WALL = 2 };

inline constexpr int Q = 9;
inline constexpr int E[Q][2] = {{0, 0}, {1, 0},  {0, 1},   {-1, 0}, {0, -1},
                                {1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
// Computed as in spgen.lbm.WEIGHTS (double quotients) so float casts round the same way.
inline constexpr double W[Q] = {4.0 / 9, 1.0 / 9,  1.0 / 9,  1.0 / 9, 1.0 / 9,
                                1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};
inline constexpr int OPP[Q] = {0, 3, 4, 1, 2, 7, 8, 5, 6};

// An attr grid, row-major, x fastest, y = 0 the bottom row (stream order k = y*width + x).
struct Grid {
    int width = 0;
    int height = 0;
    std::vector<std::uint32_t> attr;

    std::size_t size() const { return attr.size(); }
    std::uint32_t& at(int x, int y) { return attr[static_cast<std::size_t>(y) * width + x]; }
    std::uint32_t at(int x, int y) const { return attr[static_cast<std::size_t>(y) * width + x]; }
};

// Distributions f_i of every cell, index i * (H*W) + k (numpy's (9, H, W) layout).
using Distributions = std::vector<float>;

// rho, ux, uy per cell in double (k = y*W + x); NaN on non-fluid cells when masked.
struct Moments {
    std::vector<double> rho, ux, uy;
};

namespace detail {
inline void check_size(int width, int height) {
    if (width < 3 || height < 3)
        throw std::invalid_argument("grid " + std::to_string(width) + "x" +
                                    std::to_string(height) +
                                    " is too small: at least 3x3 (one fluid cell inside a "
                                    "boundary layer)");
}
inline bool little_endian() {
    const std::uint32_t one = 1;
    unsigned char b;
    std::memcpy(&b, &one, 1);
    return b == 1;
}
}  // namespace detail

// Fluid inside, resting walls on the outermost layer.
inline Grid closed_box(int width, int height) {
    detail::check_size(width, height);
    Grid g{width, height, std::vector<std::uint32_t>(static_cast<std::size_t>(width) * height, WALL)};
    for (int y = 1; y < height - 1; ++y)
        for (int x = 1; x < width - 1; ++x) g.at(x, y) = FLUID;
    return g;
}

// Lid-driven cavity: the top row between the two (resting) corners is a moving wall.
inline Grid cavity(int width, int height) {
    Grid g = closed_box(width, height);
    for (int x = 1; x < width - 1; ++x) g.at(x, height - 1) = MOVING_WALL;
    return g;
}

// Channel along x: walls top and bottom, moving-wall columns left and right (inlet and
// outlet with uw = (U, 0)), a circular resting-wall obstacle. radius < 0 means H/8, a NaN
// centre coordinate means (W/4, H/2) -- the defaults of spgen.lbm.channel.
inline Grid channel(int width, int height, double radius = -1.0,
                    double cx = std::numeric_limits<double>::quiet_NaN(),
                    double cy = std::numeric_limits<double>::quiet_NaN()) {
    Grid g = closed_box(width, height);
    for (int y = 1; y < height - 1; ++y) {
        g.at(0, y) = MOVING_WALL;
        g.at(width - 1, y) = MOVING_WALL;
    }
    const double r = radius < 0 ? height / 8.0 : radius;
    if (std::isnan(cx) || std::isnan(cy)) {
        cx = width / 4.0;
        cy = height / 2.0;
    }
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const double dx = x - cx, dy = y - cy;
            if (dx * dx + dy * dy <= r * r) g.at(x, y) = WALL;
        }
    return g;
}

// Validates a grid: sizes agree, at least 3x3, the outermost layer is non-fluid (LBM.md).
inline void check_grid(const Grid& g) {
    detail::check_size(g.width, g.height);
    if (g.attr.size() != static_cast<std::size_t>(g.width) * g.height)
        throw std::invalid_argument("grid has " + std::to_string(g.attr.size()) +
                                    " cells, expected width*height = " +
                                    std::to_string(static_cast<std::size_t>(g.width) * g.height));
    for (int x = 0; x < g.width; ++x)
        for (int y : {0, g.height - 1})
            if ((g.at(x, y) & 3) == FLUID)
                throw std::invalid_argument("the outermost layer of the grid must be non-fluid cells");
    for (int y = 0; y < g.height; ++y)
        for (int x : {0, g.width - 1})
            if ((g.at(x, y) & 3) == FLUID)
                throw std::invalid_argument("the outermost layer of the grid must be non-fluid cells");
}

// Equilibrium at rest, f_i = w_i rho (LBM.md's initial state), float32.
inline Distributions initial_f(const Grid& g, double rho = 1.0) {
    const std::size_t n = g.size();
    Distributions f(Q * n);
    for (int i = 0; i < Q; ++i) {
        const float v = static_cast<float>(W[i] * rho);
        for (std::size_t k = 0; k < n; ++k) f[i * n + k] = v;
    }
    return f;
}

// Record stream (row-major, x fastest) from f (9 x N) and a grid.
inline std::vector<Record> to_records(const Distributions& f, const Grid& g) {
    check_grid(g);
    const std::size_t n = g.size();
    if (f.size() != Q * n)
        throw std::invalid_argument("f has " + std::to_string(f.size()) + " values, expected 9*" +
                                    std::to_string(n));
    std::vector<Record> rec(n);
    for (std::size_t k = 0; k < n; ++k) {
        for (int i = 0; i < Q; ++i) rec[k].f[i] = f[i * n + k];
        rec[k].attr = g.attr[k];
    }
    return rec;
}

// Initial record stream of a grid: to_records(initial_f(g, rho), g).
inline std::vector<Record> initial_records(const Grid& g, double rho = 1.0) {
    return to_records(initial_f(g, rho), g);
}

// (f, grid) from a record stream of a width-wide grid.
inline std::pair<Distributions, Grid> from_records(const std::vector<Record>& rec, int width) {
    if (width <= 0 || rec.size() % static_cast<std::size_t>(width))
        throw std::invalid_argument("a stream of " + std::to_string(rec.size()) +
                                    " records is not a grid of width " + std::to_string(width));
    const std::size_t n = rec.size();
    Grid g{width, static_cast<int>(n / width), std::vector<std::uint32_t>(n)};
    Distributions f(Q * n);
    for (std::size_t k = 0; k < n; ++k) {
        for (int i = 0; i < Q; ++i) f[i * n + k] = rec[k].f[i];
        g.attr[k] = rec[k].attr;
    }
    return {std::move(f), std::move(g)};
}

// rho, ux, uy of every record in double; non-fluid cells get NaN when mask_solid.
inline Moments macroscopic(const std::vector<Record>& rec, bool mask_solid = true) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    Moments m{std::vector<double>(rec.size()), std::vector<double>(rec.size()),
              std::vector<double>(rec.size())};
    for (std::size_t k = 0; k < rec.size(); ++k) {
        double rho = 0, jx = 0, jy = 0;
        for (int i = 0; i < Q; ++i) {
            const double fi = rec[k].f[i];
            rho += fi;
            jx += E[i][0] * fi;
            jy += E[i][1] * fi;
        }
        const bool solid = mask_solid && (rec[k].attr & 3) != FLUID;
        m.rho[k] = solid ? nan : rho;
        m.ux[k] = solid ? nan : jx / rho;
        m.uy[k] = solid ? nan : jy / rho;
    }
    return m;
}

// ---- .npy I/O (format 1.0) of record streams, as numpy.save of spgen.lbm.RECORD_DTYPE ----

inline const char* record_descr() {
    return "[('f0', '<f4'), ('f1', '<f4'), ('f2', '<f4'), ('f3', '<f4'), ('f4', '<f4'), "
           "('f5', '<f4'), ('f6', '<f4'), ('f7', '<f4'), ('f8', '<f4'), ('attr', '<u4')]";
}

// Writes a .npy file of `count` items of `itemsize` bytes with a numpy descr and shape.
inline void write_npy(const std::string& path, const std::string& descr, const std::string& shape,
                      const void* data, std::size_t nbytes) {
    if (!detail::little_endian())
        throw std::runtime_error("write_npy: only little-endian hosts are supported");
    std::string header = "{'descr': " + descr + ", 'fortran_order': False, 'shape': " + shape + ", }";
    // magic(6) + version(2) + length(2) + header + '\n' is a multiple of 64 bytes.
    const std::size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    if (header.size() > 0xFFFF) throw std::runtime_error("write_npy: header too long");
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error("cannot open " + path + " for writing");
    const unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                   static_cast<unsigned char>(header.size() & 0xFF),
                                   static_cast<unsigned char>(header.size() >> 8)};
    out.write(reinterpret_cast<const char*>(pre), 10);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(nbytes));
    if (!out) throw std::runtime_error("error writing " + path);
}

inline void write_records_npy(const std::string& path, const std::vector<Record>& rec) {
    write_npy(path, record_descr(), "(" + std::to_string(rec.size()) + ",)", rec.data(),
              rec.size() * sizeof(Record));
}

// Reads a 1-D .npy record stream written by numpy.save(path, records) or write_records_npy.
inline std::vector<Record> read_records_npy(const std::string& path) {
    if (!detail::little_endian())
        throw std::runtime_error("read_records_npy: only little-endian hosts are supported");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    unsigned char pre[10];
    in.read(reinterpret_cast<char*>(pre), 10);
    if (!in || std::memcmp(pre, "\x93NUMPY", 6) != 0)
        throw std::runtime_error(path + ": not a .npy file");
    std::size_t hlen = pre[8] | (static_cast<std::size_t>(pre[9]) << 8);
    if (pre[6] == 2 || pre[6] == 3) {  // versions 2 and 3: 4-byte header length
        unsigned char more[2];
        in.read(reinterpret_cast<char*>(more), 2);
        hlen |= (static_cast<std::size_t>(more[0]) << 16) | (static_cast<std::size_t>(more[1]) << 24);
    } else if (pre[6] != 1) {
        throw std::runtime_error(path + ": unsupported .npy version " + std::to_string(pre[6]));
    }
    std::string header(hlen, '\0');
    in.read(&header[0], static_cast<std::streamsize>(hlen));
    if (!in) throw std::runtime_error(path + ": truncated .npy header");
    if (header.find(std::string("'descr': ") + record_descr()) == std::string::npos)
        throw std::runtime_error(path + ": expected a structured array with fields f0..f8 "
                                 "(<f4) and attr (<u4) (spgen.lbm.RECORD_DTYPE)");
    if (header.find("'fortran_order': False") == std::string::npos)
        throw std::runtime_error(path + ": Fortran-ordered arrays are not supported");
    const auto s = header.find("'shape': (");
    if (s == std::string::npos) throw std::runtime_error(path + ": no shape in the .npy header");
    const auto e = header.find(')', s);
    const std::string dims = header.substr(s + 10, e - s - 10);
    std::size_t n = 0, used = 0;
    try {
        n = std::stoull(dims, &used);
    } catch (const std::exception&) {
        throw std::runtime_error(path + ": expected a 1-D record stream, shape (" + dims + ")");
    }
    if (dims.substr(used) != ",")
        throw std::runtime_error(path + ": expected a 1-D record stream, shape (" + dims + ")");
    std::vector<Record> rec(n);
    in.read(reinterpret_cast<char*>(rec.data()), static_cast<std::streamsize>(n * sizeof(Record)));
    if (!in) throw std::runtime_error(path + ": truncated data (" + std::to_string(n) + " records)");
    return rec;
}

// Writes moments as a float64 .npy array of shape (3, height, width): rho, ux, uy.
inline void write_moments_npy(const std::string& path, const Moments& m, int width) {
    const std::size_t n = m.rho.size();
    if (width <= 0 || n % static_cast<std::size_t>(width) || m.ux.size() != n || m.uy.size() != n)
        throw std::invalid_argument("moments do not form a grid of width " + std::to_string(width));
    std::vector<double> all;
    all.reserve(3 * n);
    for (const auto* v : {&m.rho, &m.ux, &m.uy}) all.insert(all.end(), v->begin(), v->end());
    write_npy(path, "'<f8'",
              "(3, " + std::to_string(n / width) + ", " + std::to_string(width) + ")", all.data(),
              all.size() * sizeof(double));
}

}  // namespace lbm
}  // namespace afushell
