// The DMA engine of one LOAD target buffer (docs/timing.md rules 9, 11):
// after the issue cycle, ceil(pads / 1) cycles of zero-fill writes (one pad
// element a cycle), then one cycle to form the request, then the rows' bursts
// (each row split into bursts of at most max_burst beats) are offered to the
// read arbiter while their beats are assembled into elements and written.
// E: DRAM bytes per element, B: bytes per beat (both powers of two). When
// E >= B an element takes E/B beats; otherwise a beat carries K = B/E
// elements, written in one cycle through K write lanes.
module vta_dma_load #(
    parameter int E = 16,
    parameter int B = 8,
    parameter int AW = 16  // SRAM element address bits
) (
    input  logic                  clk,
    input  logic                  clear,
    input  logic                  start,  // the issue cycle of a LOAD with x_size > 0
    input  logic [15:0]           sram_base,
    input  logic [31:0]           dram_base,
    input  logic [15:0]           y_size,
    input  logic [15:0]           x_size,
    input  logic [15:0]           x_stride,
    input  logic [3:0]            y_pad0,
    input  logic [3:0]            y_pad1,
    input  logic [3:0]            x_pad0,
    input  logic [3:0]            x_pad1,
    input  logic [12:0]           max_burst,
    // read client
    output logic                  req_valid,
    output logic [63:0]           req_addr,
    output logic [12:0]           req_beats,
    input  logic                  grant,
    input  logic                  beat_valid,
    input  logic [B*8-1:0]        beat_data,
    // buffer writes: lane j writes element wr_addr + j
    output logic [K-1:0]          wr_en,
    output logic [AW-1:0]         wr_addr,
    output logic [K*E*8-1:0]      wr_data,
    output logic                  busy,
    output logic                  retire
);
  localparam int K = E >= B ? 1 : B / E;
  localparam int NB = E >= B ? E / B : 1;  // beats per element
  localparam int LOG_E = $clog2(E);
  localparam int WD = K * E * 8;

  typedef enum logic [2:0] {IDLE, PAD, PREP, REQ, DATA} state_t;
  state_t state;

  // Instruction fields, held for the whole instruction.
  logic [31:0] xs, ys, xt, xp0, xp1, yp1, stride_bytes;
  logic [63:0] dram_row0;
  logic [31:0] row_beats;

  // Zero-fill: phase 0 = rows above (yp0*xt contiguous), 1 = left/right pads
  // of each data row, 2 = rows below (yp1*xt contiguous).
  logic [1:0]  pph;
  logic [31:0] prun, pk, prow, prow_start, paddr, bot_start, bot_count;
  logic        has_sides, has_bot;

  // Requests.
  logic [63:0] r_row_addr, r_addr;
  logic [31:0] r_left, r_row;

  // Data.
  logic [31:0] d_ptr, d_row_start, d_col, d_row;
  logic [LOG_E+3:0] d_sub;  // beats of the current element received
  // The element so far: earlier beats of it, shifted in from the top.
  logic [WD-1:0] asm_next;
  generate
    if (NB > 1) begin : g_asm
      logic [E*8-B*8-1:0] asm_q;
      always_ff @(posedge clk) if (beat_valid) asm_q <= asm_next[E*8-1:B*8];
      assign asm_next = {beat_data, asm_q};
    end else begin : g_no_asm
      assign asm_next = WD'(beat_data);
    end
  endgenerate

  wire [31:0] xs_in = 32'(x_size), xt_in = 32'(x_pad0) + 32'(x_size) + 32'(x_pad1);
  wire [31:0] top_count_in = 32'(y_pad0) * xt_in;
  wire        sides_in = (x_pad0 != 0 || x_pad1 != 0) && y_size != 0;
  wire [31:0] bytes_in = xs_in << LOG_E;
  wire [31:0] row_beats_in = (bytes_in + 32'(B - 1)) / 32'(B);

  // Where the zero-fill goes after the current phase ends.
  logic last_pad, pad_done_to_prep;
  wire [31:0] side_addr = prow_start + ((pk < xp0) ? pk : xs + pk);

  always_comb begin
    last_pad = 1'b0;
    case (pph)
      2'd0: last_pad = prun == 1 && !has_sides && !has_bot;
      2'd1: last_pad = pk == xp0 + xp1 - 1 && prow == ys - 1 && !has_bot;
      default: last_pad = prun == 1;
    endcase
    pad_done_to_prep = last_pad && ys != 0;
  end

  wire [31:0] burst = (r_left < 32'(max_burst)) ? r_left : 32'(max_burst);
  assign req_valid = state == REQ;
  assign req_addr = r_addr;
  assign req_beats = 13'(burst);

  // Buffer writes: zero-fill in PAD, beats otherwise.
  wire elem_done = beat_valid && (32'(d_sub) == NB - 1);
  wire last_row = d_row == ys - 1;
  logic [K-1:0] data_lanes;
  logic [31:0] lanes_left;
  always_comb begin
    lanes_left = xs - d_col;
    for (int j = 0; j < K; j++) data_lanes[j] = 32'(j) < lanes_left;
  end
  wire row_end = (K == 1) ? (d_col == xs - 1) : (d_col + K >= xs);

  always_comb begin
    wr_en = '0;
    wr_addr = AW'(paddr);
    wr_data = '0;
    if (state == PAD) begin
      wr_en[0] = 1'b1;
      wr_addr = AW'(pph == 2'd1 ? side_addr : paddr);
    end else if (elem_done) begin
      wr_en = (K == 1) ? K'(1) : data_lanes;
      wr_addr = AW'(d_ptr);
      wr_data = asm_next;
    end
  end

  assign busy = state != IDLE;
  assign retire = (state == PAD && last_pad && ys == 0) || (elem_done && last_row && row_end && state != PAD && state != IDLE);

  always_ff @(posedge clk) begin
    if (clear) begin
      state <= IDLE;
    end else begin
      case (state)
        IDLE:
          if (start) begin
            xs <= xs_in;
            ys <= 32'(y_size);
            xt <= xt_in;
            xp0 <= 32'(x_pad0);
            xp1 <= 32'(x_pad1);
            yp1 <= 32'(y_pad1);
            stride_bytes <= 32'(x_stride) << LOG_E;
            dram_row0 <= 64'(dram_base) << LOG_E;
            row_beats <= row_beats_in;
            has_sides <= sides_in;
            has_bot <= y_pad1 != 0;
            bot_start <= 32'(sram_base) + (32'(y_pad0) + 32'(y_size)) * xt_in;
            bot_count <= 32'(y_pad1) * xt_in;
            prow_start <= 32'(sram_base) + top_count_in;
            prow <= '0;
            pk <= '0;
            d_ptr <= 32'(sram_base) + top_count_in + 32'(x_pad0);
            d_row_start <= 32'(sram_base) + top_count_in + 32'(x_pad0);
            d_col <= '0;
            d_row <= '0;
            d_sub <= '0;
            if (y_pad0 != 0) begin
              state <= PAD;
              pph <= 2'd0;
              prun <= top_count_in;
              paddr <= 32'(sram_base);
            end else if (sides_in) begin
              state <= PAD;
              pph <= 2'd1;
            end else if (y_pad1 != 0) begin
              state <= PAD;
              pph <= 2'd2;
              prun <= 32'(y_pad1) * xt_in;
              paddr <= 32'(sram_base) + 32'(y_size) * xt_in;
            end else begin
              state <= PREP;
            end
          end
        PAD: begin
          case (pph)
            2'd0: begin
              prun <= prun - 1;
              paddr <= paddr + 1;
              if (prun == 1) begin
                if (has_sides) pph <= 2'd1;
                else begin
                  pph <= 2'd2;
                  prun <= bot_count;
                  paddr <= bot_start;
                end
              end
            end
            2'd1: begin
              if (pk == xp0 + xp1 - 1) begin
                pk <= '0;
                prow <= prow + 1;
                prow_start <= prow_start + xt;
                if (prow == ys - 1) begin
                  pph <= 2'd2;
                  prun <= bot_count;
                  paddr <= bot_start;
                end
              end else pk <= pk + 1;
            end
            default: begin
              prun <= prun - 1;
              paddr <= paddr + 1;
            end
          endcase
          if (last_pad) state <= pad_done_to_prep ? PREP : IDLE;
        end
        PREP: begin
          r_row_addr <= dram_row0;
          r_addr <= dram_row0;
          r_left <= row_beats;
          r_row <= '0;
          state <= REQ;
        end
        REQ:
          if (grant) begin
            if (r_left == burst) begin
              if (r_row == ys - 1) state <= DATA;
              r_row <= r_row + 1;
              r_row_addr <= r_row_addr + 64'(stride_bytes);
              r_addr <= r_row_addr + 64'(stride_bytes);
              r_left <= row_beats;
            end else begin
              r_addr <= r_addr + (64'(burst) * B);
              r_left <= r_left - burst;
            end
          end
        default: ;
      endcase
      // Beats may arrive while later bursts still wait for their grant.
      if ((state == REQ || state == DATA) && beat_valid) begin
        if (elem_done) begin
          d_sub <= '0;
          if (row_end) begin
            d_col <= '0;
            d_row <= d_row + 1;
            d_row_start <= d_row_start + xt;
            d_ptr <= d_row_start + xt;
            if (last_row) state <= IDLE;
          end else begin
            d_col <= d_col + K;
            d_ptr <= d_ptr + K;
          end
        end else d_sub <= d_sub + 1'b1;
      end
    end
  end

  logic unused;
  assign unused = ^{yp1};
endmodule
