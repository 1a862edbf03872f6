import type { JobContext } from './job-context.js';

/** Marks definitions across copies of this package (an agent file may load its own copy of the core). */
const DEFINITION_BRAND = Symbol.for('voxwire.agentDefinition');

/**
 * What an agent file exports by default: how to prepare a process (`prewarm`, once per process, e.g.
 * loading a VAD model) and how to run one job (`entry`, once per conversation). The same file runs on
 * every transport: the local playground, the terminal console, the LiveKit worker.
 */
export interface AgentDefinition<Prewarmed = unknown> {
  readonly [DEFINITION_BRAND]: true;
  /** Runs once per process before the first job; its result is `ctx.prewarmed` in every job. */
  prewarm?(): Promise<Prewarmed> | Prewarmed;
  /**
   * Runs one job: build an `AgentSession` and start it on the transport's audio and text, e.g.
   * `await session.start({ agent, ...ctx.connect(session) })`. The job goes on after `entry` returns,
   * until the user leaves, the connected session closes, or `ctx.shutdown()` is called.
   */
  entry(ctx: JobContext<Prewarmed>): Promise<void>;
}

export interface AgentDefinitionInit<Prewarmed> {
  prewarm?(): Promise<Prewarmed> | Prewarmed;
  entry(ctx: JobContext<Prewarmed>): Promise<void>;
}

/**
 * Declares an agent file's contract; export the result as the file's default export.
 *
 * ```ts
 * export default defineAgent({
 *   prewarm: () => SileroVAD.load(),
 *   async entry(ctx) {
 *     const session = new AgentSession({ vad: ctx.prewarmed, stt, llm, tts });
 *     await session.start({ agent: new Agent({ instructions: 'Be brief.' }), ...ctx.connect(session) });
 *   },
 * });
 * ```
 */
export function defineAgent<Prewarmed = undefined>(
  init: AgentDefinitionInit<Prewarmed>,
): AgentDefinition<Prewarmed> {
  if (typeof init?.entry !== 'function') {
    throw new TypeError('defineAgent() needs an `entry(ctx)` function that starts the session');
  }
  if (init.prewarm !== undefined && typeof init.prewarm !== 'function') {
    throw new TypeError('defineAgent(): `prewarm` must be a function when given');
  }
  const definition: AgentDefinition<Prewarmed> = {
    [DEFINITION_BRAND]: true,
    entry: (ctx) => init.entry(ctx),
  };
  const prewarm = init.prewarm;
  if (prewarm) definition.prewarm = () => prewarm.call(init);
  return Object.freeze(definition);
}

export function isAgentDefinition(value: unknown): value is AgentDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[DEFINITION_BRAND] === true &&
    typeof (value as { entry?: unknown }).entry === 'function'
  );
}

/**
 * Finds the definition in a loaded agent module: its default export (also under CommonJS interop,
 * where it sits one level deeper). Throws an error that says how to fix the file.
 */
export function agentDefinitionFromModule(module: unknown, fileName: string): AgentDefinition {
  const candidates: unknown[] = [];
  if (typeof module === 'object' && module !== null) {
    const exported = (module as { default?: unknown }).default;
    candidates.push(exported);
    if (typeof exported === 'object' && exported !== null) {
      candidates.push((exported as { default?: unknown }).default);
    }
  }
  const found = candidates.find(isAgentDefinition);
  if (found) return found;
  throw new TypeError(
    `${fileName} does not export an agent: add \`export default defineAgent({ async entry(ctx) { ... } })\` ` +
      `(defineAgent comes from '@voxwire/agents')`,
  );
}
