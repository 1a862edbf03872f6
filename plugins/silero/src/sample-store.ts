type Samples = Float32Array | Int16Array;

/**
 * Append-only samples addressed by absolute position (samples since the stream began). The front is
 * trimmed in O(1) and compacted lazily, so appending a frame neither allocates nor shifts on every call.
 */
export class SampleStore<T extends Samples> {
  data: T;
  /** Index in `data` of the sample at `origin`. */
  head = 0;
  count = 0;
  /** Absolute position of the first stored sample. */
  origin: number;

  constructor(
    private readonly allocate: (length: number) => T,
    initialCapacity: number,
    origin = 0,
  ) {
    this.data = allocate(Math.max(16, initialCapacity));
    this.origin = origin;
  }

  get end(): number {
    return this.origin + this.count;
  }

  /** Index in `data` of absolute position `position` (which must be stored). */
  indexOf(position: number): number {
    return this.head + (position - this.origin);
  }

  /** Makes room for `extra` more samples; returns the index to write them at. */
  reserve(extra: number): number {
    const needed = this.count + extra;
    if (this.head + needed > this.data.length) {
      if (needed <= this.data.length >> 1) {
        this.data.copyWithin(0, this.head, this.head + this.count);
      } else {
        const grown = this.allocate(Math.max(this.data.length * 2, needed));
        grown.set(this.data.subarray(this.head, this.head + this.count) as never);
        this.data = grown;
      }
      this.head = 0;
    }
    return this.head + this.count;
  }

  /** Records that `written` samples were written at the index `reserve` returned. */
  commit(written: number): void {
    this.count += written;
  }

  /** Forgets everything before `position`. */
  trimBefore(position: number): void {
    const drop = Math.min(position - this.origin, this.count);
    if (drop <= 0) return;
    this.head += drop;
    this.origin += drop;
    this.count -= drop;
    if (this.count === 0) this.head = 0;
  }
}

/** Appends a frame's interleaved Int16 samples to `store` as mono Int16. */
export function appendMonoInt16(store: SampleStore<Int16Array>, data: Int16Array, channels: number): void {
  const frames = data.length / channels;
  const at = store.reserve(frames);
  const out = store.data;
  if (channels === 1) {
    out.set(data, at);
  } else {
    for (let i = 0, j = 0; i < frames; i++) {
      let sum = 0;
      for (let c = 0; c < channels; c++) sum += data[j++] as number;
      out[at + i] = Math.round(sum / channels);
    }
  }
  store.commit(frames);
}

/** Appends a frame's interleaved Int16 samples to `store` as mono floats in [-1, 1). */
export function appendMonoFloat(store: SampleStore<Float32Array>, data: Int16Array, channels: number): void {
  const frames = data.length / channels;
  const at = store.reserve(frames);
  const out = store.data;
  const scale = 1 / (32768 * channels);
  if (channels === 1) {
    for (let i = 0; i < frames; i++) out[at + i] = (data[i] as number) * scale;
    store.commit(frames);
    return;
  }
  for (let i = 0, j = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += data[j++] as number;
    out[at + i] = sum * scale;
  }
  store.commit(frames);
}
