// Fetch (docs/timing.md rules 1-3): reads the program in chunks of
// C = max(1, max_burst*B/16) instructions, one request per chunk made in the
// cycle after the previous chunk's last dispatch (cycle 0 for the first);
// once a chunk's last beat is in, dispatches one instruction a cycle into the
// command queue of its module, waiting while that queue is full.
module vta_fetch #(
    parameter int B = 8,     // bytes per beat (<= 16)
    parameter int FB = 128   // instructions per chunk at most
) (
    input  logic          clk,
    input  logic          clear,  // reset (a start restarts fetch by itself)
    input  logic          start,
    input  logic [63:0]   insn_addr,
    input  logic [31:0]   insn_count,
    input  logic [12:0]   max_burst,
    // read client
    output logic          req_valid,
    output logic [63:0]   req_addr,
    output logic [12:0]   req_beats,
    input  logic          grant,
    input  logic          beat_valid,
    input  logic [B*8-1:0] beat_data,
    // command queues: 0 load, 1 compute, 2 store
    input  logic [2:0]    room,
    output logic [2:0]    push,
    output logic [159:0]  push_data,  // {index, instruction}
    output logic          wait_mem,
    output logic          wait_queue,
    output logic [31:0]   fetched
);
  localparam int NI = 16 / B;  // beats per instruction
  localparam int LB = $clog2(B);
  localparam int FA = FB > 1 ? $clog2(FB) : 1;

  typedef enum logic [2:0] {IDLE, PREP, REQ, DATA, DISP} state_t;
  state_t state;

  logic [127:0] buffer[FB];
  logic [31:0]  count, next_idx, chunk, chunk_max, left, written, rd;
  logic [63:0]  addr;
  logic [$clog2(NI+1)-1:0] sub;

  wire [31:0] remaining = count - next_idx;
  wire [31:0] burst = (left < 32'(max_burst)) ? left : 32'(max_burst);
  assign req_valid = state == REQ;
  assign req_addr = addr;
  assign req_beats = 13'(burst);

  // The instruction being assembled from beats (B < 16) or the beat itself.
  logic [127:0] insn_next;
  generate
    if (NI > 1) begin : g_asm
      logic [127-B*8:0] asm_q;
      always_ff @(posedge clk) if (beat_valid) asm_q <= insn_next[127:B*8];
      assign insn_next = {beat_data, asm_q};
    end else begin : g_beat
      assign insn_next = beat_data;
    end
  endgenerate
  wire insn_done = beat_valid && (32'(sub) == NI - 1);

  // Dispatch: the module of the instruction at the read pointer.
  wire [127:0] cur = buffer[FA'(rd)];
  wire [2:0] opcode = cur[vta_pkg::MEM_OPCODE_LSB+:3];
  wire [2:0] mem = cur[vta_pkg::MEM_MEMORY_TYPE_LSB+:3];
  logic [1:0] target;
  always_comb begin
    target = 2'd1;
    if (32'(opcode) == vta_pkg::OPCODE_STORE) target = 2'd2;
    else if (32'(opcode) == vta_pkg::OPCODE_LOAD && (32'(mem) == vta_pkg::MEM_ID_INP || 32'(mem) == vta_pkg::MEM_ID_WGT))
      target = 2'd0;
  end
  wire can = state == DISP && room[target];
  assign push = can ? (3'b001 << target) : 3'b000;
  assign push_data = {next_idx, cur};
  assign wait_mem = state == PREP || state == REQ || state == DATA;
  assign wait_queue = state == DISP && !room[target];
  assign fetched = next_idx;

  always_ff @(posedge clk) begin
    if (clear) begin
      state <= IDLE;
    end else if (start) begin
      count <= insn_count;
      next_idx <= '0;
      addr <= insn_addr;
      // max(1, max_burst * B / 16)
      chunk_max <= ((32'(max_burst) << LB) >> 4) == 0 ? 32'd1 : ((32'(max_burst) << LB) >> 4);
      state <= insn_count == 0 ? IDLE : PREP;
    end else begin
      case (state)
        PREP: begin
          chunk <= remaining < chunk_max ? remaining : chunk_max;
          left <= ((remaining < chunk_max ? remaining : chunk_max) << 4) >> LB;
          written <= '0;
          rd <= '0;
          sub <= '0;
          state <= REQ;
        end
        REQ:
          if (grant) begin
            addr <= addr + (64'(burst) << LB);
            left <= left - burst;
            if (left == burst) state <= DATA;
          end
        DISP:
          if (can) begin
            rd <= rd + 1;
            next_idx <= next_idx + 1;
            if (rd == chunk - 1) state <= (next_idx + 1 == count) ? IDLE : PREP;
          end
        default: ;
      endcase
      if ((state == REQ || state == DATA) && beat_valid) begin
        if (insn_done) begin
          sub <= '0;
          buffer[FA'(written)] <= insn_next;
          written <= written + 1;
          if (written == chunk - 1) state <= DISP;
        end else sub <= sub + 1'b1;
      end
    end
  end
endmodule
