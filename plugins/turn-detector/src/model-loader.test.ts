import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EndOfTurnModel } from './detector.js';
import { TurnModelError } from './errors.js';
import { DEFAULT_MODEL_PATH, loadTurnModel, turnModelSessionsOpened } from './model-loader.js';
import { writeModel } from './test-support/generated-model.js';
import { SeededRandom } from './training/rng.js';
import { initialWeights } from './training/trainer.js';

function smallWeights() {
  return initialWeights({ buckets: 32, embeddingSize: 2, hiddenSize: 2 }, new SeededRandom(1));
}

async function loadError(modelPath: string): Promise<TurnModelError> {
  const error = await EndOfTurnModel.load({ modelPath }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TurnModelError);
  return error as TurnModelError;
}

describe('loading a model', () => {
  it('opens each model once per process, however many detectors use it', async () => {
    const { configPath } = writeModel(smallWeights());
    const before = turnModelSessionsOpened();
    const [a, b] = await Promise.all([
      EndOfTurnModel.load({ modelPath: configPath }),
      EndOfTurnModel.load({ modelPath: configPath }),
    ]);
    await EndOfTurnModel.load({ modelPath: join(configPath, '..', 'model.json') });
    expect(turnModelSessionsOpened() - before).toBe(1);
    expect(await loadTurnModel(configPath)).toBe(await loadTurnModel(configPath));
    expect(a).not.toBe(b);
    // The bundled one is shared the same way.
    const bundled = await loadTurnModel(DEFAULT_MODEL_PATH);
    const opened = turnModelSessionsOpened();
    await EndOfTurnModel.load();
    expect(await loadTurnModel()).toBe(bundled);
    expect(turnModelSessionsOpened()).toBe(opened);
  });

  it('names a missing description', async () => {
    const path = join(tmpdir(), 'no-such-dir', 'turn.json');
    const error = await loadError(path);
    expect(error.code).toBe('not_found');
    expect(error.modelPath).toBe(path);
    expect(error.message).toContain(path);
  });

  it('names a missing ONNX file next to a valid description, and retries once it appears', async () => {
    const { dir, configPath } = writeModel(smallWeights(), { model: 'missing.onnx' });
    const error = await loadError(configPath);
    expect(error.code).toBe('not_found');
    expect(error.modelPath).toBe(join(dir, 'missing.onnx'));
    const { configPath: good } = writeModel(smallWeights());
    writeFileSync(
      join(dir, 'missing.onnx'),
      new Uint8Array(await import('node:fs').then((fs) => fs.readFileSync(join(good, '..', 'model.onnx')))),
    );
    await expect(EndOfTurnModel.load({ modelPath: configPath })).resolves.toBeInstanceOf(EndOfTurnModel);
  });

  it('rejects a description that is not JSON or not for this feature version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turn-bad-'));
    writeFileSync(join(dir, 'a.json'), '{ nope');
    expect((await loadError(join(dir, 'a.json'))).code).toBe('invalid');
    const { configPath } = writeModel(smallWeights(), { featureVersion: 999 });
    const error = await loadError(configPath);
    expect(error.code).toBe('invalid');
    expect(error.message).toMatch(/feature version 999/);
    const { configPath: badThreshold } = writeModel(smallWeights(), {
      languages: { en: { unlikelyThreshold: 2 } },
    });
    expect((await loadError(badThreshold)).message).toMatch(/languages\.en\.unlikelyThreshold/);
  });

  it('rejects a corrupt ONNX file with load_failed', async () => {
    const { dir, configPath } = writeModel(smallWeights());
    writeFileSync(join(dir, 'model.onnx'), 'definitely not protobuf');
    const error = await loadError(configPath);
    expect(error.code).toBe('load_failed');
    expect(error.message).toContain(join(dir, 'model.onnx'));
  });
});
