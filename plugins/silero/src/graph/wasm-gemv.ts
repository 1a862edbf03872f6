/**
 * A WebAssembly SIMD kernel for the one operation a one-row Silero pass spends its time in: a block of
 * dot products, `y[r] = bias[r] + Σ_k w[r][k] · x[k]`, optionally followed by a ReLU.
 *
 * The module is a few hundred bytes, assembled here rather than shipped as a binary so that what runs is
 * readable in review. Four rows are computed together so each load of `x` feeds four independent
 * accumulators (f32x4 each); the four lanes are summed at the end of the row.
 */

// Opcodes used below (WebAssembly core 2.0 and its fixed-width SIMD proposal, prefix 0xfd).
const BLOCK = 0x02;
const LOOP = 0x03;
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const SELECT = 0x1b;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const F32_LOAD = 0x2a;
const F32_STORE = 0x38;
const I32_CONST = 0x41;
const F32_CONST = 0x43;
const I32_GE_U = 0x4f;
const I32_ADD = 0x6a;
const I32_SHL = 0x74;
const F32_ADD = 0x92;
const F32_MAX = 0x97;
const SIMD = 0xfd;
const V128_LOAD = 0x00;
const V128_CONST = 0x0c;
const F32X4_EXTRACT_LANE = 0x1f;
const F32X4_ADD = 0xe4;
const F32X4_MUL = 0xe6;
const VOID = 0x40;
const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;

// Parameters, then locals, of `gemv(w, rowBytes, x, lengthBytes, rows, y, bias, relu)`.
const W = 0;
const ROW_BYTES = 1;
const X = 2;
const LENGTH_BYTES = 3;
const ROWS = 4;
const Y = 5;
const BIAS = 6;
const RELU = 7;
const ROW = 8;
const K = 9;
const ROW_POINTER = 10; // four: rows r .. r + 3
const ACCUMULATOR = 14; // four
const X_VECTOR = 18;
const VALUE = 19;

/** How many rows the kernel computes together: a call's `rows` must be a multiple of it. */
export const ROW_BLOCK = 4;
/** A call's length must be a multiple of this many floats (one f32x4). */
export const LENGTH_BLOCK = 4;

/** The part of the WebAssembly JS API used here (this package's TypeScript libs do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export interface GemvKernel {
  /** Fixed size: the kernel never grows it, so views of `memory.buffer` stay valid. */
  readonly memory: WasmMemory;
  /** Byte offsets into `memory`; lengths and strides in floats. */
  gemv(
    w: number,
    rowStride: number,
    x: number,
    length: number,
    rows: number,
    y: number,
    bias: number,
    relu: boolean,
  ): void;
}

/** Compiles the kernel with its own memory of `bytes` (rounded up to whole 64 KiB pages). */
export function createGemvKernel(bytes: number): GemvKernel {
  const pages = Math.ceil(bytes / 65536);
  const instance = new wasm.Instance(new wasm.Module(assemble(pages)), {});
  const memory = instance.exports.memory as WasmMemory;
  const gemv = instance.exports.gemv as (...args: number[]) => void;
  return {
    memory,
    gemv(w, rowStride, x, length, rows, y, bias, relu) {
      if (rows % ROW_BLOCK !== 0 || length % LENGTH_BLOCK !== 0)
        throw new RangeError(`gemv: ${rows} rows of ${length} floats are not whole blocks`);
      gemv(w, rowStride * 4, x, length * 4, rows, y, bias, relu ? 1 : 0);
    },
  };
}

function assemble(pages: number): Uint8Array {
  // Locals: six i32 (row, k, four row pointers), five v128 (four accumulators, x), one f32.
  const body = [3, 6, I32, 5, V128, 1, F32, ...gemvBody(), END];
  const section = (id: number, content: number[]) => [id, ...u32(content.length), ...content];
  const name = (text: string) => [...u32(text.length), ...Array.from(text, (c) => c.charCodeAt(0))];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 8, I32, I32, I32, I32, I32, I32, I32, I32, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, ...u32(pages)]),
    ...section(7, [2, ...name('gemv'), 0x00, 0, ...name('memory'), 0x02, 0]),
    ...section(10, [1, ...u32(body.length), ...body]),
  ]);
}

