// The store module's datapath (docs/timing.md rule 10): one issue cycle, one
// cycle to read the first OUT element, then the rows' beats back to back on
// the write channel (each row split into bursts of at most max_burst beats),
// and completion with the last burst's acknowledgement. E: DRAM bytes per OUT
// element, B: bytes per beat, E >= B (checked below).
module vta_store #(
    parameter int E = 16,
    parameter int B = 8,
    parameter int AW = 11
) (
    input  logic           clk,
    input  logic           clear,
    input  logic           start,  // issue cycle of a STORE with x_size, y_size > 0
    input  logic [15:0]    sram_base,
    input  logic [31:0]    dram_base,
    input  logic [15:0]    y_size,
    input  logic [15:0]    x_size,
    input  logic [15:0]    x_stride,
    input  logic [12:0]    max_burst,
    // OUT buffer read port
    output logic           out_re,
    output logic [AW-1:0]  out_addr,
    input  logic [E*8-1:0] out_data,
    // write channel
    output logic           awvalid,
    output logic [63:0]    awaddr,
    output logic [12:0]    awbeats,
    output logic           wvalid,
    output logic [B*8-1:0] wdata,
    output logic           wlast,
    input  logic           bvalid,
    output logic           busy,
    output logic           retire
);
  // A beat carrying several OUT elements would need several OUT reads per
  // cycle to keep the beats back to back (docs/timing.md rule 10); this
  // datapath reads one element per cycle, so it refuses such a design when
  // it is elaborated (verilated or synthesized) instead of driving x.
  if (E < B) begin : g_out_narrower_than_beat
    $error("vta_store: the OUT element (gemm.batch x gemm.block_out x dtype.out_bits / 8 bytes) is narrower than a bus beat (memory.bus_bits / 8 bytes); this RTL stores one element per beat or more: widen the element or narrow the bus");
  end
  localparam int NB = E / B;  // beats per element
  localparam int LOG_E = $clog2(E);
  localparam int LB = $clog2(B);

  typedef enum logic [1:0] {IDLE, PREP, BEAT, ACK} state_t;
  state_t state;

  logic [31:0] ptr, row_beats, row_left, rows_left, b_left, stride_bytes;
  // Bursts sent and not yet acknowledged (sent - acks, modulo 2^32).
  logic [31:0] pend;
  logic [63:0] w_addr, w_row;
  logic [31:0] sub;

  wire [31:0] new_burst = (row_left < 32'(max_burst)) ? row_left : 32'(max_burst);
  wire        first = b_left == 0;
  wire        last_beat_row = row_left == 1;
  wire        last_beat = last_beat_row && rows_left == 1;

  assign wvalid = state == BEAT;
  assign wdata = out_data[sub[$clog2(NB+1)-1:0]*B*8+:B*8];
  assign awvalid = state == BEAT && first;
  assign awaddr = w_addr;
  assign awbeats = 13'(new_burst);
  // new_burst == 1 without the comparison of the minimum: min(a, b) == 1
  // exactly when one is 1 and the other is not 0 (a cut of the retire path).
  wire        burst_of_one = (row_left == 1 && max_burst != 0) || (max_burst == 1 && row_left != 0);
  assign wlast = state == BEAT && (first ? burst_of_one : b_left == 1);

  // The next element is read in the cycle of the current one's last beat.
  assign out_re = state == PREP || (state == BEAT && sub == NB - 1 && !last_beat);
  assign out_addr = AW'(ptr);

  // Every burst acknowledged once this cycle's are counted: pend + wlast -
  // bvalid == 0, from pend's comparisons with constants (early) and a mux
  // by the late wlast and bvalid, not an adder and a 32-bit comparison.
  wire all_acked = wlast == bvalid ? pend == 0 : wlast ? pend == '1 : pend == 1;
  assign busy = state != IDLE;
  assign retire = ((state == BEAT && last_beat) || state == ACK) && all_acked;

  always_ff @(posedge clk) begin
    if (clear) begin
      state <= IDLE;
    end else begin
      pend <= pend + 32'(wlast) - 32'(bvalid);
      case (state)
        IDLE:
          if (start) begin
            ptr <= 32'(sram_base);
            row_beats <= (32'(x_size) << LOG_E) >> LB;
            row_left <= (32'(x_size) << LOG_E) >> LB;
            rows_left <= 32'(y_size);
            stride_bytes <= 32'(x_stride) << LOG_E;
            w_addr <= 64'(dram_base) << LOG_E;
            w_row <= 64'(dram_base) << LOG_E;
            b_left <= '0;
            sub <= '0;
            pend <= '0;
            state <= PREP;
          end
        PREP: begin
          ptr <= ptr + 1;
          state <= BEAT;
        end
        BEAT: begin
          b_left <= first ? new_burst - 1 : b_left - 1;
          if (sub == NB - 1) begin
            sub <= '0;
            ptr <= ptr + 1;
          end else sub <= sub + 1;
          if (last_beat_row) begin
            rows_left <= rows_left - 1;
            w_row <= w_row + 64'(stride_bytes);
            w_addr <= w_row + 64'(stride_bytes);
            row_left <= row_beats;
            b_left <= '0;
          end else begin
            w_addr <= w_addr + 64'(B);
            row_left <= row_left - 1;
          end
          if (last_beat) state <= retire ? IDLE : ACK;
        end
        ACK: if (retire) state <= IDLE;
        default: ;
      endcase
    end
  end
endmodule
