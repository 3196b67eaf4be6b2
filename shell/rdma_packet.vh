// RDMA packet format generated from shell/rdma/rdma_packet.json by shell/rdma/gen_packet.py; do not edit.
// Included inside module bodies: header field positions, packet types, CTRL payload.
/* verilator lint_off UNUSEDPARAM */
localparam integer RDMA_MAX_WORDS = 16;
localparam integer RDMA_HDR_DST_LSB = 0;  // destination card
localparam integer RDMA_HDR_DST_W = 6;
localparam integer RDMA_HDR_SRC_LSB = 6;  // source card
localparam integer RDMA_HDR_SRC_W = 6;
localparam integer RDMA_HDR_TYPE_LSB = 12;  // packet type (TYPES)
localparam integer RDMA_HDR_TYPE_W = 4;
localparam integer RDMA_HDR_VC_LSB = 16;  // virtual channel
localparam integer RDMA_HDR_VC_W = 1;
localparam integer RDMA_HDR_WORDS_LSB = 17;  // payload length: 0..16 words, or a bulk code (bulk)
localparam integer RDMA_HDR_WORDS_W = 5;
localparam integer RDMA_HDR_SEQ_LSB = 22;  // link sequence number (per hop, set by the link sender)
localparam integer RDMA_HDR_SEQ_W = 10;
localparam [3:0] RDMA_T_CTRL = 4'd0;  // link level: ACK/NAK and freed-slot counters, never routed
localparam [3:0] RDMA_T_PUT = 4'd1;  // start of a put stream: op, remote addr, len (+ block, stride)
localparam [3:0] RDMA_T_GETRESP = 4'd2;  // start of a get-response stream: op, initiator's local addr, len
localparam [3:0] RDMA_T_DATA = 4'd3;  // stream data
localparam [3:0] RDMA_T_GETREQ = 4'd4;  // single packet: op, remote addr, len, initiator's local addr (+ block, strides)
localparam [3:0] RDMA_T_DONE = 4'd5;  // single packet: op completed at the target
localparam [3:0] RDMA_T_ERR = 4'd6;  // single packet: op failed at the target (code)
localparam [3:0] RDMA_T_RED = 4'd7;  // start of a reduction stream (C++ model)
localparam [3:0] RDMA_T_STREAM = 4'd8;  // stream endpoint data: a control word (stream), then up to 15 data words, or with a bulk code 31..255 (wide endpoints: the payload's 16k words less the control word)
localparam [3:0] RDMA_T_CREDIT = 4'd9;  // stream endpoint credits: a control word (stream: its SID), then the receive-buffer words freed (low 16 bits)
localparam [3:0] RDMA_T_STREAM2 = 4'd10;  // STREAM for an endpoint on the card's second local port (an allreduce's result): the router ejects it there
localparam [3:0] RDMA_T_CREDIT2 = 4'd11;  // CREDIT for an endpoint on the card's second local port
localparam integer RDMA_STREAM_SID_LSB = 0;  // stream id of the receiving endpoint (CREDIT: of the endpoint the credits are for)
localparam integer RDMA_STREAM_SID_W = 8;
localparam integer RDMA_STREAM_LAST_LSB = 8;  // STREAM: the packet's final data word ends a segment (the producer's last)
localparam integer RDMA_STREAM_LAST_W = 1;
localparam [4:0] RDMA_CTRL_ACK_SEQ_WORD = 5'd1;  // next sequence number expected (cumulative ACK)
localparam integer RDMA_CTRL_ACK_SEQ_LSB = 0;
localparam integer RDMA_CTRL_ACK_SEQ_W = 10;
localparam [4:0] RDMA_CTRL_NAK_WORD = 5'd1;  // resend from ACK_SEQ
localparam integer RDMA_CTRL_NAK_LSB = 16;
localparam integer RDMA_CTRL_NAK_W = 1;
localparam [4:0] RDMA_CTRL_FREED0_WORD = 5'd2;  // slots freed on VC 0 since reset (wraps)
localparam integer RDMA_CTRL_FREED0_LSB = 0;
localparam integer RDMA_CTRL_FREED0_W = 16;
localparam [4:0] RDMA_CTRL_FREED1_WORD = 5'd2;  // slots freed on VC 1 since reset (wraps)
localparam integer RDMA_CTRL_FREED1_LSB = 16;
localparam integer RDMA_CTRL_FREED1_W = 16;
localparam integer RDMA_BULK_UNIT = 16;  // WORDS codes above max_payload_words are bulk packets of whole 64-byte lines, for wide datapaths (LANES > 1): code c carries (c - 15) * 16 words, 32..256 (128 B..1 KiB)
localparam integer RDMA_MAX_BULK_WORDS = 256;
localparam integer RDMA_NWORDS_W = 9;  // bits of a payload word count
/* verilator lint_on UNUSEDPARAM */
// payload words of a WORDS code, and the code of n words (n <= max_payload_words or whole bulk units)
function automatic [8:0] rdma_words(input [4:0] code);
    rdma_words = code <= 5'd16 ? {4'd0, code} : ({4'd0, code} - 9'd15) << 4;
endfunction
function automatic [4:0] rdma_words_code(input [8:0] n);
    rdma_words_code = n <= 9'd16 ? n[4:0] : n[8:4] + 5'd15;
endfunction
// a header word from its fields (the link sender fills in SEQ)
function automatic [31:0] rdma_hdr(input [5:0] h_dst, input [5:0] h_src, input [3:0] h_type, input [0:0] h_vc, input [4:0] h_words, input [9:0] h_seq);
    rdma_hdr = {h_seq, h_words, h_vc, h_type, h_src, h_dst};
endfunction
