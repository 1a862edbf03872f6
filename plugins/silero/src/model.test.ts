import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SileroModelError } from './errors.js';
import { DEFAULT_MODEL_PATH, SileroVAD } from './vad.js';

describe('loading the model', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxwire-silero-model-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ships the model in the package', async () => {
    expect(DEFAULT_MODEL_PATH).toMatch(/silero[/\\]model[/\\]silero_vad\.onnx$/);
    const a = await SileroVAD.load({ inference: 'main-thread' });
    const b = await SileroVAD.load({ inference: 'main-thread', activationThreshold: 0.6 });
    // One session per process: both instances share the pool.
    expect((a as unknown as { pool: unknown }).pool).toBe((b as unknown as { pool: unknown }).pool);
    await a.close();
    const stream = b.stream();
    await stream.close();
    await b.close();
  });

  it('names the path of a missing model', async () => {
    const path = join(dir, 'nope.onnx');
    const error = await SileroVAD.load({ modelPath: path, inference: 'main-thread' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SileroModelError);
    expect((error as SileroModelError).modelPath).toBe(path);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/not found/);
  });

  it('names the path of a corrupt model', async () => {
    const path = join(dir, 'corrupt.onnx');
    writeFileSync(path, Buffer.alloc(64 * 1024, 7));
    const error = await SileroVAD.load({ modelPath: path, inference: 'main-thread' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SileroModelError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/could not be loaded/);
    // A failed load is not cached: the next attempt tries again.
    const again = await SileroVAD.load({ modelPath: path, inference: 'main-thread' }).catch(
      (e: unknown) => e,
    );
    expect(again).toBeInstanceOf(SileroModelError);
  });

  it('refuses worker inference without a worker file when asked for it explicitly', async () => {
    await expect(SileroVAD.load({ inference: 'workers' })).rejects.toThrow(/worker/);
  });
});
