// The AFU a shell drives: its identity checked against the program's expectation, its build
// facts read, and reprogramming the card's AFU slot with another build.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "afushell_csr.h"
#include "shell.hpp"
#ifdef AFUSHELL_SIM
#include <opae/spgen_sim.h>
#endif

namespace afushell {

namespace {

std::string guid_text(const fpga_guid g) {
    char b[40];
    std::snprintf(b, sizeof b, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                  g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12],
                  g[13], g[14], g[15]);
    return b;
}

// The AFU ID the CSRs give: AFU_ID_H holds the UUID's high 64 bits.
std::string id_text(uint64_t hi, uint64_t lo) {
    fpga_guid g;
    for (int i = 0; i < 8; ++i) g[i] = uint8_t(hi >> (56 - 8 * i)), g[8 + i] = uint8_t(lo >> (56 - 8 * i));
    return guid_text(g);
}

// The value after "key": in a JSON text (a string's contents or a number), "" if absent: the
// few fields read here are unique in afu.json.
std::string json_value(const std::string& text, const std::string& key) {
    size_t p = text.find("\"" + key + "\"");
    if (p == std::string::npos) return "";
    p = text.find_first_not_of(" \t\r\n", p + key.size() + 2);
    if (p == std::string::npos || text[p] != ':') return "";
    p = text.find_first_not_of(" \t\r\n", p + 1);
    if (p == std::string::npos) return "";
    if (text[p] == '"') {
        size_t e = text.find('"', p + 1);
        return e == std::string::npos ? "" : text.substr(p + 1, e - p - 1);
    }
    size_t e = text.find_first_of(",}] \t\r\n", p);
    return text.substr(p, e == std::string::npos ? std::string::npos : e - p);
}

long json_count(const std::string& text, const std::string& key) {
    const std::string v = json_value(text, key);
    char* end = nullptr;
    const long n = v.empty() ? -1 : std::strtol(v.c_str(), &end, 10);
    return v.empty() || *end ? -1 : n;
}

}  // namespace

ExpectedAfu expected_afu(const std::string& target) {
    ExpectedAfu x;
    x.afu_id = AFUSHELL_AFU_ID;
    x.source = "the AFU shell's ID";
    if (target.empty()) return x;
    const std::string json = target + "/hw/afu.json";
    std::ifstream f(json);
    if (!f) return x;
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    fpga_guid g;
    if (!parse_guid(json_value(text, "accelerator-type-uuid"), g))
        throw Error(AFU_ERR_BAD_URI, json + " has no accelerator-type-uuid (an AFU ID)");
    x.afu_id = guid_text(g);
    x.source = "accelerator-type-uuid in " + json;
    x.json = json;
    x.n_cores = json_count(text, "n-cores");
    // a record width of 0 means one word, as in SHELL_INFO
    auto width = [&](const char* key) {
        const long n = json_count(text, key);
        return n < 0 ? -1 : std::max(n, 1L);
    };
    x.in_words = width("in-record-words");
    x.out_words = width("out-record-words");
    return x;
}

void Shell::read_afu(const ExpectedAfu& x, const std::string& where) {
    const uint64_t lo = mmio_r(AFUSHELL_AFU_ID_L), hi = mmio_r(AFUSHELL_AFU_ID_H);
    const std::string got = id_text(hi, lo);
    if (got != x.afu_id)
        throw Error(AFU_ERR_AFU_ID, where + ": the card's AFU has ID " + got + ", the program expects " +
                                        x.afu_id + " (" + x.source + ")");
    uint64_t si = mmio_r(AFUSHELL_SHELL_INFO);
    auto field = [si](uint64_t mask, unsigned shift) { return uint32_t((si & mask) >> shift); };
    afu_shell_info ni{};  // published under m_ below (transfers of other threads read it)
    ni.n_cores = field(AFUSHELL_SHELL_INFO_N_CORES_MASK, AFUSHELL_SHELL_INFO_N_CORES_SHIFT);
    ni.in_record_words = field(AFUSHELL_SHELL_INFO_IN_RECORD_WORDS_MASK, AFUSHELL_SHELL_INFO_IN_RECORD_WORDS_SHIFT);
    ni.out_record_words = field(AFUSHELL_SHELL_INFO_OUT_RECORD_WORDS_MASK, AFUSHELL_SHELL_INFO_OUT_RECORD_WORDS_SHIFT);
    ni.n_regs = field(AFUSHELL_SHELL_INFO_N_REGS_MASK, AFUSHELL_SHELL_INFO_N_REGS_SHIFT);
    ni.desc_fifo_depth = field(AFUSHELL_SHELL_INFO_DESC_FIFO_DEPTH_MASK, AFUSHELL_SHELL_INFO_DESC_FIFO_DEPTH_SHIFT);
    ni.simulated = simulated_;
    if (!ni.in_record_words) ni.in_record_words = 1;
    if (!ni.out_record_words) ni.out_record_words = 1;
    {
        std::lock_guard<std::mutex> g(m_);
        info_ = ni;
    }
    // Every spgen build carries the shell's AFU ID: the build's shape tells builds apart.
    auto differs = [](long want, uint32_t got) { return want >= 0 && uint32_t(want) != got; };
    if (differs(x.n_cores, ni.n_cores) || differs(x.in_words, ni.in_record_words) ||
        differs(x.out_words, ni.out_record_words))
        throw Error(AFU_ERR_AFU_ID,
                    where + ": the card's AFU has " + std::to_string(ni.n_cores) + " core(s), " +
                        std::to_string(ni.in_record_words) + "-word records in and " +
                        std::to_string(ni.out_record_words) + "-word out; the program expects " +
                        std::to_string(x.n_cores) + ", " + std::to_string(x.in_words) + " and " +
                        std::to_string(x.out_words) + " (" + x.json + ")");
#ifdef AFUSHELL_SIM
    if (simulated_) {
        std::stringstream ss(spgenSimInfo(h_));
        std::string line;
        while (std::getline(ss, line)) {
            const auto eq = line.find('=');
            if (eq == std::string::npos) continue;
            const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
            if (key.rfind("reg.", 0) == 0) core_regs_[key.substr(4)] = unsigned(std::strtoul(value.c_str(), nullptr, 10));
            else if (key.rfind("regtype.", 0) == 0) core_reg_types_[key.substr(8)] = value;
            else if (key.rfind("param.", 0) == 0) core_params_[key.substr(6)] = value;
            else if (key == "clock_mhz") clock_mhz_ = std::strtod(value.c_str(), nullptr);
        }
    }
#endif
}

