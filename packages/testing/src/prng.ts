/**
 * A small seeded generator (sfc32 seeded through splitmix32), so that scenarios and latencies replay
 * exactly from a seed. Math.random is never used by this package: a run must be a function of its seed.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    // The first outputs of a fresh state are poorly mixed.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t / 4294967296;
  }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick() needs at least one item');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(choices: ReadonlyArray<readonly [number, T]>): T {
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let x = this.next() * total;
    for (const [w, value] of choices) {
      x -= w;
      if (x < 0) return value;
    }
    return choices[choices.length - 1]![1];
  }

  /** Rounds to a multiple of `step` so generated scenarios stay readable. */
  ms(min: number, max: number, step = 10): number {
    return Math.round(this.int(min, max) / step) * step;
  }

  /** A value within ±fraction of `value` (for latency jitter). */
  jitter(value: number, fraction: number): number {
    if (fraction <= 0 || value <= 0) return value;
    return Math.max(0, Math.round(value * (1 + fraction * (2 * this.next() - 1))));
  }
}
