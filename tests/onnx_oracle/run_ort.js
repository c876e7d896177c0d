#!/usr/bin/env node
// The outside oracle: runs an ONNX model in ONNX Runtime (onnxruntime-node
// 1.17.0, installed by scripts/setup.sh) on .npy inputs and writes each graph
// output as OUT_DIR/<output name>.npy.
//
//   node run_ort.js MODULES_DIR MODEL.onnx OUT_DIR NAME=FILE ... [--opt=all|basic|disabled] [--repeat=N]
//
// --repeat=N runs the session N more times and prints the median and the
// least wall time of one run (session.run, in ms) on stdout.
// FILE is .npy or .pb (TensorProto).
// MODULES_DIR is the node_modules folder holding onnxruntime-node. Exit 0 on
// success, 2 with one line on stderr otherwise.
'use strict';
const fs = require('fs');
const path = require('path');

const DTYPES = {
  // npy descr -> [ORT type, typed array]
  '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array],
  '<i4': ['int32', Int32Array],
  '<i8': ['int64', BigInt64Array],
  '<f4': ['float32', Float32Array],
};

function die(msg) {
  process.stderr.write(`run_ort: ${msg}\n`);
  process.exit(2);
}

function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.length < 10 || b.toString('latin1', 0, 6) !== '\x93NUMPY') die(`${file}: not a .npy file`);
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + hlen;
  const header = b.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header))
    die(`${file}: unsupported .npy header ${header.trim()}`);
  const t = DTYPES[descr[1]];
  if (!t) die(`${file}: unsupported dtype ${descr[1]}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const count = dims.reduce((a, d) => a * d, 1);
  const data = new t[1](count);
  const bytes = new Uint8Array(data.buffer);
  if (b.length - start < bytes.length) die(`${file}: truncated data`);
  bytes.set(b.subarray(start, start + bytes.length));
  return {type: t[0], data, dims};
}

// A TensorProto (.pb): dims (1), data_type (2), float_data (4), int32_data
// (5), int64_data (7), raw_data (9); the integer and float types of ONNX's
// quantized operator tests.
const PB_TYPES = {
  1: ['float32', Float32Array],
  2: ['uint8', Uint8Array],
  3: ['int8', Int8Array],
  6: ['int32', Int32Array],
  7: ['int64', BigInt64Array]
};

function readPb(file) {
  const b = fs.readFileSync(file);
  let pos = 0;
  const varint = () => {
    let v = 0n, shift = 0n;
    for (;;) {
      if (pos >= b.length) die(`${file}: truncated TensorProto`);
      const x = b[pos++];
      v |= BigInt(x & 0x7f) << shift;
      if (!(x & 0x80)) return v;
      shift += 7n;
    }
  };
  const dims = [], ints = [], floats = [];
  let type = 0, raw = null;
  while (pos < b.length) {
    const key = Number(varint()), field = key >> 3, wire = key & 7;
    if (wire === 0) {
      const v = varint();
      if (field === 1)
        dims.push(Number(v));
      else if (field === 2)
        type = Number(v);
      else if (field === 5 || field === 7)
        ints.push(BigInt.asIntN(64, v));
    } else if (wire === 2) {
      const len = Number(varint()), end = pos + len;
      if (field === 9)
        raw = b.subarray(pos, end);
      else if (field === 1 || field === 5 || field === 7) {
        while (pos < end) {
          const v = varint();
          (field === 1 ? dims : ints).push(field === 1 ? Number(v) : BigInt.asIntN(64, v));
        }
      } else if (field === 4)
        for (let q = pos; q < end; q += 4) floats.push(b.readFloatLE(q));
      pos = end;
    } else if (wire === 5) {
      if (field === 4) floats.push(b.readFloatLE(pos));
      pos += 4;
    } else if (wire === 1)
      pos += 8;
    else
      die(`${file}: not a TensorProto`);
  }
  const t = PB_TYPES[type];
  if (!t) die(`${file}: element type ${type} is not supported`);
  const count = dims.reduce((a, d) => a * d, 1);
  let data;
  if (raw) {
    data = new t[1](count);
    new Uint8Array(data.buffer).set(raw.subarray(0, data.byteLength));
  } else if (type === 1)
    data = t[1].from(floats);
  else if (type === 7)
    data = BigInt64Array.from(ints);
  else
    data = t[1].from(ints.map(Number));
  return {type: t[0], data, dims};
}

function writeNpy(file, tensor) {
  const descr = Object.keys(DTYPES).find((k) => DTYPES[k][0] === tensor.type);
  if (!descr) die(`output type ${tensor.type} cannot be written`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((header.length + 10) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const d = tensor.data;
  fs.writeFileSync(
      file, Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(d.buffer, d.byteOffset, d.byteLength)]));
}

async function main() {
  const args = process.argv.slice(2);
  let opt = 'all', repeat = 0;
  const pos = [];
  for (const a of args) {
    if (a.startsWith('--opt='))
      opt = a.slice(6);
    else if (a.startsWith('--repeat='))
      repeat = Number(a.slice(9));
    else
      pos.push(a);
  }
  if (pos.length < 3)
    die('usage: run_ort.js MODULES_DIR MODEL.onnx OUT_DIR NAME=FILE.npy ... [--opt=all|basic|disabled] [--repeat=N]');
  const [modules, model, outDir, ...inputs] = pos;
  let ort;
  try {
    ort = require(path.join(path.resolve(modules), 'onnxruntime-node'));
  } catch (e) {
    die(`onnxruntime-node not found under ${modules} (run scripts/setup.sh)`);
  }
  const feeds = {};
  for (const spec of inputs) {
    const eq = spec.indexOf('=');
    if (eq <= 0) die(`input '${spec}' is not NAME=FILE.npy`);
    const f = spec.slice(eq + 1);
    const t = f.endsWith('.pb') ? readPb(f) : readNpy(f);
    feeds[spec.slice(0, eq)] = new ort.Tensor(t.type, t.data, t.dims);
  }
  let session;
  try {
    session = await ort.InferenceSession.create(model, {graphOptimizationLevel: opt, logSeverityLevel: 3});
  } catch (e) {
    die(`${model}: ONNX Runtime refuses to load it: ${String(e.message || e).split('\n')[0]}`);
  }
  let results;
  try {
    results = await session.run(feeds);
  } catch (e) {
    die(`${model}: ONNX Runtime failed to run it: ${String(e.message || e).split('\n')[0]}`);
  }
  if (repeat > 0) {
    const ms = [];
    for (let i = 0; i < repeat; ++i) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    ms.sort((a, b) => a - b);
    process.stdout.write(`run: median ${ms[ms.length >> 1].toFixed(2)} ms, least ${ms[0].toFixed(2)} ms over ${repeat} runs\n`);
  }
  fs.mkdirSync(outDir, {recursive: true});
  for (const name of session.outputNames) writeNpy(path.join(outDir, `${name}.npy`), results[name]);
}

main().catch((e) => die(String(e.message || e).split('\n')[0]));
