// The VTA core: fetch, the load / compute / store modules behind their
// command queues, the four dependency-token queues, the on-chip buffers, the
// read arbiter and the memory master ports. Ports and cycle conventions:
// sim/rtl/README.md; timing rules: docs/timing.md.
module vta_core (
    input  logic         clk,
    input  logic         rst,
    input  logic         start,
    input  logic [63:0]  insn_addr,
    input  logic [31:0]  insn_count,
    output logic         running,
    output logic         done,
    output logic [63:0]  cycles,
    input  logic [16:0]  cfg_cmd_depth,
    input  logic [16:0]  cfg_token_depth,
    input  logic [12:0]  cfg_max_burst,
    input  logic [4:0]   cfg_ii_imm,
    input  logic [4:0]   cfg_ii_vector,
    input  logic         cfg_round_robin,
    output logic         arvalid,
    input  logic         arready,
    output logic [63:0]  araddr,
    output logic [12:0]  arbeats,
    output logic [1:0]   arid,
    input  logic         rvalid,
    input  logic [vta_pkg::BUS_WIDTH-1:0] rdata,
    input  logic [1:0]   rid,
    input  logic         rlast,
    output logic         awvalid,
    output logic [63:0]  awaddr,
    output logic [12:0]  awbeats,
    output logic         wvalid,
    output logic [vta_pkg::BUS_WIDTH-1:0] wdata,
    output logic [vta_pkg::BUS_WIDTH/8-1:0] wstrb,
    output logic         wlast,
    input  logic         bvalid,
    output logic         dbg_dispatch,
    output logic [31:0]  dbg_dispatch_idx,
    output logic [2:0]   dbg_issue,
    output logic [95:0]  dbg_issue_idx,
    output logic [2:0]   dbg_retire,
    output logic         dbg_retire_alu,  // alu.concurrent: the ALU pipe completes (dbg_retire[1]: the rest)
    output logic [2:0]   dbg_busy,
    output logic         dbg_fetch_wait_mem,
    output logic         dbg_fetch_wait_queue,
    output logic [2:0]   dbg_head_valid,
    output logic [95:0]  dbg_head_idx,
    output logic [127:0] dbg_tokens,
    output logic [31:0]  dbg_fetched,
    input  logic         dbg_rd_en,
    input  logic [2:0]   dbg_rd_mem,
    input  logic [31:0]  dbg_rd_addr,
    output logic [DBG_W-1:0] dbg_rd_data
);
  localparam int B = vta_pkg::BUS_WIDTH / 8;
  localparam int FB = vta_pkg::MAX_BURST * B / 16 > 1 ? vta_pkg::MAX_BURST * B / 16 : 1;
  localparam int INP_W = vta_pkg::INP_ELEM_BYTES * 8;
  localparam int WGT_W = vta_pkg::WGT_ELEM_BYTES * 8;
  localparam int ACC_W = vta_pkg::ACC_ELEM_BYTES * 8;
  localparam int OUT_W = vta_pkg::OUT_ELEM_BYTES * 8;
  localparam int M1 = INP_W > WGT_W ? INP_W : WGT_W;
  localparam int M2 = ACC_W > OUT_W ? ACC_W : OUT_W;
  localparam int DBG_W = M1 > M2 ? M1 : M2;

  // ---- run control ----
  wire clear = rst || start;
  logic [31:0] left;  // instructions not yet retired
  logic [16:0] cmd_depth, token_depth;
  logic [12:0] max_burst;
  logic [4:0] ii_imm, ii_vector;
  logic round_robin;
  logic [2:0] retire;
  wire [1:0] n_retire = 2'(retire[0]) + 2'(retire[1]) + 2'(retire[2]);
  logic [1:0] pipe_done;  // alu.concurrent: {V, G} complete (counted here, pushed by C4 below)
  logic last_retire;      // the last instructions complete in this cycle
  logic [31:0] n_done;
  generate
    if (vta_pkg::ALU_CONCURRENT == 0) begin : g_done_serial
      // left == n_retire from left's comparisons with constants and a mux
      // by the late n_retire (not an adder and a 32-bit comparison).
      assign last_retire = n_retire == 2'd1 ? left == 1 : n_retire == 2'd2 ? left == 2 : n_retire == 2'd3 && left == 3;
      assign n_done = 32'(n_retire);
      wire unused_done = ^pipe_done;
    end else begin : g_done_concurrent
      assign n_done = 32'(n_retire) + 32'(pipe_done[0]) + 32'(pipe_done[1]);
      assign last_retire = n_done != 0 && left == n_done;
    end
  endgenerate
  always_ff @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      done <= 1'b0;
      cycles <= '0;
    end else if (start) begin
      running <= insn_count != 0;
      done <= insn_count == 0;
      cycles <= '0;
      left <= insn_count;
      cmd_depth <= cfg_cmd_depth;
      token_depth <= cfg_token_depth;
      max_burst <= cfg_max_burst;
      ii_imm <= cfg_ii_imm;
      ii_vector <= cfg_ii_vector;
      round_robin <= cfg_round_robin;
    end else if (running) begin
      cycles <= cycles + 1;
      left <= left - n_done;
      if (last_retire) begin
        running <= 1'b0;
        done <= 1'b1;
      end
    end
  end

  // ---- fetch and the command queues ----
  logic [2:0] room, push, pop, head_valid;
  logic [159:0] push_data;
  logic [159:0] head[3];
  logic f_req;
  logic [63:0] f_addr;
  logic [12:0] f_beats;
  logic [2:0] grant, beat;
  vta_fetch #(.B(B), .FB(FB)) u_fetch (
      .clk, .clear(rst), .start, .insn_addr, .insn_count, .max_burst(cfg_max_burst),
      .req_valid(f_req), .req_addr(f_addr), .req_beats(f_beats), .grant(grant[0]), .beat_valid(beat[0]),
      .beat_data(rdata), .room, .push, .push_data, .wait_mem(dbg_fetch_wait_mem),
      .wait_queue(dbg_fetch_wait_queue), .fetched(dbg_fetched));
  for (genvar m = 0; m < 3; m++) begin : g_queue
    vta_cmd_queue #(.W(160), .DEPTH(vta_pkg::CMD_QUEUE_DEPTH)) u_q (
        .clk, .clear, .limit(cmd_depth), .push(push[m]), .push_data, .room(room[m]), .pop(pop[m]),
        .head_valid(head_valid[m]), .head(head[m]));
  end
  assign dbg_dispatch = |push;
  assign dbg_dispatch_idx = push_data[159:128];

  // ---- dependency tokens: L2C, C2L, C2S, S2C ----
  logic [31:0] tokens[4];
  logic [3:0] tok_pop, tok_push;
  logic [2:0] busy, one_cycle, tok_ok;
  logic c_ready;            // compute: the head may issue as far as the module is concerned
  logic [63:0] c4_pend;  // alu.concurrent: {C2S, C2L} pushes that issued GEMMs / ALUs have still to make
  logic [63:0] c4_push;  // ... and that they make in this cycle (C4)
  logic [1:0] cur_push[3];  // {push_next, push_prev} of each module's running instruction
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic is_one_cycle(input logic [127:0] i);
    logic [2:0] op;
    logic [2:0] mem;
    logic no_pad;
    op = i[vta_pkg::MEM_OPCODE_LSB+:3];
    mem = i[vta_pkg::MEM_MEMORY_TYPE_LSB+:3];
    no_pad = i[vta_pkg::MEM_Y_PAD_0_LSB+:4] == 0 && i[vta_pkg::MEM_Y_PAD_1_LSB+:4] == 0 &&
             i[vta_pkg::MEM_X_PAD_0_LSB+:4] == 0 && i[vta_pkg::MEM_X_PAD_1_LSB+:4] == 0;
    is_one_cycle = 1'b0;
    if (32'(op) == vta_pkg::OPCODE_FINISH) is_one_cycle = 1'b1;
    if ((32'(op) == vta_pkg::OPCODE_LOAD || 32'(op) == vta_pkg::OPCODE_STORE) &&
        i[vta_pkg::MEM_X_SIZE_LSB+:16] == 0)
      is_one_cycle = 1'b1;
    if (32'(op) == vta_pkg::OPCODE_LOAD && i[vta_pkg::MEM_Y_SIZE_LSB+:16] == 0 && no_pad) is_one_cycle = 1'b1;
    if (32'(op) == vta_pkg::OPCODE_STORE && i[vta_pkg::MEM_Y_SIZE_LSB+:16] == 0) is_one_cycle = 1'b1;
    if (32'(op) == vta_pkg::OPCODE_LOAD && 32'(mem) > vta_pkg::MEM_ID_ACC_8BIT) is_one_cycle = 1'b1;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  logic [2:0] f_pop_prev, f_pop_next, f_push_prev, f_push_next;
  always_comb begin
    for (int m = 0; m < 3; m++) begin
      f_pop_prev[m] = head[m][vta_pkg::MEM_POP_PREV_LSB];
      f_pop_next[m] = head[m][vta_pkg::MEM_POP_NEXT_LSB];
      f_push_prev[m] = head[m][vta_pkg::MEM_PUSH_PREV_LSB];
      f_push_next[m] = head[m][vta_pkg::MEM_PUSH_NEXT_LSB];
      one_cycle[m] = is_one_cycle(head[m][127:0]);
    end
    tok_ok[0] = !(f_pop_next[0] && tokens[1] == 0) && !(f_push_next[0] && tokens[0] >= 32'(token_depth));
    tok_ok[1] = !(f_pop_prev[1] && tokens[0] == 0) && !(f_pop_next[1] && tokens[3] == 0) &&
                !(f_push_prev[1] && tokens[1] + c4_pend[31:0] >= 32'(token_depth)) &&
                !(f_push_next[1] && tokens[2] + c4_pend[63:32] >= 32'(token_depth));
    tok_ok[2] = !(f_pop_prev[2] && tokens[2] == 0) && !(f_push_prev[2] && tokens[3] >= 32'(token_depth));
    for (int m = 0; m < 3; m++) pop[m] = running && head_valid[m] && (m == 1 ? c_ready : !busy[m]) && tok_ok[m];
    tok_pop[0] = pop[1] && f_pop_prev[1];
    tok_pop[1] = pop[0] && f_pop_next[0];
    tok_pop[2] = pop[2] && f_pop_prev[2];
    tok_pop[3] = pop[1] && f_pop_next[1];
  end

  logic [2:0] mod_retire, start_mod;
  logic [1:0] ret_push[3];
  always_comb begin
    for (int m = 0; m < 3; m++) begin
      start_mod[m] = pop[m] && !one_cycle[m];
      retire[m] = (pop[m] && one_cycle[m]) || mod_retire[m];
      ret_push[m] = (pop[m] && one_cycle[m]) ? {f_push_next[m], f_push_prev[m]} : cur_push[m];
    end
    tok_push[0] = retire[0] && ret_push[0][1];
    tok_push[1] = retire[1] && ret_push[1][0];
    tok_push[2] = retire[1] && ret_push[1][1];
    tok_push[3] = retire[2] && ret_push[2][0];
  end
  always_ff @(posedge clk) begin
    for (int m = 0; m < 3; m++) if (pop[m]) cur_push[m] <= {f_push_next[m], f_push_prev[m]};
    for (int q = 0; q < 4; q++)
      if (clear) tokens[q] <= '0;
      else tokens[q] <= tokens[q] + 32'(tok_push[q]) + (q == 1 ? c4_push[31:0] : q == 2 ? c4_push[63:32] : 32'd0) -
                        32'(tok_pop[q]);
  end

  // C4 (docs/timing.md, "Concurrent ALU"): a GEMM's or ALU's pushes are made
  // in program order, when it and every earlier compute instruction have
  // completed. Each pipe runs one instruction at a time, so the only older
  // instruction a completed one can wait for is the other pipe's in flight
  // when it issued (blk); the pushes of those that wait are counted (wait_n)
  // and made when that one completes. For rule 4's room check the compute
  // module sees the tokens plus the pushes still to make (c4_pend).
  generate
    if (vta_pkg::ALU_CONCURRENT == 0) begin : g_c4_none
      assign c4_pend = '0;
      assign c4_push = '0;
    end else begin : g_c4
      wire [2:0] c_op = head[1][vta_pkg::MEM_OPCODE_LSB+:3];
      wire [1:0] issue = {pop[1] && 32'(c_op) == vta_pkg::OPCODE_ALU, pop[1] && 32'(c_op) == vta_pkg::OPCODE_GEMM};
      logic [1:0] infl, blk, ret;
      logic [3:0] fl_push;   // [pipe*2 +: 2]: {push_next, push_prev} of each pipe's instruction in flight
      logic [127:0] wait_n;  // [(pipe*2 + k)*32 +: 32], k 0: C2L, 1: C2S
      always_comb begin
        for (int p = 0; p < 2; p++) ret[p] = pipe_done[p] && (!blk[p] || pipe_done[1-p]);
        c4_push = '0;
        for (int k = 0; k < 2; k++)
          for (int p = 0; p < 2; p++)
            if (ret[p]) c4_push[k*32+:32] = c4_push[k*32+:32] + 32'(fl_push[p*2+k]) + wait_n[((1-p)*2+k)*32+:32];
      end
      always_ff @(posedge clk) begin
        for (int p = 0; p < 2; p++) begin
          if (clear) infl[p] <= 1'b0;
          else if (issue[p]) infl[p] <= 1'b1;
          else if (pipe_done[p]) infl[p] <= 1'b0;
          if (issue[p]) begin
            fl_push[p*2+:2] <= {f_push_next[1], f_push_prev[1]};
            blk[p] <= infl[1-p] && !pipe_done[1-p];
          end else if (ret[1-p]) begin
            blk[p] <= 1'b0;
          end
          for (int k = 0; k < 2; k++)
            if (clear || ret[1-p]) wait_n[(p*2+k)*32+:32] <= '0;
            else if (pipe_done[p] && !ret[p])
              wait_n[(p*2+k)*32+:32] <= wait_n[(p*2+k)*32+:32] + 32'(fl_push[p*2+k]);
        end
        for (int k = 0; k < 2; k++)
          if (clear) c4_pend[k*32+:32] <= '0;
          else
            c4_pend[k*32+:32] <= c4_pend[k*32+:32] + 32'((|issue) && (k == 0 ? f_push_prev[1] : f_push_next[1])) -
                                 c4_push[k*32+:32];
      end
    end
  endgenerate

  assign dbg_issue = pop;
  assign dbg_issue_idx = {head[2][159:128], head[1][159:128], head[0][159:128]};
  assign dbg_retire = {retire[2], retire[1] || pipe_done[0], retire[0]};
  assign dbg_retire_alu = pipe_done[1];
  assign dbg_busy = busy;
  assign dbg_head_valid = head_valid;
  assign dbg_head_idx = dbg_issue_idx;
  assign dbg_tokens = {tokens[3], tokens[2], tokens[1], tokens[0]};

  // ---- buffers written by load, read by compute ----
  logic inp_we, wgt_we, inp_re, wgt_re;
  logic [vta_pkg::LOG_INP_BUFF_DEPTH-1:0] inp_waddr, inp_raddr;
  logic [vta_pkg::LOG_WGT_BUFF_DEPTH-1:0] wgt_waddr, wgt_raddr;
  logic [INP_W-1:0] inp_wdata, inp_q, inp_dbg;
  logic [WGT_W-1:0] wgt_wdata, wgt_q, wgt_dbg;
  logic [2:0] dbg_sel;
  always_ff @(posedge clk) if (dbg_rd_en) dbg_sel <= dbg_rd_mem;
  wire dbg_is = dbg_rd_en;
  vta_ram #(.W(INP_W), .DEPTH(vta_pkg::INP_BUFF_DEPTH), .G(INP_W), .NR(1)) u_inp (
      .clk, .we(inp_we), .waddr(inp_waddr), .wdata(inp_wdata), .wmask(1'b1), .re0(inp_re), .raddr0(inp_raddr),
      .rdata0(inp_q), .re1(1'b0), .raddr1('0), .rdata1(),
      .dbg_re(dbg_is && 32'(dbg_rd_mem) == vta_pkg::MEM_ID_INP),
      .dbg_addr(vta_pkg::LOG_INP_BUFF_DEPTH'(dbg_rd_addr)), .dbg_data(inp_dbg));
  vta_ram #(.W(WGT_W), .DEPTH(vta_pkg::WGT_BUFF_DEPTH), .G(WGT_W), .NR(1)) u_wgt (
      .clk, .we(wgt_we), .waddr(wgt_waddr), .wdata(wgt_wdata), .wmask(1'b1), .re0(wgt_re), .raddr0(wgt_raddr),
      .rdata0(wgt_q), .re1(1'b0), .raddr1('0), .rdata1(),
      .dbg_re(dbg_is && 32'(dbg_rd_mem) == vta_pkg::MEM_ID_WGT),
      .dbg_addr(vta_pkg::LOG_WGT_BUFF_DEPTH'(dbg_rd_addr)), .dbg_data(wgt_dbg));

  // ---- OUT: written by compute, read by store; ACC_BANKS banks (one
  // without alu.concurrent), bank k the indices [k*H, (k+1)*H) ----
  localparam int OA = vta_pkg::LOG_ACC_BUFF_DEPTH;
  localparam int KB = vta_pkg::ACC_BANKS;
  localparam int BA = OA - $clog2(KB);
  logic out_re;
  logic [KB-1:0] out_we;
  logic [KB*BA-1:0] out_waddr;  // bank b's at [b*BA +: BA]
  logic [OA-1:0] out_raddr;
  logic [KB*OUT_W-1:0] out_wdata;
  logic [OUT_W-1:0] out_q, out_dbg;
  localparam int ON = vta_pkg::BATCH * vta_pkg::BLOCK_OUT;  // OUT lanes (compute's write mask: a bit each)
  localparam int OL = vta_pkg::OUT_WIDTH;
  // The RAM's write granule: a byte (block RAM byte enables), unless 4-bit
  // lanes would put two ALU lane groups in one byte (an odd count of ALU
  // lanes); then a lane. Granule j holds bits of lane j * OG / OL.
  localparam int AL = vta_pkg::ALU_LANES < ON ? vta_pkg::ALU_LANES : ON;
  localparam int OG = (OL >= 8 || (AL * OL) % 8 == 0) ? 8 : OL;
  localparam int ONG = OUT_W / OG;  // granules per OUT element
  logic [KB*ON-1:0] out_wmask;
  logic [KB*ONG-1:0] out_gmask;
  always_comb
    for (int b = 0; b < KB; b++)
      for (int j = 0; j < ONG; j++) out_gmask[b*ONG+j] = out_wmask[b*ON+(j*OG)/OL];
  wire dbg_out = dbg_is && 32'(dbg_rd_mem) == vta_pkg::MEM_ID_OUT;
  generate
    if (KB == 1) begin : g_out
      vta_ram #(.W(OUT_W), .DEPTH(vta_pkg::OUT_BUFF_DEPTH), .G(OG), .NR(1)) u_out (
          .clk, .we(out_we), .waddr(out_waddr), .wdata(out_wdata), .wmask(out_gmask), .re0(out_re),
          .raddr0(out_raddr), .rdata0(out_q), .re1(1'b0), .raddr1('0), .rdata1(), .dbg_re(dbg_out),
          .dbg_addr(OA'(dbg_rd_addr)), .dbg_data(out_dbg));
    end else begin : g_out_banks
      logic [OUT_W-1:0] bank_q[KB], bank_dbg[KB];
      logic [OA-BA-1:0] rsel, dsel;
      always_ff @(posedge clk) begin
        if (out_re) rsel <= out_raddr[OA-1:BA];
        if (dbg_out) dsel <= dbg_rd_addr[OA-1:BA];
      end
      assign out_q = bank_q[rsel];
      assign out_dbg = bank_dbg[dsel];
      for (genvar b = 0; b < KB; b++) begin : g_bank
        vta_ram #(.W(OUT_W), .DEPTH(vta_pkg::OUT_BUFF_DEPTH / KB), .G(OG), .NR(1)) u_out (
            .clk, .we(out_we[b]), .waddr(out_waddr[b*BA+:BA]), .wdata(out_wdata[b*OUT_W+:OUT_W]),
            .wmask(out_gmask[b*ONG+:ONG]), .re0(out_re),
            .raddr0(out_raddr[BA-1:0]), .rdata0(bank_q[b]), .re1(1'b0), .raddr1('0), .rdata1(), .dbg_re(dbg_out),
            .dbg_addr(dbg_rd_addr[BA-1:0]), .dbg_data(bank_dbg[b]));
      end
    end
  endgenerate

  // ---- modules ----
  logic l_req, c_req;
  logic [63:0] l_addr, c_addr;
  logic [12:0] l_beats, c_beats;
  vta_load #(.B(B)) u_load (
      .clk, .clear, .start(start_mod[0]), .insn(head[0][127:0]), .max_burst, .req_valid(l_req), .req_addr(l_addr),
      .req_beats(l_beats), .grant(grant[1]), .beat_valid(beat[1]), .beat_data(rdata), .inp_we, .inp_waddr,
      .inp_wdata, .wgt_we, .wgt_waddr, .wgt_wdata, .busy(busy[0]), .retire(mod_retire[0]));

  logic [31:0] uop_dbg;
  logic [ACC_W-1:0] acc_dbg;
  vta_compute #(.B(B)) u_compute (
      .clk, .clear, .start(start_mod[1]), .insn(head[1][127:0]), .head_valid(head_valid[1]), .max_burst, .ii_imm,
      .ii_vector,
      .req_valid(c_req), .req_addr(c_addr), .req_beats(c_beats), .grant(grant[2]), .beat_valid(beat[2]),
      .beat_data(rdata), .inp_re, .inp_addr(inp_raddr), .inp_q, .wgt_re, .wgt_addr(wgt_raddr), .wgt_q,
      .out_we, .out_waddr, .out_wdata, .out_wmask,
      .dbg_re_uop(dbg_is && 32'(dbg_rd_mem) == vta_pkg::MEM_ID_UOP),
      .dbg_re_acc(dbg_is && 32'(dbg_rd_mem) == vta_pkg::MEM_ID_ACC), .dbg_addr(dbg_rd_addr),
      .dbg_uop(uop_dbg), .dbg_acc(acc_dbg), .busy(busy[1]), .ready(c_ready), .retire(mod_retire[1]), .pipe_done);

  vta_store #(.E(vta_pkg::OUT_ELEM_BYTES), .B(B), .AW(OA)) u_store (
      .clk, .clear, .start(start_mod[2]), .sram_base(head[2][vta_pkg::MEM_SRAM_BASE_LSB+:16]),
      .dram_base(head[2][vta_pkg::MEM_DRAM_BASE_LSB+:32]), .y_size(head[2][vta_pkg::MEM_Y_SIZE_LSB+:16]),
      .x_size(head[2][vta_pkg::MEM_X_SIZE_LSB+:16]), .x_stride(head[2][vta_pkg::MEM_X_STRIDE_LSB+:16]),
      .max_burst, .out_re, .out_addr(out_raddr), .out_data(out_q), .awvalid, .awaddr, .awbeats, .wvalid, .wdata,
      .wlast, .bvalid, .busy(busy[2]), .retire(mod_retire[2]));
  assign wstrb = '1;

  // ---- read arbiter (rule 14): one burst a cycle among requests made before it ----
  logic [2:0] req;
  assign req = {c_req, l_req, f_req};
  logic [1:0] last, pick;
  logic any;
  always_comb begin
    any = |req;
    pick = 2'd0;
    if (round_robin) begin
      for (int k = 4; k >= 1; k--)
        if (2'(last + 2'(k)) != 2'd3 && req[2'(last + 2'(k))]) pick = 2'(last + 2'(k));
    end else begin
      for (int k = 2; k >= 0; k--) if (req[k]) pick = 2'(k);
    end
  end
  assign arvalid = any && running;
  assign arid = pick;
  assign araddr = pick == 2'd0 ? f_addr : pick == 2'd1 ? l_addr : c_addr;
  assign arbeats = pick == 2'd0 ? f_beats : pick == 2'd1 ? l_beats : c_beats;
  assign grant = (arvalid && arready) ? (3'b001 << pick) : 3'b000;
  assign beat = rvalid ? (3'b001 << rid) : 3'b000;
  always_ff @(posedge clk)
    if (clear) last <= 2'd3;
    else if (arvalid && arready) last <= pick;

  // ---- debug reads ----
  always_comb begin
    case (32'(dbg_sel))
      vta_pkg::MEM_ID_UOP: dbg_rd_data = DBG_W'(uop_dbg);
      vta_pkg::MEM_ID_INP: dbg_rd_data = DBG_W'(inp_dbg);
      vta_pkg::MEM_ID_WGT: dbg_rd_data = DBG_W'(wgt_dbg);
      vta_pkg::MEM_ID_ACC: dbg_rd_data = DBG_W'(acc_dbg);
      default: dbg_rd_data = DBG_W'(out_dbg);
    endcase
  end

  logic unused;
  assign unused = ^{rlast, one_cycle, f_pop_prev[0], f_pop_next[2]};
endmodule
