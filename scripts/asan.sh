#!/usr/bin/env bash
# The sanitizer stage of CI: builds the `asan` preset (clang,
# AddressSanitizer + UndefinedBehaviorSanitizer, no recovery; the verilated
# models unsanitized), runs every test label but `synth`, `format` and
# `slurm` under it, then runs
# each libFuzzer target of the same tree on its committed corpus with a fixed
# seed and a fixed number of executions (scripts/fuzz.sh --ci: the same inputs
# here and in CI for the same commit). Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
# A report aborts the test (-fno-sanitize-recover=all); the leak check runs
# at exit; SystemC, pocl and protobuf keep some memory till exit (lsan.supp).
# handle_segv=0: a worker the sweep tests crash on purpose must die of SIGSEGV.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:handle_segv=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0}"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$(nproc)"
conf="${VTA_CONFORMANCE_DIR:-$(pwd)/tests/data/conformance/vectors}"
[ -d "$conf" ] && export VTA_CONFORMANCE_DIR="$conf"
# The per-channel ResNet-18 oracle cases (on each backend) prove every
# channel's requantization on every accumulator of its range when they
# import: arithmetic, 11 to 12 minutes each under the sanitizers at -O1
# (seconds in the main suite, which runs them), with no memory access the
# smaller per-channel cases (mobilenet_v1_ort_pc, RequantFloat.*) do not
# make here too. OrtScales' resnet18_plain_pc is the same proof on the same
# network (197 s here, 3.5 s in the main suite); its mobilenet_v1_pc case
# (golden and SystemC, per-channel rows) stays. The OpenCL copy of
# mobilenet_v1_ort_pc repeats the same proof (90 s) before a run the other
# OpenCL oracle cases make.
#
# Repeats the main suite makes and this stage need not (seconds each there,
# one to three minutes each here): the same proof or the same compile of a
# large network once per preset or backend. Under the sanitizers one copy
# runs: ResNet-18's remainder
# tiles, race check and end-to-end run on vta-1x16x16 (the 1x32x32 and
# 4x16x16 copies compile the same layers with other tiles, 70 to 85 CPU s
# each); the ONNX Runtime export oracle on resnet18, mobilenet_v1 and the
# small networks (resnet34, resnet50 and vgg16 add no operator).
#
# ResNet-18 and MobileNet compile under the sanitizers a bounded number of
# times: ResNet-18 end to end on vta-1x16x16 (golden and SystemC), its race
# check, its remainder tiles and its export oracle; MobileNet once per test
# family on vta-1x16x16. The tests that compile ResNet-18 again to look at
# one pass's output (codegen, tiling, fusion, batch bands, rectangular
# arrays, the ALU beside the GEMM, the tuning cache), or MobileNet again on
# another preset, run the same code on the same layers: 30 to 80 s each
# here, seconds each in the main suite, which runs them all.
# The per-channel proofs of the large ONNX models (mobilenet_v1_ort_pc: 100
# s here, 205 s its SystemC copy; the quantizer's resnet18_s8_pc and
# mobilenet_v2_u8_pc: 33 and 41 s) run in the main suite only since CI went
# past 45 minutes (2026-11-28, seventh session): the same importer code runs
# here on the small per-channel models (residual_s8_pc, cnn_flatten_s8_pc,
# pools_u8_pc, ...: 2 s each) and Nets/OrtScales' mobilenet_v1_pc.
# One flat group of whole names: CMake's regular expressions hold at most
# ten ( ) groups, and a longer pattern silently excludes nothing.
skipped=(
  Asym/AsymOracle.ImportRunsBitExactWithOnnxRuntime/mobilenet_v1_ort_pc
  Qdq/QdqOracle.FloatInOutBitExactWithOnnxRuntime/resnet18_s8_pc
  Qdq/QdqOracle.FloatInOutBitExactWithOnnxRuntime/mobilenet_v2_u8_pc
  Asym/AsymOracle.ImportRunsBitExactWithOnnxRuntime/resnet18_plain_ort_pc
  systemc/Asym/AsymOracle.ImportRunsBitExactWithOnnxRuntime/resnet18_plain_ort_pc
  opencl/Asym/AsymOracle.ImportRunsBitExactWithOnnxRuntime/resnet18_plain_ort_pc
  systemc/Asym/AsymOracle.ImportRunsBitExactWithOnnxRuntime/mobilenet_v1_ort_pc
  opencl/Asym/AsymOracle.ImportRunsBitExactWithOnnxRuntime/mobilenet_v1_ort_pc
  Nets/OrtScales.ExactFormsOnVtaBitExactOnGoldenAndSystemc/resnet18_plain_pc
  Zoo/Remainders.ForcedRemainderTilesStayBitExactAndRaceFree/resnet18_vta_1x32x32
  Zoo/Remainders.ForcedRemainderTilesStayBitExactAndRaceFree/resnet18_vta_4x16x16
  Zoo/RaceFree.EveryCompiledSegmentPassesTheRaceChecker/resnet18_vta_1x32x32
  Zoo/RaceFree.EveryCompiledSegmentPassesTheRaceChecker/resnet18_vta_4x16x16
  Zoo/EndToEnd.BitExactAgainstTheIntegerReference/resnet18_vta_1x32x32_golden
  Zoo/EndToEnd.BitExactAgainstTheIntegerReference/resnet18_vta_1x32x32_systemc
  Zoo/EndToEnd.BitExactAgainstTheIntegerReference/resnet18_vta_1x16x16_golden
  BiasGemm.ResidualOperandByGemmOrByAluIsExact
  BiasGemm.CostModelFollowsTheGemmEpilogues
  PoolFusion.ResNet18StemPoolIsFusedAndItsRowIsEmpty
  Codegen.StemIsPackedByIm2col
  Codegen.ResidualAddsAreFusedIntoTheirConv
  Codegen.EveryProgramBalancesItsTokens
  Tiling.ChosenTilesFitHalfOfEveryBuffer
  Cli.TuneReusesItsCache
  Zoo/BatchRows.BandsShareTheWeightsBitExactly/1
  Zoo/RoundTrip.ExportPassesTheCheckerAndImportsIdentically/1
  Zoo/Rectangular.ZooNetworksAreBitExact/2
  Zoo/Rectangular.ZooNetworksAreBitExact/3
  Zoo/Rectangular.ZooNetworksAreBitExact/5
  Zoo/Remainders.ForcedRemainderTilesStayBitExactAndRaceFree/mobilenet_v1_vta_1x32x32
  Zoo/Remainders.ForcedRemainderTilesStayBitExactAndRaceFree/mobilenet_v1_vta_4x16x16
  Zoo/RaceFree.EveryCompiledSegmentPassesTheRaceChecker/mobilenet_v1_vta_1x32x32
  Zoo/RaceFree.EveryCompiledSegmentPassesTheRaceChecker/mobilenet_v1_vta_4x16x16
  Zoo/EndToEnd.BitExactAgainstTheIntegerReference/mobilenet_v1_vta_1x32x32_golden
  Zoo/EndToEnd.BitExactAgainstTheIntegerReference/mobilenet_v1_vta_1x32x32_systemc
)
for i in 3 4 5 7 8; do skipped+=("Zoo/ConcurrentAlu.ZooNetworksAreBitExact/$i"); done
# The ONNX Runtime quantizer's ResNet-18 and MobileNet-v2 structures
# (tests/data/onnx-qdq): the golden copy runs the importer's code here; the
# SystemC, OpenCL and Verilator copies repeat the same compile (1-4 s each
# in the main suite).
for net in resnet18_u8 resnet18_s8_pc mobilenet_v2_u8 mobilenet_v2_u8_pc; do
  for b in systemc/ opencl/ verilator/; do skipped+=("${b}Qdq/QdqOracle.FloatInOutBitExactWithOnnxRuntime/$net"); done
