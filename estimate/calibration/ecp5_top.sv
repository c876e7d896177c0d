// A pin-limited shell around vta_core for place and route on a real part
// (estimate/calibration/ecp5_pnr.py). The core has more ports (about
// 1 000 + 2 x bus + the debug read width) than any ECP5 package has pins,
// so every core input comes from a shift register fed by one pin and every
// core output is folded, three bits a stage, into a chain of registered
// XORs read out on one pin: all of the core's logic stays observable (none
// is removed as unused), every core input is driven by a flip-flop, and
// every core output ends at one LUT4 level and a flip-flop. `clk` and `rst`
// are pins as they are ports in the xc7 flow. The shell costs IN_W
// flip-flops (the input chain) and ceil(OUT_W / 3) LUT4s and flip-flops
// (the output chain); ecp5_pnr.py counts its cells apart by their source
// attribute. Not part of the simulated RTL (sim/rtl/src).
module vta_ecp5_top (
    input  logic clk,
    input  logic rst,
    input  logic sin,
    output logic sout
);
  localparam int BW = vta_pkg::BUS_WIDTH;
  localparam int INP_W = vta_pkg::INP_ELEM_BYTES * 8;
  localparam int WGT_W = vta_pkg::WGT_ELEM_BYTES * 8;
  localparam int ACC_W = vta_pkg::ACC_ELEM_BYTES * 8;
  localparam int OUT_EW = vta_pkg::OUT_ELEM_BYTES * 8;
  localparam int M1 = INP_W > WGT_W ? INP_W : WGT_W;
  localparam int M2 = ACC_W > OUT_EW ? ACC_W : OUT_EW;
  localparam int DBG_W = M1 > M2 ? M1 : M2;
  // start insn_addr insn_count cfg_cmd_depth cfg_token_depth cfg_max_burst
  // cfg_ii_imm cfg_ii_vector cfg_round_robin arready rvalid rdata rid rlast
  // bvalid dbg_rd_en dbg_rd_mem dbg_rd_addr
  localparam int IN_W = 1 + 64 + 32 + 17 + 17 + 13 + 5 + 5 + 1 + 1 + 1 + BW + 2 + 1 + 1 + 1 + 3 + 32;
  // running done cycles arvalid araddr arbeats arid awvalid awaddr awbeats
  // wvalid wdata wstrb wlast dbg_dispatch dbg_dispatch_idx dbg_issue
  // dbg_issue_idx dbg_retire dbg_busy dbg_fetch_wait_mem
  // dbg_fetch_wait_queue dbg_head_valid dbg_head_idx dbg_tokens dbg_fetched
  // dbg_rd_data
  localparam int OUT_W = 1 + 1 + 64 + 1 + 64 + 13 + 2 + 1 + 64 + 13 + 1 + BW + BW / 8 + 1 + 1 + 32 +
      3 + 96 + 3 + 3 + 1 + 1 + 3 + 96 + 128 + 32 + DBG_W;
  localparam int STAGES = (OUT_W + 2) / 3;

  logic [IN_W-1:0] in_q;
  always_ff @(posedge clk) in_q <= {in_q[IN_W-2:0], sin};

  logic [OUT_W-1:0] outs;
  logic [3*STAGES-1:0] outs_p;
  assign outs_p = (3 * STAGES)'(outs);

  vta_core core (
      .clk(clk),
      .rst(rst),
      .start(in_q[0]),
      .insn_addr(in_q[64:1]),
      .insn_count(in_q[96:65]),
      .cfg_cmd_depth(in_q[113:97]),
      .cfg_token_depth(in_q[130:114]),
      .cfg_max_burst(in_q[143:131]),
      .cfg_ii_imm(in_q[148:144]),
      .cfg_ii_vector(in_q[153:149]),
      .cfg_round_robin(in_q[154]),
      .arready(in_q[155]),
      .rvalid(in_q[156]),
      .rdata(in_q[156+BW:157]),
      .rid(in_q[158+BW:157+BW]),
      .rlast(in_q[159+BW]),
      .bvalid(in_q[160+BW]),
      .dbg_rd_en(in_q[161+BW]),
      .dbg_rd_mem(in_q[164+BW:162+BW]),
      .dbg_rd_addr(in_q[196+BW:165+BW]),
      .running(outs[0]),
      .done(outs[1]),
      .cycles(outs[65:2]),
      .arvalid(outs[66]),
      .araddr(outs[130:67]),
      .arbeats(outs[143:131]),
      .arid(outs[145:144]),
      .awvalid(outs[146]),
      .awaddr(outs[210:147]),
      .awbeats(outs[223:211]),
      .wvalid(outs[224]),
      .wdata(outs[224+BW:225]),
      .wstrb(outs[224+BW+BW/8:225+BW]),
      .wlast(outs[225+BW+BW/8]),
      .dbg_dispatch(outs[226+BW+BW/8]),
      .dbg_dispatch_idx(outs[258+BW+BW/8:227+BW+BW/8]),
      .dbg_issue(outs[261+BW+BW/8:259+BW+BW/8]),
      .dbg_issue_idx(outs[357+BW+BW/8:262+BW+BW/8]),
      .dbg_retire(outs[360+BW+BW/8:358+BW+BW/8]),
      .dbg_busy(outs[363+BW+BW/8:361+BW+BW/8]),
      .dbg_fetch_wait_mem(outs[364+BW+BW/8]),
      .dbg_fetch_wait_queue(outs[365+BW+BW/8]),
      .dbg_head_valid(outs[368+BW+BW/8:366+BW+BW/8]),
      .dbg_head_idx(outs[464+BW+BW/8:369+BW+BW/8]),
      .dbg_tokens(outs[592+BW+BW/8:465+BW+BW/8]),
      .dbg_fetched(outs[624+BW+BW/8:593+BW+BW/8]),
      .dbg_rd_data(outs[624+BW+BW/8+DBG_W:625+BW+BW/8])
  );

  logic [STAGES-1:0] chain;
  always_ff @(posedge clk) begin
    chain[0] <= ^outs_p[2:0];
    for (int i = 1; i < STAGES; i++) chain[i] <= chain[i-1] ^ (^outs_p[3*i+:3]);
  end
  assign sout = chain[STAGES-1];
endmodule
