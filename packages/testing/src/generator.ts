import type { LLMReply } from './fakes/llm.js';
import { Rng } from './prng.js';
import type {
  AgentSpec,
  Fault,
  FaultTarget,
  Scenario,
  ScenarioReply,
  SessionAction,
  TaskSpec,
  ToolSpec,
  ToolStep,
  UserSpeech,
} from './scenario.js';

export interface GeneratorOptions {
  /** Most user speech segments. Default 7. */
  maxSegments?: number;
  /** Allow provider outages and dropped streams. Default true. */
  faults?: boolean;
  /** Allow scripted session calls (say, interrupt, handoff...). Default true. */
  actions?: boolean;
}

const WORDS = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
  'mike',
  'november',
  'oscar',
  'papa',
  'quebec',
  'romeo',
  'sierra',
  'tango',
  'uniform',
];

function phrase(rng: Rng, min: number, max: number): string {
  const n = rng.int(min, max);
  return Array.from({ length: n }, () => rng.pick(WORDS)).join(' ');
}

function sentence(rng: Rng, min: number, max: number): string {
  const text = phrase(rng, min, max);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** The word that identifies user segment `i` in transcripts ("s1z" is not a substring of "s10z"). */
export function segmentTag(i: number): string {
  return `s${i}z`;
}

/**
 * A random conversation from a seed: user speech that overlaps every phase of the agent's turn (thinking,
 * speaking, tools, tasks), tools of random duration with `say`, `disallowInterruptions()` and AgentTasks,
 * random provider latencies, sink behaviours and faults, and session calls at random times. The same seed
 * always gives the same scenario.
 */
export function generateScenario(seed: number, options: GeneratorOptions = {}): Scenario {
  const rng = new Rng(seed);
  const minEndpointing = rng.ms(200, 800, 20);
  const scenario: Scenario = {
    name: `seed-${seed}`,
    session: {
      turnHandling: {
        minEndpointingDelay: minEndpointing,
        maxEndpointingDelay: minEndpointing + rng.ms(300, 3000, 20),
        minInterruptionDuration: rng.ms(200, 800, 20),
        minInterruptionWords: rng.pick([0, 0, 0, 1, 2]),
        falseInterruptionTimeout: rng.ms(500, 2500, 20),
        resumeFalseInterruption: rng.chance(0.8),
        discardAudioIfUninterruptible: rng.chance(0.85),
      },
      maxToolSteps: rng.pick([2, 3, 3, 4]),
      ...rng.weighted<{ userAwayTimeout?: number | null }>([
        [6, {}],
        [2, { userAwayTimeout: rng.ms(2000, 6000, 100) }],
        [2, { userAwayTimeout: null }],
      ]),
    },
    vad: { minSpeechMs: rng.ms(40, 200, 20), minSilenceMs: rng.ms(200, 800, 20) },
    stt: {
      finalDelayMs: rng.ms(50, 900, 10),
      interimIntervalMs: rng.pick([0, 300, 400]),
      ...(rng.chance(0.2) ? { speechEvents: true } : {}),
    },
    tts: {
      ttfbMs: rng.ms(50, 700, 10),
      msPerChar: rng.pick([40, 50, 60, 70]),
      realtimeFactor: rng.pick([0.1, 0.3, 0.6]),
      ...(rng.chance(0.2) ? { streaming: false } : {}),
    },
    output: {
      bufferMs: rng.pick([100, 200, 400]),
      ...(rng.chance(0.1) ? { canPause: false } : {}),
      ...rng.weighted<{ finishLagMs?: number; neverFinish?: boolean }>([
        [77, {}],
        [15, { finishLagMs: rng.ms(20, 600, 10) }],
        [8, { neverFinish: true }],
      ]),
    },
  };
  if (rng.chance(0.5)) {
    scenario.turnDetector = rng.chance(0.5)
      ? { latencyMs: rng.ms(10, 800, 10), probability: rng.pick([0.1, 0.6, 0.95]) }
      : {
          latencyMs: rng.ms(10, 300, 10),
          rules: [{ text: WORDS[rng.int(0, WORDS.length - 1)]!, probability: 0.1 }],
        };
  }

  const tasks: TaskSpec[] = [];
  if (rng.chance(0.35)) {
    tasks.push({
      name: 'ask_task',
      onEnter: { say: `Question ${phrase(rng, 2, 6)}?`, allowInterruptions: rng.chance(0.5) },
      completeOn: rng.weighted<TaskSpec['completeOn']>([
        [7, 'user_turn'],
        [2, { afterMs: rng.ms(200, 3000, 50) }],
        [1, { error: 'the task gave up', afterMs: rng.ms(100, 2000, 50) }],
      ]),
    });
  }
  const secondAgent = rng.chance(0.2);
  const tools = generateTools(rng, tasks, secondAgent);
  scenario.tools = tools;
  if (tasks.length > 0) scenario.tasks = tasks;
  const main: AgentSpec = { name: 'assistant' };
  if (rng.chance(0.4)) {
    main.onEnter = rng.chance(0.5)
      ? { say: sentence(rng, 2, 8), allowInterruptions: rng.chance(0.7) }
      : { generateReply: { instructions: 'greet the user' } };
  }
  scenario.agents = secondAgent ? [main, { name: 'helper', onEnter: { say: sentence(rng, 2, 5) } }] : [main];

  const user = generateUser(rng, options.maxSegments ?? 7);
  scenario.user = user;
  scenario.llm = { replies: generateReplies(rng, user, tools, tasks, secondAgent) };
  const lastEnd = user.reduce((t, u) => Math.max(t, u.endMs), 0);
  if (options.actions !== false) {
    const actions = generateActions(rng, lastEnd, secondAgent);
    if (actions.length > 0) scenario.actions = actions;
  }
  if (options.faults !== false) {
    const faults = generateFaults(rng, lastEnd);
    if (faults.length > 0) scenario.faults = faults;
  }
  extendForInterruptions(seed, scenario);
  extendForTools(seed, scenario);
  extendForTurnHandling(seed, scenario);
  extendForHungProviders(seed, scenario, options);
  return scenario;
}

/**
 * Neighbourhoods of the tool and sub-task bugs of issue #13, drawn from a stream of their own so that
 * every seed keeps the rest of its scenario: two tools called together that each await a task; tasks
 * whose completing turn is answered (by the agent in charge afterwards), some started by an agent's
 * `onEnter`; a model that numbers its calls `call_0` every response and re-emits a call after its
 * output; tool timeouts (per tool and the session default) and tools that hang after
 * `disallowInterruptions()`.
 */
function extendForTools(seed: number, scenario: Scenario): void {
  const rng = new Rng((seed ^ 0x7007_7007) >>> 0);
  const tools = scenario.tools ?? [];
  const replies = scenario.llm?.replies ?? [];
  const tasks = scenario.tasks ?? [];
  const userReplies = replies.filter((r) => r.match?.user !== undefined);
  if (tasks.length > 0 && rng.chance(0.3)) {
    const second: TaskSpec = {
      name: 'ask_task_2',
      onEnter: { say: `Second question ${phrase(rng, 2, 5)}?`, allowInterruptions: rng.chance(0.5) },
    };
    tasks.push(second);
    tools.push({ name: 'ask_first', steps: [{ task: tasks[0]!.name }] });
    tools.push({ name: 'ask_second', steps: [{ task: second.name }] });
    const reply = userReplies.length > 0 ? rng.pick(userReplies) : undefined;
    if (reply) {
      delete reply.error;
      delete reply.hang;
      reply.toolCalls = [{ name: 'ask_first' }, { name: 'ask_second' }];
    }
    replies.push({ match: { agent: second.name }, ...timing(rng), text: sentence(rng, 2, 8) });
    for (const name of ['ask_first', 'ask_second'])
      replies.push({ match: { afterTool: name }, ...timing(rng), text: sentence(rng, 2, 10) });
  }
  for (const task of tasks) if (rng.chance(0.3)) task.answerCompletingTurn = true;
  const main = scenario.agents?.[0];
  if (main && tasks.length > 0 && rng.chance(0.1)) main.onEnterTask = tasks[0]!.name;
  if (rng.chance(0.2)) {
    // Ids numbered per response, as some models do: the same ids come back every turn.
    const firstArgs = new Map<string, Record<string, unknown> | undefined>();
    for (const reply of replies) {
      reply.toolCalls?.forEach((call, i) => {
        call.id = `call_${i}`;
        if (!firstArgs.has(call.name)) firstArgs.set(call.name, call.args);
      });
    }
    // ...and, now and then, a follow-up re-emits the call it follows (same id, name and arguments).
    for (const reply of replies) {
      const name = reply.match?.afterTool;
      if (name === undefined || !firstArgs.has(name) || !rng.chance(0.6)) continue;
      const args = firstArgs.get(name);
      reply.toolCalls = [{ name, id: 'call_0', ...(args ? { args } : {}) }];
    }
  }
  if (scenario.session && rng.chance(0.15)) scenario.session.toolTimeoutMs = rng.ms(500, 4000, 100);
  for (const spec of tools) {
    if (rng.chance(0.15)) spec.timeoutMs = rng.ms(300, 3000, 100);
    if (rng.chance(0.06)) {
      // A tool that hangs where nothing can cut it; only its timeout ends it.
      spec.steps = [{ disallowInterruptions: true }, { sleep: 600_000 }];
      spec.timeoutMs ??= rng.ms(500, 4000, 100);
    }
  }
  scenario.tools = tools;
  if (tasks.length > 0) scenario.tasks = tasks;
}

/**
 * Neighbourhoods of the interruption bugs of issue #13, drawn from a stream of their own so that every
 * seed keeps the rest of its scenario: turns ended by the recognizer's final (`turnDetection: 'stt'`),
 * often while the VAD still waits out a long minimum silence, so the reply starts while the VAD still
 * hears the committed turn; and one-word backchannels over the agent's speech.
 */
function extendForInterruptions(seed: number, scenario: Scenario): void {
  const rng = new Rng((seed ^ 0x1313_1313) >>> 0);
  const turnHandling = scenario.session?.turnHandling;
  if (turnHandling && rng.chance(0.2)) {
    turnHandling.turnDetection = 'stt';
    if (scenario.vad && rng.chance(0.6)) scenario.vad.minSilenceMs = rng.ms(600, 1200, 20);
  }
  for (const [i, segment] of (scenario.user ?? []).entries()) {
    if (segment.transcript !== '' && segment.endMs - segment.startMs < 600 && rng.chance(0.3))
      segment.transcript = segmentTag(i);
  }
}

/**
 * Providers that hang without an error (issue #13, "nothing waits forever"), from a stream of their own
 * so every seed keeps the rest of its scenario: a model that stops mid-reply, and stall faults that leave
 * the LLM, the TTS or the STT quiet, or the sink's `captureFrame` stuck. Sinks that never report the end
 * of playout come from the output spec (`neverFinish`).
 */
function extendForHungProviders(seed: number, scenario: Scenario, options: GeneratorOptions): void {
  const rng = new Rng((seed ^ 0x0d0d_0d0d) >>> 0);
  const replies = (scenario.llm?.replies ?? []).filter((r) => r.match?.user !== undefined && r.text);
  if (replies.length > 0 && rng.chance(0.1)) {
    const reply = rng.pick(replies);
    reply.stallAfterWords = rng.int(0, 4);
  }
  if (options.faults === false || !rng.chance(0.15)) return;
  const lastEnd = (scenario.user ?? []).reduce((t, u) => Math.max(t, u.endMs), 0);
  const target = rng.weighted<FaultTarget>([
    [3, 'llm_stall'],
    [3, 'tts_stall'],
    [2, 'stt_stall'],
    [2, 'capture_stall'],
  ]);
  const faults = scenario.faults ?? [];
  faults.push({ atMs: rng.ms(0, lastEnd + 2000, 10), target, durationMs: rng.ms(100, 4000, 50) });
  scenario.faults = faults.sort((a, b) => a.atMs - b.atMs);
}

/**
 * The turn-handling options of issue #19, drawn from a stream of their own so that every seed keeps the
 * rest of its scenario: agents whose speeches are uninterruptible by default, audio input and output
 * turned off and on (input sometimes committed by hand, push-to-talk style), a microphone swapped, text
 * turns (`session.run()`) among the spoken ones, a user turn limit with each decision of its hook, and
 * the local interruption detector with acknowledgements among the user's short utterances, and
 * preemptive generation.
 */
function extendForTurnHandling(seed: number, scenario: Scenario): void {
  const rng = new Rng((seed ^ 0x1919_1919) >>> 0);
  for (const agent of scenario.agents ?? []) {
    if (rng.chance(0.15)) agent.allowInterruptions = false;
  }
  const turnHandling = scenario.session?.turnHandling;
  if (turnHandling && rng.chance(0.15)) {
    turnHandling.maxUserTurnDuration = rng.ms(800, 5000, 20);
    const main = scenario.agents?.[0];
    if (main) {
      main.onUserTurnExceeded = rng.weighted<NonNullable<AgentSpec['onUserTurnExceeded']>>([
        [3, { say: sentence(rng, 2, 6), allowInterruptions: rng.chance(0.4) }],
        [3, 'commit'],
        [2, 'listen'],
      ]);
    }
  }
  if (turnHandling && rng.chance(0.3)) {
    turnHandling.preemptiveGeneration = true;
    // A recognizer with an eager end of turn (Deepgram Flux): preflight transcripts before some finals.
    if (rng.chance(0.5)) {
      for (const segment of scenario.user ?? []) {
        if (rng.chance(0.5)) segment.sttPreflightMs = rng.ms(0, segment.sttDelayMs ?? 300, 10);
      }
    }
  }
  // The local detector is the default; half the other timelines keep the plain thresholds.
  if (scenario.session && !rng.chance(0.25) && rng.chance(0.5))
    scenario.session.interruptionDetector = 'none';
  else if (scenario.session) {
    scenario.session.interruptionDetector = 'local';
    // Acknowledgements said over the agent, at the lengths people say them.
    for (const segment of scenario.user ?? []) {
      if (segment.endMs - segment.startMs < 1200 && rng.chance(0.3))
        segment.transcript = rng.pick(['okay', 'mm-hmm', 'yeah right', 'uh-huh', 'got it', 'yeah wait']);
    }
  }
  const lastEnd = (scenario.user ?? []).reduce((t, u) => Math.max(t, u.endMs), 0);
  const added: SessionAction[] = [];
  if (rng.chance(0.15)) {
    // Input off for a while (a mute button, or push-to-talk released, then maybe committed).
    const atMs = rng.ms(0, lastEnd + 1000, 10);
    added.push({ atMs, type: 'set_input_enabled', enabled: false });
    if (rng.chance(0.4)) added.push({ atMs: atMs + rng.ms(0, 300, 10), type: 'commit_user_turn' });
    if (rng.chance(0.8))
      added.push({ atMs: atMs + rng.ms(200, 4000, 10), type: 'set_input_enabled', enabled: true });
  }
  if (rng.chance(0.1)) {
    const atMs = rng.ms(0, lastEnd + 1000, 10);
    added.push({ atMs, type: 'set_output_enabled', enabled: false });
    if (rng.chance(0.7))
      added.push({ atMs: atMs + rng.ms(200, 6000, 10), type: 'set_output_enabled', enabled: true });
  }
  if (rng.chance(0.05)) added.push({ atMs: rng.ms(0, lastEnd + 1000, 10), type: 'swap_input' });
  if (rng.chance(0.08)) {
    // Text turns answer to the scripted reply of a user segment, so they may call tools and tasks too.
    const segment = rng.int(0, Math.max(0, (scenario.user?.length ?? 1) - 1));
    added.push({
      atMs: rng.ms(0, lastEnd + 1000, 10),
      type: 'run_text',
      userInput: `${segmentTag(segment)} typed`,
    });
  }
  if (added.length > 0)
    scenario.actions = [...(scenario.actions ?? []), ...added].sort((a, b) => a.atMs - b.atMs);
}

function generateTools(rng: Rng, tasks: TaskSpec[], secondAgent: boolean): ToolSpec[] {
  const count = rng.int(1, 3);
  const tools: ToolSpec[] = [];
  for (let i = 0; i < count; i++) {
    const steps: ToolStep[] = [];
    const n = rng.int(0, 3);
    for (let k = 0; k < n; k++) {
      steps.push(
        rng.weighted<ToolStep>([
          [5, { sleep: rng.ms(50, 2500, 50) }],
          [2, { say: sentence(rng, 2, 8), allowInterruptions: rng.chance(0.5), wait: rng.chance(0.6) }],
          [2, { disallowInterruptions: true }],
          [tasks.length > 0 ? 2 : 0, { task: tasks[0]?.name ?? 'none' }],
          [1, { waitForPlayout: true }],
          [0.5, { throw: 'scripted tool failure', toolError: rng.chance(0.5) }],
        ]),
      );
    }
    const spec: ToolSpec = { name: `tool_${String.fromCharCode(97 + i)}`, steps };
    if (rng.chance(0.1)) spec.ignoresCancellation = true;
    if (secondAgent && rng.chance(0.15)) spec.handoff = 'helper';
    tools.push(spec);
  }
  return tools;
}

function generateUser(rng: Rng, maxSegments: number): UserSpeech[] {
  const count = rng.int(1, maxSegments);
  const user: UserSpeech[] = [];
  let t = rng.ms(300, 2500, 20);
  for (let i = 0; i < count; i++) {
    const duration = rng.weighted<number>([
      [1, rng.ms(40, 200, 20)],
      [6, rng.ms(200, 1500, 20)],
      [3, rng.ms(1500, 3500, 20)],
    ]);
    const noise = rng.chance(0.1);
    const segment: UserSpeech = {
      startMs: t,
      endMs: t + duration,
      transcript: noise ? '' : `${segmentTag(i)} ${phrase(rng, 0, 5)}`.trim(),
    };
    if (rng.chance(0.2)) segment.sttDelayMs = rng.ms(50, 2000, 10);
    if (!noise && rng.chance(0.05)) segment.emptyFinal = true;
    if (!noise && rng.chance(0.03)) segment.noFinal = true;
    user.push(segment);
    // Gaps short enough to land in the agent's thinking, speaking, tool and task phases.
    t +=
      duration +
      rng.weighted<number>([
        [3, rng.ms(0, 800, 20)],
        [4, rng.ms(800, 4000, 20)],
        [3, rng.ms(4000, 9000, 20)],
      ]);
  }
  return user;
}

function timing(rng: Rng): Pick<LLMReply, 'ttftMs' | 'tokenMs'> {
  return { ttftMs: rng.ms(100, 1500, 10), tokenMs: rng.ms(10, 120, 5) };
}

function generateReplies(
  rng: Rng,
  user: UserSpeech[],
  tools: ToolSpec[],
  tasks: TaskSpec[],
  secondAgent: boolean,
): ScenarioReply[] {
  const replies: ScenarioReply[] = [];
  const toolNames = tools.map((t) => t.name);
  user.forEach((_, i) => {
    const kind = rng.weighted<'text' | 'tools' | 'text_tools' | 'error' | 'hang'>([
      [50, 'text'],
      [15, 'tools'],
      [25, 'text_tools'],
      [6, 'error'],
      [2, 'hang'],
    ]);
    const reply: ScenarioReply = { match: { user: segmentTag(i) }, ...timing(rng) };
    if (kind === 'text' || kind === 'text_tools' || kind === 'error') reply.text = sentence(rng, 3, 25);
    if (kind === 'tools' || kind === 'text_tools') {
      const n = rng.weighted<number>([
        [8, 1],
        [2, 2],
      ]);
      reply.toolCalls = Array.from({ length: n }, () => ({
        name: rng.pick(toolNames),
        args: { n: rng.int(1, 9) },
      }));
    }
    if (kind === 'error') {
      reply.error = {
        afterMs: rng.ms(0, 1500, 10),
        kind: rng.pick(['connection', 'timeout', 'status'] as const),
      };
    }
    if (kind === 'hang') reply.hang = true;
    replies.push(reply);
  });
  for (const name of toolNames) {
    const again = rng.chance(0.1);
    replies.push({
      match: { afterTool: name },
      ...timing(rng),
      text: sentence(rng, 2, 15),
      ...(again ? { toolCalls: [{ name: rng.pick(toolNames) }] } : {}),
    });
  }
  for (const task of tasks)
    replies.push({ match: { agent: task.name }, ...timing(rng), text: sentence(rng, 2, 10) });
  if (secondAgent) replies.push({ match: { agent: 'helper' }, ...timing(rng), text: sentence(rng, 2, 10) });
  replies.push({ match: { instructions: 'greet' }, ...timing(rng), text: sentence(rng, 3, 10) });
  return replies;
}

function generateActions(rng: Rng, lastEnd: number, secondAgent: boolean): SessionAction[] {
  const actions: SessionAction[] = [];
  const count = rng.weighted<number>([
    [5, 0],
    [3, 1],
    [2, 2],
    [1, 3],
  ]);
  for (let i = 0; i < count; i++) {
    const atMs = rng.ms(0, lastEnd + 3000, 10);
    const action = rng.weighted<SessionAction>([
      [4, { atMs, type: 'say', text: sentence(rng, 2, 10), allowInterruptions: rng.chance(0.6) }],
      [3, { atMs, type: 'interrupt', force: rng.chance(0.3) }],
      [2, { atMs, type: 'interrupt_speech', force: rng.chance(0.3) }],
      [2, { atMs, type: 'generate_reply', ...(rng.chance(0.5) ? { userInput: phrase(rng, 1, 4) } : {}) }],
      [secondAgent ? 2 : 0, { atMs, type: 'update_agent', agent: rng.pick(['helper', 'assistant']) }],
      [0.5, { atMs, type: 'commit_user_turn' }],
      [0.5, { atMs, type: 'clear_user_turn' }],
      [0.3, { atMs, type: 'close', reason: 'closed early by the scenario' }],
    ]);
    actions.push(action);
  }
  return actions.sort((a, b) => a.atMs - b.atMs);
}

function generateFaults(rng: Rng, lastEnd: number): Fault[] {
  const faults: Fault[] = [];
  const count = rng.weighted<number>([
    [7, 0],
    [2, 1],
    [1, 2],
  ]);
  for (let i = 0; i < count; i++) {
    const target = rng.weighted<FaultTarget>([
      [3, 'llm'],
      [3, 'tts'],
      [2, 'stt'],
      [2, 'vad'],
      [1, 'turn_detector'],
      [0.3, 'input'],
      [0.5, 'bad_frame'],
    ]);
    faults.push({ atMs: rng.ms(0, lastEnd + 2000, 10), target, durationMs: rng.ms(100, 3000, 50) });
  }
  return faults.sort((a, b) => a.atMs - b.atMs);
}
