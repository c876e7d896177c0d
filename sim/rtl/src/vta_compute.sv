// The compute module: LOAD UOP / ACC / ACC_8BIT through its DMA engines, and
// GEMM and ALU through the loop sequencer (vta_seq) feeding two pipelines:
// the GEMM's MAC array (vta_gemm_array) and the ALU (vta_alu).
//
// The ACC operands are read at a pipeline's stage D-2 and written at D-1
// (vta_seq). A read in the cycle of a write to the same ACC element takes the
// written value (one-deep forwarding); no other hazard exists because one
// step is written before the next one reads ACC (INP and WGT are not written
// by this module).
//
// Without alu.concurrent (vta_pkg::ALU_CONCURRENT = 0) one sequencer runs
// GEMM and ALU one after the other, on one ACC buffer. With it
// (docs/timing.md, "Concurrent ALU"): a GEMM sequencer (pipe G) and an ALU
// sequencer (pipe V), each with its UOP copy; ACC and OUT as ACC_BANKS banks
// (bank k: indices [k*H, (k+1)*H)), each bank's ports taken by the pipe whose
// step addresses it (never both: C2); at the issue stage the scan (C1) of the
// head instruction's uops, one a cycle through the G copy's write port,
// into its bank set, and the check (C2) of its own pipe and of the other
// pipe's bank set. `ready` says the head may issue (rule 4's token check is
// the core's); each pipe's completion is on `pipe_done`, and the core makes
// the pushes in program order (C4).
module vta_compute #(
    parameter int B = 8,
    parameter int KB = vta_pkg::ACC_BANKS,  // ACC / OUT banks (1 without alu.concurrent)
    parameter int BA = vta_pkg::LOG_ACC_BUFF_DEPTH - $clog2(KB)  // index bits within a bank
) (
    input  logic          clk,
    input  logic          clear,
    input  logic          start,  // issue cycle of a LOAD/GEMM/ALU that is not a one-cycle instruction
    input  logic [127:0]  insn,
    input  logic          head_valid,  // insn is the head of the command queue
    input  logic [12:0]   max_burst,
    input  logic [4:0]    ii_imm,
    input  logic [4:0]    ii_vector,
    // read client
    output logic          req_valid,
    output logic [63:0]   req_addr,
    output logic [12:0]   req_beats,
    input  logic          grant,
    input  logic          beat_valid,
    input  logic [B*8-1:0] beat_data,
    // INP and WGT read ports
    output logic          inp_re,
    output logic [vta_pkg::LOG_INP_BUFF_DEPTH-1:0] inp_addr,
    input  logic [vta_pkg::INP_ELEM_BYTES*8-1:0] inp_q,
    output logic          wgt_re,
    output logic [vta_pkg::LOG_WGT_BUFF_DEPTH-1:0] wgt_addr,
    input  logic [vta_pkg::WGT_ELEM_BYTES*8-1:0] wgt_q,
    // OUT write port of each bank (the store module reads them), bank b's
    // fields at [b*width +: width]
    output logic [KB-1:0] out_we,
    output logic [KB*BA-1:0] out_waddr,
    output logic [KB*vta_pkg::OUT_ELEM_BYTES*8-1:0] out_wdata,
    output logic [KB*vta_pkg::BATCH*vta_pkg::BLOCK_OUT-1:0] out_wmask,  // a bit per lane
    // debug reads of UOP and ACC
    input  logic          dbg_re_uop,
    input  logic          dbg_re_acc,
    input  logic [31:0]   dbg_addr,
    output logic [31:0]   dbg_uop,
    output logic [vta_pkg::ACC_ELEM_BYTES*8-1:0] dbg_acc,
    output logic          busy,
    output logic          ready,      // the head may issue as far as this module is concerned
    output logic          retire,     // a DMA instruction, or (serial) a GEMM / ALU, completes
    output logic [1:0]    pipe_done   // alu.concurrent: {V, G} completes this cycle
);
  localparam int N = vta_pkg::BATCH * vta_pkg::BLOCK_OUT;  // ACC lanes
  localparam int BI = vta_pkg::BLOCK_IN;
  localparam int L = vta_pkg::ALU_LANES < N ? vta_pkg::ALU_LANES : N;
  localparam int G = (N + L - 1) / L;  // ALU lane groups
  localparam int LG = G > 1 ? $clog2(G) : 1;
  localparam int P = vta_pkg::GEMM_PIPELINE_DEPTH;
  localparam int UA = vta_pkg::LOG_UOP_BUFF_DEPTH;
  localparam int CA = vta_pkg::LOG_ACC_BUFF_DEPTH;
  localparam int WA = vta_pkg::LOG_WGT_BUFF_DEPTH;
  localparam int IA = vta_pkg::LOG_INP_BUFF_DEPTH;
  localparam int AW = vta_pkg::ACC_WIDTH;  // bits per accumulator lane
  localparam int OW = vta_pkg::OUT_WIDTH;  // bits per output lane
  localparam int ACC_W = N * AW;
  localparam int E8 = vta_pkg::OUT_ELEM_BYTES;  // ACC_8BIT bytes per element (OUT-width values)
  localparam int KU = B > 4 ? B / 4 : 1;
  // GEMM stage assignment (vta_gemm_array): GE registers inside the MAC array,
  // one per stage that P leaves after the uop read, the address, the INP/WGT
  // read and the last stage (P - 4), at most one per multiply / adder-tree
  // level (clog2(BI) + 1); vta_seq reads INP and WGT at stage P - 2 - GE.
  localparam int GT = BI > 1 ? $clog2(BI) : 0;
  localparam int GE = P - 4 <= 0 ? 0 : (P - 4 < GT + 1 ? P - 4 : GT + 1);

  // ---- instruction decode (fields from the generated package) ----
  wire [2:0] opcode = insn[vta_pkg::MEM_OPCODE_LSB+:3];
  wire [2:0] mem_type = insn[vta_pkg::MEM_MEMORY_TYPE_LSB+:3];
  wire is_load = 32'(opcode) == vta_pkg::OPCODE_LOAD;
  wire is_gemm = 32'(opcode) == vta_pkg::OPCODE_GEMM;
  wire is_alu = 32'(opcode) == vta_pkg::OPCODE_ALU;
  wire start_uop = start && is_load && 32'(mem_type) == vta_pkg::MEM_ID_UOP;
  wire start_acc = start && is_load && 32'(mem_type) == vta_pkg::MEM_ID_ACC;
  wire start_acc8 = start && is_load && 32'(mem_type) == vta_pkg::MEM_ID_ACC_8BIT;
  wire start_seq = start && (is_gemm || is_alu);

  // ---- DMA engines ----
  logic [2:0] e_req, e_busy, e_retire;
  logic [63:0] e_addr0, e_addr1, e_addr2;
  logic [12:0] e_beats0, e_beats1, e_beats2;
  logic [1:0] active_dma;  // which engine owns the read client
  always_ff @(posedge clk)
    if (start_uop) active_dma <= 2'd0;
    else if (start_acc) active_dma <= 2'd1;
    else if (start_acc8) active_dma <= 2'd2;
  assign req_valid = e_req[active_dma];
  assign req_addr = active_dma == 2'd0 ? e_addr0 : active_dma == 2'd1 ? e_addr1 : e_addr2;
  assign req_beats = active_dma == 2'd0 ? e_beats0 : active_dma == 2'd1 ? e_beats1 : e_beats2;

  logic [KU-1:0] uop_wen;
  logic [UA-1:0] uop_waddr;
  logic [KU*32-1:0] uop_wdata;
  logic acc_dma_we, acc8_dma_we;
  logic [CA-1:0] acc_dma_addr, acc8_dma_addr;
  logic [ACC_W-1:0] acc_dma_data;
  logic [E8*8-1:0] acc8_dma_data;

