/**
 * The protobuf wire format, writing side only, as far as an ONNX ModelProto needs it: varints,
 * length-delimited strings, bytes and sub-messages, packed int64s. Field numbers come from the caller
 * (onnx.proto), so there is no schema and no dependency.
 */

const WIRE_VARINT = 0;
const WIRE_BYTES = 2;
const encoder = new TextEncoder();

export class ProtobufWriter {
  private readonly chunks: Uint8Array[] = [];
  private length = 0;

  /** An int64/int32/enum field; negative values are written as 64-bit two's complement, as protobuf does. */
  int(field: number, value: number): this {
    this.key(field, WIRE_VARINT);
    this.varint(BigInt.asUintN(64, BigInt(value)));
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, encoder.encode(value));
  }

  bytes(field: number, value: Uint8Array): this {
    this.key(field, WIRE_BYTES);
    this.varint(BigInt(value.length));
    this.push(value);
    return this;
  }

  message(field: number, message: ProtobufWriter): this {
    return this.bytes(field, message.finish());
  }

  packedInts(field: number, values: readonly number[]): this {
    const inner = new ProtobufWriter();
    for (const value of values) inner.varint(BigInt.asUintN(64, BigInt(value)));
    return this.bytes(field, inner.finish());
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

  private key(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
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
