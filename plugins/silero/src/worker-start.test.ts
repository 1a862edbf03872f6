import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { SileroModelError } from './errors.js';
import { openWithExecutor } from './vad.js';
import { SileroWorkerStartError, startWorker, workerExecArgv } from './worker-start.js';

describe('starting the inference worker', () => {
  it('leaves out V8 and process-wide flags that Node refuses in a worker, keeping the others', async () => {
    const parent = [
      '--max-old-space-size=512',
      '--conditions=@voxwire/source',
      '--expose-gc',
      '--no-warnings',
    ];
    const given: string[][] = [];
    const worker = startWorker((execArgv) => {
      given.push(execArgv);
      return new Worker('process.exit(0)', { eval: true, execArgv });
    }, parent);
    await new Promise((resolve) => worker.once('exit', resolve));
    expect(given.at(-1)).toEqual(['--conditions=@voxwire/source', '--no-warnings']);
  });

  it('drops --input-type and its value', () => {
    expect(workerExecArgv(['--input-type', 'module', '--input-type=commonjs', '--no-warnings'])).toEqual([
      '--no-warnings',
    ]);
  });

  it('drops every flag when Node names none of them, and reports other failures as worker errors', () => {
    const invalid = Object.assign(new Error('bad flags'), { code: 'ERR_WORKER_INVALID_EXEC_ARGV' });
    const given: string[][] = [];
    const started = startWorker(
      (execArgv) => {
        given.push(execArgv);
        if (execArgv.length > 0) throw invalid;
        return 'worker';
      },
      ['--weird-flag'],
    );
    expect(started).toBe('worker');
    expect(given).toEqual([['--weird-flag'], []]);
    expect(() =>
      startWorker(() => {
        throw new Error('no threads');
      }, []),
    ).toThrow(SileroWorkerStartError);
  });

  it('load() rejects with the worker error itself, not a model error blaming the model file', async () => {
    const refused = new SileroWorkerStartError('the Silero inference worker thread could not be started: no');
    const opening = openWithExecutor({}, () => Promise.reject(refused), 'worker-start-refused');
    await expect(opening).rejects.toBe(refused);
    await expect(opening).rejects.not.toBeInstanceOf(SileroModelError);
  });
});
