// A simulated-card library: the Verilated afu_top behind the spg_afu_* ABI (afu_pins.h).
// Compiled together with the Verilator output of one `spgen build`; SPG_CARD_INFO is
// the build's "key=value\n" description, passed by the build script. A card with the RDMA
// block is Verilated from afu_rdma_top under the same class name (--prefix Vafu_top) with
// SPG_LINK_PORTS / SPG_LINK_BITS defined: its serial links and second interrupt are wired
// to the link pins of spg_afu_pins.
//
// Two shortcuts make a cycle cheaper without changing it (SPGEN_CARD_EVAL=plain in the
// environment of the process that creates a card turns both off, for comparisons):
// - SPG_REGISTERED_OUTPUTS (defined by the build when no output port of the model
//   depends combinationally on an input, and the clock's rising edge is its only event):
//   a call with clk = 0 cannot change the outputs, and Verilator evaluates all
//   input-driven logic again at the next rising edge, so the call only latches the
//   inputs. The next clk = 1 call marks the clock as low before it evaluates, as the
//   skipped evaluation would have, and the edge is seen: one evaluation per cycle where
//   the runtime asks for two or three.
// - After the first evaluation, the model's scheduler is called directly, without
//   eval()'s per-call housekeeping (a deletion queue and the message queue of
//   multi-threaded models: a card's model is single-threaded and creates no objects).
#include <cstdlib>
#include <cstring>

#include "Vafu_top.h"
#include "Vafu_top___024root.h"
#include "afu_pins.h"
#include "verilated.h"

#ifndef SPG_CARD_INFO
#define SPG_CARD_INFO ""
#endif

// The model's scheduler, which Vafu_top::eval() calls (Verilator 5; same translation unit).
void Vafu_top___024root___eval(Vafu_top___024root* vlSelf);

namespace {
struct Afu {
    VerilatedContext ctx;
    Vafu_top* top;
    bool plain = false;    // SPGEN_CARD_EVAL=plain: every call evaluates through eval()
    bool clk_low = false;  // a clk = 0 call was latched, not evaluated
};

template <class W>
void put(W& wide, const uint64_t* src) { std::memcpy(&wide[0], src, 64); }
template <class W>
void get(uint64_t* dst, const W& wide) { std::memcpy(dst, &wide[0], 64); }

#ifdef SPG_LINK_PORTS
// Port p's link word inside Verilator's packed vector (32-bit units, whatever its C type).
constexpr int kUnits = SPG_LINK_BITS / 32;
inline uint32_t unit(uint32_t v, int i) { return i ? 0 : v; }
inline uint32_t unit(uint64_t v, int i) { return i < 2 ? uint32_t(v >> (32 * i)) : 0; }
template <class W>
uint32_t unit(const W& v, int i) { return v[size_t(i)]; }
inline void set_unit(uint32_t& v, int i, uint32_t x) { if (!i) v = x; }
inline void set_unit(uint64_t& v, int i, uint32_t x) {
    v = (v & ~(0xFFFFFFFFull << (32 * i))) | (uint64_t(x) << (32 * i));
}
template <class W>
void set_unit(W& v, int i, uint32_t x) { v[size_t(i)] = x; }
#endif
}  // namespace

