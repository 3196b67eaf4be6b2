/* AFUSHELL CSR map v1.1: generated from shell/csr_map.json by shell/gen_csr.py; do not edit. */
#ifndef AFUSHELL_CSR_H
#define AFUSHELL_CSR_H

#include <stdint.h>

#define AFUSHELL_CSR_VERSION_MAJOR 1
#define AFUSHELL_CSR_VERSION_MINOR 1
#define AFUSHELL_MMIO_BYTES 0x40000ull
#define AFUSHELL_AFU_ID "48ae995a-649b-4c39-ac3c-f1e8beaefcca"
#define AFUSHELL_AFU_ID_VALUE_L 0xAC3CF1E8BEAEFCCAull
#define AFUSHELL_AFU_ID_VALUE_H 0x48AE995A649B4C39ull

#define AFUSHELL_ERR_NONE 0x0  /* No error. */
#define AFUSHELL_ERR_BAD_LENGTH 0x1  /* Block length 0 without CHAIN, or not a multiple of 4 bytes. */
#define AFUSHELL_ERR_BAD_ALIGN 0x2  /* Address or stride not a multiple of 4 bytes, or a descriptor-table address (NEXT) not 64-byte aligned. */
#define AFUSHELL_ERR_ADDR_RANGE 0x3  /* The transfer (first byte to last byte of the last block) leaves memory A, memory B or the host window, or crosses from one into another. */
#define AFUSHELL_ERR_RECORD_WIDTH 0x4  /* Block length not a whole number of records of the core's stream (input records for TX, output records for RX). */
#define AFUSHELL_ERR_FIFO_OVERFLOW 0x5  /* DESC_CTRL written with GO while the descriptor FIFO was full; the descriptor was dropped. */
#define AFUSHELL_ERR_LAST_MISMATCH 0x6  /* RX with EOP: the stream's last flag did not fall on the descriptor's final word (data is still written). */
#define AFUSHELL_ERR_PARTIAL_RECORD 0x7  /* A stream ended (last) inside a record at a width converter; the record was padded with zero words. */
#define AFUSHELL_DESC_BYTES 0x40  /* Size of one in-memory descriptor (one 512-bit beat); tables are 64-byte aligned. */
#define AFUSHELL_HOST_ADDR_BIT 0x3F  /* Masters' addresses with this bit set go to host memory (0x8000000000000000 | iova). */
#define AFUSHELL_MEM_A_BASE 0x0  /* FPGA memory A: 0x0_0000_0000 to 0x0_FFFF_FFFF. */
#define AFUSHELL_MEM_B_BASE 0x100000000ull  /* FPGA memory B: 0x1_0000_0000 to 0x1_FFFF_FFFF. */
#define AFUSHELL_MEM_BYTES 0x100000000ull  /* Size of each FPGA memory window. */

