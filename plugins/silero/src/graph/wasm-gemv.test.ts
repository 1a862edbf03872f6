import { describe, expect, it } from 'vitest';
import { createGemvKernel, LENGTH_BLOCK, ROW_BLOCK } from './wasm-gemv.js';

/** Deterministic values in -1..1. */
function values(count: number, seed: number): Float32Array {
  let s = seed;
  return Float32Array.from({ length: count }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s / 2147483648) * 2 - 1;
  });
}

describe('the WebAssembly dot-product kernel', () => {
  it.each([
    { rows: 4, length: 4, stride: 4 },
    { rows: 8, length: 12, stride: 20 },
    { rows: 128, length: 388, stride: 396 },
    { rows: 512, length: 256, stride: 256 },
  ])('computes bias + W x over $rows rows of $length (stride $stride), with and without ReLU', (shape) => {
    const { rows, length, stride } = shape;
    const kernel = createGemvKernel((rows * stride + length + 2 * rows) * 4 + 64);
    const memory = new Float32Array(kernel.memory.buffer);
    const w = 0;
    const x = rows * stride;
    const bias = x + length;
    const y = bias + rows;
    memory.set(values(rows * stride, 1), w);
    memory.set(values(length, 2), x);
    memory.set(values(rows, 3), bias);
    for (const relu of [false, true]) {
      kernel.gemv(4 * w, stride, 4 * x, length, rows, 4 * y, 4 * bias, relu);
      let worst = 0;
      let negatives = 0;
      for (let r = 0; r < rows; r++) {
        let expected = memory[bias + r] as number;
        for (let k = 0; k < length; k++)
          expected += (memory[w + r * stride + k] as number) * (memory[x + k] as number);
        if (expected < 0) negatives++;
        if (relu) expected = Math.max(0, expected);
        worst = Math.max(worst, Math.abs(expected - (memory[y + r] as number)));
      }
      expect(worst).toBeLessThan(1e-4 * Math.sqrt(length));
      if (!relu) expect(negatives).toBeGreaterThan(0); // so the ReLU case tests something
    }
  });

  it('refuses shapes that are not whole blocks instead of reading past them', () => {
    const kernel = createGemvKernel(4096);
    expect(() => kernel.gemv(0, 8, 0, 8, ROW_BLOCK + 1, 0, 0, false)).toThrow(RangeError);
    expect(() => kernel.gemv(0, 8, 0, LENGTH_BLOCK + 1, ROW_BLOCK, 0, 0, false)).toThrow(/whole blocks/);
  });
});
