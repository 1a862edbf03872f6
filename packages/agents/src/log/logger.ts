import { pino } from 'pino';
import type { Clock } from '../time/clock.js';
import { redactLogText, redactLogValue } from './redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** `log.info('text')`, `log.info({ fields }, 'text')` or `log.error(error, 'text')`. */
export interface LogFn {
  (msg: string): void;
  (obj: object, msg?: string): void;
}

/**
 * The logger the core writes to. Deliberately small, so that pino, winston or a test spy can stand in;
 * a pino instance fits as is.
 */
export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  /** A logger that adds `bindings` to every record (e.g. `{ sessionId }`). */
  child(bindings: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  /** Lowest level written. Default `info`; `silent` writes nothing. */
  level?: LogLevel | 'silent';
  /** Written as `name` on every record. */
  name?: string;
  /** Fields written on every record. Redacted like everything else. */
  bindings?: Record<string, unknown>;
  /** Where JSON lines go. Default: standard output. */
  destination?: { write(line: string): unknown };
  /**
   * Source of the `time` field. Pass the session's clock to stamp records with virtual time in
   * simulations; by default records carry wall-clock epoch milliseconds.
   */
  clock?: Clock;
}

/** Loggers known to redact already, so wrapping them again would only cost time. */
const redacting = new WeakSet<Logger>();

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Splits the `LogFn` call forms into a redacted object (or none) and a redacted message. */
function prepare(
  objOrMsg: object | string,
  msg: string | undefined,
): [object | undefined, string | undefined] {
  if (typeof objOrMsg === 'string') return [undefined, redactLogText(objOrMsg)];
  if (objOrMsg instanceof Error) {
    return [{ err: redactLogValue(objOrMsg) }, redactLogText(msg ?? objOrMsg.message)];
  }
  const fields = redactLogValue(objOrMsg);
  const safeFields = typeof fields === 'object' && fields !== null ? fields : { value: fields };
  return [safeFields, msg === undefined ? undefined : redactLogText(msg)];
}

class PinoLogger implements Logger {
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;

  constructor(private readonly target: pino.Logger) {
    const method = (level: LogLevel): LogFn => {
      return (objOrMsg: object | string, msg?: string): void => {
        // Redaction walks the whole object; skip it for records nobody will see (debug in production).
        if (!this.target.isLevelEnabled(level)) return;
        const [fields, text] = prepare(objOrMsg, msg);
        if (fields === undefined) this.target[level](text as string);
        else this.target[level](fields, text);
      };
    };
    this.debug = method('debug');
    this.info = method('info');
    this.warn = method('warn');
    this.error = method('error');
    redacting.add(this);
  }

  child(bindings: Record<string, unknown>): Logger {
    return new PinoLogger(this.target.child(redactLogValue(bindings) as Record<string, unknown>));
  }
}

/** A pino-backed JSON logger that redacts secrets and audio from everything it writes. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const clock = options.clock;
  const pinoOptions: pino.LoggerOptions = {
    level: options.level ?? 'info',
    ...(options.name !== undefined ? { name: options.name } : {}),
    // Errors arrive already flattened and redacted; pino's own serializer would re-type them.
    serializers: { err: (value: unknown) => value },
    ...(clock ? { timestamp: () => `,"time":${clock.now()}` } : {}),
  };
  // Without a destination pino picks standard output itself (buffered, flushed on exit).
  const root = options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
  const logger = new PinoLogger(root);
  return options.bindings ? logger.child(options.bindings) : logger;
}

/**
 * Applies the same redaction to any logger, for users who bring their own (winston, console, a pino
 * instance configured elsewhere).
 */
export function redactingLogger(inner: Logger): Logger {
  if (redacting.has(inner)) return inner;
  const method =
    (level: LogLevel): LogFn =>
    (objOrMsg: object | string, msg?: string): void => {
      const [fields, text] = prepare(objOrMsg, msg);
      if (fields === undefined) inner[level](text as string);
      else if (text === undefined) inner[level](fields);
      else inner[level](fields, text);
    };
  const logger: Logger = {
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    child: (bindings) => redactingLogger(inner.child(redactLogValue(bindings) as Record<string, unknown>)),
  };
  redacting.add(logger);
  return logger;
}

const noop = (): void => {};

/** Discards everything. */
export const silentLogger: Logger = Object.freeze({
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
});
redacting.add(silentLogger);

let current: Logger | undefined;

/**
 * The logger used by core objects that were not given one. Created on first use at the level named by
 * `VOXWIRE_LOG_LEVEL` (`debug`, `info`, `warn`, `error` or `silent`; default `info`).
 */
export function defaultLogger(): Logger {
  current ??= createLogger({ name: 'voxwire', level: levelFromEnv() });
  return current;
}

/**
 * Replaces the default logger; `undefined` restores the built-in one. A logger that does not redact
 * already is wrapped with `redactingLogger`, so keys and audio stay out of the output either way.
 */
export function setDefaultLogger(logger: Logger | undefined): void {
  current = logger === undefined ? undefined : redactingLogger(logger);
}

function levelFromEnv(): LogLevel | 'silent' {
  const raw = typeof process !== 'undefined' ? process.env.VOXWIRE_LOG_LEVEL?.toLowerCase() : undefined;
  if (raw === 'silent') return raw;
  return LEVELS.find((level) => level === raw) ?? 'info';
}
