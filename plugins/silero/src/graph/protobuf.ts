/**
 * The protobuf wire format, as far as ONNX model files need it: reading fields out of a message and
 * writing new messages. No schema and no dependency: the callers know their field numbers.
 */

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

export class ProtobufError extends Error {
  override readonly name = 'ProtobufError';
}

/** One field occurrence. `value` is a bigint for varints and fixed64, bytes for length-delimited data, a number for fixed32. */
export interface Field {
  readonly number: number;
  readonly wire: number;
  readonly value: bigint | Uint8Array | number;
}

/** Every field of one message, in file order (repeated fields appear once per occurrence). */
export function readFields(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (at >= bytes.length) throw new ProtobufError('truncated varint');
      const byte = bytes[at++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new ProtobufError('varint longer than 10 bytes');
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wire = key & 7;
    if (number === 0) throw new ProtobufError('field number 0');
    if (wire === WIRE_VARINT) {
      fields.push({ number, wire, value: varint() });
    } else if (wire === WIRE_FIXED64) {
      if (at + 8 > bytes.length) throw new ProtobufError('truncated fixed64');
      fields.push({ number, wire, value: view.getBigUint64(at, true) });
      at += 8;
    } else if (wire === WIRE_BYTES) {
      const length = Number(varint());
      if (at + length > bytes.length) throw new ProtobufError('length-delimited field runs past the end');
      fields.push({ number, wire, value: bytes.subarray(at, at + length) });
      at += length;
    } else if (wire === WIRE_FIXED32) {
      if (at + 4 > bytes.length) throw new ProtobufError('truncated fixed32');
      fields.push({ number, wire, value: view.getUint32(at, true) });
      at += 4;
    } else {
      throw new ProtobufError(`unsupported wire type ${wire}`);
    }
  }
  return fields;
}

export function bytesOf(field: Field): Uint8Array {
  if (!(field.value instanceof Uint8Array))
    throw new ProtobufError(`field ${field.number} is not length-delimited`);
  return field.value;
}

export function stringOf(field: Field): string {
  return new TextDecoder().decode(bytesOf(field));
}

/** A signed 64-bit integer field (int64 varint, two's complement). */
export function int64Of(field: Field): number {
  if (typeof field.value !== 'bigint') throw new ProtobufError(`field ${field.number} is not an integer`);
  return Number(BigInt.asIntN(64, field.value));
}

/** A repeated int64 field, packed or not. */
export function int64sOf(fields: readonly Field[], number: number): number[] {
  const out: number[] = [];
  for (const field of fields) {
    if (field.number !== number) continue;
    if (field.wire === WIRE_VARINT) {
      out.push(int64Of(field));
      continue;
    }
    for (const packed of readPackedVarints(bytesOf(field))) out.push(Number(BigInt.asIntN(64, packed)));
  }
  return out;
}

function readPackedVarints(bytes: Uint8Array): bigint[] {
  const out: bigint[] = [];
  let value = 0n;
  let shift = 0n;
  for (const byte of bytes) {
    value |= BigInt(byte & 0x7f) << shift;
    if (byte & 0x80) {
      shift += 7n;
      continue;
    }
    out.push(value);
    value = 0n;
    shift = 0n;
  }
  if (shift !== 0n) throw new ProtobufError('truncated packed varint');
  return out;
}

/** Builds one message; nested messages are written by their own writer and added with `message`. */
export class ProtobufWriter {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;

  int(number: number, value: number | bigint): this {
    this.key(number, WIRE_VARINT);
    this.varint(BigInt.asUintN(64, BigInt(value)));
    return this;
  }

  float(number: number, value: number): this {
    this.key(number, WIRE_FIXED32);
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    this.push(bytes);
    return this;
  }

  bytes(number: number, value: Uint8Array): this {
    this.key(number, WIRE_BYTES);
    this.varint(BigInt(value.length));
    this.push(value);
    return this;
  }

  string(number: number, value: string): this {
    return this.bytes(number, new TextEncoder().encode(value));
  }

  message(number: number, value: ProtobufWriter): this {
    return this.bytes(number, value.finish());
  }

  /** A repeated int64 field, packed (proto3's default encoding). */
  packedInts(number: number, values: readonly number[]): this {
    const inner = new ProtobufWriter();
    for (const value of values) inner.varint(BigInt.asUintN(64, BigInt(value)));
    return this.bytes(number, inner.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }

  private key(number: number, wire: number): void {
    this.varint(BigInt((number << 3) | wire));
  }

  private varint(value: bigint): void {
    const bytes: number[] = [];
    let rest = value;
    do {
      let byte = Number(rest & 0x7fn);
      rest >>= 7n;
      if (rest !== 0n) byte |= 0x80;
      bytes.push(byte);
    } while (rest !== 0n);
    this.push(Uint8Array.from(bytes));
  }

  private push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }
}
