// Host helpers for the D2Q9 LBM core (header-only, C++17): the one implementation of the
// host's grid code, which spgen.lbm binds (runtime/python/lbm_bindings.cpp).
//
// Grids, the 40-byte record stream of LBM.md, equilibrium initialisation, macroscopic
// moments, the slab split across cards and .npy I/O of record streams. The record and
// the lattice come from lbm_layout.hpp, generated from cores/lbm/lbm_record.json.
// Bad input throws std::invalid_argument / std::runtime_error with a message.
#pragma once

#include <algorithm>
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

#include "lbm_layout.hpp"

namespace afushell {
namespace lbm {

static_assert(std::is_standard_layout<Record>::value && std::is_trivially_copyable<Record>::value,
              "records are copied to and from the card as raw bytes");

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
// The checks of check_grid on a width x height attr array (row-major).
inline void check_cells(const std::uint32_t* attr, int width, int height) {
    check_size(width, height);
    auto fluid = [&](int x, int y) {
        return (attr[static_cast<std::size_t>(y) * width + x] & ATTR_MASK) == FLUID;
    };
    bool edge_fluid = false;
    for (int x = 0; x < width; ++x) edge_fluid = edge_fluid || fluid(x, 0) || fluid(x, height - 1);
    for (int y = 0; y < height; ++y) edge_fluid = edge_fluid || fluid(0, y) || fluid(width - 1, y);
    if (edge_fluid)
        throw std::invalid_argument("the outermost layer of the grid must be non-fluid cells "
                                    "(the core never reads across a row end for a fluid cell)");
}
// Equilibrium at rest of n cells into f (9 x n): f_i = w_i rho, rounded to float32.
inline void fill_initial(float* f, std::size_t n, double rho) {
    for (int i = 0; i < Q; ++i) std::fill_n(f + i * n, n, static_cast<float>(W[i] * rho));
}
// Records of n cells from f (9 x n, numpy's layout) and attr (n).
inline void fill_records(const float* f, const std::uint32_t* attr, std::size_t n, Record* rec) {
    for (std::size_t k = 0; k < n; ++k) {
        for (int i = 0; i < Q; ++i) rec[k].f[i] = f[i * n + k];
        rec[k].attr = attr[k];
    }
}
// f (9 x n) and attr (n) of n records.
inline void split_records(const Record* rec, std::size_t n, float* f, std::uint32_t* attr) {
    for (std::size_t k = 0; k < n; ++k) {
        for (int i = 0; i < Q; ++i) f[i * n + k] = rec[k].f[i];
        attr[k] = rec[k].attr;
    }
}
inline void check_stream(std::size_t n, int width) {
    if (width <= 0 || n % static_cast<std::size_t>(width))
        throw std::invalid_argument("a stream of " + std::to_string(n) +
                                    " records is not a grid of width " + std::to_string(width));
}
// rho, ux, uy of n cells in double, f_i of cell k being fi(k, i); NaN where solid(k).
template <class Fi, class Solid>
void moments(std::size_t n, Fi fi, Solid solid, double* rho_out, double* ux, double* uy) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t k = 0; k < n; ++k) {
        double rho = 0, jx = 0, jy = 0;
        for (int i = 0; i < Q; ++i) {
            const double v = fi(k, i);
            rho += v;
            jx += E[i][0] * v;
            jy += E[i][1] * v;
        }
        const bool s = solid(k);
        rho_out[k] = s ? nan : rho;
        ux[k] = s ? nan : jx / rho;
        uy[k] = s ? nan : jy / rho;
    }
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
// outlet with uw = (U, 0), as lbmpy's UBB), a circular resting-wall obstacle. radius < 0
// means H/8, a NaN centre coordinate means (W/4, H/2).
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
    detail::check_cells(g.attr.data(), g.width, g.height);
}

// Equilibrium at rest, f_i = w_i rho (LBM.md's initial state), float32.
inline Distributions initial_f(const Grid& g, double rho = 1.0) {
    const std::size_t n = g.size();
    Distributions f(Q * n);
    detail::fill_initial(f.data(), n, rho);
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
    detail::fill_records(f.data(), g.attr.data(), n, rec.data());
    return rec;
}

// Initial record stream of a grid: to_records(initial_f(g, rho), g).
inline std::vector<Record> initial_records(const Grid& g, double rho = 1.0) {
    return to_records(initial_f(g, rho), g);
}

// (f, grid) from a record stream of a width-wide grid.
inline std::pair<Distributions, Grid> from_records(const std::vector<Record>& rec, int width) {
    detail::check_stream(rec.size(), width);
    const std::size_t n = rec.size();
    Grid g{width, static_cast<int>(n / width), std::vector<std::uint32_t>(n)};
    Distributions f(Q * n);
    detail::split_records(rec.data(), n, f.data(), g.attr.data());
    return {std::move(f), std::move(g)};
}

// rho, ux, uy of every record in double; non-fluid cells get NaN when mask_solid.
inline Moments macroscopic(const std::vector<Record>& rec, bool mask_solid = true) {
    const std::size_t n = rec.size();
    Moments m{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n)};
    detail::moments(
        n, [&](std::size_t k, int i) { return double(rec[k].f[i]); },
        [&](std::size_t k) { return mask_solid && (rec[k].attr & ATTR_MASK) != FLUID; }, m.rho.data(),
        m.ux.data(), m.uy.data());
    return m;
}

// ---- slabs: a grid's rows across a line of cards (docs/lbm.md "Across cards") ----

// Own rows [lo, hi) of a card; its stream holds rows [first, last) (halos of depth D).
struct Slab {
    int lo = 0, hi = 0, first = 0, last = 0;
    int rows() const { return last - first; }
};

// Own rows as equal as possible (the first cards one more), halos of `depth` rows on each
// side with a neighbour; throws when a slab would have fewer than `depth` own rows.
inline std::vector<Slab> slab_layout(int height, int cards, int depth) {
    const int least = std::max(depth, 1);
    const int base = cards > 0 ? height / cards : 0, extra = cards > 0 ? height % cards : 0;
    if (cards < 1 || depth < 0 || base < least)
        throw std::invalid_argument(
            "a grid of " + std::to_string(height) + " rows cannot be cut into " + std::to_string(cards) +
            " slabs of at least " + std::to_string(least) + " rows each (a card sends its " +
            std::to_string(depth) + " edge rows, the cascade depth, to each neighbour after every pass): " +
            "use at most " + std::to_string(std::max(height / least, 1)) + " cards or a grid of at least " +
            std::to_string(std::max(cards, 1) * least) + " rows");
    std::vector<Slab> out;
    for (int k = 0, lo = 0; k < cards; ++k) {
        const int hi = lo + base + (k < extra);
        out.push_back(Slab{lo, hi, std::max(lo - depth, 0), std::min(hi + depth, height)});
        lo = hi;
    }
    return out;
}

// ---- .npy I/O (format 1.0) of record streams, as numpy.save of spgen.lbm.RECORD_DTYPE ----

inline const char* record_descr() { return RECORD_NPY_DESCR; }

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
