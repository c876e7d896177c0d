// A 16-term signed dot product with a registered accumulate: what yosys maps
// one output of the MAC array to at each element width (estimate/README.md,
// "Element widths"): yosys -p "read_verilog -sv dot.sv; chparam -set A 4
// -set B 4 -set ACC 16 dot; synth_xilinx -top dot -flatten; stat".
module dot #(parameter A = 8, parameter B = 8, parameter ACC = 32, parameter K = 16) (
  input  wire clk,
  input  wire [A*K-1:0] x,
  input  wire [B*K-1:0] w,
  output reg signed [ACC-1:0] acc
);
  reg signed [ACC-1:0] sum;
  integer k;
  always @* begin
    sum = acc;
    for (k = 0; k < K; k = k + 1) sum = sum + $signed(x[k*A +: A]) * $signed(w[k*B +: B]);
  end
  always @(posedge clk) acc <= sum;
endmodule
