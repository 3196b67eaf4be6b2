// lbm-slabs-mpi: LBM slabs with halo exchange (docs/lbm.md "Across cards") on a line of RTL
// cards split over MPI ranks. The host side of every card is a state machine on the cluster
// clock that touches CSRs only (DMA descriptors, CORE_CTRL, the core's Regs, RDMA puts), as
// cluster_pipeline.cpp does; it looks and acts only at the boundaries of the look-ahead
// windows of rdma-mpi-rtl (L cycles, the shortest link latency), where every rank learns
// every card's progress (passes done, halo puts done). A decision therefore depends on
// the same state whatever the rank count, and 1 and K ranks compute the same grid, the
// same cycles and the same counters. The schedule (each pass's memories, the halo puts,
// when a pass may start) is afushell/lbm_passes.hpp's, which run_slabs (lbm_card.hpp,
// threads on the C API) follows too; this file is the MPI driver of it.
//
//   mpirun -np K lbm-slabs-mpi CLUSTER.json IN.rec OUT.rec WIDTH DEPTH STEPS OMEGA UW_X UW_Y
//
// IN.rec: the grid's records (afushell/lbm.hpp's Record, 40 B each, row-major, H x WIDTH); OUT.rec: the grid after
// STEPS steps; DEPTH: the cards' cascade depth (build.json's N_CORES). stdout (rank 0): one JSON object with the cycles, each card's passes and
// stall counters, every halo put and the links' counters. Errors: a message on stderr,
// exit status 1.
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <afushell/lbm.hpp>
#include <afushell/lbm_passes.hpp>

#include "afushell_csr.h"
#include "cluster.hpp"
#include "cluster_file.hpp"
#include "rtl_mpi_window.hpp"

namespace {
constexpr uint64_t kRecord = afushell::lbm::RECORD_BYTES;
constexpr uint64_t kHostWindow = 0x8000000000000000ull;  // DMA address of host memory (docs/shell.md)
constexpr uint64_t kNone = ~0ull;

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "lbm-slabs-mpi: %s\n", what.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::exit(1);
}

uint64_t done_count(uint64_t status) {
    return (status & AFUSHELL_DMA_STATUS_DONE_COUNT_MASK) >> AFUSHELL_DMA_STATUS_DONE_COUNT_SHIFT;
}

namespace lbm = afushell::lbm;
using lbm::Slab;

// What every rank learns about every card at a window boundary.
enum { G_PASSES, G_PUTS_DOWN, G_PUTS_UP, G_FIELDS };

struct Put { int to; uint64_t after_pass, handle, issued = 0, done = 0; };

// The host side of one card.
struct CardHost {
    int id = 0;
    spgsim::Card* card = nullptr;
    Slab s{};
    uint64_t n = 0, bytes = 0, host_io = 0, wsid = 0;
    std::vector<uint8_t> buf;
    uint64_t passes_done = 0, started = 0;     // passes ended / begun
    bool running = false;
    uint64_t rx_done0 = kNone, rx_expect = 0;  // RX DONE_COUNT before the first pass; after this one
    uint64_t rd = 0;                           // a posted CSR read
    enum { IDLE, STATUS, IN_TOTAL, IN_MOVED } reading = IDLE;
    uint64_t in_total = 0, in_moved = 0;       // summed over the F2F passes
    uint64_t t_total = 0;                      // this pass's IN_TOTAL, until IN_MOVED comes
    std::vector<uint64_t> pass_start, pass_end;
    std::vector<Put> puts[2];                  // [0] to card - 1, [1] to card + 1, in round order
    uint64_t puts_done[2] = {0, 0};
};

struct Run {
    spgsim::RtlCluster& cl;
    int cards;
    uint64_t width, depth, passes, row_b;
    std::vector<Slab> slabs;
    std::vector<CardHost> host;   // local cards only have card != nullptr

