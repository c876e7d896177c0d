// A command queue from fetch to one module: DEPTH entries of W bits, of which
// the run uses `limit` (1..DEPTH). A push is accepted when the queue holds
// fewer than `limit` entries or the head leaves in the same cycle; the head
// is read combinationally.
module vta_cmd_queue #(
    parameter int W = 160,
    parameter int DEPTH = 8
) (
    input  logic         clk,
    input  logic         clear,
    input  logic [16:0]  limit,
    input  logic         push,
    input  logic [W-1:0] push_data,
    output logic         room,
    input  logic         pop,
    output logic         head_valid,
    output logic [W-1:0] head
);
  localparam int AW = DEPTH > 1 ? $clog2(DEPTH) : 1;
  logic [W-1:0] q[DEPTH];
  logic [AW-1:0] rd, wr;
  logic [16:0] count;

  assign head_valid = count != 0;
  assign head = q[rd];
  assign room = (count < limit) || pop;

  function automatic logic [AW-1:0] next_ptr(input logic [AW-1:0] p);
    next_ptr = (32'(p) == DEPTH - 1) ? '0 : p + 1'b1;
  endfunction

  always_ff @(posedge clk) begin
    if (clear) begin
      rd <= '0;
      wr <= '0;
      count <= '0;
    end else begin
      if (push) begin
        q[wr] <= push_data;
        wr <= next_ptr(wr);
      end
      if (pop) rd <= next_ptr(rd);
      count <= count + 17'(push) - 17'(pop);
    end
  end
endmodule
