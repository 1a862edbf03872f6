import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FEATURE_VERSION } from '../features.js';
import type { TurnModelConfig } from '../model-config.js';
import { encodeTurnModel } from '../onnx/turn-graph.js';
import type { TurnModelWeights } from '../weights.js';

/** Writes a model made in the test (ONNX file plus description) to a fresh temporary folder. */
export function writeModel(
  weights: TurnModelWeights,
  overrides: Partial<TurnModelConfig> = {},
): { dir: string; configPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'turn-model-'));
  writeFileSync(join(dir, 'model.onnx'), encodeTurnModel(weights));
  const config: TurnModelConfig = {
    format: 'voxwire-turn-detector',
    featureVersion: FEATURE_VERSION,
    model: 'model.onnx',
    buckets: weights.buckets,
    embeddingSize: weights.embeddingSize,
    hiddenSize: weights.hiddenSize,
    languages: { en: { unlikelyThreshold: 0.5 }, de: { unlikelyThreshold: 0.4 } },
    ...overrides,
  };
  const configPath = join(dir, 'model.json');
  writeFileSync(configPath, JSON.stringify(config));
  return { dir, configPath };
}
