import { inspect } from 'node:util';
import { type ProviderProblem, redactLogValue } from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeepgramMetrics } from './metrics.js';
import { DeepgramSTT } from './stt.js';
import { silenceFrames, speechFrames } from './testing/coded-speech.js';
import { type FakeDeepgramServer, startFakeDeepgram } from './testing/fake-deepgram-server.js';
import { collect, pushPaced } from './testing/helpers.js';

/** Looks like no known key format, so only the plugin's own scrubbing can catch it. */
const SENTINEL = 'SENTINELxDGx5c1e9a7b3d';

/** A careless server: the key in the message, in a nested field, in a header dump. */
const echo = (status: number) => ({
  status,
  body: {
    err_code: 'INSUFFICIENT_PERMISSIONS',
    err_msg: `Key ${SENTINEL} may not do this`,
    debug: { authorization: `Token ${SENTINEL}`, note: `sent ${SENTINEL}` },
  },
  headers: { 'retry-after': '0' },
});

/** Every way an error could be shown: message, stack, body, a logger's view, `inspect` with causes. */
function everyView(value: unknown): string {
  const e = value as Error & { body?: unknown };
  return [
    e?.message,
    e?.stack,
    String(e),
    JSON.stringify(e?.body),
    JSON.stringify(redactLogValue(e)),
    inspect(e, { depth: 10, showHidden: true }),
  ].join('\n');
}

let server: FakeDeepgramServer;
beforeEach(async () => {
  server = await startFakeDeepgram({ apiKey: SENTINEL });
});
afterEach(async () => {
  await server.close();
});

describe('the API key never leaves in an error, a problem or metrics', () => {
  it('live: refused upgrades (429 retried, then 403) and their problems', async () => {
    const problems: ProviderProblem[] = [];
    const metrics: DeepgramMetrics[] = [];
    server.refuseUpgrades.push(echo(429), echo(403));
    const stream = new DeepgramSTT({
      apiKey: SENTINEL,
      baseUrl: server.url,
      retry: { initialDelayMs: 1 },
      onMetrics: (m) => metrics.push(m),
    }).stream({ sampleRate: 16_000, onProblem: (p) => problems.push(p) });
    const result = collect(stream);
    stream.pushFrame(silenceFrames(20)[0]!);
    const { error } = await result;
    expect(error).toMatchObject({ statusCode: 403, retryable: false });
    expect(problems).toHaveLength(1);
    const shown = [everyView(error), ...problems.map((p) => everyView((p as { error: Error }).error))].join(
      '\n',
    );
    expect(shown).toContain('may not do this');
    expect(shown).not.toContain(SENTINEL);
    expect(inspect(metrics, { depth: 10 })).not.toContain(SENTINEL);
  });

  it('live: a close reason and a malformed message that quote the key', async () => {
    const problems: ProviderProblem[] = [];
    server.liveFaults.push({
      connection: 0,
      afterAudioMs: 300,
      action: { close: 1008, reason: `key ${SENTINEL}` },
    });
    const stream = new DeepgramSTT({ apiKey: SENTINEL, baseUrl: server.url }).stream({
      sampleRate: 16_000,
      onProblem: (p) => problems.push(p),
    });
    const result = collect(stream);
    await pushPaced(stream, speechFrames(['hello', 'world']));
    const { error } = await result;
    expect(error).toBeDefined();
    expect(everyView(error)).not.toContain(SENTINEL);
    expect(inspect(problems, { depth: 10 })).not.toContain(SENTINEL);
  });

  it('REST: retried and final errors', async () => {
    const problems: ProviderProblem[] = [];
    server.restFaults.push(echo(500), echo(401));
    const error = await new DeepgramSTT({
      apiKey: SENTINEL,
      baseUrl: server.url,
      retry: { initialDelayMs: 1 },
    })
      .recognize(speechFrames(['hello']), { sampleRate: 16_000, onProblem: (p) => problems.push(p) })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 401 });
    expect(problems).toHaveLength(1);
    const shown = [everyView(error), ...problems.map((p) => everyView((p as { error: Error }).error))].join(
      '\n',
    );
    expect(shown).toContain('may not do this');
    expect(shown).not.toContain(SENTINEL);
  });
});
