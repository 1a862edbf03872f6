/**
 * The magnitude of a windowed DFT of every frame of a row, as Silero's first layer computes it, by a
 * radix-2 FFT instead of the file's basis product (a quarter of the arithmetic, and no 264 KB basis to
 * bring back into the caches at every call).
 *
 * Used only when the file's basis is a windowed DFT, which `windowOfDft` checks entry by entry.
 */

/** Relative error allowed between the file's STFT basis and a windowed DFT. */
const BASIS_TOLERANCE = 1e-5;

export class FftSpectrum {
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly reverse: Int32Array;

  constructor(
    private readonly frameLength: number,
    private readonly window: Float64Array,
  ) {
    this.re = new Float64Array(frameLength);
    this.im = new Float64Array(frameLength);
    this.cos = new Float64Array(frameLength / 2);
    this.sin = new Float64Array(frameLength / 2);
    for (let k = 0; k < frameLength / 2; k++) {
      this.cos[k] = Math.cos((2 * Math.PI * k) / frameLength);
      this.sin[k] = -Math.sin((2 * Math.PI * k) / frameLength);
    }
    this.reverse = bitReversal(frameLength);
  }

  /** |DFT| bins 0..n/2 of `source[start .. start + n)`, windowed, into `out[at ..]`. */
  magnitudes(source: Float64Array, start: number, out: Float32Array, at: number): void {
    const n = this.frameLength;
    const { re, im, reverse, window, cos, sin } = this;
    for (let i = 0; i < n; i++) {
      const j = reverse[i] as number;
      re[j] = (source[start + i] as number) * (window[i] as number);
      im[j] = 0;
    }
    for (let size = 2; size <= n; size <<= 1) {
      const half = size >> 1;
      const step = n / size;
      for (let base = 0; base < n; base += size) {
        for (let k = 0; k < half; k++) {
          const wr = cos[k * step] as number;
          const wi = sin[k * step] as number;
          const p = base + k;
          const q = p + half;
          const xr = re[q] as number;
          const xi = im[q] as number;
          const tr = xr * wr - xi * wi;
          const ti = xr * wi + xi * wr;
          const pr = re[p] as number;
          const pi = im[p] as number;
          re[q] = pr - tr;
          im[q] = pi - ti;
          re[p] = pr + tr;
          im[p] = pi + ti;
        }
      }
    }
    for (let k = 0; k <= n / 2; k++) {
      const a = re[k] as number;
      const c = im[k] as number;
      out[at + k] = Math.sqrt(a * a + c * c);
    }
  }
}

/**
 * The window w when basis row k is w[n]·cos(2πkn/N) and row bins+k is ±w[n]·sin(2πkn/N) (the sign does
 * not change a magnitude); undefined when it is not.
 */
export function windowOfDft(basis: Float32Array, bins: number, n: number): Float64Array | undefined {
  if (n < 2 || (n & (n - 1)) !== 0 || bins !== n / 2 + 1) return undefined;
  const window = Float64Array.from(basis.subarray(0, n));
  const scale = Math.max(...window.map(Math.abs));
  if (!(scale > 0)) return undefined;
  const tolerance = BASIS_TOLERANCE * scale;
  let sign = 0;
  for (let k = 0; k < bins; k++) {
    for (let i = 0; i < n; i++) {
      const angle = (2 * Math.PI * ((k * i) % n)) / n;
      const w = window[i] as number;
      if (Math.abs((basis[k * n + i] as number) - w * Math.cos(angle)) > tolerance) return undefined;
      const imaginary = basis[(bins + k) * n + i] as number;
      const expected = w * Math.sin(angle);
      if (sign === 0 && Math.abs(expected) > tolerance) sign = Math.sign(imaginary) * Math.sign(expected);
      if (Math.abs(imaginary - (sign || 1) * expected) > tolerance) return undefined;
    }
  }
  return window;
}

function bitReversal(n: number): Int32Array {
  const bits = Math.log2(n);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let r = 0;
    for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
    out[i] = r;
  }
  return out;
}