function gemvBody(): number[] {
  const get = (i: number) => [LOCAL_GET, i];
  const set = (i: number) => [LOCAL_SET, i];
  const tee = (i: number) => [LOCAL_TEE, i];
  const i32 = (v: number) => [I32_CONST, ...s32(v)];
  const simd = (op: number) => [SIMD, ...u32(op)];
  const memarg = (align: number, offset: number) => [align, ...u32(offset)];
  const zeroVector = [SIMD, ...u32(V128_CONST), ...new Array<number>(16).fill(0)];
  const lanesSum = (acc: number) => [
    ...get(acc),
    ...simd(F32X4_EXTRACT_LANE),
    0,
    ...get(acc),
    ...simd(F32X4_EXTRACT_LANE),
    1,
    F32_ADD,
    ...get(acc),
    ...simd(F32X4_EXTRACT_LANE),
    2,
    ...get(acc),
    ...simd(F32X4_EXTRACT_LANE),
    3,
    F32_ADD,
    F32_ADD,
  ];
  const code: number[] = [];
  code.push(...i32(0), ...set(ROW), ...get(W), ...set(ROW_POINTER));
  code.push(BLOCK, VOID, LOOP, VOID);
  code.push(...get(ROW), ...get(ROWS), I32_GE_U, BR_IF, 1);
  // The other three row pointers follow the first by one row each.
  code.push(...get(ROW_POINTER), ...get(ROW_BYTES), I32_ADD, ...tee(ROW_POINTER + 1));
  code.push(...get(ROW_BYTES), I32_ADD, ...tee(ROW_POINTER + 2));
  code.push(...get(ROW_BYTES), I32_ADD, ...set(ROW_POINTER + 3));
  for (let i = 0; i < ROW_BLOCK; i++) code.push(...zeroVector, ...set(ACCUMULATOR + i));
  code.push(...i32(0), ...set(K));
  code.push(BLOCK, VOID, LOOP, VOID);
  code.push(...get(K), ...get(LENGTH_BYTES), I32_GE_U, BR_IF, 1);
  code.push(...get(X), ...get(K), I32_ADD, ...simd(V128_LOAD), ...memarg(2, 0), ...set(X_VECTOR));
  for (let i = 0; i < ROW_BLOCK; i++) {
    code.push(...get(ACCUMULATOR + i));
    code.push(...get(ROW_POINTER + i), ...get(K), I32_ADD, ...simd(V128_LOAD), ...memarg(2, 0));
    code.push(...get(X_VECTOR), ...simd(F32X4_MUL), ...simd(F32X4_ADD), ...set(ACCUMULATOR + i));
  }
  code.push(...get(K), ...i32(16), I32_ADD, ...set(K), BR, 0, END, END);
  for (let i = 0; i < ROW_BLOCK; i++) {
    const rowOffset = [...get(ROW), ...i32(2), I32_SHL, I32_ADD];
    code.push(...get(Y), ...rowOffset);
    code.push(...lanesSum(ACCUMULATOR + i));
    code.push(...get(BIAS), ...rowOffset, F32_LOAD, ...memarg(2, 4 * i), F32_ADD);
    // relu ? max(v, 0) : v
    code.push(...tee(VALUE), F32_CONST, 0, 0, 0, 0, F32_MAX, ...get(VALUE), ...get(RELU), SELECT);
    code.push(F32_STORE, ...memarg(2, 4 * i));
  }
  code.push(...get(ROW), ...i32(ROW_BLOCK), I32_ADD, ...set(ROW));
  code.push(...get(ROW_POINTER + 3), ...get(ROW_BYTES), I32_ADD, ...set(ROW_POINTER));
  code.push(BR, 0, END, END);
  return code;
}

/** Unsigned LEB128. */
function u32(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

/** Signed LEB128 (i32 constants). */
function s32(value: number): number[] {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}
