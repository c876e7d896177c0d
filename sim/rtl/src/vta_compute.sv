// The compute module: LOAD UOP / ACC / ACC_8BIT through its DMA engines, and
// GEMM and ALU through one loop sequencer feeding two pipelines.
//
// Sequencer (docs/timing.md rules 7, 8): the issue cycle s, then one step a
// cycle (GEMM: a uop iteration; ALU: a lane group of a uop iteration, every
// II cycles), then a drain; the instruction completes at s + P + U (GEMM) or
// s + A + U * groups * II (ALU). Pipeline of depth D (P or A): stage 0 reads
// the uop, stage 1 forms the buffer addresses, stage D-2 reads the ACC
// operands, stage D-1 computes and writes ACC and OUT. The GEMM reads INP and
// WGT earlier, at stage GR = P - 2 - GE, and its MAC array (vta_gemm_array)
// spreads the multiply and adder tree over stages GR+1 .. P-1 with GE
// registers; the accumulate is in stage P-1. The ALU (vta_alu) computes one
// group of L lanes in stage A-1. A read in the cycle of a write to the same
// ACC element takes the written value (one-deep forwarding); no other hazard
// exists because one step is written before the next one reads ACC (INP and
// WGT are not written by this module). The two pipelines share their stage
// registers; a step's valid bit stops at its own write stage, so a GEMM
// deeper than the ALU + 1 (or the reverse) never writes an earlier
// instruction's step.
module vta_compute #(
    parameter int B = 8
) (
    input  logic          clk,
    input  logic          clear,
    input  logic          start,  // issue cycle of a LOAD/GEMM/ALU that is not a one-cycle instruction
    input  logic [127:0]  insn,
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
    // OUT write port (the store module reads it)
    output logic          out_we,
    output logic [vta_pkg::LOG_ACC_BUFF_DEPTH-1:0] out_waddr,
    output logic [vta_pkg::OUT_ELEM_BYTES*8-1:0] out_wdata,
    output logic [vta_pkg::OUT_ELEM_BYTES-1:0] out_wmask,
    // debug reads of UOP and ACC
    input  logic          dbg_re_uop,
    input  logic          dbg_re_acc,
    input  logic [31:0]   dbg_addr,
    output logic [31:0]   dbg_uop,
    output logic [vta_pkg::ACC_ELEM_BYTES*8-1:0] dbg_acc,
    output logic          busy,
    output logic          retire
);
  localparam int N = vta_pkg::BATCH * vta_pkg::BLOCK_OUT;  // ACC lanes
  localparam int BI = vta_pkg::BLOCK_IN;
  localparam int L = vta_pkg::ALU_LANES < N ? vta_pkg::ALU_LANES : N;
  localparam int G = (N + L - 1) / L;  // ALU lane groups
  localparam int LG = G > 1 ? $clog2(G) : 1;
  localparam int P = vta_pkg::GEMM_PIPELINE_DEPTH;
  localparam int A = vta_pkg::ALU_LATENCY;
  localparam int UA = vta_pkg::LOG_UOP_BUFF_DEPTH;
  localparam int CA = vta_pkg::LOG_ACC_BUFF_DEPTH;
  localparam int WA = vta_pkg::LOG_WGT_BUFF_DEPTH;
  localparam int IA = vta_pkg::LOG_INP_BUFF_DEPTH;
  localparam int ACC_W = N * 32;
  localparam int E8 = N;  // ACC_8BIT bytes per element
  localparam int KU = B > 4 ? B / 4 : 1;
  // GEMM stage assignment (vta_gemm_array): GE registers inside the MAC array,
  // one per stage that P leaves after the uop read, the address, the INP/WGT
  // read and the last stage (P - 4), at most one per multiply / adder-tree
  // level (clog2(BI) + 1); INP and WGT are read at stage GR = P - 2 - GE.
  localparam int GT = BI > 1 ? $clog2(BI) : 0;
  localparam int GE = P - 4 <= 0 ? 0 : (P - 4 < GT + 1 ? P - 4 : GT + 1);
  localparam int GR = P - 2 - GE;

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

  // ---- UOP buffer ----
  logic uop_re;
  logic [UA-1:0] uop_raddr;
  logic [31:0] uop_q;
  vta_lane_ram #(.W(32), .DEPTH(vta_pkg::UOP_BUFF_DEPTH), .K(KU)) u_uop (
      .clk, .wr_en(uop_wen), .wr_addr(uop_waddr), .wr_data(uop_wdata), .re(uop_re), .raddr(uop_raddr),
      .rdata(uop_q), .dbg_re(dbg_re_uop), .dbg_addr(UA'(dbg_addr)), .dbg_data(dbg_uop));

  // ---- ACC buffer: port 0 = destination, port 1 = ALU source ----
  logic acc_we;
  logic [CA-1:0] acc_waddr;
  logic [ACC_W-1:0] acc_wdata;
  logic [N-1:0] acc_wmask;
  logic acc_re0, acc_re1;
  logic [CA-1:0] acc_raddr0, acc_raddr1;
  logic [ACC_W-1:0] acc_q0, acc_q1;
  vta_ram #(.W(ACC_W), .DEPTH(vta_pkg::ACC_BUFF_DEPTH), .G(32), .NR(2)) u_acc (
      .clk, .we(acc_we), .waddr(acc_waddr), .wdata(acc_wdata), .wmask(acc_wmask),
      .re0(acc_re0), .raddr0(acc_raddr0), .rdata0(acc_q0), .re1(acc_re1), .raddr1(acc_raddr1), .rdata1(acc_q1),
      .dbg_re(dbg_re_acc), .dbg_addr(CA'(dbg_addr)), .dbg_data(dbg_acc));

  // ---- the loop sequencer ----
  typedef enum logic [1:0] {S_IDLE, S_STEP, S_DRAIN} seq_t;
  seq_t seq;
  logic op_gemm, op_reset, op_imm;
  logic [2:0] op_alu;
  logic [31:0] op_immv;
  logic [31:0] u_bgn, u_end, n_out, n_in, dfo, dfi, sfo, sfi, wfo, wfi;
  logic [31:0] u, j, i;
  logic [LG-1:0] g;
  logic [31:0] od_out, od, os_out, os, ow_out, ow;  // offsets of the current step
  logic [4:0] pace, ii;
  logic [6:0] dc;

  // Each field in its own instruction's format: GEMM and ALU name the same
  // fields, but src_factor_* is LOG_INP bits wide in GEMM and LOG_ACC bits
  // in ALU, which moves every field after it where the two depths differ.
`define VTA_FIELD(NAME) \
  (is_gemm ? 32'(insn[vta_pkg::GEM_``NAME``_LSB+:vta_pkg::GEM_``NAME``_WIDTH]) \
           : 32'(insn[vta_pkg::ALU_``NAME``_LSB+:vta_pkg::ALU_``NAME``_WIDTH]))
  wire [31:0] f_bgn = `VTA_FIELD(UOP_BGN);
  wire [31:0] f_end = `VTA_FIELD(UOP_END);
  wire [31:0] f_out = `VTA_FIELD(ITER_OUT);
  wire [31:0] f_in = `VTA_FIELD(ITER_IN);
  wire f_empty = f_bgn >= f_end || f_out == 0 || f_in == 0;
  wire [6:0] depth_in = is_gemm ? 7'(P) : 7'(A);
  wire f_imm = insn[vta_pkg::ALU_USE_IMM_LSB];
  wire [4:0] ii_in = is_gemm ? 5'd1 : (f_imm ? ii_imm : ii_vector);

  wire step = seq == S_STEP && pace == 0;
  wire last_g = op_gemm || 32'(g) == G - 1;
  wire last_u = u == u_end - 1;
  wire last_j = j == n_in - 1;
  wire last_i = i == n_out - 1;
  wire last_step = last_g && last_u && last_j && last_i;

  assign uop_re = step;
  assign uop_raddr = UA'(u);

  always_ff @(posedge clk) begin
    if (clear) begin
      seq <= S_IDLE;
    end else begin
      case (seq)
        S_IDLE:
          if (start_seq) begin
            op_gemm <= is_gemm;
            op_reset <= `VTA_FIELD(RESET) != 0;
            op_imm <= f_imm;
            op_alu <= insn[vta_pkg::ALU_ALU_OPCODE_LSB+:3];
            op_immv <= 32'($signed(16'(insn[vta_pkg::ALU_IMM_LSB+:vta_pkg::ALU_IMM_WIDTH])));
            u_bgn <= f_bgn;
            u_end <= f_end;
            n_out <= f_out;
            n_in <= f_in;
            dfo <= `VTA_FIELD(DST_FACTOR_OUT);
            dfi <= `VTA_FIELD(DST_FACTOR_IN);
            sfo <= `VTA_FIELD(SRC_FACTOR_OUT);
            sfi <= `VTA_FIELD(SRC_FACTOR_IN);
            wfo <= is_gemm ? 32'(insn[vta_pkg::GEM_WGT_FACTOR_OUT_LSB+:vta_pkg::GEM_WGT_FACTOR_OUT_WIDTH]) : 32'd0;
            wfi <= is_gemm ? 32'(insn[vta_pkg::GEM_WGT_FACTOR_IN_LSB+:vta_pkg::GEM_WGT_FACTOR_IN_WIDTH]) : 32'd0;
            u <= f_bgn;
            j <= '0;
            i <= '0;
            g <= '0;
            od_out <= '0;
            od <= '0;
            os_out <= '0;
            os <= '0;
            ow_out <= '0;
            ow <= '0;
            pace <= '0;
            ii <= ii_in;
            if (f_empty) begin
              seq <= S_DRAIN;
              dc <= depth_in - 7'd1;
            end else begin
              seq <= S_STEP;
              dc <= depth_in + 7'(ii_in) - 7'd2;
            end
          end
        S_STEP:
          if (pace != 0) pace <= pace - 1'b1;
          else begin
            pace <= ii - 1'b1;
            if (last_step) seq <= S_DRAIN;
            if (!last_g) g <= g + 1'b1;
            else begin
              g <= '0;
              if (!last_u) u <= u + 1;
              else begin
                u <= u_bgn;
                if (!last_j) begin
                  j <= j + 1;
                  od <= od + dfi;
                  os <= os + sfi;
                  ow <= ow + wfi;
                end else begin
                  j <= '0;
                  i <= i + 1;
                  od_out <= od_out + dfo;
                  os_out <= os_out + sfo;
                  ow_out <= ow_out + wfo;
                  od <= od_out + dfo;
                  os <= os_out + sfo;
                  ow <= ow_out + wfo;
                end
              end
            end
          end
        S_DRAIN: if (dc == 1) seq <= S_IDLE; else dc <= dc - 1'b1;
        default: ;
      endcase
    end
  end
  wire seq_retire = seq == S_DRAIN && dc == 1;

  // ---- pipeline: stage 0 = the step (uop read), stage 1 = address ----
  localparam int D = P > A ? P : A;  // registers cover the deeper of the two
  logic v1;
  logic [31:0] od1, os1, ow1;
  logic [LG-1:0] g1;
  always_ff @(posedge clk) begin
    v1 <= step && !clear;
    od1 <= od;
    os1 <= os;
    ow1 <= ow;
    g1 <= g;
  end
  wire [31:0] a_dst1 = 32'(uop_q[vta_pkg::UOP_DST_LSB+:vta_pkg::UOP_DST_WIDTH]) + od1;
  wire [31:0] a_src1 = 32'(uop_q[vta_pkg::UOP_SRC_LSB+:vta_pkg::UOP_SRC_WIDTH]) + os1;
  wire [31:0] a_wgt1 = 32'(uop_q[vta_pkg::UOP_WGT_LSB+:vta_pkg::UOP_WGT_WIDTH]) + ow1;

  // Stages 2..D-1 as shift registers (index = stage); stage 1 is a_*1.
  logic pv[2:D-1];
  logic [CA-1:0] pdst[2:D-1];
  logic [31:0] psrc[2:D-1];
  logic [WA-1:0] pwgt[2:D-1];
  logic [LG-1:0] pg[2:D-1];
  always_ff @(posedge clk) begin
    pv[2] <= v1 && !clear;
    pdst[2] <= CA'(a_dst1);
    psrc[2] <= a_src1;
    pwgt[2] <= WA'(a_wgt1);
    pg[2] <= g1;
    // A valid bit goes no further than its own pipeline's write stage: the
    // stages past A - 1 (or P - 1) belong to the other pipeline, whose write
    // stage would otherwise see the last steps of an ALU (GEMM) instruction
    // as its own after the next instruction starts.
    for (int s = 3; s < D; s++) begin
      pv[s] <= pv[s-1] && !clear && s < (op_gemm ? P : A);
      pdst[s] <= pdst[s-1];
      psrc[s] <= psrc[s-1];
      pwgt[s] <= pwgt[s-1];
      pg[s] <= pg[s-1];
    end
  end

  // The read stage (D-2) and the write stage (D-1) of each pipeline.
  logic g_rd_v, a_rd_v;
  logic [CA-1:0] g_rd_dst, a_rd_dst;
  logic [31:0] a_rd_src;
  logic g_iw_v;
  logic [31:0] g_iw_src;
  logic [WA-1:0] g_iw_wgt;
  generate
    if (P == 3) begin : g_gemm_rd1
      assign g_rd_v = v1;
      assign g_rd_dst = CA'(a_dst1);
    end else begin : g_gemm_rdn
      assign g_rd_v = pv[P-2];
      assign g_rd_dst = pdst[P-2];
    end
    if (GR == 1) begin : g_gemm_iw1
      assign g_iw_v = v1;
      assign g_iw_src = a_src1;
      assign g_iw_wgt = WA'(a_wgt1);
    end else begin : g_gemm_iwn
      assign g_iw_v = pv[GR];
      assign g_iw_src = psrc[GR];
      assign g_iw_wgt = pwgt[GR];
    end
    if (A == 3) begin : g_alu_rd1
      assign a_rd_v = v1;
      assign a_rd_dst = CA'(a_dst1);
      assign a_rd_src = a_src1;
    end else begin : g_alu_rdn
      assign a_rd_v = pv[A-2];
      assign a_rd_dst = pdst[A-2];
      assign a_rd_src = psrc[A-2];
    end
  endgenerate
  wire rd_v = op_gemm ? g_rd_v : a_rd_v;
  wire [CA-1:0] rd_dst = op_gemm ? g_rd_dst : a_rd_dst;
  wire [31:0] rd_src = a_rd_src;
  wire wr_v = op_gemm ? pv[P-1] : pv[A-1];
  wire [CA-1:0] wr_dst = op_gemm ? pdst[P-1] : pdst[A-1];
  wire [LG-1:0] wr_g = pg[A-1];

  assign inp_re = g_iw_v && op_gemm;
  assign inp_addr = IA'(g_iw_src);
  assign wgt_re = g_iw_v && op_gemm;
  assign wgt_addr = g_iw_wgt;
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
      if (fw_v && fw_mask[l] && fw_addr == wr_dst) dst_val[l*32+:32] = fw_data[l*32+:32];
      if (fw_v && fw_mask[l] && fw_addr == q_src_addr) src_val[l*32+:32] = fw_data[l*32+:32];
    end
  end

  // GEMM: acc[b][o] += sum_k inp[b][k] * wgt[o][k] (int8 x int8, int32
  // wrap-around): the products and adder tree over stages GR + 1 .. P - 1
  // (vta_gemm_array), the accumulate in stage P - 1.
  logic [ACC_W-1:0] gemm_sum, gemm_res;
  vta_gemm_array #(.E(GE)) u_gemm (.clk, .inp_q, .wgt_q, .sum(gemm_sum));
  always_comb
    for (int l = 0; l < N; l++)
      gemm_res[l*32+:32] = op_reset ? 32'd0 : dst_val[l*32+:32] + gemm_sum[l*32+:32];

  // ALU: L lanes, the operands of group wr_g.
  logic [ACC_W-1:0] alu_res;
  logic [N-1:0] alu_mask;
  vta_alu #(.N(N), .L(L), .LG(LG)) u_alu (
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
      for (int l = 0; l < N; l++) acc_wdata[l*32+:32] = 32'($signed(acc8_dma_data[l*8+:8]));
      acc_wmask = {N{1'b1}};
    end else if (wr_v) begin
      acc_we = 1'b1;
    end
  end
  always_comb begin
    out_we = wr_v && !acc_dma_we && !acc8_dma_we;
    out_waddr = wr_dst;
    out_wmask = acc_wmask;
    for (int l = 0; l < N; l++) out_wdata[l*8+:8] = acc_wdata[l*32+:8];
  end

  logic unused;
  assign unused = ^{dbg_addr, a_dst1, a_wgt1, rd_src, g_iw_src, uop_q};
  assign busy = (|e_busy) || seq != S_IDLE;
  assign retire = (|e_retire) || seq_retire;
`undef VTA_FIELD
endmodule
