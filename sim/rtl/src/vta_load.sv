// The load module: LOAD INP and LOAD WGT through one DMA engine each.
module vta_load #(
    parameter int B = 8
) (
    input  logic           clk,
    input  logic           clear,
    input  logic           start,  // issue cycle of a LOAD that is not a one-cycle instruction
    input  logic [127:0]   insn,
    input  logic [12:0]    max_burst,
    output logic           req_valid,
    output logic [63:0]    req_addr,
    output logic [12:0]    req_beats,
    input  logic           grant,
    input  logic           beat_valid,
    input  logic [B*8-1:0] beat_data,
    output logic           inp_we,
    output logic [vta_pkg::LOG_INP_BUFF_DEPTH-1:0] inp_waddr,
    output logic [vta_pkg::INP_ELEM_BYTES*8-1:0] inp_wdata,
    output logic           wgt_we,
    output logic [vta_pkg::LOG_WGT_BUFF_DEPTH-1:0] wgt_waddr,
    output logic [vta_pkg::WGT_ELEM_BYTES*8-1:0] wgt_wdata,
    output logic           busy,
    output logic           retire
);
  wire is_wgt = 32'(insn[vta_pkg::MEM_MEMORY_TYPE_LSB+:3]) == vta_pkg::MEM_ID_WGT;
  logic active_wgt;
  always_ff @(posedge clk) if (start) active_wgt <= is_wgt;

  logic [1:0] e_req, e_busy, e_retire;
  logic [63:0] e_addr0, e_addr1;
  logic [12:0] e_beats0, e_beats1;
  assign req_valid = active_wgt ? e_req[1] : e_req[0];
  assign req_addr = active_wgt ? e_addr1 : e_addr0;
  assign req_beats = active_wgt ? e_beats1 : e_beats0;

`define VTA_DMA_PORTS(IDX, START, SEL) \
      .clk, .clear, .start(START), \
      .sram_base(insn[vta_pkg::MEM_SRAM_BASE_LSB+:16]), .dram_base(insn[vta_pkg::MEM_DRAM_BASE_LSB+:32]), \
      .y_size(insn[vta_pkg::MEM_Y_SIZE_LSB+:16]), .x_size(insn[vta_pkg::MEM_X_SIZE_LSB+:16]), \
      .x_stride(insn[vta_pkg::MEM_X_STRIDE_LSB+:16]), \
      .y_pad0(insn[vta_pkg::MEM_Y_PAD_0_LSB+:4]), .y_pad1(insn[vta_pkg::MEM_Y_PAD_1_LSB+:4]), \
      .x_pad0(insn[vta_pkg::MEM_X_PAD_0_LSB+:4]), .x_pad1(insn[vta_pkg::MEM_X_PAD_1_LSB+:4]), \
      .max_burst, .req_valid(e_req[IDX]), .req_addr(e_addr``IDX), .req_beats(e_beats``IDX), \
      .grant(grant && SEL), .beat_valid(beat_valid && SEL), .beat_data, \
      .busy(e_busy[IDX]), .retire(e_retire[IDX])

  vta_dma_load #(.E(vta_pkg::INP_ELEM_BYTES), .B(B), .AW(vta_pkg::LOG_INP_BUFF_DEPTH)) u_dma_inp (
      `VTA_DMA_PORTS(0, start && !is_wgt, !active_wgt), .wr_en(inp_we), .wr_addr(inp_waddr), .wr_data(inp_wdata));
  vta_dma_load #(.E(vta_pkg::WGT_ELEM_BYTES), .B(B), .AW(vta_pkg::LOG_WGT_BUFF_DEPTH)) u_dma_wgt (
      `VTA_DMA_PORTS(1, start && is_wgt, active_wgt), .wr_en(wgt_we), .wr_addr(wgt_waddr), .wr_data(wgt_wdata));
`undef VTA_DMA_PORTS

  logic unused;
  assign unused = ^insn;
  assign busy = |e_busy;
  assign retire = |e_retire;
endmodule
