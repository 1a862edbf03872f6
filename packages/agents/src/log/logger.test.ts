import { afterEach, describe, expect, it } from 'vitest';
import { APIStatusError } from '../errors.js';
import { VirtualClock } from '../time/virtual-clock.js';
import {
  createLogger,
  defaultLogger,
  type Logger,
  redactingLogger,
  setDefaultLogger,
  silentLogger,
} from './logger.js';

const API_KEY = 'sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';
const DEEPGRAM_KEY = '0123456789abcdef0123456789abcdef01234567';

function capture(): { lines: string[]; records: () => Array<Record<string, unknown>>; text: () => string } {
  const lines: string[] = [];
  return {
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => lines.join(''),
  };
}

function frame(): Int16Array {
  // Distinctive sample values: if they reach the output, they show up as this digit run.
  return Int16Array.from({ length: 320 }, (_, i) => 31_000 + (i % 7));
}

describe('createLogger', () => {
  it('writes JSON lines with level, message, name and bindings', () => {
    const out = capture();
    const log = createLogger({
      name: 'voxwire',
      bindings: { room: 'r1' },
      destination: { write: (l) => out.lines.push(l) },
    });
    log.info('hello');
    log.child({ sessionId: 's1' }).warn({ turn: 3 }, 'slow');
    const [first, second] = out.records();
    expect(first).toMatchObject({ level: 30, name: 'voxwire', room: 'r1', msg: 'hello' });
    expect(second).toMatchObject({ level: 40, room: 'r1', sessionId: 's1', turn: 3, msg: 'slow' });
  });

  it('honours the level and skips disabled records entirely', () => {
    const out = capture();
    const log = createLogger({ level: 'warn', destination: { write: (l) => out.lines.push(l) } });
    let touched = false;
    const expensive = {
      get detail(): string {
        touched = true;
        return 'x';
      },
    };
    log.debug(expensive, 'nope');
    log.info('nope');
    log.error('yes');
    expect(out.records().map((r) => r.msg)).toEqual(['yes']);
    expect(touched).toBe(false);
    createLogger({ level: 'silent', destination: { write: (l) => out.lines.push(l) } }).error('never');
    expect(out.lines).toHaveLength(1);
  });

  it('stamps records with the given clock', () => {
    const out = capture();
    const clock = new VirtualClock({ startMs: 1234 });
    createLogger({ clock, destination: { write: (l) => out.lines.push(l) } }).info('tick');
    expect(out.records()[0]?.time).toBe(1234);
  });
});

describe('redaction in the output stream', () => {
  it('never writes an API key, whatever the field or nesting', () => {
    const out = capture();
    const log = createLogger({ level: 'debug', destination: { write: (l) => out.lines.push(l) } });
    log.info({ apiKey: API_KEY, model: 'gpt-4o' }, 'created client');
    log.info({ options: { api_key: API_KEY, nested: [{ token: API_KEY }] } }, 'nested');
    log.debug({ headers: { Authorization: `Bearer ${API_KEY}`, 'x-api-key': API_KEY } }, 'request');
    log.warn({ password: 'hunter2-is-long', clientSecret: 'abc', accessToken: 'tok' }, 'creds');
    log.info(`connecting with Bearer ${API_KEY}`);
    log.info({ url: `wss://api.cartesia.ai/tts/websocket?api_key=${API_KEY}&cartesia_version=2025` }, 'dial');
    log.info({ header: `Token ${DEEPGRAM_KEY}` }, 'deepgram handshake');
    log.child({ apiKey: API_KEY }).info('child bindings');
    log.info({ note: `the key was ${API_KEY}` }, `and again ${API_KEY}`);

    const text = out.text();
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(DEEPGRAM_KEY);
    expect(text).not.toContain('hunter2');
    const records = out.records();
    expect(records[0]).toMatchObject({ apiKey: '[Redacted]', model: 'gpt-4o' });
    expect(records[2]).toMatchObject({ headers: { Authorization: '[Redacted]', 'x-api-key': '[Redacted]' } });
    expect(records[4]?.msg).toBe('connecting with Bearer [Redacted]');
    expect(records[5]?.url).toBe(
      'wss://api.cartesia.ai/tts/websocket?api_key=[Redacted]&cartesia_version=2025',
    );
    expect(records[6]?.header).toBe('Token [Redacted]');
  });

  it('keeps ordinary prose and usage counters that merely mention tokens', () => {
    const out = capture();
    const log = createLogger({ destination: { write: (l) => out.lines.push(l) } });
    log.info({ promptTokens: 12, completionTokens: 30, tokens: 42 }, 'the token limit was not reached');
    expect(out.records()[0]).toMatchObject({
      promptTokens: 12,
      completionTokens: 30,
      tokens: 42,
      msg: 'the token limit was not reached',
    });
  });

  it('never writes audio samples, describing frames instead', () => {
    const out = capture();
    const log = createLogger({ level: 'debug', destination: { write: (l) => out.lines.push(l) } });
    const samples = frame();
    log.debug(
      { frame: { data: samples, sampleRate: 16_000, channels: 1, samplesPerChannel: 320 } },
      'frame in',
    );
    log.debug({ pcm: Buffer.from(samples.buffer), embedding: new Float32Array(256) }, 'buffers');
    log.debug({ list: [samples, samples] }, 'repeated');

    const text = out.text();
    expect(text).not.toMatch(/\b3100[0-6]\b/);
    const records = out.records();
    expect(records[0]).toMatchObject({
      frame: { data: '[Int16Array 320 samples]', sampleRate: 16_000, samplesPerChannel: 320 },
    });
    expect(records[1]).toMatchObject({ pcm: '[Buffer 640 bytes]', embedding: '[Float32Array 256 samples]' });
    expect(records[2]?.list).toEqual(['[Int16Array 320 samples]', '[Int16Array 320 samples]']);
  });

  it('logs errors with type, message, stack and fields, all redacted', () => {
    const out = capture();
    const log = createLogger({ destination: { write: (l) => out.lines.push(l) } });
    const cause = new Error(`upstream said: invalid key ${API_KEY}`);
    const error = new APIStatusError('401 from provider', {
      statusCode: 401,
      body: { error: 'bad auth', authorization: `Bearer ${API_KEY}` },
      cause,
    });
    log.error(error);
    log.error({ err: error, attempt: 2 }, 'retry failed');

    expect(out.text()).not.toContain(API_KEY);
    const [first, second] = out.records();
    expect(first).toMatchObject({
      msg: '401 from provider',
      err: {
        type: 'APIStatusError',
        message: '401 from provider',
        statusCode: 401,
        retryable: false,
        body: { error: 'bad auth', authorization: '[Redacted]' },
        cause: { type: 'Error', message: 'upstream said: invalid key [Redacted]' },
      },
    });
    expect(String((first!.err as Record<string, unknown>).stack)).toContain(
      'APIStatusError: 401 from provider',
    );
    expect(second).toMatchObject({ msg: 'retry failed', attempt: 2, err: { type: 'APIStatusError' } });
  });

  it('survives cycles, deep nesting, long arrays and throwing getters', () => {
    const out = capture();
    const log = createLogger({ destination: { write: (l) => out.lines.push(l) } });
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 20; i++) deep = { deep };
    const hostile = {
      get boom(): string {
        throw new Error('getter');
      },
    };
    log.info({ cyclic, deep, long: Array.from({ length: 1000 }, (_, i) => i), hostile, big: 10n }, 'odd');
    const record = out.records()[0]!;
    expect(record.cyclic).toEqual({ name: 'loop', self: '[Circular]' });
    expect(JSON.stringify(record.deep)).toContain('[Object]');
    expect(record.long).toHaveLength(101);
    expect((record.long as unknown[])[100]).toBe('[900 more items]');
    expect(record.hostile).toBe('[Unserializable]');
    expect(record.big).toBe('10');
  });

  it('does not modify what it is given', () => {
    const out = capture();
    const log = createLogger({ destination: { write: (l) => out.lines.push(l) } });
    const options = { apiKey: API_KEY, audio: frame() };
    log.info(options, 'configured');
    expect(options.apiKey).toBe(API_KEY);
    expect(options.audio).toBeInstanceOf(Int16Array);
  });
});

