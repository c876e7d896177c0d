// An on-chip buffer as an inferred RAM: one write port with a write mask of
// G-bit granules, one or two registered read ports (read-first: a read in the
// same cycle as a write to the same address returns the old data; the
// consumers forward the write themselves), and a debug read port that exists
// only in simulation. P1W: read port 1 reads through the write port's
// address (its user never reads in a cycle that writes), so that the RAM
// keeps two address ports and maps to one block RAM column in true dual-port
// mode instead of two copies; simulation stops on a read that meets a write.
module vta_ram #(
    parameter int W = 8,       // element bits
    parameter int DEPTH = 16,  // elements
    parameter int G = 8,       // write-mask granule bits (W % G == 0)
    parameter int NR = 1,      // read ports: 1 or 2
    parameter bit P1W = 1'b0   // port 1 shares the write port's address (NR = 2)
) (
    input  logic                     clk,
    input  logic                     we,
    input  logic [$clog2(DEPTH)-1:0] waddr,
    input  logic [W-1:0]             wdata,
    input  logic [W/G-1:0]           wmask,
    input  logic                     re0,
    input  logic [$clog2(DEPTH)-1:0] raddr0,
    output logic [W-1:0]             rdata0,
    input  logic                     re1,
    input  logic [$clog2(DEPTH)-1:0] raddr1,
    output logic [W-1:0]             rdata1,
    input  logic                     dbg_re,
    input  logic [$clog2(DEPTH)-1:0] dbg_addr,
    output logic [W-1:0]             dbg_data
);
  logic [W-1:0] mem[DEPTH];
  // The write port's address: with P1W it also carries port 1's reads.
  wire [$clog2(DEPTH)-1:0] wa = P1W && NR > 1 && !we ? raddr1 : waddr;

  always_ff @(posedge clk) begin
    if (we)
      for (int g = 0; g < W / G; g++)
        if (wmask[g]) mem[wa][g*G+:G] <= wdata[g*G+:G];
  end

  always_ff @(posedge clk) if (re0) rdata0 <= mem[raddr0];

  generate
    if (NR > 1 && P1W) begin : g_port1w
      always_ff @(posedge clk) if (re1 && !we) rdata1 <= mem[wa];
`ifndef SYNTHESIS
      always_ff @(posedge clk)
        if (re1 && we) $fatal(1, "vta_ram: a read on port 1 meets a write (P1W shares their address)");
`endif
    end else if (NR > 1) begin : g_port1
      always_ff @(posedge clk) if (re1) rdata1 <= mem[raddr1];
    end else begin : g_no_port1
      assign rdata1 = '0;
      logic unused_port1;
      assign unused_port1 = ^{re1, raddr1};
    end
  endgenerate

`ifndef SYNTHESIS
  always_ff @(posedge clk) if (dbg_re) dbg_data <= mem[dbg_addr];
`else
  assign dbg_data = '0;
  logic unused_dbg;
  assign unused_dbg = ^{dbg_re, dbg_addr};
`endif
endmodule