done
for net in resnet34 resnet50 vgg16; do
  for b in "" systemc/ opencl/; do skipped+=("${b}Zoo/Oracle.ExportRunsBitExactInOnnxRuntime/$net"); done
done
# The quantizer's asymmetric-weight, Concat and Pad models (2026-11-28,
# fifth session): the golden copy runs the importer's new code under the
# sanitizers; the SystemC and OpenCL copies repeat the same compile (and the
# OpenCL ones would meet LeakSanitizer's tracer death below).
for net in cnn_flatten_u8_wu8 cnn_flatten_u8_wu8_pc cnn_flatten_s8_wasym residual_u8_wu8 cnn_flatten_op13_u8_wu8 \
  cnn_flatten_op19_s8_wasym branches_u8 branches_u8_pc branches_u8_wu8 branches_op13_u8 branches_op19_u8_pc; do
  for b in systemc/ opencl/; do skipped+=("${b}Qdq/QdqOracle.FloatInOutBitExactWithOnnxRuntime/$net"); done
done
# Element widths (2026-11-28, sixth session): the RTL's width models are
# verilated for each build tree (55-80 s each, unsanitized like every
# verilated model); the main suite builds and runs them, and the harness
# code they run is the one the preset models run here. The OpenCL variants
# at widths build eight more kernels (PoCL, 37 s cold) for the host code
# that opencl/Widths/RandomPrograms already runs here.
for cfg in dtype_w4a4 dtype_w8a8_acc16 dtype_w16a16 dtype_w4a16; do
  for b in verilator/ systemc-rtl/; do skipped+=("${b}Widths/RandomPrograms.MatchReferenceBitExactly/$cfg"); done
  for v in single workgroup; do skipped+=("Widths/Variants.RandomProgramsMatchGoldenBitExactly/${cfg}_$v"); done
