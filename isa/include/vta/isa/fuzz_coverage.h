#pragma once
// VTA_NO_FUZZ_COVERAGE marks a function whose work is an element loop over
// tensor data (the datapath's ALU and GEMM kernels, the race checker's
// footprint walk) or over an instruction's fields (the encoder): libFuzzer's
// coverage instrumentation (the asan preset's fuzzer-no-link) leaves it out.
// Its comparisons there see only loop counters and tensor values, which
// guide no mutation, and their callbacks (__sanitizer_cov_trace_cmp*) took
// about 70 % of fuzz_program's CPU time and a fifth of fuzz_onnx's
// (tests/fuzz/README.md "Speed"). The sanitizers still check the function;
// the coverage of its callers, where the decisions are, is unchanged.
#if defined(__clang__) && __clang_major__ >= 13
#define VTA_NO_FUZZ_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define VTA_NO_FUZZ_COVERAGE
#endif
