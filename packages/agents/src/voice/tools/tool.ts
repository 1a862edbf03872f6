import { z } from 'zod';
import { ToolError } from '../../errors.js';
import type { ToolDefinition } from '../../providers/llm.js';
import type { RunContext } from './run-context.js';

export type JSONSchema = Record<string, unknown>;

export interface ToolOptions<Schema extends z.ZodType, Result, UserData> {
  /** Letters, digits, `_` and `-`, at most 64 characters (what every provider accepts). */
  name: string;
  description: string;
  /** A zod schema of the arguments; an object schema. Omit for a tool without arguments. */
  parameters?: Schema;
  /**
   * Longest a call may run, in ms of the session's clock. When it passes, the model is told the call
   * timed out, the session emits an `error` (source `tool`, a `ToolTimeoutError`) and `ctx.signal`
   * aborts. Default: the session's `toolTimeoutMs`, which is unset by default (no limit).
   */
  timeoutMs?: number;
  execute(args: z.output<Schema>, ctx: RunContext<UserData>): Result | Promise<Result>;
}

export interface Tool<Schema extends z.ZodType = z.ZodType, Result = unknown, UserData = unknown> {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: Schema;
  /** JSON Schema of the arguments, for providers. */
  readonly jsonSchema: JSONSchema;
  /**
   * Parses the model's raw JSON arguments. Throws `ToolError` with a message the model can act on
   * when the JSON is malformed or does not match the schema.
   */
  parseArguments(raw: string): z.output<Schema>;
  /** Longest a call may run, in ms; undefined: the session's default. */
  readonly timeoutMs: number | undefined;
  execute(args: z.output<Schema>, ctx: RunContext<UserData>): Result | Promise<Result>;
}

// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of tools needs an open element type.
export type AnyTool = Tool<z.ZodType, any, any>;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function tool<
  Schema extends z.ZodType = z.ZodObject<Record<string, never>>,
  Result = unknown,
  UserData = unknown,
>(options: ToolOptions<Schema, Result, UserData>): Tool<Schema, Result, UserData> {
  if (!TOOL_NAME.test(options.name)) {
    throw new TypeError(
      `Invalid tool name "${options.name}": use 1-64 letters, digits, "_" or "-" (providers reject others)`,
    );
  }
  if (options.timeoutMs !== undefined) assertTimeout(`Tool "${options.name}": timeoutMs`, options.timeoutMs);
  const parameters = (options.parameters ?? z.object({})) as Schema;
  refuseAsyncSchema(options.name, parameters);
  const jsonSchema = toJsonSchema(options.name, parameters);
  return {
    type: 'function',
    name: options.name,
    description: options.description,
    parameters,
    jsonSchema,
    parseArguments: (raw) => parseToolArguments(options.name, parameters, raw),
    timeoutMs: options.timeoutMs,
    // Called through the options object so a method-style `execute` keeps its `this`.
    execute: (args, ctx) => options.execute(args, ctx),
  };
}

/** Refuses a timeout that could never be honoured (negative, NaN); `Infinity` means no limit. */
export function assertTimeout(what: string, ms: number): void {
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms <= 0) {
    throw new RangeError(`${what} must be a positive number of ms, got ${ms}`);
  }
}

/** What the model is told about each tool: the provider-facing half of `tool()`. */
export function toolDefinitions(tools: readonly AnyTool[]): ToolDefinition[] {
  return tools.map((t) => ({ name: t.name, description: t.description, parameters: t.jsonSchema }));
}

function toJsonSchema(name: string, schema: z.ZodType): JSONSchema {
  let json: JSONSchema;
  try {
    json = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as JSONSchema;
  } catch (error) {
    throw new TypeError(`Tool "${name}": parameters cannot be expressed as JSON Schema`, { cause: error });
  }
  if (json.type !== 'object') {
    throw new TypeError(
      `Tool "${name}": parameters must be a zod object schema, got type ${String(json.type)}`,
    );
  }
  delete json.$schema;
  return json;
}

/**
 * Arguments are parsed synchronously (`safeParse`), and zod throws at parse time on an async refinement
 * or transform: the tool could never run. Refused here, where the author sees it, instead of on every
 * call. Only async functions are recognisable; a plain function returning a promise is caught when
 * parsing (see parseToolArguments).
 */
function refuseAsyncSchema(name: string, schema: z.ZodType): void {
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 64 || typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const v of value) visit(v, depth + 1);
      return;
    }
    const def = (value as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return;
    for (const [key, field] of Object.entries(def)) {
      if (typeof field === 'function') {
        if (isAsyncFunction(field as (...args: never) => unknown)) {
          throw new TypeError(
            `Tool "${name}": parameters use an async ${def.type === 'transform' ? 'transform' : 'refinement'}, which tool arguments cannot run (they are parsed synchronously)`,
          );
        }
        continue;
      }
      // `shape` and `checks` hold the nested schemas; other fields hold schemas directly.
      if (key === 'shape' && typeof field === 'object' && field !== null)
        visit(Object.values(field), depth + 1);
      else visit(field, depth + 1);
    }
  };
  visit(schema, 0);
}

function isAsyncFunction(fn: (...args: never) => unknown): boolean {
  const kind = fn.constructor?.name;
  return kind === 'AsyncFunction' || kind === 'AsyncGeneratorFunction';
}

function parseToolArguments<Schema extends z.ZodType>(
  name: string,
  schema: Schema,
  raw: string,
): z.output<Schema> {
  let value: unknown;
  const text = raw.trim() === '' ? '{}' : raw;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ToolError(
      `Invalid arguments for tool "${name}": not valid JSON (${(error as Error).message}). Call it again with a JSON object.`,
      { cause: error },
    );
  }
  let result: z.ZodSafeParseResult<z.output<Schema>>;
  try {
    result = schema.safeParse(value);
  } catch (error) {
    // A refinement that returned a promise: the schema's bug, not the model's, so not a ToolError.
    throw new TypeError(`Tool "${name}": parameters need async parsing, which tool arguments cannot do`, {
      cause: error,
    });
  }
  if (!result.success) {
    const issues = result.error.issues
      .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
      .join('; ');
    throw new ToolError(`Invalid arguments for tool "${name}": ${issues}`, { cause: result.error });
  }
  return result.data;
}