    void start_pass(CardHost& h) {
        const uint64_t p = h.started;
        const uint64_t src = p == 0 ? kHostWindow | h.host_io : lbm::pass_memory(p - 1);
        const uint64_t dst = p + 1 == passes ? kHostWindow | h.host_io : lbm::pass_memory(p);
        spgsim::Card& c = *h.card;
        c.mmio_write(AFUSHELL_CORE_ELEMENTS, h.n);
        // armed: the shell holds the stream at the cores until the TX engine has read ahead
        c.mmio_write(AFUSHELL_CORE_CTRL, AFUSHELL_CORE_CTRL_ARM_MASK);
        const uint64_t ctrl = AFUSHELL_DMA_DESC_CTRL_GO_MASK | AFUSHELL_DMA_DESC_CTRL_SOP_MASK |
                              AFUSHELL_DMA_DESC_CTRL_EOP_MASK;
        for (uint32_t base : {uint32_t(AFUSHELL_TX_BASE), uint32_t(AFUSHELL_RX_BASE)}) {
            const bool tx = base == AFUSHELL_TX_BASE;
            c.mmio_write(base + AFUSHELL_DMA_DESC_SRC, tx ? src : 0);
            c.mmio_write(base + AFUSHELL_DMA_DESC_DST, tx ? 0 : dst);
            c.mmio_write(base + AFUSHELL_DMA_DESC_LEN, h.bytes);
            c.mmio_write(base + AFUSHELL_DMA_DESC_STRIDE, 0);
            c.mmio_write(base + AFUSHELL_DMA_DESC_NEXT, 0);
            c.mmio_write(base + AFUSHELL_DMA_DESC_CTRL, ctrl);
        }
        h.rx_expect = h.rx_done0 + p + 1;
        h.pass_start.push_back(cl.now());
        h.running = true;
        ++h.started;
    }

    // Local state from read results and operations that ended, at a window boundary.
    void poll(CardHost& h) {
        spgsim::Card& c = *h.card;
        uint64_t v = 0;
        if (h.reading != CardHost::IDLE && c.read_result(h.rd, &v)) {
            const auto what = h.reading;
            h.reading = CardHost::IDLE;
            if (what == CardHost::STATUS) {
                if (v & AFUSHELL_DMA_STATUS_ERROR_MASK)
                    die("card " + std::to_string(h.id) + ": the RX DMA engine reported an error in pass " +
                        std::to_string(h.started - 1) + " (status 0x" + std::to_string(v) + ")");
                if (h.rx_done0 == kNone) {
                    h.rx_done0 = done_count(v);
                } else if (h.running && done_count(v) >= h.rx_expect) {
                    const uint64_t p = h.started - 1;
                    h.pass_end.push_back(cl.now());
                    if (p > 0 && p + 1 < passes) {   // an F2F run: its stall counters
                        h.rd = c.post_read(AFUSHELL_CORE_IN_TOTAL_CYCLES), h.reading = CardHost::IN_TOTAL;
                    } else {
                        h.running = false, ++h.passes_done;
                    }
                }
            } else if (what == CardHost::IN_TOTAL) {
                h.t_total = v;
                h.rd = c.post_read(AFUSHELL_CORE_IN_MOVED_CYCLES), h.reading = CardHost::IN_MOVED;
            } else {
                h.in_total += h.t_total, h.in_moved += v;
                h.running = false, ++h.passes_done;
            }
        }
        for (int d = 0; d < 2; ++d) {
            auto& q = h.puts[d];
            while (h.puts_done[d] < q.size()) {
                const spgsim::RtlCluster::Op o = cl.op(q[h.puts_done[d]].handle);
                if (o.code == spgsim::RTL_PENDING) break;
                if (o.code != spgsim::RTL_OK)
                    die("card " + std::to_string(h.id) + ": halo put to card " + std::to_string(q[h.puts_done[d]].to) +
                        " failed with RDMA code " + std::to_string(o.code) + "\n" + cl.dump(q[h.puts_done[d]].handle));
                q[h.puts_done[d]].issued = o.issued, q[h.puts_done[d]].done = o.done;
                ++h.puts_done[d];
            }
        }
        if (h.reading == CardHost::IDLE && (h.running || h.rx_done0 == kNone))
            h.rd = c.post_read(AFUSHELL_RX_BASE + AFUSHELL_DMA_STATUS), h.reading = CardHost::STATUS;
    }

