// Host-side LBM helpers from C++: build a grid's initial record stream as .npy, or read a
// record stream (.npy) back and write/print its macroscopic moments.
//
//   lbm_host grid cavity|closed_box|channel WIDTH HEIGHT OUT.npy [RHO]
//   lbm_host moments IN.npy WIDTH OUT.npy
#include <afushell/lbm.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

namespace lbm = afushell::lbm;

static int usage() {
    std::fprintf(stderr,
                 "usage: lbm_host grid cavity|closed_box|channel WIDTH HEIGHT OUT.npy [RHO]\n"
                 "       lbm_host moments IN.npy WIDTH OUT.npy\n");
    return 2;
}

static int to_int(const char* s, const char* what) {
    std::size_t used = 0;
    int v = 0;
    try {
        v = std::stoi(s, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || s[used] != '\0') throw std::invalid_argument(std::string(what) + " must be an integer, got '" + s + "'");
    return v;
}

int main(int argc, char** argv) {
    try {
        const std::string cmd = argc > 1 ? argv[1] : "";
        if (cmd == "grid" && (argc == 6 || argc == 7)) {
            const std::string kind = argv[2];
            const int w = to_int(argv[3], "WIDTH"), h = to_int(argv[4], "HEIGHT");
            const double rho = argc == 7 ? std::stod(argv[6]) : 1.0;
            lbm::Grid g;
            if (kind == "cavity") g = lbm::cavity(w, h);
            else if (kind == "closed_box") g = lbm::closed_box(w, h);
            else if (kind == "channel") g = lbm::channel(w, h);
            else throw std::invalid_argument("unknown grid kind '" + kind + "'");
            const auto rec = lbm::initial_records(g, rho);
            lbm::write_records_npy(argv[5], rec);
            std::printf("wrote %zu records (%dx%d %s) to %s\n", rec.size(), w, h, kind.c_str(), argv[5]);
            return 0;
        }
        if (cmd == "moments" && argc == 5) {
            const auto rec = lbm::read_records_npy(argv[2]);
            const int w = to_int(argv[3], "WIDTH");
            auto fg = lbm::from_records(rec, w);  // checks the stream is a width-w grid
            lbm::check_grid(fg.second);
            const auto m = lbm::macroscopic(rec);
            lbm::write_moments_npy(argv[4], m, w);
            double srho = 0, sux = 0, suy = 0;
            std::size_t fluid = 0;
            for (std::size_t k = 0; k < rec.size(); ++k)
                if (!std::isnan(m.rho[k])) {
                    srho += m.rho[k];
                    sux += m.ux[k];
                    suy += m.uy[k];
                    ++fluid;
                }
            std::printf("fluid %zu sum_rho %.17g sum_ux %.17g sum_uy %.17g\n", fluid, srho, sux, suy);
            return 0;
        }
        return usage();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "lbm_host: error: %s\n", e.what());
        return 1;
    }
}
