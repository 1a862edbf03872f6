import { cpus } from 'node:os';
import type { Clock, TimerHandle } from '@voxwire/agents';

/** What a `loadFn` may base the worker's load on. */
export interface WorkerLoadInfo {
  /** Jobs running in this process. */
  activeJobs: number;
  /** Jobs accepted and waiting for their assignment (a slot is held for each). */
  pendingJobs: number;
  /** Moving average of the machine's CPU use, 0..1. */
  cpuLoad: number;
  /** `sessionCapacity` from the options, when set. */
  sessionCapacity: number | undefined;
}

/**
 * The load a worker reports by default. LiveKit assumes one process per job and reports CPU alone;
 * a Voxwire process holds many sessions, so when `sessionCapacity` (sessions per process at which it
 * is full, measured for your agent) is set, the load is whichever is higher: CPU, or sessions held
 * against that capacity.
 */
export function defaultLoad(info: WorkerLoadInfo): number {
  const sessions =
    info.sessionCapacity !== undefined && info.sessionCapacity > 0
      ? (info.activeJobs + info.pendingJobs) / info.sessionCapacity
      : 0;
  return Math.min(1, Math.max(info.cpuLoad, sessions));
}

type CpuTimes = { busy: number; total: number };

function readCpuTimes(): CpuTimes {
  let busy = 0;
  let total = 0;
  for (const cpu of cpus()) {
    const t = cpu.times;
    const all = t.user + t.nice + t.sys + t.irq + t.idle;
    total += all;
    busy += all - t.idle;
  }
  return { busy, total };
}

/** Samples the machine's CPU use on the clock and keeps a moving average of the last samples. */
export class CpuLoadMonitor {
  private readonly samples: number[] = [];
  private last: CpuTimes;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly sampleIntervalMs = 500,
    private readonly window = 5,
    private readonly read: () => CpuTimes = readCpuTimes,
  ) {
    this.last = this.read();
  }

  start(): void {
    this.timer ??= this.clock.setRepeatingTimer(this.sampleIntervalMs, () => this.sample());
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The average of the recent samples, 0..1 (0 before the first sample). */
  get load(): number {
    if (this.samples.length === 0) return 0;
    return this.samples.reduce((a, b) => a + b, 0) / this.samples.length;
  }

  private sample(): void {
    const now = this.read();
    const total = now.total - this.last.total;
    const busy = now.busy - this.last.busy;
    this.last = now;
    if (total <= 0) return;
    this.samples.push(Math.min(1, Math.max(0, busy / total)));
    if (this.samples.length > this.window) this.samples.shift();
  }
}