unsigned Shell::fifo_slots() const {
    return std::max(1u, std::min(info_.desc_fifo_depth ? info_.desc_fifo_depth : 1u, 16u));
}

void Shell::usable_locked(const Request* r) const {
    if (reconfiguring_) throw Error(FPGA_BUSY, "the card's AFU slot is being reconfigured");
    if (!afu_wrong_.empty()) throw Error(AFU_ERR_AFU_ID, afu_wrong_);
    if (r && r->afu_gen != UINT64_MAX && r->afu_gen != afu_gen_)
        throw Error(FPGA_BUSY, "the card was reconfigured while the transfer was prepared: submit it again");
}

uint64_t Shell::reconfigure(const std::string& build, bool keep_ddr, const std::string& afu_id) {
    const char* const on_hardware = "reconfiguring a real card: program it with fpgaconf and the "
                                    "build's .gbs, then open it again";
#ifndef AFUSHELL_SIM
    (void)build, (void)keep_ddr, (void)afu_id;
    throw Error(FPGA_NOT_SUPPORTED, on_hardware);
#else
    if (!simulated_) throw Error(FPGA_NOT_SUPPORTED, on_hardware);
    const std::string lib = card_library(build);
    const ExpectedAfu x = expected_afu(build);
    ExpectedAfu want = x;
    if (!afu_id.empty()) {
        fpga_guid g;
        if (!parse_guid(afu_id, g)) throw Error(FPGA_INVALID_PARAM, "'" + afu_id + "' is not an AFU ID");
        want.afu_id = guid_text(g);
        want.source = "as asked";
        if (want.afu_id != x.afu_id)
            throw Error(AFU_ERR_AFU_ID, "not loaded: " + build + " holds AFU ID " + x.afu_id + " (" + x.source +
                                            "), the program expects " + want.afu_id);
    }
    // Nothing of this handle may be in flight, and nothing may start until the swap is done.
    std::unique_lock<std::mutex> run_lock(run_m_, std::try_to_lock), p2p_lock(p2p_m_, std::try_to_lock);
    if (!run_lock || !p2p_lock)
        throw Error(FPGA_BUSY, "a core run or card-initiated DMA is in progress: reconfigure the card after it");
    {
        std::lock_guard<std::mutex> g(m_);
        const size_t n = std::max(eng_[0].queue.size() + eng_[0].inflight.size(),
                                  eng_[1].queue.size() + eng_[1].inflight.size());
        if (n)
            throw Error(FPGA_BUSY, std::to_string(n) + " transfer(s) in flight on the card: wait for "
                                       "them before reconfiguring it");
        reconfiguring_ = true;
        ++afu_gen_;
    }
    struct Done {
        Shell* s;
        ~Done() {
            std::lock_guard<std::mutex> g(s->m_);
            s->reconfiguring_ = false;
        }
    } done{this};
    fpga_result r = fpgaReconfigureSlot(h_, 0, reinterpret_cast<const uint8_t*>(lib.c_str()), lib.size() + 1,
                                        keep_ddr ? SPGEN_SIM_RECONF_KEEP_DDR : 0);
    if (r != FPGA_OK) throw Error(r, std::string("fpgaReconfigureSlot: ") + spgenSimReconfError());
    const uint64_t ns = spgenSimReconfNs(h_);
    {
        // the new AFU's engines count descriptors from 0, and until it is checked it is not used
        std::lock_guard<std::mutex> p0(eng_[0].push_m), p1(eng_[1].push_m), g(m_);
        ++epoch_;
        afu_wrong_ = "the card's AFU was not checked after reconfiguring it";
        for (auto& e : eng_) {
            e.pushed = 0;
            e.free_slots.clear();
        }
    }
    core_regs_.clear();
    core_reg_types_.clear();
    core_params_.clear();
    try {
        read_afu(want, "after loading " + build);
    } catch (const Error& e) {
        std::lock_guard<std::mutex> g(m_);
        afu_wrong_ = std::string(e.what()) + "; the card refuses transfers and runs until it is reconfigured";
        throw Error(e.code(), afu_wrong_);
    }
    slots_ = std::min(fifo_slots(), pool_slots_);
    mmio_w(AFUSHELL_SHELL_CTRL, AFUSHELL_SHELL_CTRL_SOFT_RESET_MASK);
    mmio_w(AFUSHELL_IRQ_ENABLE, 3);
    mmio_w(AFUSHELL_IRQ_STATUS, 3);
    std::lock_guard<std::mutex> g(m_);
    for (auto& e : eng_)
        for (unsigned s = 0; s < slots_; ++s) e.free_slots.push_back(int(s));
    afu_wrong_.clear();
    return ns;
#endif
}

}  // namespace afushell
