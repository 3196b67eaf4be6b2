// N steps of a lid-driven cavity (or any record stream) on a card with the LBM core,
// from C++ through the afushell C API; writes the records and rho, ux, uy as .npy.
//
//   lbm_card TARGET WIDTH HEIGHT STEPS OUT_PREFIX [--omega W] [--uw UX UY] [--in IN.npy]
//
// TARGET is a `spgen build` folder of cores/lbm/lbm_d2q9.spd (-P W=WIDTH), or any
// afuShellOpen URI ("sim:...", "afu:<guid>"). Writes OUT_PREFIX.records.npy (the record
// stream after STEPS steps) and OUT_PREFIX.moments.npy (float64 (3, H, W): rho, ux, uy,
// NaN on non-fluid cells).
#include <afushell/lbm.hpp>
#include <afushell/lbm_card.hpp>

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <type_traits>

namespace lbm = afushell::lbm;

static int usage() {
    std::fprintf(stderr,
                 "usage: lbm_card TARGET WIDTH HEIGHT STEPS OUT_PREFIX [--omega W] [--uw UX UY] "
                 "[--in IN.npy]\n");
    return 2;
}

template <class T>
static T parse(const char* s, const char* what) {
    std::size_t used = 0;
    T v{};
    try {
        if constexpr (std::is_same<T, double>::value) v = std::stod(s, &used);
        else v = static_cast<T>(std::stoll(s, &used));
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || s[used] != '\0')
        throw std::invalid_argument(std::string(what) + " must be a number, got '" + s + "'");
    return v;
}

int main(int argc, char** argv) {
    if (argc < 6) return usage();
    try {
        std::string target = argv[1];
        struct stat st {};
        if (stat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) target = "sim:" + target;
        const int w = parse<int>(argv[2], "WIDTH"), h = parse<int>(argv[3], "HEIGHT");
        const long long steps = parse<long long>(argv[4], "STEPS");
        if (steps < 0) throw std::invalid_argument("STEPS must not be negative");
        const std::string out = argv[5];
        lbm::Params p;
        std::string in;
        for (int i = 6; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--omega" && i + 1 < argc) p.omega = parse<double>(argv[++i], "--omega");
            else if (a == "--uw" && i + 2 < argc) {
                p.uw_x = parse<double>(argv[++i], "--uw UX");
                p.uw_y = parse<double>(argv[++i], "--uw UY");
            } else if (a == "--in" && i + 1 < argc) in = argv[++i];
            else return usage();
        }
        std::vector<lbm::Record> rec = in.empty() ? lbm::initial_records(lbm::cavity(w, h))
                                                  : lbm::read_records_npy(in);
        if (rec.size() != static_cast<std::size_t>(w) * h)
            throw std::invalid_argument(in + " holds " + std::to_string(rec.size()) +
                                        " records, not a " + std::to_string(w) + "x" +
                                        std::to_string(h) + " grid");

        const lbm::CardResult r = lbm::run_card(target, rec, w, static_cast<std::uint64_t>(steps), p);
        if (!r.ok()) {
            std::fprintf(stderr, "lbm_card: error %s (0x%x): %s\n", afuShellErrStr(r.code),
                         static_cast<unsigned>(r.code), r.message.c_str());
            return 1;
        }
        lbm::write_records_npy(out + ".records.npy", rec);
        const lbm::Moments m = lbm::macroscopic(rec);
        lbm::write_moments_npy(out + ".moments.npy", m, w);

        double mass = 0, umax = 0;
        for (std::size_t k = 0; k < rec.size(); ++k)
            if (!std::isnan(m.rho[k])) {
                mass += m.rho[k];
                umax = std::fmax(umax, std::hypot(m.ux[k], m.uy[k]));
            }
        std::uint64_t in_total = 0, in_moved = 0;
        for (const auto& run : r.runs) {
            in_total += run.in_total_cycles;
            in_moved += run.in_moved_cycles;
        }
        std::printf("depth %u steps %lld transfers %llu f2f_runs %zu elapsed_ns %llu "
                    "in_total_cycles %llu in_moved_cycles %llu mass %.17g max_speed %.17g\n",
                    r.depth, steps, static_cast<unsigned long long>(r.transfers), r.runs.size(),
                    static_cast<unsigned long long>(r.elapsed_ns),
                    static_cast<unsigned long long>(in_total), static_cast<unsigned long long>(in_moved),
                    mass, umax);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lbm_card: error: %s\n", e.what());
        return 1;
    }
}