/* HDR: OPAE device-feature header, AFU ID and shell-wide registers. */
#define AFUSHELL_DFH 0x0  /* ro */
#define AFUSHELL_DFH_FEATURE_ID_SHIFT 0
#define AFUSHELL_DFH_FEATURE_ID_MASK 0xFFFull
#define AFUSHELL_DFH_REVISION_SHIFT 12
#define AFUSHELL_DFH_REVISION_MASK 0xF000ull
#define AFUSHELL_DFH_NEXT_OFFSET_SHIFT 16
#define AFUSHELL_DFH_NEXT_OFFSET_MASK 0xFFFFFF0000ull
#define AFUSHELL_DFH_EOL_SHIFT 40
#define AFUSHELL_DFH_EOL_MASK 0x10000000000ull
#define AFUSHELL_DFH_TYPE_SHIFT 60
#define AFUSHELL_DFH_TYPE_MASK 0xF000000000000000ull
#define AFUSHELL_AFU_ID_L 0x8  /* ro */
#define AFUSHELL_AFU_ID_H 0x10  /* ro */
#define AFUSHELL_DFH_RSVD0 0x18  /* ro */
#define AFUSHELL_DFH_RSVD1 0x20  /* ro */
#define AFUSHELL_SHELL_INFO 0x28  /* ro */
#define AFUSHELL_SHELL_INFO_VERSION_MINOR_SHIFT 0
#define AFUSHELL_SHELL_INFO_VERSION_MINOR_MASK 0xFFull
#define AFUSHELL_SHELL_INFO_VERSION_MAJOR_SHIFT 8
#define AFUSHELL_SHELL_INFO_VERSION_MAJOR_MASK 0xFF00ull
#define AFUSHELL_SHELL_INFO_N_CORES_SHIFT 16
#define AFUSHELL_SHELL_INFO_N_CORES_MASK 0xFF0000ull
#define AFUSHELL_SHELL_INFO_IN_RECORD_WORDS_SHIFT 24
#define AFUSHELL_SHELL_INFO_IN_RECORD_WORDS_MASK 0xFF000000ull
#define AFUSHELL_SHELL_INFO_OUT_RECORD_WORDS_SHIFT 32
#define AFUSHELL_SHELL_INFO_OUT_RECORD_WORDS_MASK 0xFF00000000ull
#define AFUSHELL_SHELL_INFO_N_REGS_SHIFT 40
#define AFUSHELL_SHELL_INFO_N_REGS_MASK 0xFF0000000000ull
#define AFUSHELL_SHELL_INFO_DESC_FIFO_DEPTH_SHIFT 48
#define AFUSHELL_SHELL_INFO_DESC_FIFO_DEPTH_MASK 0xFF000000000000ull
#define AFUSHELL_SCRATCH 0x30  /* rw */
#define AFUSHELL_CYCLES 0x38  /* ro */
#define AFUSHELL_IRQ_STATUS 0x40  /* w1c */
#define AFUSHELL_IRQ_STATUS_TX_SHIFT 0
#define AFUSHELL_IRQ_STATUS_TX_MASK 0x1ull
#define AFUSHELL_IRQ_STATUS_RX_SHIFT 1
#define AFUSHELL_IRQ_STATUS_RX_MASK 0x2ull
#define AFUSHELL_IRQ_ENABLE 0x48  /* rw */
#define AFUSHELL_SHELL_CTRL 0x50  /* wo */
#define AFUSHELL_SHELL_CTRL_SOFT_RESET_SHIFT 0
#define AFUSHELL_SHELL_CTRL_SOFT_RESET_MASK 0x1ull