extern "C" {

int spg_afu_abi(void) { return SPG_AFU_ABI; }

const char* spg_afu_info(void) { return SPG_CARD_INFO; }

void* spg_afu_new(void) {
    auto* a = new Afu;
    const char* mode = std::getenv("SPGEN_CARD_EVAL");
    a->plain = mode && std::strcmp(mode, "plain") == 0;
    a->top = new Vafu_top(&a->ctx, "afu");
    a->top->clk = 0;
    a->top->rst = 1;
    a->top->eval();  // (the first evaluation runs the initial blocks)
    return a;
}

void spg_afu_free(void* p) {
    auto* a = static_cast<Afu*>(p);
    // A model's scopes (a fast core's DPI calls have them) unregister from the calling
    // thread's context, which is the last one created on it: another card's, perhaps
    // freed already (two cards closed in the reverse order of opening hung on its lock).
    Verilated::threadContextp(&a->ctx);
    a->top->final();
    delete a->top;
    Verilated::threadContextp(Verilated::defaultContextp());  // never a freed one
    delete a;
}

void spg_afu_eval(void* p, spg_afu_pins* s, int clk) {
    auto* a = static_cast<Afu*>(p);
    Vafu_top* t = a->top;
    t->rst = s->rst;
    t->mmio_wr_valid = s->mmio_wr_valid;
    t->mmio_wr_addr = s->mmio_wr_addr;
    t->mmio_wr_data = s->mmio_wr_data;
    t->mmio_rd_valid = s->mmio_rd_valid;
    t->mmio_rd_addr = s->mmio_rd_addr;
    t->tx_rd_waitrequest = s->tx_rd.waitrequest;
    t->tx_rd_readdatavalid = s->tx_rd.readdatavalid;
    if (s->tx_rd.readdatavalid) put(t->tx_rd_readdata, s->tx_rd.readdata);
    t->dsc_rd_waitrequest = s->dsc_rd.waitrequest;
    t->dsc_rd_readdatavalid = s->dsc_rd.readdatavalid;
    if (s->dsc_rd.readdatavalid) put(t->dsc_rd_readdata, s->dsc_rd.readdata);
    t->rx_wr_waitrequest = s->rx_wr.waitrequest;
#ifdef SPG_LINK_PORTS
    t->link_out_ready = s->link_out_ready;
    t->link_in_valid = s->link_in_valid;
    t->link_in_last = s->link_in_last;
    for (int p = 0; p < SPG_LINK_PORTS; ++p)
        for (int i = 0; i < kUnits; ++i) set_unit(t->link_in_data, p * kUnits + i, s->link_in_data[p][i]);
#endif
    if (a->plain) {
        t->clk = uint8_t(clk);
        t->eval();
#ifdef SPG_REGISTERED_OUTPUTS
    } else if (!clk) {
        a->clk_low = true;  // the outputs hold until the rising edge
    } else if (a->clk_low) {
        t->rootp->__Vtrigprevexpr___TOP__clk__0 = 0;  // where the skipped call left it
        a->clk_low = false;
        t->clk = 1;
        Vafu_top___024root___eval(t->rootp);
#endif
    } else {
        t->clk = uint8_t(clk);
        Vafu_top___024root___eval(t->rootp);
    }
    s->mmio_rd_resp_valid = t->mmio_rd_resp_valid;
    s->mmio_rd_resp_data = t->mmio_rd_resp_data;
    s->tx_rd.address = t->tx_rd_address;
    s->tx_rd.read = t->tx_rd_read;
    s->tx_rd.burstcount = t->tx_rd_burstcount;
    s->dsc_rd.address = t->dsc_rd_address;
    s->dsc_rd.read = t->dsc_rd_read;
    s->dsc_rd.burstcount = t->dsc_rd_burstcount;
    s->rx_wr.address = t->rx_wr_address;
    s->rx_wr.write = t->rx_wr_write;
    s->rx_wr.burstcount = t->rx_wr_burstcount;
    s->rx_wr.byteenable = t->rx_wr_byteenable;
    if (t->rx_wr_write) get(s->rx_wr.writedata, t->rx_wr_writedata);
    s->irq = t->irq;
#ifdef SPG_LINK_PORTS
    s->irq = uint8_t(s->irq | (t->rdma_irq << 2));
    s->link_out_valid = t->link_out_valid;
    s->link_out_last = t->link_out_last;
    for (int p = 0; p < SPG_LINK_PORTS; ++p)
        if ((s->link_out_valid >> p) & 1)
            for (int i = 0; i < kUnits; ++i) s->link_out_data[p][i] = unit(t->link_out_data, p * kUnits + i);
#endif
}

}  // extern "C"