`define VTA_DMA_PORTS(IDX, START) \
      .clk, .clear, .start(START), \
      .sram_base(insn[vta_pkg::MEM_SRAM_BASE_LSB+:16]), .dram_base(insn[vta_pkg::MEM_DRAM_BASE_LSB+:32]), \
      .y_size(insn[vta_pkg::MEM_Y_SIZE_LSB+:16]), .x_size(insn[vta_pkg::MEM_X_SIZE_LSB+:16]), \
      .x_stride(insn[vta_pkg::MEM_X_STRIDE_LSB+:16]), \
      .y_pad0(insn[vta_pkg::MEM_Y_PAD_0_LSB+:4]), .y_pad1(insn[vta_pkg::MEM_Y_PAD_1_LSB+:4]), \
      .x_pad0(insn[vta_pkg::MEM_X_PAD_0_LSB+:4]), .x_pad1(insn[vta_pkg::MEM_X_PAD_1_LSB+:4]), \
      .max_burst, .req_valid(e_req[IDX]), .req_addr(e_addr``IDX), .req_beats(e_beats``IDX), \
      .grant(grant && active_dma == 2'd``IDX), .beat_valid(beat_valid && active_dma == 2'd``IDX), .beat_data, \
      .busy(e_busy[IDX]), .retire(e_retire[IDX])

  vta_dma_load #(.E(4), .B(B), .AW(UA)) u_dma_uop (
      `VTA_DMA_PORTS(0, start_uop), .wr_en(uop_wen), .wr_addr(uop_waddr), .wr_data(uop_wdata));
  vta_dma_load #(.E(ACC_W / 8), .B(B), .AW(CA)) u_dma_acc (
      `VTA_DMA_PORTS(1, start_acc), .wr_en(acc_dma_we), .wr_addr(acc_dma_addr), .wr_data(acc_dma_data));
  vta_dma_load #(.E(E8), .B(B), .AW(CA)) u_dma_acc8 (
      `VTA_DMA_PORTS(2, start_acc8), .wr_en(acc8_dma_we), .wr_addr(acc8_dma_addr), .wr_data(acc8_dma_data));