/* DMA: One block per DMA engine: TX (memory -> stream, reads SRC) and RX (stream -> memory, writes DST). A descriptor is staged in DESC_SRC..DESC_NEXT and committed by writing DESC_CTRL with GO set; staging registers keep their values, so write every field of each descriptor. The same six words at the same offsets form a 64-byte in-memory descriptor for chaining. */
#define AFUSHELL_TX_BASE 0x100
#define AFUSHELL_RX_BASE 0x200
#define AFUSHELL_TX_DESC_SRC 0x100  /* rw */
#define AFUSHELL_DMA_DESC_SRC 0x0  /* offset in block */
#define AFUSHELL_TX_DESC_DST 0x108  /* rw */
#define AFUSHELL_DMA_DESC_DST 0x8  /* offset in block */
#define AFUSHELL_TX_DESC_LEN 0x110  /* rw */
#define AFUSHELL_DMA_DESC_LEN 0x10  /* offset in block */
#define AFUSHELL_DMA_DESC_LEN_LENGTH_SHIFT 0
#define AFUSHELL_DMA_DESC_LEN_LENGTH_MASK 0xFFFFFFFFull
#define AFUSHELL_TX_DESC_STRIDE 0x118  /* rw */
#define AFUSHELL_DMA_DESC_STRIDE 0x18  /* offset in block */
#define AFUSHELL_DMA_DESC_STRIDE_STRIDE_SHIFT 0
#define AFUSHELL_DMA_DESC_STRIDE_STRIDE_MASK 0xFFFFFFFFull
#define AFUSHELL_DMA_DESC_STRIDE_COUNT_SHIFT 32
#define AFUSHELL_DMA_DESC_STRIDE_COUNT_MASK 0xFFFFFFFF00000000ull
#define AFUSHELL_TX_DESC_NEXT 0x120  /* rw */
#define AFUSHELL_DMA_DESC_NEXT 0x20  /* offset in block */
#define AFUSHELL_TX_DESC_CTRL 0x128  /* rw */
#define AFUSHELL_DMA_DESC_CTRL 0x28  /* offset in block */
#define AFUSHELL_DMA_DESC_CTRL_SOP_SHIFT 0
#define AFUSHELL_DMA_DESC_CTRL_SOP_MASK 0x1ull
#define AFUSHELL_DMA_DESC_CTRL_EOP_SHIFT 1
#define AFUSHELL_DMA_DESC_CTRL_EOP_MASK 0x2ull
#define AFUSHELL_DMA_DESC_CTRL_IRQ_SHIFT 2
#define AFUSHELL_DMA_DESC_CTRL_IRQ_MASK 0x4ull
#define AFUSHELL_DMA_DESC_CTRL_CHAIN_SHIFT 3
#define AFUSHELL_DMA_DESC_CTRL_CHAIN_MASK 0x8ull
#define AFUSHELL_DMA_DESC_CTRL_GO_SHIFT 31
#define AFUSHELL_DMA_DESC_CTRL_GO_MASK 0x80000000ull
#define AFUSHELL_TX_STATUS 0x130  /* ro */
#define AFUSHELL_DMA_STATUS 0x30  /* offset in block */
#define AFUSHELL_DMA_STATUS_BUSY_SHIFT 0
#define AFUSHELL_DMA_STATUS_BUSY_MASK 0x1ull
#define AFUSHELL_DMA_STATUS_FIFO_FULL_SHIFT 1
#define AFUSHELL_DMA_STATUS_FIFO_FULL_MASK 0x2ull
#define AFUSHELL_DMA_STATUS_FIFO_EMPTY_SHIFT 2
#define AFUSHELL_DMA_STATUS_FIFO_EMPTY_MASK 0x4ull
#define AFUSHELL_DMA_STATUS_CHAINING_SHIFT 3
#define AFUSHELL_DMA_STATUS_CHAINING_MASK 0x8ull
#define AFUSHELL_DMA_STATUS_ERROR_SHIFT 4
#define AFUSHELL_DMA_STATUS_ERROR_MASK 0x10ull
#define AFUSHELL_DMA_STATUS_IN_PACKET_SHIFT 5
#define AFUSHELL_DMA_STATUS_IN_PACKET_MASK 0x20ull
#define AFUSHELL_DMA_STATUS_FIFO_LEVEL_SHIFT 8
#define AFUSHELL_DMA_STATUS_FIFO_LEVEL_MASK 0xFF00ull
#define AFUSHELL_DMA_STATUS_DONE_COUNT_SHIFT 32
#define AFUSHELL_DMA_STATUS_DONE_COUNT_MASK 0xFFFFFFFF00000000ull
#define AFUSHELL_TX_ERROR 0x138  /* wc */
#define AFUSHELL_DMA_ERROR 0x38  /* offset in block */
#define AFUSHELL_DMA_ERROR_CODE_SHIFT 0
#define AFUSHELL_DMA_ERROR_CODE_MASK 0xFFull
#define AFUSHELL_DMA_ERROR_COUNT_SHIFT 8
#define AFUSHELL_DMA_ERROR_COUNT_MASK 0xFF00ull
#define AFUSHELL_DMA_ERROR_SEQ_SHIFT 32
#define AFUSHELL_DMA_ERROR_SEQ_MASK 0xFFFFFFFF00000000ull
#define AFUSHELL_TX_CONTROL 0x140  /* wo */
#define AFUSHELL_DMA_CONTROL 0x40  /* offset in block */
#define AFUSHELL_DMA_CONTROL_RESET_SHIFT 0
#define AFUSHELL_DMA_CONTROL_RESET_MASK 0x1ull
#define AFUSHELL_TX_BYTES 0x148  /* ro */
#define AFUSHELL_DMA_BYTES 0x48  /* offset in block */
#define AFUSHELL_TX_BUSY_CYCLES 0x150  /* ro */
#define AFUSHELL_DMA_BUSY_CYCLES 0x50  /* offset in block */
#define AFUSHELL_RX_DESC_SRC 0x200  /* rw */
#define AFUSHELL_RX_DESC_DST 0x208  /* rw */
#define AFUSHELL_RX_DESC_LEN 0x210  /* rw */
#define AFUSHELL_RX_DESC_STRIDE 0x218  /* rw */
#define AFUSHELL_RX_DESC_NEXT 0x220  /* rw */
#define AFUSHELL_RX_DESC_CTRL 0x228  /* rw */
#define AFUSHELL_RX_STATUS 0x230  /* ro */
#define AFUSHELL_RX_ERROR 0x238  /* wc */
#define AFUSHELL_RX_CONTROL 0x240  /* wo */
#define AFUSHELL_RX_BYTES 0x248  /* ro */
#define AFUSHELL_RX_BUSY_CYCLES 0x250  /* ro */

