// A buffer written K consecutive elements a cycle (a DMA beat carrying K
// elements, K a power of two) and read one element a cycle on each of NR
// read ports (1 or 2): K banks, element e in bank e % K at row e / K. With
// K = 1 it is one vta_ram. P1W: read port 1 goes through each bank's write
// port (vta_ram's P1W; never in a cycle that writes).
module vta_lane_ram #(
    parameter int W = 32,
    parameter int DEPTH = 8192,
    parameter int K = 2,
    parameter int NR = 1,
    parameter bit P1W = 1'b0
) (
    input  logic                     clk,
    input  logic [K-1:0]             wr_en,    // lane j writes element wr_addr + j
    input  logic [$clog2(DEPTH)-1:0] wr_addr,
    input  logic [K*W-1:0]           wr_data,
    input  logic                     re,
    input  logic [$clog2(DEPTH)-1:0] raddr,
    output logic [W-1:0]             rdata,
    input  logic                     re1,
    input  logic [$clog2(DEPTH)-1:0] raddr1,
    output logic [W-1:0]             rdata1,
    input  logic                     dbg_re,
    input  logic [$clog2(DEPTH)-1:0] dbg_addr,
    output logic [W-1:0]             dbg_data
);
  localparam int AW = $clog2(DEPTH);
  localparam int LK = K > 1 ? $clog2(K) : 1;
  localparam int RW = K > 1 ? AW - $clog2(K) : AW;  // row address bits

  generate
    if (K == 1) begin : g_one
      vta_ram #(.W(W), .DEPTH(DEPTH), .G(W), .NR(NR), .P1W(P1W)) u_ram (
          .clk, .we(wr_en[0]), .waddr(wr_addr), .wdata(wr_data), .wmask(1'b1),
          .re0(re), .raddr0(raddr), .rdata0(rdata), .re1, .raddr1, .rdata1,
          .dbg_re, .dbg_addr, .dbg_data);
    end else begin : g_banks
      logic [W-1:0] bank_q[K];
      logic [W-1:0] bank_q1[K];
      logic [W-1:0] bank_dbg[K];
      logic [LK-1:0] rsel, dsel;
      always_ff @(posedge clk) begin
        if (re) rsel <= raddr[LK-1:0];
        if (dbg_re) dsel <= dbg_addr[LK-1:0];
      end
      assign rdata = bank_q[rsel];
      if (NR > 1) begin : g_port1
        logic [LK-1:0] rsel1;
        always_ff @(posedge clk) if (re1) rsel1 <= raddr1[LK-1:0];
        assign rdata1 = bank_q1[rsel1];
      end else begin : g_no_port1
        assign rdata1 = '0;
        wire unused_q1 = ^{bank_q1[0], raddr1[LK-1:0]};
      end
      assign dbg_data = bank_dbg[dsel];
      for (genvar b = 0; b < K; b++) begin : g_bank
        // The lane that lands in this bank, and its element address.
        wire [LK-1:0] lane = LK'(b) - wr_addr[LK-1:0];
        wire [AW-1:0] elem = wr_addr + AW'(lane);
        wire [RW-1:0] rrow = raddr[AW-1:LK];
        wire [RW-1:0] rrow1 = raddr1[AW-1:LK];
        wire [RW-1:0] drow = dbg_addr[AW-1:LK];
        wire unused_low = ^elem[LK-1:0];
        vta_ram #(.W(W), .DEPTH(DEPTH / K), .G(W), .NR(NR), .P1W(P1W)) u_ram (
            .clk, .we(wr_en[lane]), .waddr(elem[AW-1:LK]), .wdata(wr_data[lane*W+:W]), .wmask(1'b1),
            .re0(re), .raddr0(rrow), .rdata0(bank_q[b]), .re1, .raddr1(rrow1), .rdata1(bank_q1[b]),
            .dbg_re, .dbg_addr(drow), .dbg_data(bank_dbg[b]));
      end
    end
  endgenerate
endmodule