describe('silentLogger, redactingLogger and the default logger', () => {
  afterEach(() => setDefaultLogger(undefined));

  function spyLogger(): { logger: Logger; calls: unknown[][] } {
    const calls: unknown[][] = [];
    const make = (bindings: Record<string, unknown>): Logger => ({
      debug: (...args: unknown[]) => calls.push(['debug', bindings, ...args]),
      info: (...args: unknown[]) => calls.push(['info', bindings, ...args]),
      warn: (...args: unknown[]) => calls.push(['warn', bindings, ...args]),
      error: (...args: unknown[]) => calls.push(['error', bindings, ...args]),
      child: (more) => make({ ...bindings, ...more }),
    });
    return { logger: make({}), calls };
  }

  it('silentLogger accepts every call and writes nothing', () => {
    silentLogger.info('x');
    silentLogger.error(new Error('y'));
    expect(silentLogger.child({ a: 1 })).toBe(silentLogger);
  });

  it('redactingLogger protects a logger the user brings', () => {
    const { logger, calls } = spyLogger();
    const safe = redactingLogger(logger);
    safe.info({ apiKey: API_KEY, frame: frame() }, `Bearer ${API_KEY}`);
    safe.child({ token: API_KEY }).warn('child');
    safe.error('plain');
    expect(JSON.stringify(calls)).not.toContain(API_KEY);
    expect(calls[0]).toEqual([
      'info',
      {},
      { apiKey: '[Redacted]', frame: '[Int16Array 320 samples]' },
      'Bearer [Redacted]',
    ]);
    expect(calls[1]).toEqual(['warn', { token: '[Redacted]' }, 'child']);
    expect(calls[2]).toEqual(['error', {}, 'plain']);
    expect(redactingLogger(safe)).toBe(safe);
  });

  it('defaultLogger is settable, wraps foreign loggers, and can be restored', () => {
    const builtIn = defaultLogger();
    expect(defaultLogger()).toBe(builtIn);

    const { logger, calls } = spyLogger();
    setDefaultLogger(logger);
    defaultLogger().info({ api_key: API_KEY }, 'from core');
    expect(calls).toEqual([['info', {}, { api_key: '[Redacted]' }, 'from core']]);

    const own = createLogger({ destination: { write: () => {} } });
    setDefaultLogger(own);
    expect(defaultLogger()).toBe(own);
    setDefaultLogger(silentLogger);
    expect(defaultLogger()).toBe(silentLogger);

    setDefaultLogger(undefined);
    expect(defaultLogger()).not.toBe(silentLogger);
  });
});
