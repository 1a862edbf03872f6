import { describe, expect, it } from 'vitest';
import {
  bytesOf,
  int64Of,
  int64sOf,
  ProtobufError,
  ProtobufWriter,
  readFields,
  stringOf,
} from './protobuf.js';

describe('protobuf wire format', () => {
  it('reads back what it writes: integers (negative ones too), strings, floats, nested and packed fields', () => {
    const inner = new ProtobufWriter().string(1, 'conv').packedInts(8, [1, -1, 300, 2 ** 40]);
    const bytes = new ProtobufWriter()
      .int(1, 7)
      .int(2, -2)
      .string(3, 'héllo')
      .float(4, 0.5)
      .message(5, inner)
      .int(6, 1)
      .int(6, 2)
      .finish();
    const fields = readFields(bytes);
    expect(fields.map((f) => f.number)).toEqual([1, 2, 3, 4, 5, 6, 6]);
    expect(int64Of(fields[0]!)).toBe(7);
    expect(int64Of(fields[1]!)).toBe(-2);
    expect(stringOf(fields[2]!)).toBe('héllo');
    expect(new DataView(new Uint32Array([fields[3]!.value as number]).buffer).getFloat32(0, true)).toBe(0.5);
    const nested = readFields(bytesOf(fields[4]!));
    expect(stringOf(nested[0]!)).toBe('conv');
    expect(int64sOf(nested, 8)).toEqual([1, -1, 300, 2 ** 40]);
    // Unpacked repeated integers read the same way as packed ones.
    expect(int64sOf(fields, 6)).toEqual([1, 2]);
  });

  it('encodes a varint the way protobuf does (150 is 0x96 0x01)', () => {
    expect(Array.from(new ProtobufWriter().int(1, 150).finish())).toEqual([0x08, 0x96, 0x01]);
  });

  it.each([
    ['a truncated varint', [0x08, 0x96]],
    ['a length running past the end', [0x0a, 0x05, 0x01]],
    ['field number 0', [0x00, 0x01]],
    ['an unsupported wire type', [0x0b]],
    ['a truncated fixed32', [0x0d, 0x01, 0x02]],
  ])('refuses %s with a ProtobufError', (_, bytes) => {
    expect(() => readFields(Uint8Array.from(bytes))).toThrow(ProtobufError);
  });
});