    // Decisions at a window boundary from every card's progress `g` (G_FIELDS per card).
    void decide(CardHost& h, const std::vector<uint64_t>& g) {
        const int k = h.id;
        auto G = [&](int c, int f) { return g[size_t(c) * G_FIELDS + size_t(f)]; };
        // halo puts after pass r, as soon as both cards have ended it
        for (int d = 0; d < 2; ++d) {
            const int j = d ? k + 1 : k - 1;
            if (j < 0 || j >= cards) continue;
            for (uint64_t r = h.puts[d].size(); lbm::may_put(r, passes, G(k, G_PASSES), G(j, G_PASSES)); ++r) {
                const lbm::HaloPut hp = lbm::halo_put(slabs, k, j, int(depth), row_b, r);
                spgsim::RtlCluster::Op op;
                op.card = k, op.peer = j, op.get = 0;
                op.block = hp.block, op.count = hp.count, op.lstride = hp.block, op.rstride = hp.block;
                op.len = hp.block * hp.count, op.local = hp.local, op.remote = hp.remote;
                h.puts[d].push_back(Put{j, r, cl.issue(op)});
            }
        }
        // the next pass: the previous one ended and the neighbours' halos after it landed
        if (h.running || h.started == passes || h.rx_done0 == kNone) return;
        const uint64_t below = k > 0 ? G(k - 1, G_PUTS_UP) : 0, above = k + 1 < cards ? G(k + 1, G_PUTS_DOWN) : 0;
        if (!lbm::may_start(h.started, k, cards, G(k, G_PASSES), below, above)) return;
        start_pass(h);
        if (h.reading == CardHost::IDLE)
            h.rd = h.card->post_read(AFUSHELL_RX_BASE + AFUSHELL_DMA_STATUS), h.reading = CardHost::STATUS;
    }
};

using spgsim::all;
using spgsim::window;

uint32_t f32_bits(const char* s) {
    const float f = std::strtof(s, nullptr);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// The index of core Reg `name` from the card's description ("reg.NAME=i" lines).
uint32_t reg_index(const std::string& info, const std::string& name) {
    std::stringstream ss(info);
    std::string line;
    while (std::getline(ss, line))
        if (line.rfind("reg." + name + "=", 0) == 0) return uint32_t(std::strtoul(line.c_str() + name.size() + 5, nullptr, 10));
    throw std::runtime_error("the card's core has no Reg '" + name + "' (not an LBM core?)");
}

// Concatenates every rank's text on rank 0.
std::string gather_text(const std::string& mine, int ranks) {
    int len = int(mine.size());
    std::vector<int> lens(static_cast<size_t>(ranks)), offs(static_cast<size_t>(ranks));
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < ranks; ++r) offs[size_t(r)] = total, total += lens[size_t(r)];
    std::string all(size_t(total), '\0');
    MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    return all;
}
}  // namespace