done
skipped+=(Verilator.ElementWidthsMatchSystemC)
# torchvision's networks through ONNX Runtime's quantizer (2026-11-28,
# seventh session): 5 to 90 s each in the main suite, whole networks whose
# operators the small QDQ models run here (tests/test_onnx_ort_unary.cpp
# checks every code of the new host ops under the sanitizers).
# The SystemC and OpenCL backends' own code runs here under their Golden
# suites (every instruction kind, every preset, the error paths); their
# copies of the network suites (Zoo, Qdq: 40 s of OpenCL and 34 s of
# SystemC test time in the main suite, three to four times that here) run
# the same backend paths on larger programs, and the networks themselves are
# sanitized on golden. The main suite runs them all (2026-11-29).
skipped+=("(systemc|opencl)/(Zoo|Qdq)/.*")
# The OpenCL copies of the 96 padding cases repeat the same host code (one
# LOAD each, the kernel itself runs in pocl, not sanitized): 34 s of the main
# suite's test time, a third of its OpenCL Golden group; golden and SystemC
# keep them here.
skipped+=("opencl/Golden/LoadPadding\\..*")
# CI at 75 min on a 2-core machine (2026-11-29, fifth session; this stage
# 37 min of it): the larger repeats of code that smaller tests run here.
# The SystemC and OpenCL copies of the random programs on vta-4x16x16 and
# vta-1x32x32 (25 s each here) run the same instruction paths as their
# vta-1x16x16 copies, which stay; the tuning cache's two end-to-end tests
# (40 and 27 s: SystemC measurements of ResNet-18 layers) the code of
# Tune's and Cli's smaller cases; the concurrent ALU's fused-add overlap on
# ResNet-18 (60 s) the passes of Zoo/ConcurrentAlu's lenet5 cases; the two
# DRAM-bound analytic estimates (25 s each: ResNet-18 against SystemC) the
# memory-time code of MemoryTime.*; the MobileNet-v1 cases of the batch
# bands, rectangular arrays and concurrent ALU (23 to 28 s) the passes of
# their lenet5 cases, with MobileNet-v1's depthwise layers sanitized on the
# base preset (Zoo/EndToEnd, Zoo/Remainders). The main suite runs them all.
for p in vta_4x16x16 vta_1x32x32; do
  for b in systemc/ opencl/; do skipped+=("${b}Golden/RandomPrograms.MatchReferenceBitExactly/$p"); done
done
skipped+=(Tune.CacheAnswersASecondTuningWithoutSystemCRuns SweepStages.TunedStagesShareTheTuningCache
  ConcurrentAlu.FusedAddEpiloguesOverlapTheGemms AnalyticDram.Ddr3At333MHzFollowsSystemCWhereTheDramBoundsTheLayer
  AnalyticDram.Ddr4At100MHzStaysWithinThePortBoundEstimate Zoo/BatchRows.BandsShareTheWeightsBitExactly/2
  Zoo/Rectangular.ZooNetworksAreBitExact/4 Zoo/ConcurrentAlu.ZooNetworksAreBitExact/6)
for net in tv_mobilenet_v3_small_u8 tv_mobilenet_v3_small_u8_pc tv_efficientnet_b0_u8 tv_efficientnet_b0_u8_pc \
  tv_resnet18_u8; do
  for b in "" systemc/ opencl/; do skipped+=("${b}Qdq/TorchvisionOracle.BitExactWithOnnxRuntime/$net"); done
done
# LeakSanitizer's stop-the-world tracer dies at exit, every time, after
# this test's `vta` runs on the OpenCL backend have passed ("Tracer caught
# signal 11 ... LeakSanitizer has encountered a fatal error", while pocl's
# threads exit; google/sanitizers issue 1353; since the designs named their
# board's memory, 2026-11-28, reproduced alone 3 of 3; the OpenCL copies of
# the Zoo and quantizer oracles, which met it too, are left to the main suite
# above): it runs below with the leak check off, ASan and UBSan on.
no_leak_check=(
  opencl/Wide/ExactExport.SumsBeyondTwoToThe22AreExactInOnnxRuntime/depthwise
)
skipped+=("${no_leak_check[@]}")
skip="^($(IFS='|'; echo "${skipped[*]}"))\$"
# The Slurm test (label slurm) submits a sweep to the machine's real
# single-node cluster and waits on its scheduler: 123 s here, the stage's
# last test alone on the machine (2026-11-28); the main suite runs it, and
# the sweep code its jobs run (shards, merge) is sanitized here by the
# SweepRunner tests.
ctest --preset asan -j "$(nproc)" -LE "synth|format|slurm" -E "$skip" "$@"
ASAN_OPTIONS="${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}" \
  ctest --preset asan -R "^($(IFS='|'; echo "${no_leak_check[*]}"))\$" "$@"
bash scripts/fuzz.sh --ci