/* CORE: Core control and stream counters at the core input (after the TX converter) and output (before the RX converter). In loop-back the two points are the same stream. */
#define AFUSHELL_CORE_CTRL 0x400  /* wo */
#define AFUSHELL_CORE_CTRL_START_SHIFT 0
#define AFUSHELL_CORE_CTRL_START_MASK 0x1ull
#define AFUSHELL_CORE_CTRL_STOP_SHIFT 1
#define AFUSHELL_CORE_CTRL_STOP_MASK 0x2ull
#define AFUSHELL_CORE_CTRL_ARM_SHIFT 2
#define AFUSHELL_CORE_CTRL_ARM_MASK 0x4ull
#define AFUSHELL_CORE_STATUS 0x408  /* ro */
#define AFUSHELL_CORE_STATUS_RUNNING_SHIFT 0
#define AFUSHELL_CORE_STATUS_RUNNING_MASK 0x1ull
#define AFUSHELL_CORE_STATUS_DONE_SHIFT 1
#define AFUSHELL_CORE_STATUS_DONE_MASK 0x2ull
#define AFUSHELL_CORE_STATUS_IN_DONE_SHIFT 2
#define AFUSHELL_CORE_STATUS_IN_DONE_MASK 0x4ull
#define AFUSHELL_CORE_STATUS_ARMED_SHIFT 3
#define AFUSHELL_CORE_STATUS_ARMED_MASK 0x8ull
#define AFUSHELL_CORE_STATUS_PARTIAL_IN_SHIFT 4
#define AFUSHELL_CORE_STATUS_PARTIAL_IN_MASK 0x10ull
#define AFUSHELL_CORE_STATUS_PARTIAL_OUT_SHIFT 5
#define AFUSHELL_CORE_STATUS_PARTIAL_OUT_MASK 0x20ull
#define AFUSHELL_CORE_ELEMENTS 0x410  /* rw */
#define AFUSHELL_CORE_IN_TOTAL_CYCLES 0x418  /* ro */
#define AFUSHELL_CORE_IN_MOVED_CYCLES 0x420  /* ro */
#define AFUSHELL_CORE_OUT_TOTAL_CYCLES 0x428  /* ro */
#define AFUSHELL_CORE_OUT_MOVED_CYCLES 0x430  /* ro */
#define AFUSHELL_CORE_PRIME_CYCLES 0x438  /* ro */

/* REG: Values of the core's Reg inputs, 32 bits in the low half of each register; one write sets reg_<name> in every core of the cascade. Index i is the i-th Reg of the program in declaration order (the build's afu.json and reg map list them). */
#define AFUSHELL_CORE_REG(i) (0x800 + 8 * (i))  /* rw: CORE_REG(i) at 0x800 + 8*i, i < 256 (SHELL_INFO.N_REGS in use). Reset (and SOFT_RESET keeps) the Reg's declared default. Writes beyond N_REGS are ignored, reads there return 0. */
#define AFUSHELL_CORE_REG_COUNT 256

