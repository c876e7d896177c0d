// The GEMM MAC array, pipelined: for each of the BATCH x BLOCK_OUT outputs,
// BLOCK_IN signed INP_WIDTH x WGT_WIDTH products summed by an adder tree of
// T = clog2(BLOCK_IN) levels. E registers (0 .. T + 1, chosen by vta_compute from
// gemm.pipeline_depth) cut the work into E + 1 stages: the first after the
// multiply (the DSP's M register), the others between adder-tree levels,
// spread evenly over the T levels and the accumulate that follows in the
// caller (cut after level t when floor(t E / (T+1)) != floor((t-1) E / (T+1))).
// `sum` is valid E cycles after inp_q/wgt_q. Nodes are SW bits: the exact
// width of any partial sum (INP_WIDTH + WGT_WIDTH + T + 1), or ACC_WIDTH
// when that is narrower (the accumulator keeps only its low ACC_WIDTH bits,
// and the low bits of a sum depend only on the low bits of its terms); the
// result is sign-extended to ACC_WIDTH, so it is the ACC_WIDTH wrap-around
// sum of any order (docs/design.md, "Data types").
module vta_gemm_array #(
    parameter int E = 0  // pipeline registers inside the array
) (
    input  logic clk,
    input  logic [vta_pkg::INP_ELEM_BYTES*8-1:0] inp_q,
    input  logic [vta_pkg::WGT_ELEM_BYTES*8-1:0] wgt_q,
    output logic [vta_pkg::BATCH*vta_pkg::BLOCK_OUT*vta_pkg::ACC_WIDTH-1:0] sum
);
  localparam int IW = vta_pkg::INP_WIDTH;
  localparam int WW = vta_pkg::WGT_WIDTH;
  localparam int AW = vta_pkg::ACC_WIDTH;
  localparam int BI = vta_pkg::BLOCK_IN;
  localparam int BO = vta_pkg::BLOCK_OUT;
  localparam int N = vta_pkg::BATCH * BO;
  localparam int T = BI > 1 ? $clog2(BI) : 0;  // adder-tree levels
  localparam int K = 1 << T;  // products per output, padded to a power of two
  localparam int XW = IW + WW + T + 1;  // exact width of any partial sum
  localparam int SW = XW < AW ? XW : AW;  // node width
  localparam int NODES = 2 * K;  // level t of output o at o * NODES + 2K - (2K >> t)

  // cut[t]: a register after level t (t = 0: after the multiply).
  function automatic logic cut(input logic [7:0] t);
    if (E == 0) cut = 1'b0;
    else if (t == 0) cut = 1'b1;
    else cut = (32'(t) * 32'(E)) / 32'(T + 1) != ((32'(t) - 1) * 32'(E)) / 32'(T + 1);
  endfunction

  logic [SW-1:0] c[N*NODES];  // each node as computed
  logic [SW-1:0] q[N*NODES];  // each node registered
  logic [SW-1:0] r[N*NODES];  // each node as the next level sees it
  // Level t reads the nodes of level t - 1, written earlier in this block
  // (Verilator checks the order per array, not per element).
  /* verilator lint_off ALWCOMBORDER */
  always_comb begin
    for (int o = 0; o < N; o++) begin
      for (int t = 0; t <= T; t++) begin
        for (int k = 0; k < (K >> t); k++) begin
          if (t == 0) begin
            if (k < BI)
              c[o*NODES+k] = SW'($signed(inp_q[((o / BO) * BI + k) * IW+:IW]) * $signed(wgt_q[((o % BO) * BI + k) * WW+:WW]));
            else c[o*NODES+k] = '0;
          end else
            c[o*NODES+2*K-((2*K)>>t)+k] = r[o*NODES+2*K-((4*K)>>t)+2*k] + r[o*NODES+2*K-((4*K)>>t)+2*k+1];
          r[o*NODES+2*K-((2*K)>>t)+k] = cut(8'(t)) ? q[o*NODES+2*K-((2*K)>>t)+k] : c[o*NODES+2*K-((2*K)>>t)+k];
        end
      end
      for (int k = 2 * K - 1; k < NODES; k++) begin
        c[o*NODES+k] = '0;
        r[o*NODES+k] = '0;
      end
      sum[o*AW+:AW] = AW'($signed(r[o*NODES+2*K-2]));
    end
  end
  /* verilator lint_on ALWCOMBORDER */
  // Every node has a register; those of levels without a cut are not read
  // and synthesis removes them.
  for (genvar i = 0; i < N * NODES; i++) begin : g_q
    always_ff @(posedge clk) q[i] <= c[i];
  end
endmodule
