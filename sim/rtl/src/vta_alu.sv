// The tensor ALU: L = min(ALU_LANES, BATCH x BLOCK_OUT) lanes, time-multiplexed
// over the ceil(N / L) lane groups of an accumulator element
// (docs/timing.md, ALU rule): group g's operands are selected into the L
// lanes, computed, and written back to their lanes of the element (`mask`;
// the other lanes of `res` keep `dst`). Lanes are W = ACC_WIDTH bits: each
// op is the package's 32-bit expression (opcodes.def) on the operands
// sign-extended from W bits, its result's low W bits kept (docs/design.md,
// "Data types"); with W = 16 synthesis keeps only the logic those low bits
// need (a 16 x 16 multiply, 16-bit adders and comparators).
module vta_alu #(
    parameter int N = 16,  // accumulator lanes
    parameter int L = 16,  // ALU lanes (at most N)
    parameter int LG = 1,  // group index bits
    parameter int W = vta_pkg::ACC_WIDTH  // lane bits
) (
    input  logic [2:0]      op,
    input  logic            use_imm,
    input  logic [31:0]     imm,
    input  logic [LG-1:0]   g,
    input  logic [N*W-1:0]  dst,
    input  logic [N*W-1:0]  src,
    output logic [N*W-1:0]  res,
    output logic [N-1:0]    mask
);
  logic [31:0] la[L];
  logic [31:0] lb[L];
  logic [31:0] lr[L];
  always_comb begin
    for (int k = 0; k < L; k++) begin
      la[k] = '0;
      lb[k] = '0;
    end
    for (int l = 0; l < N; l++)
      if (32'(l) / L == 32'(g)) begin
        la[l%L] = 32'($signed(dst[l*W+:W]));
        lb[l%L] = use_imm ? imm : 32'($signed(src[l*W+:W]));
      end
    // The ops' semantics are the generated package's (opcodes.def).
    for (int k = 0; k < L; k++) lr[k] = vta_pkg::alu_apply(op, la[k], lb[k]);
    res = dst;
    mask = '0;
    for (int l = 0; l < N; l++)
      if (32'(l) / L == 32'(g)) begin
        res[l*W+:W] = lr[l%L][W-1:0];
        mask[l] = 1'b1;
      end
  end
endmodule