`undef VTA_DMA_PORTS

  // ACC_8BIT's element as ACC lanes (OUT-width values sign-extended).
  logic [ACC_W-1:0] acc8_wide;
  always_comb for (int l = 0; l < N; l++) acc8_wide[l*AW+:AW] = AW'($signed(acc8_dma_data[l*OW+:OW]));
  wire dma_busy = |e_busy;

  generate
    if (vta_pkg::ALU_CONCURRENT == 0) begin : g_serial
      // ---- UOP buffer ----
      logic uop_re;
      logic [UA-1:0] uop_raddr;
      logic [31:0] uop_q;
      vta_lane_ram #(.W(32), .DEPTH(vta_pkg::UOP_BUFF_DEPTH), .K(KU)) u_uop (
          .clk, .wr_en(uop_wen), .wr_addr(uop_waddr), .wr_data(uop_wdata), .re(uop_re), .raddr(uop_raddr),
          .rdata(uop_q), .re1(1'b0), .raddr1('0), .rdata1(), .dbg_re(dbg_re_uop), .dbg_addr(UA'(dbg_addr)),
          .dbg_data(dbg_uop));

      // ---- ACC buffer: port 0 = destination, port 1 = ALU source ----
      logic acc_we;
      logic [CA-1:0] acc_waddr;
      logic [ACC_W-1:0] acc_wdata;
      logic [N-1:0] acc_wmask;
      logic acc_re0, acc_re1;
      logic [CA-1:0] acc_raddr0, acc_raddr1;
      logic [ACC_W-1:0] acc_q0, acc_q1;
      vta_ram #(.W(ACC_W), .DEPTH(vta_pkg::ACC_BUFF_DEPTH), .G(AW), .NR(2)) u_acc (
          .clk, .we(acc_we), .waddr(acc_waddr), .wdata(acc_wdata), .wmask(acc_wmask),
          .re0(acc_re0), .raddr0(acc_raddr0), .rdata0(acc_q0), .re1(acc_re1), .raddr1(acc_raddr1), .rdata1(acc_q1),
          .dbg_re(dbg_re_acc), .dbg_addr(CA'(dbg_addr)), .dbg_data(dbg_acc));

      // ---- the loop sequencer and its pipeline registers ----
      logic op_gemm, op_reset, op_imm, iw_v, rd_v, wr_v, seq_busy, seq_retire;
      logic [2:0] op_alu;
      logic [31:0] op_immv, iw_src, rd_src;
      logic [WA-1:0] iw_wgt;
      logic [CA-1:0] rd_dst, wr_dst;
      logic [LG-1:0] wr_g;
      vta_seq #(.MODE(0), .LG(LG), .GE(GE)) u_seq (
          .clk, .clear, .start(start_seq), .insn, .ii_imm, .ii_vector, .uop_re, .uop_raddr, .uop_q, .op_gemm,
          .op_reset, .op_imm, .op_alu, .op_immv, .iw_v, .iw_src, .iw_wgt, .rd_v, .rd_dst, .rd_src, .wr_v, .wr_dst,
          .wr_g, .busy(seq_busy), .retire(seq_retire));

      assign inp_re = iw_v;
      assign inp_addr = IA'(iw_src);
      assign wgt_re = iw_v;
      assign wgt_addr = iw_wgt;
      assign acc_re0 = rd_v;
      assign acc_raddr0 = rd_dst;
      assign acc_re1 = rd_v && !op_gemm && !op_imm;
      assign acc_raddr1 = CA'(rd_src);

      // One-deep forwarding of the last ACC write.
      logic fw_v;
      logic [CA-1:0] fw_addr;
      logic [ACC_W-1:0] fw_data;
      logic [N-1:0] fw_mask;
      always_ff @(posedge clk) begin
        fw_v <= acc_we;
        fw_addr <= acc_waddr;
        fw_data <= acc_wdata;
        fw_mask <= acc_wmask;
      end
      logic [CA-1:0] q_src_addr;
      always_ff @(posedge clk) if (acc_re1) q_src_addr <= acc_raddr1;
      logic [ACC_W-1:0] dst_val, src_val;
      always_comb begin
        dst_val = acc_q0;
        src_val = acc_q1;
        for (int l = 0; l < N; l++) begin
          if (fw_v && fw_mask[l] && fw_addr == wr_dst) dst_val[l*AW+:AW] = fw_data[l*AW+:AW];
          if (fw_v && fw_mask[l] && fw_addr == q_src_addr) src_val[l*AW+:AW] = fw_data[l*AW+:AW];
        end
      end

      // GEMM: acc[b][o] += sum_k inp[b][k] * wgt[o][k] (signed INP_WIDTH x
      // WGT_WIDTH products, ACC_WIDTH wrap-around): the products and adder
      // tree over the stages after the INP / WGT read (vta_gemm_array), the
      // accumulate in stage P - 1.
      logic [ACC_W-1:0] gemm_sum, gemm_res;
      vta_gemm_array #(.E(GE)) u_gemm (.clk, .inp_q, .wgt_q, .sum(gemm_sum));
      always_comb
        for (int l = 0; l < N; l++)
          gemm_res[l*AW+:AW] = op_reset ? AW'(0) : dst_val[l*AW+:AW] + gemm_sum[l*AW+:AW];

      // ALU: L lanes, the operands of group wr_g.
      logic [ACC_W-1:0] alu_res;
      logic [N-1:0] alu_mask;
      vta_alu #(.N(N), .L(L), .LG(LG), .W(AW)) u_alu (
          .op(op_alu), .use_imm(op_imm), .imm(op_immv), .g(wr_g), .dst(dst_val), .src(src_val),
          .res(alu_res), .mask(alu_mask));

      // ACC and OUT writes: a DMA engine, or the pipeline's write stage.
      always_comb begin
        acc_we = 1'b0;
        acc_waddr = wr_dst;
        acc_wdata = op_gemm ? gemm_res : alu_res;
        acc_wmask = op_gemm ? {N{1'b1}} : alu_mask;
        if (acc_dma_we) begin
          acc_we = 1'b1;
          acc_waddr = acc_dma_addr;
          acc_wdata = acc_dma_data;
          acc_wmask = {N{1'b1}};
        end else if (acc8_dma_we) begin
          acc_we = 1'b1;
          acc_waddr = acc8_dma_addr;
          acc_wdata = acc8_wide;
          acc_wmask = {N{1'b1}};
        end else if (wr_v) begin
          acc_we = 1'b1;
        end
      end
      // OUT: the low OUT_WIDTH bits of each lane written by the pipeline.
      always_comb begin
        out_we = wr_v && !acc_dma_we && !acc8_dma_we;
        out_waddr = wr_dst;
        out_wmask = acc_wmask;
        for (int l = 0; l < N; l++) out_wdata[l*OW+:OW] = acc_wdata[l*AW+:OW];
      end

      assign busy = dma_busy || seq_busy;
      assign ready = !busy;
      assign retire = (|e_retire) || seq_retire;
      assign pipe_done = 2'b00;
      logic unused;
      assign unused = ^{dbg_addr, rd_src, iw_src, head_valid};
    end else begin : g_concurrent
      vta_concurrent #(.B(B), .KB(KB), .BA(BA), .GE(GE)) u_banks (
          .clk, .clear, .start_seq, .is_gemm, .is_alu, .insn, .head_valid, .dma_busy, .ii_imm, .ii_vector,
          .uop_wen, .uop_waddr, .uop_wdata, .acc_dma_we, .acc_dma_addr, .acc_dma_data, .acc8_dma_we,
          .acc8_dma_addr, .acc8_wide, .inp_re, .inp_addr, .inp_q, .wgt_re, .wgt_addr, .wgt_q, .out_we, .out_waddr,
          .out_wdata, .out_wmask, .dbg_re_uop, .dbg_re_acc, .dbg_addr, .dbg_uop, .dbg_acc, .busy, .ready,
          .pipe_done);
      assign retire = |e_retire;
    end
  endgenerate
endmodule
