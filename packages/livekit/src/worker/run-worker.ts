import { disposeRtcNode } from '../room/rtc-room.js';
import { AgentWorker } from './agent-worker.js';
import type { AgentWorkerOptions } from './options.js';

export interface RunWorkerOptions<Prewarmed> extends AgentWorkerOptions<Prewarmed> {
  /**
   * SIGTERM and SIGINT drain the worker (a second one closes it at once). Default true; turn off when
   * the application handles signals itself and calls `drain()`.
   */
  handleSignals?: boolean;
  /** Where signals come from; `process` by default. */
  signalSource?: Pick<NodeJS.Process, 'on' | 'off'>;
  /** Called with the worker once it is created (to read its state or close it). */
  onWorker?(worker: AgentWorker<Prewarmed>): void;
}

/**
 * Runs a worker until it is drained or closed: what `voxwire start` does. SIGTERM (a deploy, a scale
 * down) makes it report full, let its jobs finish within `drainTimeoutMs` and exit; at the end the
 * rtc-node runtime is released so the process can exit.
 */
export async function runWorker<Prewarmed>(options: RunWorkerOptions<Prewarmed>): Promise<void> {
  const worker = new AgentWorker<Prewarmed>(options);
  options.onWorker?.(worker);
  const source = options.signalSource ?? process;
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals === 1) {
      options.logger?.info({ signal }, 'draining the worker; send the signal again to stop at once');
      void worker.drain();
    } else {
      void worker.close(`${signal} received twice`);
    }
  };
  const handle = options.handleSignals !== false;
  if (handle) {
    source.on('SIGTERM', onSignal);
    source.on('SIGINT', onSignal);
  }
  try {
    await worker.start();
  } finally {
    if (handle) {
      source.off('SIGTERM', onSignal);
      source.off('SIGINT', onSignal);
    }
    await disposeRtcNode();
  }
}