/* RDMA: Card-to-card RDMA (docs/rdma.md): present only in AFUs built with the RDMA block (top afu_rdma_top, shell/rdma/afu/); elsewhere these offsets read 0. Up to INFO.MAX_OPS operations in flight as initiator: stage LOCAL..STRIDES, write CMD with GO, read the operation's id from OP_ID; each completion raises IRQ_STATUS.DONE and waits in DONE_INFO (id and status code) until DONE_POP; STATUS.CODE holds the last one's code. Operations other cards run against this card's memory are reported as events (EVT_*). */
#define AFUSHELL_RDMA_INFO 0x1000  /* ro */
#define AFUSHELL_RDMA_INFO_PORTS_SHIFT 0
#define AFUSHELL_RDMA_INFO_PORTS_MASK 0xFFull
#define AFUSHELL_RDMA_INFO_MAX_CARDS_SHIFT 8
#define AFUSHELL_RDMA_INFO_MAX_CARDS_MASK 0xFF00ull
#define AFUSHELL_RDMA_INFO_VERSION_SHIFT 16
#define AFUSHELL_RDMA_INFO_VERSION_MASK 0xFF0000ull
#define AFUSHELL_RDMA_INFO_MAX_OPS_SHIFT 24
#define AFUSHELL_RDMA_INFO_MAX_OPS_MASK 0xFF000000ull
#define AFUSHELL_RDMA_CARD_ID 0x1008  /* rw */
#define AFUSHELL_RDMA_CARD_ID_ID_SHIFT 0
#define AFUSHELL_RDMA_CARD_ID_ID_MASK 0x3Full
#define AFUSHELL_RDMA_PORT_CFG 0x1010  /* rw */
#define AFUSHELL_RDMA_PORT_CFG_DIM_SHIFT 0
#define AFUSHELL_RDMA_PORT_CFG_DIM_MASK 0xFFFFull
#define AFUSHELL_RDMA_PORT_CFG_DATELINE_SHIFT 16
#define AFUSHELL_RDMA_PORT_CFG_DATELINE_MASK 0xFF0000ull
#define AFUSHELL_RDMA_LOCAL 0x1018  /* rw */
#define AFUSHELL_RDMA_REMOTE 0x1020  /* rw */
#define AFUSHELL_RDMA_LEN 0x1028  /* rw */
#define AFUSHELL_RDMA_BLOCK 0x1030  /* rw */
#define AFUSHELL_RDMA_BLOCK_BLOCK_SHIFT 0
#define AFUSHELL_RDMA_BLOCK_BLOCK_MASK 0xFFFFFFFFull
#define AFUSHELL_RDMA_BLOCK_COUNT_SHIFT 32
#define AFUSHELL_RDMA_BLOCK_COUNT_MASK 0xFFFFFFFF00000000ull
#define AFUSHELL_RDMA_STRIDES 0x1038  /* rw */
#define AFUSHELL_RDMA_STRIDES_LOCAL_STRIDE_SHIFT 0
#define AFUSHELL_RDMA_STRIDES_LOCAL_STRIDE_MASK 0xFFFFFFFFull
#define AFUSHELL_RDMA_STRIDES_REMOTE_STRIDE_SHIFT 32
#define AFUSHELL_RDMA_STRIDES_REMOTE_STRIDE_MASK 0xFFFFFFFF00000000ull
#define AFUSHELL_RDMA_CMD 0x1040  /* wo */
#define AFUSHELL_RDMA_CMD_DST_SHIFT 0
#define AFUSHELL_RDMA_CMD_DST_MASK 0x3Full
#define AFUSHELL_RDMA_CMD_GET_SHIFT 8
#define AFUSHELL_RDMA_CMD_GET_MASK 0x100ull
#define AFUSHELL_RDMA_CMD_GO_SHIFT 31
#define AFUSHELL_RDMA_CMD_GO_MASK 0x80000000ull
#define AFUSHELL_RDMA_STATUS 0x1048  /* ro */
#define AFUSHELL_RDMA_STATUS_BUSY_SHIFT 0
#define AFUSHELL_RDMA_STATUS_BUSY_MASK 0x1ull
#define AFUSHELL_RDMA_STATUS_DROPPED_SHIFT 1
#define AFUSHELL_RDMA_STATUS_DROPPED_MASK 0x2ull
#define AFUSHELL_RDMA_STATUS_EVENT_SHIFT 2
#define AFUSHELL_RDMA_STATUS_EVENT_MASK 0x4ull
#define AFUSHELL_RDMA_STATUS_OVERFLOW_SHIFT 3
#define AFUSHELL_RDMA_STATUS_OVERFLOW_MASK 0x8ull
#define AFUSHELL_RDMA_STATUS_PENDING_SHIFT 4
#define AFUSHELL_RDMA_STATUS_PENDING_MASK 0x10ull
#define AFUSHELL_RDMA_STATUS_CODE_SHIFT 8
#define AFUSHELL_RDMA_STATUS_CODE_MASK 0xFF00ull
#define AFUSHELL_RDMA_STATUS_OPS_DONE_SHIFT 32
#define AFUSHELL_RDMA_STATUS_OPS_DONE_MASK 0xFFFFFFFF00000000ull
#define AFUSHELL_RDMA_OP_ID 0x1050  /* ro */
#define AFUSHELL_RDMA_EVT_INFO 0x1058  /* ro */
#define AFUSHELL_RDMA_EVT_INFO_KIND_SHIFT 0
#define AFUSHELL_RDMA_EVT_INFO_KIND_MASK 0xFull
#define AFUSHELL_RDMA_EVT_INFO_PEER_SHIFT 4
#define AFUSHELL_RDMA_EVT_INFO_PEER_MASK 0x3F0ull
#define AFUSHELL_RDMA_EVT_INFO_VALID_SHIFT 16
#define AFUSHELL_RDMA_EVT_INFO_VALID_MASK 0x10000ull
#define AFUSHELL_RDMA_EVT_INFO_LOST_SHIFT 32
#define AFUSHELL_RDMA_EVT_INFO_LOST_MASK 0xFFFF00000000ull
#define AFUSHELL_RDMA_EVT_ADDR 0x1060  /* ro */
#define AFUSHELL_RDMA_EVT_LEN 0x1068  /* ro */
#define AFUSHELL_RDMA_EVT_POP 0x1070  /* wo */
#define AFUSHELL_RDMA_IRQ_STATUS 0x1078  /* w1c */
#define AFUSHELL_RDMA_IRQ_STATUS_DONE_SHIFT 0
#define AFUSHELL_RDMA_IRQ_STATUS_DONE_MASK 0x1ull
#define AFUSHELL_RDMA_IRQ_STATUS_EVENT_SHIFT 1
#define AFUSHELL_RDMA_IRQ_STATUS_EVENT_MASK 0x2ull
#define AFUSHELL_RDMA_IRQ_ENABLE 0x1080  /* rw */
#define AFUSHELL_RDMA_REPLAYS 0x1088  /* ro */
#define AFUSHELL_RDMA_DONE_INFO 0x1090  /* ro */
#define AFUSHELL_RDMA_DONE_INFO_OP_ID_SHIFT 0
#define AFUSHELL_RDMA_DONE_INFO_OP_ID_MASK 0xFFFFFFFFull
#define AFUSHELL_RDMA_DONE_INFO_CODE_SHIFT 32
#define AFUSHELL_RDMA_DONE_INFO_CODE_MASK 0xFF00000000ull
#define AFUSHELL_RDMA_DONE_INFO_VALID_SHIFT 40
#define AFUSHELL_RDMA_DONE_INFO_VALID_MASK 0x10000000000ull
#define AFUSHELL_RDMA_DONE_INFO_LOST_SHIFT 48
#define AFUSHELL_RDMA_DONE_INFO_LOST_MASK 0xFFFF000000000000ull
#define AFUSHELL_RDMA_DONE_POP 0x1098  /* wo */
#define AFUSHELL_RDMA_ROUTE(i) (0x1200 + 8 * (i))  /* rw: ROUTE(c) at 0x1200 + 8*c: the port towards card c (PORTS = this card, larger = no route: transfers to c fail with NO_ROUTE). */
#define AFUSHELL_RDMA_ROUTE_COUNT 64
#define AFUSHELL_RDMA_ROUTE_PORT_SHIFT 0
#define AFUSHELL_RDMA_ROUTE_PORT_MASK 0xFull

/* One in-memory descriptor for chaining: the six DESC_* words in register order. */
typedef struct afushell_desc {
    uint64_t src;     /* DESC_SRC */
    uint64_t dst;     /* DESC_DST */
    uint32_t len;     /* DESC_LEN.LENGTH */
    uint32_t rsvd0;
    uint32_t stride;  /* DESC_STRIDE.STRIDE */
    uint32_t count;   /* DESC_STRIDE.COUNT */
    uint64_t next;    /* DESC_NEXT */
    uint32_t ctrl;    /* DESC_CTRL (GO ignored) */
    uint32_t rsvd1;
    uint64_t rsvd2[2];
} afushell_desc_t;
#if defined(__cplusplus)
static_assert(sizeof(afushell_desc_t) == AFUSHELL_DESC_BYTES, "descriptor is one beat");
#else
_Static_assert(sizeof(afushell_desc_t) == AFUSHELL_DESC_BYTES, "descriptor is one beat");
#endif

#endif /* AFUSHELL_CSR_H */
