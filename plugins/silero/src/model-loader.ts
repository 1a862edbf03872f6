import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildBatchedGraph } from './graph/batched-graph.js';
import { readSileroNetworks, type SileroNetwork } from './graph/silero-weights.js';
import { compareGraphs } from './graph/verify-graph.js';
import { WasmSileroNetwork } from './graph/wasm-network.js';
import type { ModelSampleRate } from './protocol.js';
import {
  type ModelSession,
  messageOf,
  type OrtModule,
  openSession,
  type SessionSettings,
} from './session.js';
import { smallBatchSession, wasmSession } from './small-batch-session.js';

/**
 * `batched`: the file's weights in a graph rebuilt so every layer is one matrix product over the batch
 * (see `graph/batched-graph.ts`); `original`: the file's own graph.
 */
export type ModelGraph = 'batched' | 'original';

/**
 * How batches of up to `SMALL_BATCH_ROWS` rows run with the batched graph: `wasm` on the WebAssembly
 * network (see `small-batch-session.ts`), `onnxruntime` like every other batch.
 */
export type SmallBatchKernel = 'wasm' | 'onnxruntime';

export interface ModelSettings extends SessionSettings {
  graph: ModelGraph;
  smallBatchKernel: SmallBatchKernel;
}

export interface RateModel {
  readonly session: ModelSession;
  readonly graph: ModelGraph;
  /** Why the batched graph was asked for and not used at this rate. */
  readonly fallbackReason?: string;
  readonly smallBatchKernel: SmallBatchKernel;
  /** Why the WebAssembly network was asked for and not used at this rate. */
  readonly smallBatchFallbackReason?: string;
}

/** What runs at each model rate. */
export interface LoadedModel {
  readonly rates: Readonly<Record<ModelSampleRate, RateModel>>;
  release(): Promise<void>;
}

export type GraphReport = Record<
  ModelSampleRate,
  Pick<RateModel, 'graph' | 'fallbackReason' | 'smallBatchKernel' | 'smallBatchFallbackReason'>
>;

const RATES: readonly ModelSampleRate[] = [16000, 8000];

/** The model shipped in this package: `model/` sits beside both `src/` and `dist/`. */
export function defaultModelPath(): string {
  return fileURLToPath(new URL('../model/silero_vad.onnx', import.meta.url));
}

/**
 * Opens the model file (which also validates it: errors name the path) and, unless the file's graph is
 * asked for, builds the batched graph for each rate and checks it against the file's graph on probe
 * audio. A rate whose rebuild fails or disagrees keeps the file's graph, with the reason recorded.
 */
export async function loadModel(
  ort: OrtModule,
  settings: ModelSettings,
  { preferNative = true }: { preferNative?: boolean } = {},
): Promise<LoadedModel> {
  const file = await openSession(ort, { kind: 'file', path: settings.modelPath }, settings, { preferNative });
  const rates = {} as Record<ModelSampleRate, RateModel>;
  const keepFile = (reason?: string) => {
    for (const rate of RATES) {
      rates[rate] ??= {
        session: file,
        graph: 'original',
        smallBatchKernel: 'onnxruntime',
        ...(reason === undefined ? {} : { fallbackReason: reason }),
      };
    }
  };
  if (settings.graph === 'original') {
    keepFile();
    return loaded(rates);
  }
  const read = await readFile(settings.modelPath).then(readSileroNetworks, (error: unknown) => ({
    ok: false as const,
    reason: messageOf(error),
  }));
  if (!read.ok) {
    keepFile(`the file's layout was not recognized (${read.reason})`);
    return loaded(rates);
  }
  for (const rate of RATES) {
    const network = read.networks.get(rate);
    if (!network) {
      rates[rate] = {
        session: file,
        graph: 'original',
        smallBatchKernel: 'onnxruntime',
        fallbackReason: `the file has no ${rate} Hz network`,
      };
      continue;
    }
    let session: ModelSession | undefined;
    try {
      session = await openSession(
        ort,
        {
          kind: 'bytes',
          bytes: buildBatchedGraph(network),
          label: `batched ${rate} Hz graph of ${settings.modelPath}`,
        },
        settings,
        { preferNative },
      );
      const mismatch = await compareGraphs(ort, file, session, rate);
      if (mismatch) throw new Error(`it disagrees with the file's graph: ${mismatch}`);
    } catch (error) {
      await session?.release().catch(() => undefined);
      rates[rate] = {
        session: file,
        graph: 'original',
        smallBatchKernel: 'onnxruntime',
        fallbackReason: messageOf(error),
      };
      continue;
    }
    rates[rate] =
      settings.smallBatchKernel === 'wasm'
        ? await withSmallBatches(ort, file, session, network)
        : { session, graph: 'batched', smallBatchKernel: 'onnxruntime' };
  }
  // The file's session stays open only while some rate runs it.
  if (RATES.every((rate) => rates[rate].graph === 'batched')) await file.release();
  return loaded(rates);
}

/** The batched graph with the WebAssembly network in front for small batches, once it agrees with the file. */
async function withSmallBatches(
  ort: OrtModule,
  file: ModelSession,
  batched: ModelSession,
  network: SileroNetwork,
): Promise<RateModel> {
  try {
    const wasm = new WasmSileroNetwork(network);
    const mismatch = await compareGraphs(ort, file, wasmSession(wasm), network.rate);
    if (mismatch) throw new Error(`it disagrees with the file's graph: ${mismatch}`);
    return { session: smallBatchSession(wasm, batched), graph: 'batched', smallBatchKernel: 'wasm' };
  } catch (error) {
    return {
      session: batched,
      graph: 'batched',
      smallBatchKernel: 'onnxruntime',
      smallBatchFallbackReason: messageOf(error),
    };
  }
}

function loaded(rates: Record<ModelSampleRate, RateModel>): LoadedModel {
  const sessions = new Set(RATES.map((rate) => rates[rate].session));
  return {
    rates,
    release: async () => {
      await Promise.all([...sessions].map((session) => session.release()));
    },
  };
}

export function reportOf(model: LoadedModel): GraphReport {
  const report = {} as GraphReport;
  for (const rate of RATES) {
    const { graph, fallbackReason, smallBatchKernel, smallBatchFallbackReason } = model.rates[rate];
    report[rate] = {
      graph,
      smallBatchKernel,
      ...(fallbackReason === undefined ? {} : { fallbackReason }),
      ...(smallBatchFallbackReason === undefined ? {} : { smallBatchFallbackReason }),
    };
  }
  return report;
}
