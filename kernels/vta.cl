// vta.cl: the VTA accelerator as one OpenCL kernel that executes a whole
// instruction stream with the golden model's semantics (docs/design.md, "The ISA
// contract"; model/src/datapath.cpp is the reference).
//
// Every size and bit offset comes from the generated defines (VTA_*), which
// the host prepends (vta::isa::generate_opencl_defines); nothing here is
// written for one config. The host also defines
//   VTA_VARIANT_WORKGROUP  0: one work-item (FPGA high-level-synthesis style)
//                          1: one work-group spreads the MAC array, the ALU
//                          lanes and the loop iterations (GPU style)
//   VTA_SRAM_ONCHIP        1: the single variant keeps the on-chip buffers in
//                          private fixed-size arrays (BRAM on an FPGA), loaded
//                          from and saved to the global state buffers per launch
//   VTA_WG_STAGE           N > 0: the work-group variant stages a GEMM's uops
//                          in local memory when it has at most N
//   VTA_DEFINES_HASH       hash of the defines text (reported by vta_info, so
//                          that an offline binary is checked against the config)
//
// Dependency tokens only order the three modules; the order is data
// independent, so the host computes it with the golden model's rule and
// passes it (`order`). Bounds that depend on data (uop indices) are checked
// here before an instruction touches any state: a violation writes an error
// record to `status` and stops the stream, never an out-of-range access.
//
// FPGA style: no recursion, no dynamic allocation, bounded loops, unroll
// pragmas on the MAC array and the ALU lanes.

// Element widths (docs/design.md, "Data types"): VTA_INP_WIDTH, VTA_WGT_WIDTH
// and VTA_OUT_WIDTH 4, 8 or 16, VTA_ACC_WIDTH 16 or 32. DRAM holds values
// packed LSB first (two 4-bit values a byte, low nibble first); the on-chip
// buffers hold one value per lane, sign-extended: INP, WGT and OUT in char
// (4 and 8 bits) or short (16), ACC in int. The host reads them with the
// same storage sizes (opencl_backend.cpp, sram_sizes).
#if (VTA_INP_WIDTH != 4 && VTA_INP_WIDTH != 8 && VTA_INP_WIDTH != 16) || \
    (VTA_WGT_WIDTH != 4 && VTA_WGT_WIDTH != 8 && VTA_WGT_WIDTH != 16) || \
    (VTA_OUT_WIDTH != 4 && VTA_OUT_WIDTH != 8 && VTA_OUT_WIDTH != 16) || (VTA_ACC_WIDTH != 16 && VTA_ACC_WIDTH != 32)
#error "vta.cl builds dtype.inp_bits, wgt_bits and out_bits of 4, 8 or 16 and dtype.acc_bits of 16 or 32"
#endif
#ifndef VTA_VARIANT_WORKGROUP
#define VTA_VARIANT_WORKGROUP 0
#endif
#ifndef VTA_SRAM_ONCHIP
#define VTA_SRAM_ONCHIP 0
#endif
#ifndef VTA_WG_STAGE
#define VTA_WG_STAGE 0
#endif
#ifndef VTA_DEFINES_HASH
#define VTA_DEFINES_HASH 0u
#endif
#if VTA_VARIANT_WORKGROUP && VTA_SRAM_ONCHIP
#error "the work-group variant keeps SRAM in global memory"
#endif
#if VTA_VARIANT_WORKGROUP && VTA_UOP_BUFF_DEPTH * VTA_BATCH * VTA_BLOCK_OUT >= 4294967296 / 1024
#error "the work-group variant counts (uop, lane) pairs in 32 bits: this uop buffer is too deep for it"
#endif

// Accumulator lanes per ACC element (= OUT values per element), values per
// INP and WGT element.
#define VTA_LANES (VTA_BATCH * VTA_BLOCK_OUT)
#define VTA_INP_VALUES (VTA_BATCH * VTA_BLOCK_IN)
#define VTA_WGT_VALUES (VTA_BLOCK_OUT * VTA_BLOCK_IN)

// On-chip storage of one value (see the widths above).
#if VTA_INP_WIDTH > 8
typedef short inp_t;
#else
typedef char inp_t;
#endif
#if VTA_WGT_WIDTH > 8
typedef short wgt_t;
#else
typedef char wgt_t;
#endif
#if VTA_OUT_WIDTH > 8
typedef short out_t;
#else
typedef char out_t;
#endif

// v reduced modulo 2^bits and sign-extended (isa::wrap_bits; bits 1..32).
#define WRAP_BITS(v, bits) (as_int(as_uint(v) << (32 - (bits))) >> (32 - (bits)))
// An accumulator write keeps VTA_ACC_WIDTH bits; OUT the low VTA_OUT_WIDTH.
#if VTA_ACC_WIDTH == 32
#define ACC_WRAP(v) (v)
#else
#define ACC_WRAP(v) WRAP_BITS(v, VTA_ACC_WIDTH)
#endif
#if VTA_OUT_WIDTH == 4
#define OUT_OF(v) ((out_t)WRAP_BITS(v, 4))
#else
#define OUT_OF(v) ((out_t)(v))
#endif

