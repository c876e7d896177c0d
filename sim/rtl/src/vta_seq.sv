// The loop sequencer of GEMM and ALU and its pipeline registers
// (docs/timing.md rules 7, 8). MODE 0 runs both, one after the other (the
// compute module without alu.concurrent); MODE 1 runs GEMMs only and MODE 2
// ALUs only (the two pipes G and V of alu.concurrent, docs/timing.md,
// "Concurrent ALU").
//
// Sequencer: the issue cycle s, then one step a cycle (GEMM: a uop
// iteration; ALU: a lane group of a uop iteration, every II cycles), then a
// drain; the instruction completes at s + P + U (GEMM) or s + A + U * groups
// * II (ALU): `retire` is high in its last cycle. Pipeline of depth D (P or
// A): stage 0 reads the uop, stage 1 forms the buffer addresses, stage D-2
// reads the ACC operands (rd_*), stage D-1 computes and writes ACC and OUT
// (wr_*). The GEMM reads INP and WGT earlier, at stage GR = P - 2 - GE
// (iw_*). In MODE 0 the two pipelines share their stage registers; a step's
// valid bit stops at its own write stage, so a GEMM deeper than the ALU + 1
// (or the reverse) never writes an earlier instruction's step.
module vta_seq #(
    parameter int MODE = 0,  // 0: GEMM and ALU, 1: GEMM only, 2: ALU only
    parameter int LG = 1,    // bits of an ALU lane-group index
    parameter int GE = 0     // registers inside the GEMM's MAC array (vta_compute)
) (
    input  logic        clk,
    input  logic        clear,
    input  logic        start,  // issue cycle of a GEMM or ALU this sequencer runs
    input  logic [127:0] insn,
    input  logic [4:0]  ii_imm,
    input  logic [4:0]  ii_vector,
    output logic        uop_re,
    output logic [vta_pkg::LOG_UOP_BUFF_DEPTH-1:0] uop_raddr,
    input  logic [31:0] uop_q,
    output logic        op_gemm,
    output logic        op_reset,
    output logic        op_imm,
    output logic [2:0]  op_alu,
    output logic [31:0] op_immv,
    output logic        iw_v,  // GEMM: INP and WGT read
    output logic [31:0] iw_src,
    output logic [vta_pkg::LOG_WGT_BUFF_DEPTH-1:0] iw_wgt,
    output logic        rd_v,  // ACC read stage
    output logic [vta_pkg::LOG_ACC_BUFF_DEPTH-1:0] rd_dst,
    output logic [31:0] rd_src,
    output logic        wr_v,  // ACC / OUT write stage
    output logic [vta_pkg::LOG_ACC_BUFF_DEPTH-1:0] wr_dst,
    output logic [LG-1:0] wr_g,
    output logic        busy,
    output logic        retire
);
  localparam int N = vta_pkg::BATCH * vta_pkg::BLOCK_OUT;  // ACC lanes
  localparam int L = vta_pkg::ALU_LANES < N ? vta_pkg::ALU_LANES : N;
  localparam int G = (N + L - 1) / L;  // ALU lane groups
  localparam int P = vta_pkg::GEMM_PIPELINE_DEPTH;
  localparam int A = vta_pkg::ALU_LATENCY;
  localparam int UA = vta_pkg::LOG_UOP_BUFF_DEPTH;
  localparam int CA = vta_pkg::LOG_ACC_BUFF_DEPTH;
  localparam int WA = vta_pkg::LOG_WGT_BUFF_DEPTH;
  localparam int GR = P - 2 - GE;  // INP and WGT are read at stage GR

  wire is_gemm = 32'(insn[vta_pkg::MEM_OPCODE_LSB+:3]) == vta_pkg::OPCODE_GEMM;

  typedef enum logic [1:0] {S_IDLE, S_STEP, S_DRAIN} seq_t;
  seq_t seq;
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
          if (start) begin
            op_gemm <= MODE == 0 ? is_gemm : MODE == 1;
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
  assign retire = seq == S_DRAIN && dc == 1;
  assign busy = seq != S_IDLE;
`undef VTA_FIELD

  // ---- pipeline: stage 0 = the step (uop read), stage 1 = address ----
  localparam int D = MODE == 1 ? P : MODE == 2 ? A : (P > A ? P : A);  // the deeper of the two
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
  generate
    if (MODE == 2) begin : g_no_gemm
      assign g_rd_v = 1'b0;
      assign g_rd_dst = '0;
      assign iw_v = 1'b0;
      assign iw_src = '0;
      assign iw_wgt = '0;
    end else begin : g_gemm
      if (P == 3) begin : g_gemm_rd1
        assign g_rd_v = v1;
        assign g_rd_dst = CA'(a_dst1);
      end else begin : g_gemm_rdn
        assign g_rd_v = pv[P-2];
        assign g_rd_dst = pdst[P-2];
      end
      if (GR == 1) begin : g_gemm_iw1
        assign iw_v = v1 && op_gemm;
        assign iw_src = a_src1;
        assign iw_wgt = WA'(a_wgt1);
      end else begin : g_gemm_iwn
        assign iw_v = pv[GR] && op_gemm;
        assign iw_src = psrc[GR];
        assign iw_wgt = pwgt[GR];
      end
    end
    if (MODE == 1) begin : g_no_alu
      assign a_rd_v = 1'b0;
      assign a_rd_dst = '0;
      assign a_rd_src = '0;
    end else if (A == 3) begin : g_alu_rd1
      assign a_rd_v = v1;
      assign a_rd_dst = CA'(a_dst1);
      assign a_rd_src = a_src1;
    end else begin : g_alu_rdn
      assign a_rd_v = pv[A-2];
      assign a_rd_dst = pdst[A-2];
      assign a_rd_src = psrc[A-2];
    end
    if (MODE == 1) begin : g_wr_gemm
      assign wr_v = pv[P-1];
      assign wr_dst = pdst[P-1];
      assign wr_g = '0;
    end else if (MODE == 2) begin : g_wr_alu
      assign wr_v = pv[A-1];
      assign wr_dst = pdst[A-1];
      assign wr_g = pg[A-1];
    end else begin : g_wr_both
      assign wr_v = op_gemm ? pv[P-1] : pv[A-1];
      assign wr_dst = op_gemm ? pdst[P-1] : pdst[A-1];
      assign wr_g = pg[A-1];
    end
  endgenerate
  assign rd_v = op_gemm ? g_rd_v : a_rd_v;
  assign rd_dst = op_gemm ? g_rd_dst : a_rd_dst;
  assign rd_src = a_rd_src;

  logic unused;
  assign unused = ^{a_dst1, a_wgt1, a_src1, uop_q, psrc[D-1], pwgt[D-1], pg[D-1], pdst[D-1]};
endmodule
