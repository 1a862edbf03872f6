/**
 * Sessions that run the smallest batches without onnxruntime.
 *
 * A call into onnxruntime has a fixed cost that dominates at one row: measured on the 2-core bench VM, an
 * empty two-node graph takes about 15 µs called back to back and about 220 µs when 32 ms have passed
 * since the previous call (its code is out of the caches by then), and one row of the batched graph
 * about 50 and 480 µs. A lone stream calls once per 32 ms window, always cold. The WebAssembly network
 * (`graph/wasm-network.ts`) costs about 85 µs warm and 190 µs cold at one row; its cost grows with every
 * row while the batched graph's barely does, so from three rows on onnxruntime is cheaper.
 */
import type * as Ort from 'onnxruntime-node';
import type { WasmSileroNetwork } from './graph/wasm-network.js';
import { BATCHED_INPUTS, type ModelSession } from './session.js';

/** Batches of at most this many rows run on the WebAssembly network (measured crossover: about 3 rows cold). */
export const SMALL_BATCH_ROWS = 2;

/** The WebAssembly network behind the session interface (any batch size: the loader's probe uses 3). */
export function wasmSession(network: WasmSileroNetwork): ModelSession {
  return {
    kind: 'wasm',
    inputNames: BATCHED_INPUTS,
    run(feeds, fetches) {
      runNetwork(network, feeds, fetches);
      return undefined;
    },
    release: async () => undefined,
  };
}

/** `network` for batches of up to `SMALL_BATCH_ROWS` rows, `large` for the rest; releasing it releases `large`. */
export function smallBatchSession(network: WasmSileroNetwork, large: ModelSession): ModelSession {
  return {
    kind: large.kind,
    inputNames: large.inputNames,
    run(feeds, fetches) {
      const input = feeds.input as Ort.Tensor;
      if ((input.dims[0] as number) > SMALL_BATCH_ROWS) return large.run(feeds, fetches);
      runNetwork(network, feeds, fetches);
      return undefined;
    },
    release: () => large.release(),
  };
}

function runNetwork(
  network: WasmSileroNetwork,
  feeds: Record<string, Ort.Tensor>,
  fetches: Record<string, Ort.Tensor>,
): void {
  const input = feeds.input as Ort.Tensor;
  network.run(
    input.data as Float32Array,
    (feeds.state as Ort.Tensor).data as Float32Array,
    (fetches.output as Ort.Tensor).data as Float32Array,
    (fetches.stateN as Ort.Tensor).data as Float32Array,
    input.dims[0] as number,
  );
}
