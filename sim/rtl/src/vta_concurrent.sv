// The compute module's GEMM and ALU with alu.concurrent (docs/timing.md,
// "Concurrent ALU"; vta_compute instantiates it when the package says
// ALU_CONCURRENT): two pipes, G (GEMM) and V (ALU), each a vta_seq with its
// own UOP copy, behind the issue stage's scan and bank check.
//
// C1 (scan): the head GEMM / ALU's uops are read one a cycle, from its first
// cycle at the head with no DMA instruction in flight (so after the previous
// issue, or the previous LOAD's completion), through the G copy's write
// port (vta_ram P1W: no LOAD UOP writes while a scan reads, so the copy
// stays one block RAM column in true dual-port mode, not two); each uop's
// data arrives a cycle later and widens the hull of its
// destination (and, for a vector ALU, source) range by bank index. The scan
// of n uops ends in the cycle its last uop arrives, c + n, when the head may
// issue with the bank set complete (U = 0: no uops, no banks, at once).
// C2 (issue): its own pipe idle, and the other pipe idle or on a disjoint
// bank set (the set recorded at that pipe's issue). C3: a DMA instruction
// (LOAD UOP / ACC / ACC_8BIT, FINISH) issues with both pipes idle.
//
// ACC and OUT: KB banks of depth DEPTH / KB, bank k the indices [k*H,
// (k+1)*H); each bank's write port and destination read port go to the pipe
// whose step addresses that bank (G first; the DMA when it writes, with both
// pipes idle), its source read port to V. Each pipe forwards its own last
// write (the other pipe never touches its banks while it runs: C2).
module vta_concurrent #(
    parameter int B = 8,
    parameter int KB = 2,   // banks (vta_pkg::ACC_BANKS), a power of two
    parameter int BA = vta_pkg::LOG_ACC_BUFF_DEPTH - $clog2(KB),  // index bits within a bank
    parameter int GE = 0,   // registers inside the GEMM's MAC array
    parameter int KU = B > 4 ? B / 4 : 1,  // UOP elements a DMA beat writes
    parameter int ACC_W = vta_pkg::BATCH * vta_pkg::BLOCK_OUT * vta_pkg::ACC_WIDTH  // ACC element bits
) (
    input  logic          clk,
    input  logic          clear,
    input  logic          start_seq,  // issue cycle of a GEMM or ALU
    input  logic          is_gemm,    // of insn
    input  logic          is_alu,
    input  logic [127:0]  insn,
    input  logic          head_valid,
    input  logic          dma_busy,   // a DMA instruction is in flight
    input  logic [4:0]    ii_imm,
    input  logic [4:0]    ii_vector,
    // UOP and ACC writes of the DMA engines
    input  logic [KU-1:0] uop_wen,
    input  logic [vta_pkg::LOG_UOP_BUFF_DEPTH-1:0] uop_waddr,
    input  logic [KU*32-1:0] uop_wdata,
    input  logic          acc_dma_we,
    input  logic [vta_pkg::LOG_ACC_BUFF_DEPTH-1:0] acc_dma_addr,
    input  logic [ACC_W-1:0] acc_dma_data,
    input  logic          acc8_dma_we,
    input  logic [vta_pkg::LOG_ACC_BUFF_DEPTH-1:0] acc8_dma_addr,
    input  logic [ACC_W-1:0] acc8_wide,
    // INP and WGT read ports (pipe G)
    output logic          inp_re,
    output logic [vta_pkg::LOG_INP_BUFF_DEPTH-1:0] inp_addr,
    input  logic [vta_pkg::INP_ELEM_BYTES*8-1:0] inp_q,
    output logic          wgt_re,
    output logic [vta_pkg::LOG_WGT_BUFF_DEPTH-1:0] wgt_addr,
    input  logic [vta_pkg::WGT_ELEM_BYTES*8-1:0] wgt_q,
    // OUT write port of each bank (bank b's fields at [b*width +: width])
    output logic [KB-1:0] out_we,
    output logic [KB*BA-1:0] out_waddr,
    output logic [KB*vta_pkg::OUT_ELEM_BYTES*8-1:0] out_wdata,
    output logic [KB*vta_pkg::BATCH*vta_pkg::BLOCK_OUT-1:0] out_wmask,  // a bit per lane
    input  logic          dbg_re_uop,
    input  logic          dbg_re_acc,
    input  logic [31:0]   dbg_addr,
    output logic [31:0]   dbg_uop,
    output logic [ACC_W-1:0] dbg_acc,
    output logic          busy,
    output logic          ready,
    output logic [1:0]    pipe_done  // {V, G}
);
  localparam int N = vta_pkg::BATCH * vta_pkg::BLOCK_OUT;  // ACC lanes
  localparam int L = vta_pkg::ALU_LANES < N ? vta_pkg::ALU_LANES : N;
  localparam int G = (N + L - 1) / L;  // ALU lane groups
  localparam int LG = G > 1 ? $clog2(G) : 1;
  localparam int UA = vta_pkg::LOG_UOP_BUFF_DEPTH;
  localparam int CA = vta_pkg::LOG_ACC_BUFF_DEPTH;
  localparam int WA = vta_pkg::LOG_WGT_BUFF_DEPTH;
  localparam int IA = vta_pkg::LOG_INP_BUFF_DEPTH;
  localparam int LK = KB > 1 ? $clog2(KB) : 1;  // bank index bits
  localparam int AW = vta_pkg::ACC_WIDTH;  // bits per accumulator lane
  localparam int OW = vta_pkg::OUT_WIDTH;  // bits per output lane

  // ---- the two UOP copies (the scan reads G's through its write port) ----
  logic g_uop_re, v_uop_re, sc_re;
  logic [UA-1:0] g_uop_raddr, v_uop_raddr, sc_raddr;
  logic [31:0] g_uop_q, v_uop_q, sc_q;
  vta_lane_ram #(.W(32), .DEPTH(vta_pkg::UOP_BUFF_DEPTH), .K(KU), .NR(2), .P1W(1'b1)) u_uop_g (
      .clk, .wr_en(uop_wen), .wr_addr(uop_waddr), .wr_data(uop_wdata), .re(g_uop_re), .raddr(g_uop_raddr),
      .rdata(g_uop_q), .re1(sc_re), .raddr1(sc_raddr), .rdata1(sc_q), .dbg_re(dbg_re_uop),
      .dbg_addr(UA'(dbg_addr)), .dbg_data(dbg_uop));
  logic [31:0] v_uop_dbg;
  vta_lane_ram #(.W(32), .DEPTH(vta_pkg::UOP_BUFF_DEPTH), .K(KU), .NR(1)) u_uop_v (
      .clk, .wr_en(uop_wen), .wr_addr(uop_waddr), .wr_data(uop_wdata), .re(v_uop_re), .raddr(v_uop_raddr),
      .rdata(v_uop_q), .re1(1'b0), .raddr1('0), .rdata1(), .dbg_re(1'b0), .dbg_addr('0), .dbg_data(v_uop_dbg));

  // ---- the two pipes ----
  logic g_gemm, g_reset, g_imm, g_iw_v, g_rd_v, g_wr_v, g_busy, g_retire;
  logic v_gemm, v_reset, v_imm, v_iw_v, v_rd_v, v_wr_v, v_busy, v_retire;
  logic [2:0] g_alu, v_alu;
  logic [31:0] g_immv, v_immv, g_iw_src, v_iw_src, g_rd_src, v_rd_src;
  logic [WA-1:0] g_iw_wgt, v_iw_wgt;
  logic [CA-1:0] g_rd_dst, v_rd_dst, g_wr_dst, v_wr_dst;
  logic [LG-1:0] g_wr_g, v_wr_g;
  vta_seq #(.MODE(1), .LG(LG), .GE(GE)) u_seq_g (
      .clk, .clear, .start(start_seq && is_gemm), .insn, .ii_imm, .ii_vector, .uop_re(g_uop_re),
      .uop_raddr(g_uop_raddr), .uop_q(g_uop_q), .op_gemm(g_gemm), .op_reset(g_reset), .op_imm(g_imm),
      .op_alu(g_alu), .op_immv(g_immv), .iw_v(g_iw_v), .iw_src(g_iw_src), .iw_wgt(g_iw_wgt), .rd_v(g_rd_v),
      .rd_dst(g_rd_dst), .rd_src(g_rd_src), .wr_v(g_wr_v), .wr_dst(g_wr_dst), .wr_g(g_wr_g), .busy(g_busy),
      .retire(g_retire));
  vta_seq #(.MODE(2), .LG(LG), .GE(GE)) u_seq_v (
      .clk, .clear, .start(start_seq && is_alu), .insn, .ii_imm, .ii_vector, .uop_re(v_uop_re),
      .uop_raddr(v_uop_raddr), .uop_q(v_uop_q), .op_gemm(v_gemm), .op_reset(v_reset), .op_imm(v_imm),
      .op_alu(v_alu), .op_immv(v_immv), .iw_v(v_iw_v), .iw_src(v_iw_src), .iw_wgt(v_iw_wgt), .rd_v(v_rd_v),
      .rd_dst(v_rd_dst), .rd_src(v_rd_src), .wr_v(v_wr_v), .wr_dst(v_wr_dst), .wr_g(v_wr_g), .busy(v_busy),
      .retire(v_retire));
  assign inp_re = g_iw_v;
  assign inp_addr = IA'(g_iw_src);
  assign wgt_re = g_iw_v;
  assign wgt_addr = g_iw_wgt;
  assign pipe_done = {v_retire, g_retire};

  // ---- ACC banks ----
  function automatic logic [LK-1:0] bank_of(input logic [CA-1:0] a);
    bank_of = LK'(a >> BA);
  endfunction
  wire v_src_re = v_rd_v && !v_imm;
  logic [ACC_W-1:0] g_res, v_res;  // each pipe's write data
  logic [N-1:0] v_mask;
  logic [ACC_W-1:0] bank_q0[KB], bank_q1[KB], bank_dbg[KB];
  logic [KB-1:0] b_we;
  logic [BA-1:0] b_waddr[KB];
  logic [ACC_W-1:0] b_wdata[KB];
  logic [N-1:0] b_wmask[KB];
  for (genvar b = 0; b < KB; b++) begin : g_bank
    logic re0, re1;
    logic [BA-1:0] raddr0, raddr1;
    always_comb begin
      b_we[b] = 1'b0;
      b_waddr[b] = BA'(v_wr_dst);
      b_wdata[b] = v_res;
      b_wmask[b] = v_mask;
      if (acc_dma_we && bank_of(acc_dma_addr) == LK'(b)) begin
        b_we[b] = 1'b1;
        b_waddr[b] = BA'(acc_dma_addr);
        b_wdata[b] = acc_dma_data;
        b_wmask[b] = {N{1'b1}};
      end else if (acc8_dma_we && bank_of(acc8_dma_addr) == LK'(b)) begin
        b_we[b] = 1'b1;
        b_waddr[b] = BA'(acc8_dma_addr);
        b_wdata[b] = acc8_wide;
        b_wmask[b] = {N{1'b1}};
      end else if (g_wr_v && bank_of(g_wr_dst) == LK'(b)) begin
        b_we[b] = 1'b1;
        b_waddr[b] = BA'(g_wr_dst);
        b_wdata[b] = g_res;
        b_wmask[b] = {N{1'b1}};
      end else if (v_wr_v && bank_of(v_wr_dst) == LK'(b)) begin
        b_we[b] = 1'b1;
      end
      re0 = 1'b0;
      raddr0 = BA'(v_rd_dst);
      if (g_rd_v && bank_of(g_rd_dst) == LK'(b)) begin
        re0 = 1'b1;
        raddr0 = BA'(g_rd_dst);
      end else if (v_rd_v && bank_of(v_rd_dst) == LK'(b)) begin
        re0 = 1'b1;
      end
      re1 = v_src_re && bank_of(CA'(v_rd_src)) == LK'(b);
      raddr1 = BA'(v_rd_src);
    end
    vta_ram #(.W(ACC_W), .DEPTH(vta_pkg::ACC_BUFF_DEPTH / KB), .G(AW), .NR(2)) u_acc (
        .clk, .we(b_we[b]), .waddr(b_waddr[b]), .wdata(b_wdata[b]), .wmask(b_wmask[b]), .re0, .raddr0,
        .rdata0(bank_q0[b]), .re1, .raddr1, .rdata1(bank_q1[b]), .dbg_re(dbg_re_acc), .dbg_addr(BA'(dbg_addr)),
        .dbg_data(bank_dbg[b]));
    // OUT: the low OUT_WIDTH bits of each lane written to ACC by a pipe.
    always_comb begin
      out_we[b] = b_we[b] && !acc_dma_we && !acc8_dma_we;
      out_waddr[b*BA+:BA] = b_waddr[b];
      out_wmask[b*N+:N] = b_wmask[b];
      for (int l = 0; l < N; l++) out_wdata[(b*N+l)*OW+:OW] = b_wdata[b][l*AW+:OW];
    end
  end
  logic [LK-1:0] dbg_sel;
  always_ff @(posedge clk) if (dbg_re_acc) dbg_sel <= bank_of(CA'(dbg_addr));
  assign dbg_acc = bank_dbg[dbg_sel];

  // Each pipe's operands: the bank it read, and its own last write forwarded.
  logic [LK-1:0] g_rsel, v_rsel, v_ssel;
  logic [CA-1:0] v_q_src;
  logic g_fw_v, v_fw_v;
  logic [CA-1:0] g_fw_addr, v_fw_addr;
  logic [ACC_W-1:0] g_fw_data, v_fw_data;
  logic [N-1:0] v_fw_mask;
  always_ff @(posedge clk) begin
    if (g_rd_v) g_rsel <= bank_of(g_rd_dst);
    if (v_rd_v) v_rsel <= bank_of(v_rd_dst);
    if (v_src_re) begin
      v_ssel <= bank_of(CA'(v_rd_src));
      v_q_src <= CA'(v_rd_src);
    end
    g_fw_v <= g_wr_v;
    g_fw_addr <= g_wr_dst;
    g_fw_data <= g_res;
    v_fw_v <= v_wr_v;
    v_fw_addr <= v_wr_dst;
    v_fw_data <= v_res;
    v_fw_mask <= v_mask;
  end
  logic [ACC_W-1:0] g_dst, v_dst, v_src;
  always_comb begin
    g_dst = bank_q0[g_rsel];
    v_dst = bank_q0[v_rsel];
    v_src = bank_q1[v_ssel];
    for (int l = 0; l < N; l++) begin
      if (g_fw_v && g_fw_addr == g_wr_dst) g_dst[l*AW+:AW] = g_fw_data[l*AW+:AW];
      if (v_fw_v && v_fw_mask[l] && v_fw_addr == v_wr_dst) v_dst[l*AW+:AW] = v_fw_data[l*AW+:AW];
      if (v_fw_v && v_fw_mask[l] && v_fw_addr == v_q_src) v_src[l*AW+:AW] = v_fw_data[l*AW+:AW];
    end
  end

  // GEMM (pipe G) and ALU (pipe V), as in the serial module.
  logic [ACC_W-1:0] gemm_sum;
  vta_gemm_array #(.E(GE)) u_gemm (.clk, .inp_q, .wgt_q, .sum(gemm_sum));
  always_comb
    for (int l = 0; l < N; l++) g_res[l*AW+:AW] = g_reset ? AW'(0) : g_dst[l*AW+:AW] + gemm_sum[l*AW+:AW];
  vta_alu #(.N(N), .L(L), .LG(LG), .W(AW)) u_alu (
      .op(v_alu), .use_imm(v_imm), .imm(v_immv), .g(v_wr_g), .dst(v_dst), .src(v_src), .res(v_res),
      .mask(v_mask));

  // ---- the issue stage: scan (C1) and bank check (C2) ----
`define VTA_FIELD(NAME) \
  (is_gemm ? 32'(insn[vta_pkg::GEM_``NAME``_LSB+:vta_pkg::GEM_``NAME``_WIDTH]) \
           : 32'(insn[vta_pkg::ALU_``NAME``_LSB+:vta_pkg::ALU_``NAME``_WIDTH]))
  wire [31:0] f_bgn = `VTA_FIELD(UOP_BGN);
  wire [31:0] f_end = `VTA_FIELD(UOP_END);
  wire [31:0] f_out = `VTA_FIELD(ITER_OUT);
  wire [31:0] f_in = `VTA_FIELD(ITER_IN);
  // The last iteration's offsets (the factors are unsigned), from the loop
  // counts minus one in their fields' widths (a count of 0 has no banks:
  // f_empty), so that each product is a field-wide multiply.
  localparam int WO = vta_pkg::GEM_ITER_OUT_WIDTH > vta_pkg::ALU_ITER_OUT_WIDTH ? vta_pkg::GEM_ITER_OUT_WIDTH
                                                                                : vta_pkg::ALU_ITER_OUT_WIDTH;
  localparam int WI = vta_pkg::GEM_ITER_IN_WIDTH > vta_pkg::ALU_ITER_IN_WIDTH ? vta_pkg::GEM_ITER_IN_WIDTH
                                                                              : vta_pkg::ALU_ITER_IN_WIDTH;
  wire [WO-1:0] last_out = WO'(f_out - 1);
  wire [WI-1:0] last_in = WI'(f_in - 1);
  wire [31:0] d_off = 32'(last_out) * `VTA_FIELD(DST_FACTOR_OUT) + 32'(last_in) * `VTA_FIELD(DST_FACTOR_IN);
  wire [31:0] s_off = 32'(last_out) * 32'(insn[vta_pkg::ALU_SRC_FACTOR_OUT_LSB+:vta_pkg::ALU_SRC_FACTOR_OUT_WIDTH]) +
                      32'(last_in) * 32'(insn[vta_pkg::ALU_SRC_FACTOR_IN_LSB+:vta_pkg::ALU_SRC_FACTOR_IN_WIDTH]);
`undef VTA_FIELD
  wire f_empty = f_bgn >= f_end || f_out == 0 || f_in == 0;
  wire f_vector = is_alu && !insn[vta_pkg::ALU_USE_IMM_LSB];
  wire head_seq = head_valid && (is_gemm || is_alu);

  function automatic logic [LK-1:0] clamp_bank(input logic [31:0] a);
    clamp_bank = (a >> BA) >= 32'(KB - 1) ? LK'(KB - 1) : LK'(a >> BA);
  endfunction
  function automatic logic [KB-1:0] bank_range(input logic [LK-1:0] lo, input logic [LK-1:0] hi);
    for (int k = 0; k < KB; k++) bank_range[k] = LK'(k) >= lo && LK'(k) <= hi;
  endfunction

  logic sc_on, sc_rv;  // the head's scan has started; a scanned uop arrives this cycle
  logic [UA:0] sc_u;   // the next uop to read
  logic [LK-1:0] sc_dlo, sc_dhi, sc_slo, sc_shi;  // hulls so far, by bank index
  wire [31:0] q_dst = 32'(sc_q[vta_pkg::UOP_DST_LSB+:vta_pkg::UOP_DST_WIDTH]);
  wire [31:0] q_src = 32'(sc_q[vta_pkg::UOP_SRC_LSB+:vta_pkg::UOP_SRC_WIDTH]);
  // The offsets are registered in the scan's first cycle c, the head's
  // instruction being stable until it issues: the first uop arrives at c + 1,
  // so no cycle changes, and the multiplies leave the path from the queue's
  // head to the issue (20.75 ns against the core's 14.80 ns floor on the
  // 1x8x8 calibration base before; estimate/README.md, "Concurrent ALU").
  logic [31:0] d_off_q, s_off_q;
  wire [LK-1:0] q_dlo = clamp_bank(q_dst), q_dhi = clamp_bank(q_dst + d_off_q);
  wire [LK-1:0] q_slo = clamp_bank(q_src), q_shi = clamp_bank(q_src + s_off_q);
  wire [LK-1:0] c_dlo = sc_rv && q_dlo < sc_dlo ? q_dlo : sc_dlo;
  wire [LK-1:0] c_dhi = sc_rv && q_dhi > sc_dhi ? q_dhi : sc_dhi;
  wire [LK-1:0] c_slo = sc_rv && q_slo < sc_slo ? q_slo : sc_slo;
  wire [LK-1:0] c_shi = sc_rv && q_shi > sc_shi ? q_shi : sc_shi;
  wire sc_first = head_seq && !dma_busy && !sc_on && !f_empty;  // c: the first read
  wire sc_done = head_seq && !dma_busy && (f_empty || (sc_on && 32'(sc_u) == f_end));
  wire [KB-1:0] banks = f_empty ? '0 : bank_range(c_dlo, c_dhi) | (f_vector ? bank_range(c_slo, c_shi) : '0);
  assign sc_re = sc_first || (sc_on && 32'(sc_u) != f_end);
  assign sc_raddr = sc_first ? UA'(f_bgn) : UA'(sc_u);
  always_ff @(posedge clk) begin
    sc_rv <= sc_re && !clear;
    if (clear || start_seq) begin
      sc_on <= 1'b0;
    end else if (sc_first) begin
      sc_on <= 1'b1;
      d_off_q <= d_off;
      s_off_q <= s_off;
      sc_u <= (UA + 1)'(f_bgn) + 1'b1;
      sc_dlo <= LK'(KB - 1);
      sc_dhi <= '0;
      sc_slo <= LK'(KB - 1);
      sc_shi <= '0;
    end else begin
      if (sc_re) sc_u <= sc_u + 1'b1;
      sc_dlo <= c_dlo;
      sc_dhi <= c_dhi;
      sc_slo <= c_slo;
      sc_shi <= c_shi;
    end
  end

  // The bank set of each pipe's instruction in flight.
  logic [KB-1:0] g_banks, v_banks;
  always_ff @(posedge clk) begin
    if (start_seq && is_gemm) g_banks <= banks;
    if (start_seq && is_alu) v_banks <= banks;
  end
  always_comb begin
    if (is_gemm) ready = sc_done && !g_busy && (!v_busy || (banks & v_banks) == 0);
    else if (is_alu) ready = sc_done && !v_busy && (!g_busy || (banks & g_banks) == 0);
    else ready = !dma_busy && !g_busy && !v_busy;  // C3
  end
  assign busy = dma_busy || g_busy || v_busy || (head_seq && !dma_busy && !sc_done);

  logic unused;
  assign unused = ^{dbg_addr, v_uop_dbg, g_gemm, g_imm, g_alu, g_immv, g_rd_src, v_gemm, v_reset, v_iw_v,
                    v_iw_src, v_iw_wgt, g_wr_g, sc_q, q_dst[31:CA], q_src[31:CA], uop_wdata, g_iw_src, v_rd_src};
endmodule