// Error codes written to status[0] (the host maps them to messages).
#define VTA_ERR_NONE 0u
#define VTA_ERR_UOP_BOUNDS 1u   // data-dependent: a uop index reaches past a buffer
#define VTA_ERR_UOP_END 2u      // uop_end past the uop buffer (the host checks it first)
#define VTA_ERR_SRAM_RANGE 3u   // LOAD/STORE SRAM range (the host checks it first)
#define VTA_ERR_DRAM_RANGE 4u   // LOAD/STORE outside the DRAM mirror (the host checks it first)
#define VTA_ERR_BAD_INSN 5u     // opcode / memory type (fetch checks it first)

#define STR_(x) #x
#define PRAGMA_(x) _Pragma(STR_(x))
// Full unroll of the MAC array where it stays a reasonable size to compile.
#if VTA_BLOCK_IN * VTA_BLOCK_OUT <= 4096
#define UNROLL_MAC PRAGMA_(unroll)
#else
#define UNROLL_MAC PRAGMA_(unroll 16)
#endif
#define UNROLL_LANES PRAGMA_(unroll)

// Field access on a 128-bit instruction held as two 64-bit words
// (word 1 starts at bit 64; no field crosses it).
#define FIELD(w, F) \
  ((uint)(((w)[(VTA_##F##_LSB) >> 6] >> ((VTA_##F##_LSB) & 63)) & ((1UL << (VTA_##F##_WIDTH)) - 1UL)))
#define UOP_FIELD(word, F) (((word) >> VTA_UOP_##F##_LSB) & (uint)((1UL << VTA_UOP_##F##_WIDTH) - 1UL))

#if VTA_SRAM_ONCHIP
#define SRAM __private
#else
#define SRAM __global
#endif

#if VTA_VARIANT_WORKGROUP
#define LID ((uint)get_local_id(0))
#define NLOC ((uint)get_local_size(0))
#define SYNC() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#else
#define LID 0u
#define NLOC 1u
#define SYNC()
#endif

// Where the on-chip buffers live for this launch.
typedef struct {
  SRAM uint* uop;
  SRAM inp_t* inp;
  SRAM wgt_t* wgt;
  SRAM int* acc;
  SRAM out_t* out;
} Sram;

// Value i of the packed row at p, `bits` wide, sign-extended (a constant
// width folds to one branch).
static inline int dram_value(__global const uchar* p, ulong i, const int bits) {
  if (bits == 4) return (int)(((p[i >> 1] >> ((i & 1) << 2)) & 15u) ^ 8u) - 8;
  if (bits == 8) return (char)p[i];
  if (bits == 16) return (short)(ushort)(p[2 * i] | ((uint)p[2 * i + 1] << 8));
  return *(__global const int*)(p + 4 * i);  // 32: ACC elements are 4-byte aligned in the mirror
}

// Byte b of a packed OUT element whose values start at o.
static inline uchar out_byte(SRAM const out_t* o, ulong b) {
#if VTA_OUT_WIDTH == 4
  return (uchar)(((uint)o[2 * b] & 15u) | (((uint)o[2 * b + 1] & 15u) << 4));
#elif VTA_OUT_WIDTH == 8
  return (uchar)o[b];
#else
  return (uchar)((uint)(ushort)o[b >> 1] >> ((b & 1) << 3));
#endif
}

// model::alu_apply: each op's c_expr of isa/include/vta/isa/opcodes.def,
// through the generated VTA_ALU_CASES.
static inline int alu_apply(uint op, int a, int b) {
  switch (op) {
    VTA_ALU_CASES(a, b)
  }
  return a;
}

// ---------------------------------------------------------------------------
// GEMM / ALU loop bounds: every uop's last index must stay in its buffer
// (indices grow with the loop counters). Returns an error code, 0 when fine;
// `bad_uop` names the first offending uop.
// ---------------------------------------------------------------------------
uint check_uops(const ulong* w, int is_gemm, SRAM const uint* uop, uint* bad_uop) {
  const uint bgn = is_gemm ? FIELD(w, GEM_UOP_BGN) : FIELD(w, ALU_UOP_BGN);
  const uint end = is_gemm ? FIELD(w, GEM_UOP_END) : FIELD(w, ALU_UOP_END);
  const uint io = is_gemm ? FIELD(w, GEM_ITER_OUT) : FIELD(w, ALU_ITER_OUT);
  const uint ii = is_gemm ? FIELD(w, GEM_ITER_IN) : FIELD(w, ALU_ITER_IN);
  if (bgn >= end || io == 0 || ii == 0) return VTA_ERR_NONE;
  if (end > VTA_UOP_BUFF_DEPTH) return VTA_ERR_UOP_END;
  ulong dmax, smax, wmax = 0;
  if (is_gemm) {
    dmax = (ulong)(io - 1) * FIELD(w, GEM_DST_FACTOR_OUT) + (ulong)(ii - 1) * FIELD(w, GEM_DST_FACTOR_IN);
    smax = (ulong)(io - 1) * FIELD(w, GEM_SRC_FACTOR_OUT) + (ulong)(ii - 1) * FIELD(w, GEM_SRC_FACTOR_IN);
    wmax = (ulong)(io - 1) * FIELD(w, GEM_WGT_FACTOR_OUT) + (ulong)(ii - 1) * FIELD(w, GEM_WGT_FACTOR_IN);
  } else {
    dmax = (ulong)(io - 1) * FIELD(w, ALU_DST_FACTOR_OUT) + (ulong)(ii - 1) * FIELD(w, ALU_DST_FACTOR_IN);
    smax = (ulong)(io - 1) * FIELD(w, ALU_SRC_FACTOR_OUT) + (ulong)(ii - 1) * FIELD(w, ALU_SRC_FACTOR_IN);
  }
  const ulong src_depth = is_gemm ? VTA_INP_BUFF_DEPTH : VTA_ACC_BUFF_DEPTH;
  for (uint u = bgn; u < end; ++u) {
    const uint word = uop[u];
    if (UOP_FIELD(word, DST) + dmax >= VTA_ACC_BUFF_DEPTH || UOP_FIELD(word, SRC) + smax >= src_depth ||
        (is_gemm && UOP_FIELD(word, WGT) + wmax >= VTA_WGT_BUFF_DEPTH)) {
      *bad_uop = u;
      return VTA_ERR_UOP_BOUNDS;
    }
  }
  return VTA_ERR_NONE;
}

// ---------------------------------------------------------------------------
// LOAD: rows of x_size elements from DRAM (x_stride apart) into consecutive
// SRAM elements from sram_base, with zero padding on each side. Elements are
// copied in units: UOP 1 word, INP/WGT/ACC/ACC_8BIT one value each, unpacked
// from its width and sign-extended (ACC_8BIT: OUT-width values into ACC).
// Work-items share the units of the whole padded tile.
// ---------------------------------------------------------------------------
uint load(const ulong* w, __global const uchar* dram, ulong dram_lo, ulong dram_bytes, Sram s) {
  const uint mem = FIELD(w, MEM_MEMORY_TYPE);
  const ulong y = FIELD(w, MEM_Y_SIZE), x = FIELD(w, MEM_X_SIZE), stride = FIELD(w, MEM_X_STRIDE);
  if (x == 0) return VTA_ERR_NONE;  // dependency-only
  const ulong yp0 = FIELD(w, MEM_Y_PAD_0), yp1 = FIELD(w, MEM_Y_PAD_1);
  const ulong xp0 = FIELD(w, MEM_X_PAD_0), xp1 = FIELD(w, MEM_X_PAD_1);
  const ulong xt = xp0 + x + xp1, yt = yp0 + y + yp1;
  const ulong sram_base = FIELD(w, MEM_SRAM_BASE), dram_base = FIELD(w, MEM_DRAM_BASE);
  ulong depth, elem, units;  // SRAM elements, DRAM bytes per element, copy units per element
  switch (mem) {
    case VTA_MEM_ID_UOP: depth = VTA_UOP_BUFF_DEPTH, elem = VTA_UOP_ELEM_BYTES, units = 1; break;
    case VTA_MEM_ID_INP: depth = VTA_INP_BUFF_DEPTH, elem = VTA_INP_ELEM_BYTES, units = VTA_INP_VALUES; break;
    case VTA_MEM_ID_WGT: depth = VTA_WGT_BUFF_DEPTH, elem = VTA_WGT_ELEM_BYTES, units = VTA_WGT_VALUES; break;
    case VTA_MEM_ID_ACC: depth = VTA_ACC_BUFF_DEPTH, elem = VTA_ACC_ELEM_BYTES, units = VTA_LANES; break;
#if VTA_ACC_8BIT_ENABLED
    case VTA_MEM_ID_ACC_8BIT: depth = VTA_ACC_BUFF_DEPTH, elem = VTA_OUT_ELEM_BYTES, units = VTA_LANES; break;
#endif
    default: return VTA_ERR_BAD_INSN;
  }
  if (sram_base + yt * xt > depth) return VTA_ERR_SRAM_RANGE;
  if (y > 0) {  // first and last row inside the mirror (the host checked every row)
    const ulong first = dram_base * elem, last = (dram_base + (y - 1) * stride + x) * elem;
    if (first < dram_lo || last - dram_lo > dram_bytes) return VTA_ERR_DRAM_RANGE;
  }
  const ulong total = yt * xt * units;
  for (ulong t0 = 0; t0 < total; t0 += NLOC) {
    const ulong t = t0 + LID;
    if (t >= total) continue;  // same trip count on every work-item
    const ulong e = t / units, part = t - e * units;  // element of the tile, unit in it
    const ulong row = e / xt, col = e - row * xt;
    const int pad = row < yp0 || row >= yp0 + y || col < xp0 || col >= xp0 + x;
    const ulong src = pad ? 0 : (dram_base + (row - yp0) * stride + (col - xp0)) * elem - dram_lo;
    const ulong at = sram_base + e;
    switch (mem) {
      case VTA_MEM_ID_UOP: s.uop[at] = pad ? 0u : *(__global const uint*)(dram + src); break;
      case VTA_MEM_ID_INP:
        s.inp[at * VTA_INP_VALUES + part] = pad ? 0 : (inp_t)dram_value(dram + src, part, VTA_INP_WIDTH);
        break;
      case VTA_MEM_ID_WGT:
        s.wgt[at * VTA_WGT_VALUES + part] = pad ? 0 : (wgt_t)dram_value(dram + src, part, VTA_WGT_WIDTH);
        break;
      case VTA_MEM_ID_ACC: s.acc[at * VTA_LANES + part] = pad ? 0 : dram_value(dram + src, part, VTA_ACC_WIDTH); break;
      default:  // ACC_8BIT: OUT-width values sign-extended into the accumulator
        s.acc[at * VTA_LANES + part] = pad ? 0 : dram_value(dram + src, part, VTA_OUT_WIDTH);
        break;
    }
  }
  return VTA_ERR_NONE;
}

// STORE: y_size rows of x_size OUT elements from sram_base to DRAM rows,
// packed at VTA_OUT_WIDTH; work-items share the bytes.
uint store(const ulong* w, __global uchar* dram, ulong dram_lo, ulong dram_bytes, Sram s) {
  const ulong y = FIELD(w, MEM_Y_SIZE), x = FIELD(w, MEM_X_SIZE), stride = FIELD(w, MEM_X_STRIDE);
  if (x == 0) return VTA_ERR_NONE;
  const ulong sram_base = FIELD(w, MEM_SRAM_BASE), dram_base = FIELD(w, MEM_DRAM_BASE);
  if (sram_base + y * x > VTA_OUT_BUFF_DEPTH) return VTA_ERR_SRAM_RANGE;
  if (y > 0) {
    const ulong first = dram_base * VTA_OUT_ELEM_BYTES, last = (dram_base + (y - 1) * stride + x) * VTA_OUT_ELEM_BYTES;
    if (first < dram_lo || last - dram_lo > dram_bytes) return VTA_ERR_DRAM_RANGE;
  }
  const ulong total = y * x * VTA_OUT_ELEM_BYTES;
  for (ulong t0 = 0; t0 < total; t0 += NLOC) {
    const ulong t = t0 + LID;
    if (t >= total) continue;  // same trip count on every work-item
    const ulong e = t / VTA_OUT_ELEM_BYTES, part = t - e * VTA_OUT_ELEM_BYTES;
    const ulong row = e / x, col = e - row * x;
    const ulong dst = (dram_base + row * stride + col) * VTA_OUT_ELEM_BYTES - dram_lo;
    dram[dst + part] = out_byte(s.out + (sram_base + e) * VTA_LANES, part);
  }
  return VTA_ERR_NONE;
}

// ---------------------------------------------------------------------------
// GEMM: for each (i, j, uop): acc[dst] += inp[src] . wgt[wgt]^T (wrap-around
// at VTA_ACC_WIDTH), or zero with reset; every write also sets OUT to the low
// VTA_OUT_WIDTH bits. Products are exact (16 x 16 bits fit an int); sums run
// modulo 2^32 in uint and wrap to the accumulator's width once at the end
// (the reduction modulo 2^acc_bits is a ring homomorphism).
// ---------------------------------------------------------------------------
#if !VTA_VARIANT_WORKGROUP
// One work-item: the loop nest as the hardware runs it, the MAC array unrolled.
void gemm(const ulong* w, Sram s) {
  const uint reset = FIELD(w, GEM_RESET);
  const uint bgn = FIELD(w, GEM_UOP_BGN), end = FIELD(w, GEM_UOP_END);
  const uint io = FIELD(w, GEM_ITER_OUT), ii = FIELD(w, GEM_ITER_IN);
  const uint dfo = FIELD(w, GEM_DST_FACTOR_OUT), dfi = FIELD(w, GEM_DST_FACTOR_IN);
  const uint sfo = FIELD(w, GEM_SRC_FACTOR_OUT), sfi = FIELD(w, GEM_SRC_FACTOR_IN);
  const uint wfo = FIELD(w, GEM_WGT_FACTOR_OUT), wfi = FIELD(w, GEM_WGT_FACTOR_IN);
  for (uint i = 0; i < io; ++i) {
    for (uint j = 0; j < ii; ++j) {
      for (uint u = bgn; u < end; ++u) {
        const uint word = s.uop[u];
        const uint dst = UOP_FIELD(word, DST) + i * dfo + j * dfi;
        SRAM int* acc = s.acc + (size_t)dst * VTA_LANES;
        SRAM out_t* out = s.out + (size_t)dst * VTA_LANES;
        if (reset) {
          for (uint l = 0; l < VTA_LANES; ++l) acc[l] = 0, out[l] = 0;
          continue;
        }
        const uint src = UOP_FIELD(word, SRC) + i * sfo + j * sfi;
        const uint wgt = UOP_FIELD(word, WGT) + i * wfo + j * wfi;
        SRAM const inp_t* x = s.inp + (size_t)src * VTA_INP_VALUES;
        SRAM const wgt_t* wt = s.wgt + (size_t)wgt * VTA_WGT_VALUES;
        // The MAC array: BATCH x BLOCK_OUT dot products of BLOCK_IN pairs.
        for (uint b = 0; b < VTA_BATCH; ++b) {
          UNROLL_MAC
          for (uint o = 0; o < VTA_BLOCK_OUT; ++o) {
            uint sum = 0;
            UNROLL_MAC
            for (uint k = 0; k < VTA_BLOCK_IN; ++k)
              sum += as_uint((int)x[b * VTA_BLOCK_IN + k] * (int)wt[o * VTA_BLOCK_IN + k]);
            const int a = ACC_WRAP(as_int(as_uint(acc[b * VTA_BLOCK_OUT + o]) + sum));
            acc[b * VTA_BLOCK_OUT + o] = a;
            out[b * VTA_BLOCK_OUT + o] = OUT_OF(a);
          }
        }
      }
    }
  }
}
#else
// One dot product of BLOCK_IN pairs, modulo 2^32.
uint dot(__global const inp_t* x, __global const wgt_t* wt) {
#if VTA_BLOCK_IN % 16 == 0
  uint16 v = (uint16)(0);
  for (uint k = 0; k < VTA_BLOCK_IN; k += 16)
    v += as_uint16(convert_int16(vload16(0, x + k)) * convert_int16(vload16(0, wt + k)));
  const uint8 a = v.lo + v.hi;
  const uint4 b = a.lo + a.hi;
  const uint2 c = b.lo + b.hi;
  return c.x + c.y;
#else
  uint sum = 0;
  UNROLL_MAC
  for (uint k = 0; k < VTA_BLOCK_IN; ++k) sum += as_uint((int)x[k] * (int)wt[k]);
  return sum;
#endif
}

// The work-group spreads the MAC array and the loop iterations: work-item t
// takes one accumulator lane of one uop, (u, lane), and a share of the
// (i, j) iterations (all of them when there are more pairs than work-items).
// It sums consecutive iterations that hit the same destination in a
// register and adds each sum with one atomic add: additions modulo 2^32
// commute, so the result equals the sequential loop whatever the order.
// Then every destination written wraps to VTA_ACC_WIDTH (wrapping once at
// the end equals wrapping after every add) and OUT takes its low
// VTA_OUT_WIDTH bits: work-items that share a destination write the same
// values. The instruction's uops are staged in local memory.
void gemm(const ulong* w, Sram s, __local uint* l_uop) {
  const uint reset = FIELD(w, GEM_RESET);
  const uint bgn = FIELD(w, GEM_UOP_BGN), end = FIELD(w, GEM_UOP_END);
  const uint io = FIELD(w, GEM_ITER_OUT), ii = FIELD(w, GEM_ITER_IN);
  const uint dfo = FIELD(w, GEM_DST_FACTOR_OUT), dfi = FIELD(w, GEM_DST_FACTOR_IN);
  const uint sfo = FIELD(w, GEM_SRC_FACTOR_OUT), sfi = FIELD(w, GEM_SRC_FACTOR_IN);
  const uint wfo = FIELD(w, GEM_WGT_FACTOR_OUT), wfi = FIELD(w, GEM_WGT_FACTOR_IN);
  if (bgn >= end || io == 0 || ii == 0) return;
  const uint nu = end - bgn, iters = io * ii, pairs = nu * VTA_LANES;
#if VTA_WG_STAGE
  const int staged = nu <= VTA_WG_STAGE;
  if (staged)
    for (uint t0 = 0; t0 < nu; t0 += NLOC)
      if (t0 + LID < nu) l_uop[t0 + LID] = s.uop[bgn + t0 + LID];
  barrier(CLK_LOCAL_MEM_FENCE);
#else
  const int staged = 0;
#endif
  // Iteration chunks per pair, so that small instructions still fill the work-group.
  const uint chunks = pairs >= NLOC ? 1u : min(NLOC / pairs, iters);
  const uint work = pairs * chunks;
  for (int pass = 0; pass < (reset ? 1 : 2); ++pass) {  // 0: accumulate, 1: OUT
    if (pass == 1) barrier(CLK_GLOBAL_MEM_FENCE);  // every atomic add done
    for (uint t0 = 0; t0 < work; t0 += NLOC) {
      const uint t = t0 + LID;
      if (t >= work) continue;  // same trip count on every work-item
      const uint p = t % pairs, c = t / pairs;
      const uint u = p / VTA_LANES, l = p - u * VTA_LANES;
      const uint b = l / VTA_BLOCK_OUT, o = l - b * VTA_BLOCK_OUT;
#if VTA_WG_STAGE
      const uint word = staged ? l_uop[u] : s.uop[bgn + u];
#else
      const uint word = s.uop[bgn + u];
#endif
      const uint d0 = UOP_FIELD(word, DST), s0 = UOP_FIELD(word, SRC), w0 = UOP_FIELD(word, WGT);
      const uint it_end = (uint)((ulong)iters * (c + 1) / chunks);
      uint last = 0xffffffffu, sum = 0;
      for (uint it = (uint)((ulong)iters * c / chunks); it < it_end; ++it) {
        const uint i = it / ii, j = it - i * ii;
        const uint dst = d0 + i * dfo + j * dfi;
        const size_t at = (size_t)dst * VTA_LANES + l;
        if (reset) {
          s.acc[at] = 0, s.out[at] = 0;
        } else if (pass == 1) {
          if (dst != last) {
            const int a = ACC_WRAP(s.acc[at]);
#if VTA_ACC_WIDTH < 32
            s.acc[at] = a;
#endif
            s.out[at] = OUT_OF(a), last = dst;
          }
        } else {
          const uint src = s0 + i * sfo + j * sfi, wgt = w0 + i * wfo + j * wfi;
          const uint d = dot(s.inp + (size_t)src * VTA_INP_VALUES + b * VTA_BLOCK_IN,
                             s.wgt + (size_t)wgt * VTA_WGT_VALUES + o * VTA_BLOCK_IN);
          if (dst != last) {
            if (last != 0xffffffffu) atomic_add((volatile __global uint*)(s.acc + (size_t)last * VTA_LANES + l), sum);
            last = dst, sum = 0;
          }
          sum += d;
        }
      }
      if (!reset && pass == 0 && last != 0xffffffffu)
        atomic_add((volatile __global uint*)(s.acc + (size_t)last * VTA_LANES + l), sum);
    }
  }
}
#endif

// ALU: for each (i, j, uop): acc[dst] = op(acc[dst], use_imm ? imm : acc[src])
// lane by lane (each lane reads before it writes, so src may equal dst),
// computed at 32 bits on the sign-extended values and wrapped to
// VTA_ACC_WIDTH; OUT takes the low VTA_OUT_WIDTH bits.
#if VTA_VARIANT_WORKGROUP
// One bit per ACC element, in local memory, for the ALU's independence check.
#define VTA_ACC_MARK_WORDS ((VTA_ACC_BUFF_DEPTH + 31) / 32)
#define VTA_WG_ALU_PARALLEL (VTA_ACC_MARK_WORDS <= 2048)
#define ALU_LOCAL_ARGS , __local uint* l_mark, __local uint* l_flag
#else
#define ALU_LOCAL_ARGS
#endif

void alu(const ulong* w, Sram s ALU_LOCAL_ARGS) {
  const uint bgn = FIELD(w, ALU_UOP_BGN), end = FIELD(w, ALU_UOP_END);
  const uint io = FIELD(w, ALU_ITER_OUT), ii = FIELD(w, ALU_ITER_IN);
  const uint dfo = FIELD(w, ALU_DST_FACTOR_OUT), dfi = FIELD(w, ALU_DST_FACTOR_IN);
  const uint sfo = FIELD(w, ALU_SRC_FACTOR_OUT), sfi = FIELD(w, ALU_SRC_FACTOR_IN);
  const uint op = FIELD(w, ALU_ALU_OPCODE), use_imm = FIELD(w, ALU_USE_IMM);
  const int imm = (int)(short)(ushort)FIELD(w, ALU_IMM);
#if VTA_VARIANT_WORKGROUP && VTA_WG_ALU_PARALLEL
  // When no iteration writes what another one reads or writes (every
  // destination distinct, no vector source another's destination), all
  // iterations and lanes run at once; else in order, lanes in parallel.
  if (bgn >= end || io == 0 || ii == 0) return;
  const ulong nu = end - bgn, n = (ulong)io * ii * nu;
  for (uint t0 = 0; t0 < VTA_ACC_MARK_WORDS; t0 += NLOC)
    if (t0 + LID < VTA_ACC_MARK_WORDS) l_mark[t0 + LID] = 0;
  if (LID == 0) l_flag[0] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int pass = 0; pass < (use_imm ? 1 : 2); ++pass) {  // 0: mark destinations, 1: check sources
    for (ulong t0 = 0; t0 < n; t0 += NLOC) {
      const ulong t = t0 + LID;
      if (t >= n) continue;  // same trip count on every work-item
      const ulong it = t / nu;
      const uint u = (uint)(t - it * nu), i = (uint)(it / ii), j = (uint)(it - (ulong)i * ii);
      const uint word = s.uop[bgn + u];
      const uint dst = UOP_FIELD(word, DST) + i * dfo + j * dfi;
      if (pass == 0) {
        const uint bit = 1u << (dst & 31);
        if (atomic_or(&l_mark[dst >> 5], bit) & bit) atomic_or(l_flag, 1u);
      } else {
        const uint src = UOP_FIELD(word, SRC) + i * sfo + j * sfi;
        if (src != dst && (l_mark[src >> 5] & (1u << (src & 31)))) atomic_or(l_flag, 1u);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l_flag[0] == 0) {
    const ulong total = n * VTA_LANES;
    for (ulong t0 = 0; t0 < total; t0 += NLOC) {
      const ulong t = t0 + LID;
      if (t >= total) continue;
      const ulong e = t / VTA_LANES, it = e / nu;
      const uint l = (uint)(t - e * VTA_LANES), u = (uint)(e - it * nu);
      const uint i = (uint)(it / ii), j = (uint)(it - (ulong)i * ii);
      const uint word = s.uop[bgn + u];
      const size_t at = (size_t)(UOP_FIELD(word, DST) + i * dfo + j * dfi) * VTA_LANES + l;
      const int r = ACC_WRAP(
          alu_apply(op, s.acc[at], use_imm ? imm : s.acc[(size_t)(UOP_FIELD(word, SRC) + i * sfo + j * sfi) * VTA_LANES + l]));
      s.acc[at] = r;
      s.out[at] = OUT_OF(r);
    }
    return;
  }
#endif
  for (uint i = 0; i < io; ++i) {
    for (uint j = 0; j < ii; ++j) {
      for (uint u = bgn; u < end; ++u) {
        const uint word = s.uop[u];
        const uint dst = UOP_FIELD(word, DST) + i * dfo + j * dfi;
        const uint src = UOP_FIELD(word, SRC) + i * sfo + j * sfi;
        SRAM int* a = s.acc + (size_t)dst * VTA_LANES;
        SRAM const int* bv = s.acc + (size_t)src * VTA_LANES;
        SRAM out_t* out = s.out + (size_t)dst * VTA_LANES;
#if VTA_VARIANT_WORKGROUP
        for (uint l0 = 0; l0 < VTA_LANES; l0 += NLOC) {
          const uint l = l0 + LID;
          if (l < VTA_LANES) {
            const int r = ACC_WRAP(alu_apply(op, a[l], use_imm ? imm : bv[l]));
            a[l] = r;
            out[l] = OUT_OF(r);
          }
        }
#else
        // The tensor ALU: VTA_ALU_LANES lanes per step.
        for (uint l0 = 0; l0 < VTA_LANES; l0 += VTA_ALU_LANES) {
          UNROLL_LANES
          for (uint k = 0; k < VTA_ALU_LANES; ++k) {
            const uint l = l0 + k;
            if (l < VTA_LANES) {
              const int r = ACC_WRAP(alu_apply(op, a[l], use_imm ? imm : bv[l]));
              a[l] = r;
              out[l] = OUT_OF(r);
            }
          }
        }
#endif
      }
    }
  }
}

// ---------------------------------------------------------------------------
// The kernel: runs positions [pos_begin, pos_end) of `order`.
//   dram          the device mirror of DRAM physical addresses [dram_lo, dram_lo + dram_bytes)
//   insn_off      byte offset of instruction 0 in the mirror (16-byte aligned)
//   g_*           the on-chip buffers' persistent state
//   status        [0] error code, [1] position, [2] instruction, [3] uop;
//                 a launch that finds an error already set does nothing
// ---------------------------------------------------------------------------
#if VTA_SRAM_ONCHIP
#define VTA_WORDS(bytes) (((bytes) + 3) / 4)
#define UOP_WORDS VTA_UOP_BUFF_DEPTH
#define INP_WORDS VTA_WORDS(VTA_INP_BUFF_DEPTH * VTA_INP_VALUES * sizeof(inp_t))
#define WGT_WORDS VTA_WORDS(VTA_WGT_BUFF_DEPTH * VTA_WGT_VALUES * sizeof(wgt_t))
#define ACC_WORDS (VTA_ACC_BUFF_DEPTH * VTA_LANES)
#define OUT_WORDS VTA_WORDS(VTA_OUT_BUFF_DEPTH * VTA_LANES * sizeof(out_t))
#define COPY_WORDS(dst, src, n) \
  for (uint t = 0; t < (uint)(n); ++t) (dst)[t] = (src)[t]
#endif

__kernel void vta_run(__global uchar* dram, ulong dram_lo, ulong dram_bytes, ulong insn_off,
                      __global const uint* order, uint pos_begin, uint pos_end, __global uint* g_uop,
                      __global uint* g_inp, __global uint* g_wgt, __global int* g_acc, __global uint* g_out,
                      __global uint* status) {
  if (status[0] != VTA_ERR_NONE) return;
#if VTA_SRAM_ONCHIP
  // On-chip buffers, sized by the config: loaded from the persistent state.
  uint uop_m[UOP_WORDS], inp_m[INP_WORDS], wgt_m[WGT_WORDS], out_m[OUT_WORDS];
  int acc_m[ACC_WORDS];
  COPY_WORDS(uop_m, g_uop, UOP_WORDS);
  COPY_WORDS(inp_m, g_inp, INP_WORDS);
  COPY_WORDS(wgt_m, g_wgt, WGT_WORDS);
  COPY_WORDS(acc_m, g_acc, ACC_WORDS);
  COPY_WORDS(out_m, g_out, OUT_WORDS);
  Sram s = {uop_m, (SRAM inp_t*)inp_m, (SRAM wgt_t*)wgt_m, acc_m, (SRAM out_t*)out_m};
#else
  Sram s = {g_uop, (SRAM inp_t*)g_inp, (SRAM wgt_t*)g_wgt, g_acc, (SRAM out_t*)g_out};
#endif
#if VTA_VARIANT_WORKGROUP
  __local uint l_uop[VTA_WG_STAGE > 0 ? VTA_WG_STAGE : 1];
  __local uint l_mark[VTA_WG_ALU_PARALLEL ? VTA_ACC_MARK_WORDS : 1];
  __local uint l_flag[1];
#endif
  for (uint pos = pos_begin; pos < pos_end; ++pos) {
    const uint index = order[pos];
    __global const ulong* p = (__global const ulong*)(dram + insn_off + (ulong)index * 16);
    const ulong w[2] = {p[0], p[1]};
    const uint opcode = FIELD(w, MEM_OPCODE);
    uint err = VTA_ERR_NONE, bad_uop = 0;
    if (opcode == VTA_OPCODE_LOAD) {
      err = load(w, dram, dram_lo, dram_bytes, s);
    } else if (opcode == VTA_OPCODE_STORE) {
      err = store(w, dram, dram_lo, dram_bytes, s);
    } else if (opcode == VTA_OPCODE_GEMM) {
      err = check_uops(w, 1, s.uop, &bad_uop);
#if VTA_VARIANT_WORKGROUP
      if (err == VTA_ERR_NONE) gemm(w, s, l_uop);
#else
      if (err == VTA_ERR_NONE) gemm(w, s);
#endif
    } else if (opcode == VTA_OPCODE_ALU) {
      const uint op = FIELD(w, ALU_ALU_OPCODE);
      err = !VTA_ALU_OP_ENABLED(op) ? VTA_ERR_BAD_INSN : check_uops(w, 0, s.uop, &bad_uop);
#if VTA_VARIANT_WORKGROUP
      if (err == VTA_ERR_NONE) alu(w, s, l_mark, l_flag);
#else
      if (err == VTA_ERR_NONE) alu(w, s);
#endif
    } else if (opcode != VTA_OPCODE_FINISH) {
      err = VTA_ERR_BAD_INSN;
    }
    // Every work-item computed the same err (it depends only on the
    // instruction and the uop buffer), so all leave the loop together.
    if (err != VTA_ERR_NONE) {
      if (LID == 0) {
        status[0] = err;
        status[1] = pos;
        status[2] = index;
        status[3] = bad_uop;
      }
      break;
    }
    SYNC();  // the next instruction may read what any work-item wrote
  }
#if VTA_SRAM_ONCHIP
  COPY_WORDS(g_uop, uop_m, UOP_WORDS);
  COPY_WORDS(g_inp, inp_m, INP_WORDS);
  COPY_WORDS(g_wgt, wgt_m, WGT_WORDS);
  COPY_WORDS(g_acc, acc_m, ACC_WORDS);
  COPY_WORDS(g_out, out_m, OUT_WORDS);
#endif
}

// What this program was built for, so that the host can check an offline
// binary against the config: out[0..] = defines hash, variant, SRAM on chip,
// local staging, batch, block_in, block_out, uop/inp/wgt/acc depths,
// inp/wgt/acc/out widths.
__kernel void vta_info(__global uint* out) {
  out[0] = VTA_DEFINES_HASH;
  out[1] = VTA_VARIANT_WORKGROUP;
  out[2] = VTA_SRAM_ONCHIP;
  out[3] = VTA_WG_STAGE;
  out[4] = VTA_BATCH;
  out[5] = VTA_BLOCK_IN;
  out[6] = VTA_BLOCK_OUT;
  out[7] = VTA_UOP_BUFF_DEPTH;
  out[8] = VTA_INP_BUFF_DEPTH;
  out[9] = VTA_WGT_BUFF_DEPTH;
  out[10] = VTA_ACC_BUFF_DEPTH;
  out[11] = VTA_INP_WIDTH;
  out[12] = VTA_WGT_WIDTH;
  out[13] = VTA_ACC_WIDTH;
  out[14] = VTA_OUT_WIDTH;
}