int main(int argc, char** argv) {
    int rank, ranks;
    spgsim::start_ranks(argc, argv, 9, 9, "CLUSTER.json IN.rec OUT.rec WIDTH DEPTH STEPS OMEGA UW_X UW_Y", rank,
                        ranks);
    const uint64_t width = std::strtoull(argv[4], nullptr, 10), depth = std::strtoull(argv[5], nullptr, 10),
                   steps = std::strtoull(argv[6], nullptr, 10);
    uint32_t regs[3] = {0, 0, 0};
    std::unique_ptr<spgsim::RtlCluster> cl;
    std::vector<int> owner;
    std::vector<uint8_t> grid;
    std::unique_ptr<Run> run;
    try {
        cl = spgsim::open_ranked_cluster(argv[1], rank, ranks, owner);
        std::ifstream gi(argv[2], std::ios::binary);
        grid.assign(std::istreambuf_iterator<char>(gi), {});
        if (!width || grid.empty() || grid.size() % (kRecord * width))
            throw std::runtime_error(std::string(argv[2]) + ": not a whole number of rows of " + std::to_string(width) +
                                     " records");
        const int cards = cl->size();
        if (!depth) throw std::runtime_error("the cascade depth must be at least 1");
        const std::string bad_steps = lbm::steps_error(steps, unsigned(depth));
        if (!bad_steps.empty()) throw std::runtime_error(bad_steps);
        const uint64_t height = grid.size() / (kRecord * width);
        run.reset(new Run{*cl, cards, width, depth, steps / depth, width * kRecord, lbm::slab_layout(int(height), cards, int(depth)), {}});
        run->host.resize(size_t(cards));
        for (int i = 0; i < 3; ++i) regs[i] = f32_bits(argv[7 + i]);
        for (int c = 0; c < cards; ++c) {
            CardHost& h = run->host[size_t(c)];
            h.id = c, h.s = run->slabs[size_t(c)];
            h.n = uint64_t(h.s.rows()) * width, h.bytes = h.n * kRecord;
            if (!cl->present(c)) continue;
            h.card = cl->card(c);
            for (const char* name : {"omega", "uw_x", "uw_y"}) reg_index(h.card->info(), name);  // an LBM core?
            // whole pages, as the runtime allocates them: the TX engine reads whole lines
            h.buf.assign((h.bytes + 4095) & ~uint64_t(4095), 0);
            std::memcpy(h.buf.data(), grid.data() + uint64_t(h.s.first) * width * kRecord, h.bytes);
            h.host_io = h.card->host.add(h.buf.data(), h.buf.size(), false, &h.wsid);
        }
    } catch (const std::exception& e) {
        die(std::string("rank ") + std::to_string(rank) + ": " + e.what());
    }
    const int cards = cl->size();
    const uint64_t L = cl->min_latency();
    while (!all(cl->ready())) window(*cl, L, owner, ranks);
    const char* names[3] = {"omega", "uw_x", "uw_y"};
    for (CardHost& h : run->host)
        for (int i = 0; h.card && i < 3; ++i)
            h.card->mmio_write(AFUSHELL_CORE_REG(reg_index(h.card->info(), names[i])), regs[i]);

    const auto t_wall = std::chrono::steady_clock::now();
    const uint64_t t0 = cl->now();
    const uint64_t limit = 1000000 + 200 * (grid.size() / kRecord) * run->passes;
    std::vector<uint64_t> mine(size_t(cards) * G_FIELDS), g(mine.size());
    uint64_t end = 0;
    for (;;) {
        std::fill(mine.begin(), mine.end(), 0);
        for (CardHost& h : run->host) {
            if (!h.card) continue;
            run->poll(h);
            mine[size_t(h.id) * G_FIELDS + G_PASSES] = h.passes_done;
            mine[size_t(h.id) * G_FIELDS + G_PUTS_DOWN] = h.puts_done[0];
            mine[size_t(h.id) * G_FIELDS + G_PUTS_UP] = h.puts_done[1];
        }
        MPI_Allreduce(mine.data(), g.data(), int(g.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        bool finished = true;
        for (int c = 0; c < cards; ++c) finished = finished && g[size_t(c) * G_FIELDS + G_PASSES] == run->passes;
        if (finished) {
            end = cl->now();
            break;
        }
        if (cl->now() - t0 > limit) {
            std::ostringstream o;
            o << "not done after " << limit << " cycles; passes done per card:";
            for (int c = 0; c < cards; ++c) o << " " << g[size_t(c) * G_FIELDS + G_PASSES];
            if (!rank) o << "\n" << cl->dump();
            die(o.str());
        }
        for (CardHost& h : run->host)
            if (h.card) run->decide(h, g);
        window(*cl, L, owner, ranks);
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_wall).count();

    // the grid: each card's own rows, summed over ranks (zero elsewhere)
    const size_t words = grid.size() / 4;
    std::vector<uint32_t> out(words, 0), sum(rank ? 0 : words);
    std::ostringstream cj, tj;
    for (CardHost& h : run->host) {
        if (!h.card) continue;
        const uint64_t own = uint64_t(h.s.lo - h.s.first) * width * kRecord;
        std::memcpy(reinterpret_cast<uint8_t*>(out.data()) + uint64_t(h.s.lo) * width * kRecord, h.buf.data() + own,
                    uint64_t(h.s.hi - h.s.lo) * width * kRecord);
        spgsim::HostRegion r;
        h.card->host.remove(h.wsid, &r);
        cj << "{\"card\": " << h.id << ", \"rows\": [" << h.s.lo << ", " << h.s.hi << "], \"in_total_cycles\": "
           << h.in_total << ", \"in_moved_cycles\": " << h.in_moved << ", \"passes\": [";
        for (size_t p = 0; p < h.pass_start.size(); ++p)
            cj << (p ? ", " : "") << "[" << h.pass_start[p] - t0 << ", " << h.pass_end[p] - t0 << "]";
        cj << "]}\n";
        for (int d = 0; d < 2; ++d)
            for (const Put& p : h.puts[d])
                tj << "{\"from\": " << h.id << ", \"to\": " << p.to << ", \"after_pass\": " << p.after_pass
                   << ", \"bytes\": " << run->depth * run->row_b << ", \"issued\": " << p.issued - t0
                   << ", \"done\": " << p.done - t0 << ", \"cycles\": " << p.done - p.issued << "}\n";
    }
    MPI_Reduce(out.data(), sum.data(), int(words), MPI_UINT32_T, MPI_SUM, 0, MPI_COMM_WORLD);
    uint64_t link[3] = {0, 0, 0}, link_sum[3] = {0, 0, 0};
    for (const auto& ch : cl->channels()) link[0] += ch.packets, link[1] += ch.dropped, link[2] += ch.corrupted;
    MPI_Reduce(link, link_sum, 3, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    const std::string cards_text = gather_text(cj.str(), ranks), puts_text = gather_text(tj.str(), ranks);
    if (!rank) {
        std::ofstream o(argv[3], std::ios::binary);
        o.write(reinterpret_cast<const char*>(sum.data()), std::streamsize(words * 4));
        if (!o) die(std::string(argv[3]) + ": cannot write the result");
        auto lines = [](const std::string& t) {
            std::string s;
            std::stringstream ss(t);
            std::string line;
            while (std::getline(ss, line)) s += (s.empty() ? "" : ", ") + line;
            return s;
        };
        std::printf("{\"ranks\": %d, \"cards\": %d, \"depth\": %llu, \"passes\": %llu, \"cycles\": %llu, "
                    "\"clock_mhz\": %g, \"window\": %llu, \"wall_s\": %.3f, \"card_list\": [%s], \"transfers\": [%s], "
                    "\"links\": {\"packets\": %llu, \"dropped\": %llu, \"corrupted\": %llu}}\n",
                    ranks, cards, (unsigned long long)run->depth, (unsigned long long)run->passes,
                    (unsigned long long)(end - t0), cl->clock_mhz(), (unsigned long long)L, wall,
                    lines(cards_text).c_str(), lines(puts_text).c_str(), (unsigned long long)link_sum[0],
                    (unsigned long long)link_sum[1], (unsigned long long)link_sum[2]);
    }
    run.reset();
    cl.reset();
    MPI_Finalize();
    return 0;
}
