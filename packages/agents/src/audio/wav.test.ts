import { describe, expect, it } from 'vitest';
import { InvalidAudioError, VoxwireError, WavFormatError } from '../errors.js';
import { AudioFrame } from './audio-frame.js';
import { decodeWav, encodeWav, WavDecoder } from './wav.js';

// Fixtures are built byte by byte here, so each test shows exactly what the file holds.

function bytesOf(...parts: (Uint8Array | string | number[])[]): Uint8Array {
  const arrays = parts.map((part) =>
    typeof part === 'string'
      ? Uint8Array.from(part, (c) => c.charCodeAt(0))
      : part instanceof Uint8Array
        ? part
        : Uint8Array.from(part),
  );
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const array of arrays) {
    out.set(array, at);
    at += array.length;
  }
  return out;
}

function u16(value: number): Uint8Array {
  const out = new Uint8Array(2);
  new DataView(out.buffer).setUint16(0, value, true);
  return out;
}

function u32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
}

/** A chunk with its pad byte when the body is odd; `size` overrides the declared size. */
function chunk(id: string, body: Uint8Array, size = body.length): Uint8Array {
  return bytesOf(id, u32(size), body, body.length % 2 ? [0] : []);
}

interface FmtOptions {
  code?: number;
  channels?: number;
  rate?: number;
  bits?: number;
  /** Writes WAVE_FORMAT_EXTENSIBLE with this sub-format code. */
  extensible?: number;
  guidTail?: number[];
}

const GUID_TAIL = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71];

function fmt({ code = 1, channels = 1, rate = 8000, bits = 16, extensible, guidTail }: FmtOptions = {}) {
  const block = (channels * bits) / 8;
  const common = bytesOf(u16(channels), u32(rate), u32(rate * block), u16(block), u16(bits));
  if (extensible === undefined) return chunk('fmt ', bytesOf(u16(code), common));
  const extension = bytesOf(u16(22), u16(bits), u32(0), u16(extensible), guidTail ?? GUID_TAIL);
  return chunk('fmt ', bytesOf(u16(0xfffe), common, extension));
}

function wav(...chunks: Uint8Array[]): Uint8Array {
  const body = bytesOf(...chunks);
  return bytesOf('RIFF', u32(4 + body.length), 'WAVE', body);
}

function le16(...samples: number[]): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  for (const [i, s] of samples.entries()) view.setInt16(i * 2, s, true);
  return out;
}

function samples(frame: AudioFrame): number[] {
  return [...frame.data];
}

function ramp(count: number, channels = 1, rate = 16_000): AudioFrame {
  const data = new Int16Array(count * channels);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 2731) % 65_536) - 32_768;
  return new AudioFrame(data, rate, channels, count);
}

function wavError(input: Uint8Array): WavFormatError {
  try {
    decodeWav(input);
  } catch (error) {
    expect(error).toBeInstanceOf(WavFormatError);
    expect(error).toBeInstanceOf(InvalidAudioError);
    expect(error).toBeInstanceOf(VoxwireError);
    return error as WavFormatError;
  }
  throw new Error('decodeWav accepted the input');
}

describe('encodeWav', () => {
  it('writes a 44-byte 16-bit PCM header and the samples in order', () => {
    const a = ramp(3);
    const b = new AudioFrame(Int16Array.of(-1, 32767), 16_000, 1, 2);
    const bytes = encodeWav([a, b]);
    const view = new DataView(bytes.buffer);
    expect(bytes.length).toBe(44 + 10);
    expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe('RIFF');
    expect(view.getUint32(4, true)).toBe(36 + 10);
    expect(String.fromCharCode(...bytes.subarray(8, 16))).toBe('WAVEfmt ');
    expect(view.getUint32(16, true)).toBe(16);
    expect(view.getUint16(20, true)).toBe(1);
    expect(view.getUint16(22, true)).toBe(1);
    expect(view.getUint32(24, true)).toBe(16_000);
    expect(view.getUint32(28, true)).toBe(32_000);
    expect(view.getUint16(32, true)).toBe(2);
    expect(view.getUint16(34, true)).toBe(16);
    expect(String.fromCharCode(...bytes.subarray(36, 40))).toBe('data');
    expect(view.getUint32(40, true)).toBe(10);
    const written = [0, 1, 2, 3, 4].map((i) => view.getInt16(44 + i * 2, true));
    expect(written).toEqual([...samples(a), -1, 32767]);
  });

  it('takes one frame, or raw samples with their format', () => {
    const frame = ramp(5, 2, 48_000);
    expect(encodeWav(frame)).toEqual(encodeWav([frame]));
    expect(encodeWav(frame.data, { sampleRate: 48_000, channels: 2 })).toEqual(encodeWav(frame));
    const empty = encodeWav(new Int16Array(0), { sampleRate: 24_000 });
    expect(empty.length).toBe(44);
    expect(decodeWav(empty).samplesPerChannel).toBe(0);
  });

  it('refuses what it cannot describe in one header', () => {
    expect(() => encodeWav([ramp(2), ramp(2, 1, 24_000)])).toThrow(/share one format/);
    expect(() => encodeWav([ramp(2), ramp(2, 2)])).toThrow(InvalidAudioError);
    expect(() => encodeWav([])).toThrow(/zero frames/);
    expect(() => encodeWav(new Int16Array(3), { sampleRate: 8000, channels: 2 })).toThrow(/2 channels/);
    expect(() => encodeWav(new Int16Array(2), { sampleRate: 0 })).toThrow(InvalidAudioError);
  });

  it('round-trips through decodeWav, mono and multi-channel', () => {
    for (const frame of [ramp(1000), ramp(333, 2, 44_100), ramp(7, 6, 8000)]) {
      const back = decodeWav(encodeWav(frame));
      expect(back.sampleRate).toBe(frame.sampleRate);
      expect(back.channels).toBe(frame.channels);
      expect(back.samplesPerChannel).toBe(frame.samplesPerChannel);
      expect(samples(back)).toEqual(samples(frame));
    }
  });
});

