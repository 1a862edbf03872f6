import { describe, expect, it } from 'vitest';
import { InFlightTasks } from './in-flight-tasks.js';

describe('InFlightTasks', () => {
  it('hands a failed task to onFailure, never to the process as an unhandled rejection', async () => {
    const failures: unknown[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const tasks = new InFlightTasks((error) => failures.push(error));
      const boom = new Error('reply crashed');
      tasks.track(Promise.reject(boom));
      tasks.track(Promise.resolve('fine'));
      await Promise.all(tasks.pending);
      await new Promise((resolve) => setImmediate(resolve));
      expect(failures).toEqual([boom]);
      expect(unhandled).toEqual([]);
      expect(tasks.pending).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('keeps a task pending until it settles, and survives a reporter that throws', async () => {
    const tasks = new InFlightTasks(() => {
      throw new Error('reporter broke');
    });
    let finish!: () => void;
    tasks.track(new Promise<void>((resolve) => (finish = resolve)));
    tasks.track(Promise.reject(new Error('x')));
    expect(tasks.pending).toHaveLength(2);
    finish();
    await Promise.all(tasks.pending);
    await new Promise((resolve) => setImmediate(resolve));
    expect(tasks.pending).toEqual([]);
  });
});