describe('decodeWav sample formats', () => {
  it('reads 8-bit unsigned PCM, 128 being silence', () => {
    const frame = decodeWav(wav(fmt({ bits: 8 }), chunk('data', Uint8Array.of(0, 128, 255, 129))));
    expect(samples(frame)).toEqual([-32768, 0, 32512, 256]);
  });

  it('reads 24-bit PCM, rounding to 16 bits', () => {
    // 0x7FFFFF, -0x800000, 128 (half a 16-bit step: rounds up), -129 (rounds to -1)
    const data = bytesOf([0xff, 0xff, 0x7f], [0x00, 0x00, 0x80], [0x80, 0x00, 0x00], [0x7f, 0xff, 0xff]);
    const frame = decodeWav(wav(fmt({ bits: 24 }), chunk('data', data)));
    expect(samples(frame)).toEqual([32767, -32768, 1, -1]);
  });

  it('reads 32-bit integer PCM', () => {
    const data = new Uint8Array(12);
    const view = new DataView(data.buffer);
    for (const [i, v] of [0x7fffffff, -0x80000000, 0x00018000].entries()) view.setInt32(i * 4, v, true);
    expect(samples(decodeWav(wav(fmt({ bits: 32 }), chunk('data', data))))).toEqual([32767, -32768, 2]);
  });

  it('reads 32- and 64-bit float, clamping and zeroing NaN', () => {
    const values = [0, 0.5, -0.5, 1, -1, 2, Number.NaN];
    const expected = [0, 16384, -16384, 32767, -32768, 32767, 0];
    const f32 = new Uint8Array(values.length * 4);
    const f64 = new Uint8Array(values.length * 8);
    values.forEach((v, i) => {
      new DataView(f32.buffer).setFloat32(i * 4, v, true);
      new DataView(f64.buffer).setFloat64(i * 8, v, true);
    });
    expect(samples(decodeWav(wav(fmt({ code: 3, bits: 32 }), chunk('data', f32))))).toEqual(expected);
    expect(samples(decodeWav(wav(fmt({ code: 3, bits: 64 }), chunk('data', f64))))).toEqual(expected);
  });

  it('keeps channels interleaved', () => {
    const frame = decodeWav(wav(fmt({ channels: 3, rate: 48_000 }), chunk('data', le16(1, 2, 3, 4, 5, 6))));
    expect(frame.channels).toBe(3);
    expect(frame.samplesPerChannel).toBe(2);
    expect(frame.sampleRate).toBe(48_000);
    expect(samples(frame)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reads WAVE_FORMAT_EXTENSIBLE with a PCM or float sub-format', () => {
    const pcm = decodeWav(
      wav(fmt({ extensible: 1, bits: 24, channels: 2 }), chunk('data', new Uint8Array(12))),
    );
    expect([pcm.channels, pcm.samplesPerChannel]).toEqual([2, 2]);
    const float = new Uint8Array(4);
    new DataView(float.buffer).setFloat32(0, -0.25, true);
    expect(samples(decodeWav(wav(fmt({ extensible: 3, bits: 32 }), chunk('data', float))))).toEqual([-8192]);
    const other = wavError(
      wav(fmt({ extensible: 1, guidTail: GUID_TAIL.map((b) => b ^ 1) }), chunk('data', new Uint8Array(0))),
    );
    expect(other.message).toMatch(/sub-format/);
  });
});

describe('decodeWav chunk layout', () => {
  it('skips unknown chunks, odd-sized ones with their pad byte', () => {
    const frame = decodeWav(
      wav(
        chunk('LIST', bytesOf('INFOISFT', u32(3), 'abc')), // odd: padded
        fmt(),
        chunk('fact', u32(3)),
        chunk('JUNK', new Uint8Array(0)),
        chunk('data', le16(10, -20, 30)),
        chunk('LIST', bytesOf('INFO')),
      ),
    );
    expect(samples(frame)).toEqual([10, -20, 30]);
  });

  it('reads an odd-sized data chunk up to its last whole sample', () => {
    const frame = decodeWav(wav(fmt(), chunk('data', bytesOf(le16(7, 8), [0x55]))));
    expect(samples(frame)).toEqual([7, 8]);
  });

  it('ignores what follows a data chunk of known size', () => {
    const data = chunk('data', le16(1, 2));
    const input = bytesOf(wav(fmt(), data), le16(99, 99));
    expect(samples(decodeWav(input))).toEqual([1, 2]);
  });

  it('reads to the end of the input when the data size is 0 or 0xFFFFFFFF (written to a pipe)', () => {
    for (const size of [0, 0xffffffff]) {
      const input = bytesOf('RIFF', u32(size), 'WAVE', fmt(), 'data', u32(size), le16(5, 6, 7));
      expect(samples(decodeWav(input))).toEqual([5, 6, 7]);
    }
  });

  it('reads a data chunk declaring more than the input holds up to the end, whole sample frames only', () => {
    // What espeak-ng writes to a pipe: 0x7FFFF000 bytes declared.
    const piped = bytesOf('RIFF', u32(0x7ffff024), 'WAVE', fmt(), 'data', u32(0x7ffff000), le16(1, 2, 3));
    expect(samples(decodeWav(piped))).toEqual([1, 2, 3]);
    const cut = bytesOf(wav(fmt({ channels: 2 })), 'data', u32(400), le16(1, 2, 3), [0x44]);
    const frame = decodeWav(cut);
    expect(frame.samplesPerChannel).toBe(1);
    expect(samples(frame)).toEqual([1, 2]);
  });

  it('reads RF64 files, taking the data size from the ds64 chunk', () => {
    const ds64 = chunk('ds64', bytesOf(u32(0), u32(0), u32(4), u32(0), u32(0), u32(0), u32(0)));
    const input = bytesOf('RF64', u32(0xffffffff), 'WAVE', ds64, fmt(), 'data', u32(0xffffffff), le16(4, 5));
    expect(samples(decodeWav(bytesOf(input, chunk('LIST', bytesOf('INFO')))))).toEqual([4, 5]);
  });
});

describe('decodeWav refuses malformed input with a message saying what is wrong', () => {
  it.each([
    ['an MP3', bytesOf('ID3', [3, 0, 0, 0, 0, 0, 0, 0, 0]), /not a WAV file: it starts with "ID3\\x03"/],
    ['a RIFF file that is not WAVE', bytesOf('RIFF', u32(4), 'AVI '), /RIFF file of type "AVI "/],
    ['big-endian RIFX', bytesOf('RIFX', u32(4), 'WAVE'), /big-endian/],
    ['empty input', new Uint8Array(0), /empty/],
    ['a header cut short', bytesOf('RIFF', u32(4)), /inside the 12-byte RIFF header/],
    ['no fmt chunk', wav(chunk('LIST', bytesOf('INFO'))), /no fmt chunk/],
    [
      'data before fmt',
      wav(chunk('data', le16(1)), fmt()),
      /data chunk at byte 12 comes before any fmt chunk/,
    ],
    ['no data chunk', wav(fmt(), chunk('LIST', bytesOf('INFO'))), /no data chunk/],
    ['a fmt chunk cut short', wav(fmt()).subarray(0, 30), /ends inside the "fmt " chunk at byte 12/],
    [
      'a fmt chunk too small',
      wav(chunk('fmt ', new Uint8Array(10))),
      /"fmt " chunk at byte 12 declares 10 bytes/,
    ],
    ['MP3 in a WAV', wav(fmt({ code: 0x55 }), chunk('data', new Uint8Array(0))), /format code 85 \(MP3\)/],
    ['µ-law', wav(fmt({ code: 7, bits: 8 }), chunk('data', new Uint8Array(0))), /format code 7 \(µ-law\)/],
    ['an unknown code', wav(fmt({ code: 0x1234 }), chunk('data', new Uint8Array(0))), /format code 4660;/],
    ['zero channels', wav(fmt({ channels: 0 }), chunk('data', new Uint8Array(0))), /0 channels/],
    ['zero sample rate', wav(fmt({ rate: 0 }), chunk('data', new Uint8Array(0))), /sample rate of 0 Hz/],
    ['12-bit PCM', wav(fmt({ bits: 12 }), chunk('data', new Uint8Array(0))), /12-bit integer PCM/],
    ['16-bit float', wav(fmt({ code: 3, bits: 16 }), chunk('data', new Uint8Array(0))), /16-bit float/],
    [
      'a short extensible fmt',
      wav(chunk('fmt ', bytesOf(u16(0xfffe), new Uint8Array(16)))),
      /needs 40 bytes/,
    ],
  ])('%s', (_name, input, message) => {
    expect(wavError(input).message).toMatch(message);
  });
});

describe('WavDecoder', () => {
  const data = bytesOf([0x01, 0x02, 0x03], [0xfd, 0xfe, 0xff], [0x00, 0x00, 0x80], [0xff, 0xff, 0x7f]);
  const piped = bytesOf(
    'RIFF',
    u32(0),
    'WAVE',
    chunk('LIST', bytesOf('INFOISFT', u32(5), 'sox!!')),
    fmt({ bits: 24, channels: 2, rate: 22_050, extensible: 1 }),
    'data',
    u32(0),
    data,
    data,
    data,
  );

  it('gives the same samples as decodeWav whatever the chunk boundaries', () => {
    const whole = decodeWav(piped);
    expect(whole.samplesPerChannel).toBe(6);
    for (const size of [1, 2, 3, 5, 7, 13, 44, piped.length]) {
      const decoder = new WavDecoder();
      const frames: AudioFrame[] = [];
      for (let at = 0; at < piped.length; at += size)
        frames.push(...decoder.push(piped.subarray(at, at + size)));
      decoder.end();
      expect(frames.flatMap(samples)).toEqual(samples(whole));
      expect(frames.every((f) => f.channels === 2 && f.sampleRate === 22_050)).toBe(true);
      expect(decoder.format).toEqual({ encoding: 'pcm', bitsPerSample: 24, sampleRate: 22_050, channels: 2 });
    }
  });

  it('knows the format once the fmt chunk is in, before any sample', () => {
    const decoder = new WavDecoder();
    const dataStart = piped.length - 3 * data.length;
    expect(decoder.push(piped.subarray(0, dataStart - 8))).toEqual([]);
    expect(decoder.format?.channels).toBe(2);
    expect(decoder.push(piped.subarray(dataStart - 8, dataStart + 5))).toEqual([]); // less than a sample frame
    const [frame] = decoder.push(piped.subarray(dataStart + 5, dataStart + 7));
    expect(frame?.samplesPerChannel).toBe(1);
  });

  it('hands out frames that do not share memory with the pushed bytes', () => {
    const input = wav(fmt(), chunk('data', le16(1, 2, 3, 4)));
    const decoder = new WavDecoder();
    const [first] = decoder.push(input.subarray(0, input.length - 3));
    const [second] = decoder.push(input.subarray(input.length - 3));
    input.fill(0);
    expect([...samples(first!), ...samples(second!)]).toEqual([1, 2, 3, 4]);
  });

  it('stops at the end of a data chunk of known size and drops a partial sample at the end', () => {
    const decoder = new WavDecoder();
    const frames = decoder.push(bytesOf(wav(fmt(), chunk('data', le16(8, 9))), 'more bytes'));
    expect(frames.flatMap(samples)).toEqual([8, 9]);
    const open = new WavDecoder();
    expect(open.push(bytesOf(wav(fmt()), 'data', u32(0), le16(3), [0x12])).flatMap(samples)).toEqual([3]);
    expect(() => open.end()).not.toThrow();
  });

  it('refuses a stream that is not WAV after its first four bytes', () => {
    expect(() => new WavDecoder().push(bytesOf('OggS'))).toThrow(/starts with "OggS"/);
    expect(() => new WavDecoder().push(new TextEncoder().encode('ID3 this is an mp3 file'))).toThrow(
      WavFormatError,
    );
  });

  it('says at end() when the samples never started, and refuses input after end()', () => {
    const decoder = new WavDecoder();
    decoder.push(wav(fmt()));
    expect(() => decoder.end()).toThrow(/no data chunk/);
    expect(() => decoder.push(new Uint8Array(1))).toThrow(/after end/);
    const skipping = new WavDecoder();
    skipping.push(bytesOf(wav(), 'LIST', u32(100), 'INFO'));
    expect(() => skipping.end()).toThrow(/no fmt chunk/);
  });
});
