import {
  type Agent,
  AgentSession,
  type ChatItem,
  LocalInterruptionDetector,
  resolveDeadlines,
  resolveTurnHandling,
  type SpeechHandle,
  type TurnDetector,
  VirtualClock,
} from '@voxwire/agents';
import { createIdGenerator } from '@voxwire/agents/provider-utils';
import { FakeAudioInput, FakeAudioOutput } from './fakes/audio-io.js';
import { FakeLLM, type FakeLLMRequest, type LLMReply } from './fakes/llm.js';
import { FakeSTT } from './fakes/stt.js';
import { FakeTTS } from './fakes/tts.js';
import { FakeTurnDetector } from './fakes/turn-detector.js';
import { ScriptedVAD } from './fakes/vad.js';
import { clonePlain } from './clone.js';
import { checkInvariants, type Violation } from './invariants/index.js';
import { errorInfo, type LogEntry, LogRecorder, type SimConfig } from './log.js';
import { Rng } from './prng.js';
import { lastScriptedMs, type Scenario, type SessionAction, validateScenario } from './scenario.js';
import { agentMarker, ScenarioWorld } from './sim/world.js';

export interface SimulateOptions {
  /** Seeds latency jitter (when the scenario asks for it). Default 0. */
  seed?: number;
  /** Run the invariant checker on the log. Default true. */
  check?: boolean;
  /** Starts the session with this agent instead of the scenario's first one (rehearse your own agent). */
  agent?: () => Agent;
  /**
   * Endpoints with this detector (e.g. a real end-of-turn model) instead of the scenario's scripted
   * one; `turn_detector` outages then do not apply.
   */
  turnDetector?: TurnDetector;
}

export interface SimulationResult {
  scenario: Scenario;
  seed: number;
  /** Every event, trace record and harness record, with its virtual time. */
  log: LogEntry[];
  /** Frames the output received, per speech id (`unattributed` for frames outside any speech). */
  framesBySpeech: Record<string, Array<{ atMs: number; durationMs: number }>>;
  /** The session's history at the end. */
  history: ChatItem[];
  violations: Violation[];
  /** Virtual time the conversation lasted. */
  simulatedMs: number;
}

const QUIET_POLL_MS = 250;
/**
 * Timers the clock fires per host macrotask when the world is all fakes: everything then waits on the
 * clock or on a promise, so a turn of the event loop between timers only costs time (the loop still gets
 * a turn this often, for a test runner's own timers). Code of the caller's (a real end-of-turn model
 * computing on a thread, an agent's tools) may wait on the host instead, and virtual time must not run
 * further ahead of it than it always has: one timer per macrotask then.
 */
const TIMERS_PER_MACROTASK = 64;

/**
 * Runs the real `AgentSession` through a scenario on a `VirtualClock`, with fake providers that hear
 * the audio the session routes to them. The same scenario and seed always give the same log.
 */
export async function simulate(scenario: Scenario, options: SimulateOptions = {}): Promise<SimulationResult> {
  validateScenario(scenario);
  const seed = options.seed ?? 0;
  const rng = new Rng(seed);
  const jitterFraction = Math.min(1, Math.max(0, scenario.jitter ?? 0));
  const j = (ms: number | undefined, fallback: number): number => rng.jitter(ms ?? fallback, jitterFraction);
  const clock = new VirtualClock({
    timersPerMacrotask: options.turnDetector || options.agent ? 1 : TIMERS_PER_MACROTASK,
    onTimerError: (error) => {
      recorder.sim({ type: 'sim_timer_error', message: errorInfo(error).message });
    },
  });
  const recorder = new LogRecorder(clock);
  const s = scenario.session ?? {};
  const frameMs = scenario.frameMs ?? 20;
  const users = scenario.user ?? [];
  const deadlines = resolveDeadlines(s);
  const config: SimConfig = {
    frameMs,
    vad: {
      minSpeechMs: scenario.vad?.minSpeechMs ?? 100,
      minSilenceMs: scenario.vad?.minSilenceMs ?? 500,
      windowMs: scenario.vad?.windowMs ?? 20,
    },
    turnHandling: resolveTurnHandling({
      ...s.turnHandling,
      ...(s.interruptionDetector === 'none'
        ? { interruptionDetector: null }
        : s.interruptionDetector
          ? {
              interruptionDetector: new LocalInterruptionDetector(
                s.interruptionDetector === 'local' ? {} : s.interruptionDetector,
              ),
            }
          : {}),
    }),
    interruptedPlayoutTimeoutMs: s.interruptedPlayoutTimeout ?? 1000,
    playoutWatchdogSlackMs: deadlines.playoutGraceMs,
    closeTimeoutMs: s.closeTimeout ?? 5000,
    userAwayTimeoutMs: s.userAwayTimeout === undefined ? 15000 : s.userAwayTimeout,
    output: {
      bufferMs: scenario.output?.bufferMs ?? 200,
      canPause: scenario.output?.canPause ?? true,
      finishLagMs: scenario.output?.finishLagMs ?? 0,
      neverFinish: scenario.output?.neverFinish ?? false,
    },
    tts: { msPerChar: scenario.tts?.msPerChar ?? 60 },
    deadlines,
  };
  recorder.sim({ type: 'sim_config', config, scenario: scenario.name, seed });

  // The speech holding the output, from the scheduler's own trace: frames are attributed to it.
  let holder: string | undefined;
  let segmentSpeech: string | undefined;
  // A request made before the turn commits (preemptive generation) belongs to no speech yet.
  let nextRequestSpeculative = false;
  const speculative = new WeakSet<FakeLLMRequest>();
  const onTrace: typeof recorder.onTrace = (record) => {
    if (record.type === 'preemptive_generation_started') nextRequestSpeculative = true;
    if (record.type === 'speech_authorized') holder = record.speechId;
    else if (record.type === 'speech_released' && holder === record.speechId) holder = undefined;
    recorder.onTrace(record);
  };

  // What the microphone is saying right now, to notice when a provider is fed something else.
  let inputCode: number | undefined;
  let sttSilenced: number | undefined;
  let vadSilenced: number | undefined;
  const microphone = (): FakeAudioInput =>
    new FakeAudioInput({
      clock,
      segments: users,
      frameMs,
      onFrame: (code) => {
        inputCode = code;
      },
    });
  // A `swap_input` action replaces it; the old one stops.
  let input = microphone();
  let framesOfOldInputs = 0;
  const vad = new ScriptedVAD({
    minSpeechDurationMs: config.vad.minSpeechMs,
    minSilenceDurationMs: config.vad.minSilenceMs,
    windowMs: config.vad.windowMs,
    onFrame: (voiced) => {
      const silenced = inputCode !== undefined && !voiced ? inputCode : undefined;
      if (silenced !== undefined && vadSilenced === undefined)
        recorder.sim({ type: 'vad_fed_silence', segment: silenced });
      vadSilenced = silenced;
    },
  });
  const stt = new FakeSTT({
    clock,
    utterances: users.map((u) => ({
      transcript: u.transcript,
      durationMs: u.endMs - u.startMs,
      finalDelayMs: j(u.sttDelayMs ?? scenario.stt?.finalDelayMs, 300),
      ...(u.sttPreflightMs !== undefined ? { preflightDelayMs: u.sttPreflightMs } : {}),
      ...(u.emptyFinal ? { emptyFinal: true } : {}),
      ...(u.noFinal ? { noFinal: true } : {}),
    })),
    ...(scenario.stt?.endSilenceMs !== undefined ? { endSilenceMs: scenario.stt.endSilenceMs } : {}),
    ...(scenario.stt?.interimIntervalMs !== undefined
      ? { interimIntervalMs: scenario.stt.interimIntervalMs }
      : {}),
    interimDelayMs: j(scenario.stt?.interimDelayMs, 150),
    speechEvents: scenario.stt?.speechEvents ?? false,
    onStall: () => recorder.sim({ type: 'provider_stall', target: 'stt' }),
    onFrame: (code) => {
      const silenced = inputCode !== undefined && code === undefined ? inputCode : undefined;
      if (silenced !== undefined && sttSilenced === undefined)
        recorder.sim({ type: 'stt_fed_silence', segment: silenced });
      else if (silenced === undefined && sttSilenced !== undefined)
        recorder.sim({ type: 'stt_fed_speech', segment: sttSilenced });
      sttSilenced = silenced;
    },
  });
  const replies: LLMReply[] = (scenario.llm?.replies ?? []).map(({ match, ...reply }) => {
    const { agent, ...rest } = match ?? {};
    const compiled: LLMReply = { ...reply, ttftMs: j(reply.ttftMs, 300), tokenMs: j(reply.tokenMs, 40) };
    if (match) compiled.match = agent !== undefined ? { ...rest, instructions: agentMarker(agent) } : rest;
    return compiled;
  });
  const llm = new FakeLLM({
    clock,
    replies,
    ...(scenario.llm?.fallback ? { fallback: scenario.llm.fallback } : {}),
    onRequest: (request) => {
      if (nextRequestSpeculative) speculative.add(request);
      nextRequestSpeculative = false;
    },
    onEvent: (e) =>
      recorder.sim(
        e.type === 'tool_call'
          ? {
              type: 'llm_tool_call',
              callId: e.callId,
              name: e.name,
              speechId: speculative.has(e.request) ? undefined : holder,
            }
          : e.type === 'stall'
            ? { type: 'provider_stall', target: 'llm' }
            : e.type === 'request'
              ? {
                  type: 'llm_request',
                  reply: e.reply,
                  lastItem: e.lastItem,
                  agent: /\[agent:([^\]]+)\]/.exec(e.instructions)?.[1],
                }
              : { type: 'llm_error', message: e.message },
      ),
  });
  const tts = new FakeTTS({
    clock,
    ttfbMs: j(scenario.tts?.ttfbMs, 200),
    msPerChar: config.tts.msPerChar,
    frameMs: scenario.tts?.frameMs ?? 40,
    realtimeFactor: scenario.tts?.realtimeFactor ?? 0.2,
    ...(scenario.tts?.failOn ? { failOn: scenario.tts.failOn } : {}),
    onEvent: (e) =>
      recorder.sim(
        e.type === 'synthesis'
          ? { type: 'tts_synthesis', text: e.text }
          : e.type === 'stall'
            ? { type: 'provider_stall', target: 'tts' }
            : { type: 'tts_error', message: e.message },
      ),
  });
  const fakeTurnDetector = scenario.turnDetector
    ? new FakeTurnDetector({
        clock,
        latencyMs: j(scenario.turnDetector.latencyMs, 50),
        ...(scenario.turnDetector.probability !== undefined
          ? { probability: scenario.turnDetector.probability }
          : {}),
        ...(scenario.turnDetector.rules ? { rules: scenario.turnDetector.rules } : {}),
        ...(scenario.turnDetector.threshold !== undefined
          ? { threshold: scenario.turnDetector.threshold }
          : {}),
      })
    : undefined;
  const turnDetector = options.turnDetector ?? fakeTurnDetector;
  const output = new FakeAudioOutput({
    clock,
    bufferMs: config.output.bufferMs,
    canPause: config.output.canPause,
    finishLagMs: config.output.finishLagMs,
    neverFinish: config.output.neverFinish,
    // Segment-level records belong to the speech whose frames opened the segment.
    onRecord: (record) => {
      if (record.type === 'output_frame') {
        if (record.first) segmentSpeech = holder;
        // The sink records every frame: one shape, the keys in the order recorder.sim() gives them.
        recorder.entries.push({
          type: 'output_frame',
          durationMs: record.durationMs,
          first: record.first,
          speechId: holder,
          src: 'sim',
          atMs: clock.now(),
        });
        return;
      }
      recorder.sim({ ...record, speechId: segmentSpeech });
    },
  });

  const session = new AgentSession({
    vad,
    stt,
    llm,
    tts: scenario.tts?.streaming === false ? tts.asBatch() : tts,
    ...(turnDetector ? { turnDetector } : {}),
    clock,
    turnHandling: config.turnHandling,
    ...(s.maxToolSteps !== undefined ? { maxToolSteps: s.maxToolSteps } : {}),
    ...(s.toolTimeoutMs !== undefined ? { toolTimeoutMs: s.toolTimeoutMs } : {}),
    userAwayTimeout: config.userAwayTimeoutMs,
    closeTimeout: config.closeTimeoutMs,
    interruptedPlayoutTimeout: config.interruptedPlayoutTimeoutMs,
    ...deadlines,
    onTrace,
    ids: createIdGenerator(),
  });
  recorder.attach(session);
  const world = new ScenarioWorld(scenario, clock, recorder);

  // Every speech is awaited from outside, to check that waitForPlayout() ends, and when.
  const handles: SpeechHandle[] = [];
  const pendingWaits = new Set<string>();
  session.on('speech_created', ({ speechHandle }) => {
    handles.push(speechHandle);
    pendingWaits.add(speechHandle.id);
    speechHandle.waitForPlayout().then(
      () => {
        pendingWaits.delete(speechHandle.id);
        recorder.sim({
          type: 'playout_waited',
          speechId: speechHandle.id,
          outcome: speechHandle.outcome ?? 'none',
        });
      },
      (error: unknown) => {
        pendingWaits.delete(speechHandle.id);
        recorder.sim({
          type: 'playout_waited',
          speechId: speechHandle.id,
          outcome: `error: ${errorInfo(error).message}`,
        });
      },
    );
  });

  let closeRequested: Promise<void> | undefined;
  const requestClose = (reason: string): Promise<void> => {
    closeRequested ??= session.close(reason).catch((error: unknown) => {
      recorder.sim({ type: 'action_done', action: 'close', error: errorInfo(error).message });
    });
    return closeRequested;
  };

  for (const [index, u] of users.entries()) {
    clock.setTimer(u.startMs, () =>
      recorder.sim({ type: 'user_speech_start', segment: index, transcript: u.transcript, endMs: u.endMs }),
    );
    clock.setTimer(u.endMs, () => recorder.sim({ type: 'user_speech_end', segment: index }));
  }
  for (const fault of scenario.faults ?? []) {
    clock.setTimer(fault.atMs, () => {
      const durationMs = fault.durationMs ?? 0;
      recorder.sim({ type: 'fault', target: fault.target, durationMs });
      switch (fault.target) {
        case 'llm':
          llm.outage(durationMs);
          break;
        case 'tts':
          tts.outage(durationMs);
          break;
        case 'stt':
          stt.disconnect(durationMs);
          break;
        case 'vad':
          vad.fail();
          break;
        case 'turn_detector':
          fakeTurnDetector?.outage(durationMs);
          break;
        case 'input':
          input.stop();
          break;
        case 'bad_frame':
          input.injectBadFrame();
          break;
        case 'llm_stall':
          llm.stall(durationMs);
          break;
        case 'tts_stall':
          tts.stall(durationMs);
          break;
        case 'stt_stall':
          stt.stall(durationMs);
          break;
        case 'capture_stall':
          output.stallCaptures(durationMs);
          break;
      }
    });
  }
  for (const action of scenario.actions ?? []) {
    clock.setTimer(action.atMs, () => runAction(action));
  }

  function runAction(action: SessionAction): void {
    if (session.closed) {
      recorder.sim({ type: 'action', action: action.type, detail: 'skipped: session closed' });
      return;
    }
    recorder.sim({ type: 'action', action: action.type });
    const done = (speechId?: string) => (): void =>
      recorder.sim({ type: 'action_done', action: action.type, ...(speechId ? { speechId } : {}) });
    const failed = (error: unknown): void =>
      recorder.sim({ type: 'action_done', action: action.type, error: errorInfo(error).message });
    try {
      switch (action.type) {
        case 'say': {
          const h = session.say(action.text, {
            ...(action.allowInterruptions !== undefined
              ? { allowInterruptions: action.allowInterruptions }
              : {}),
            addToChatCtx: action.addToChatCtx ?? true,
          });
          done(h.id)();
          break;
        }
        case 'generate_reply': {
          const h = session.generateReply({
            ...(action.userInput !== undefined ? { userInput: action.userInput } : {}),
            ...(action.instructions !== undefined ? { instructions: action.instructions } : {}),
            ...(action.allowInterruptions !== undefined
              ? { allowInterruptions: action.allowInterruptions }
              : {}),
          });
          done(h.id)();
          break;
        }
        case 'interrupt':
          session.interrupt({ force: action.force ?? false }).then(done(), failed);
          break;
        case 'interrupt_speech': {
          const h = handles[handles.length - 1];
          if (!h) {
            done()();
            break;
          }
          const wasDone = h.done();
          try {
            const returned = h.interrupt({ force: action.force ?? false });
            recorder.sim({
              type: 'handle_interrupt_call',
              speechId: h.id,
              force: action.force ?? false,
              wasDone,
              returned,
            });
          } catch (error) {
            recorder.sim({
              type: 'handle_interrupt_call',
              speechId: h.id,
              force: action.force ?? false,
              wasDone,
              returned: false,
              threw: errorInfo(error).message,
            });
          }
          break;
        }
        case 'update_agent': {
          const agent = world.agent(action.agent);
          if (!agent) {
            failed(new Error(`no agent named ${action.agent}`));
            break;
          }
          session.updateAgent(agent).then(done(), failed);
          break;
        }
        case 'commit_user_turn':
          session.commitUserTurn();
          done()();
          break;
        case 'clear_user_turn':
          session.clearUserTurn();
          done()();
          break;
        case 'close':
          requestClose(action.reason ?? 'closed by the scenario').then(done());
          break;
        case 'set_input_enabled':
          session.input.setAudioEnabled(action.enabled);
          done()();
          break;
        case 'set_output_enabled':
          session.output.setAudioEnabled(action.enabled);
          done()();
          break;
        case 'run_text':
          session.run({ userInput: action.userInput }).then(
            (result) =>
              recorder.sim({
                type: 'action_done',
                action: action.type,
                detail: `${result.events.length} events`,
              }),
            failed,
          );
          break;
        case 'swap_input': {
          const old = input;
          input = microphone();
          session.input.audio = input;
          old.stop();
          framesOfOldInputs += old.framesDelivered;
          done()();
          break;
        }
      }
    } catch (error) {
      failed(error);
    }
  }

  await session.start({
    agent: options.agent?.() ?? world.initialAgent(),
    input: { audio: input },
    output: { audio: output },
  });
  await runUntilEnd();

  async function runUntilEnd(): Promise<void> {
    const settleFrom = lastScriptedMs(scenario);
    const quietNeeded = Math.min(config.turnHandling.maxEndpointingDelay, 10_000) + 1000;
    const hardEnd = scenario.endMs ?? settleFrom + (scenario.settleTimeoutMs ?? 60_000);
    await new Promise<void>((resolve) => {
      let quietSince: number | undefined;
      const poll = (): void => {
        if (closeRequested) {
          resolve();
          return;
        }
        const now = clock.now();
        if (now >= hardEnd) {
          resolve();
          return;
        }
        if (scenario.endMs === undefined && now >= settleFrom) {
          const quiet =
            (session.agentState === 'listening' || session.agentState === 'idle') &&
            session.userState !== 'speaking' &&
            handles.every((h) => h.done());
          quietSince = quiet ? (quietSince ?? now) : undefined;
          if (quietSince !== undefined && now - quietSince >= quietNeeded) {
            resolve();
            return;
          }
        }
        clock.setTimer(Math.min(QUIET_POLL_MS, Math.max(1, hardEnd - now)), poll);
      };
      poll();
    });
    const deadline = config.closeTimeoutMs * 1.2 + 2000;
    const closed = requestClose('end of scenario').then(() => true);
    const inTime = await Promise.race([closed, clock.sleep(deadline).then(() => false)]);
    if (!inTime) recorder.sim({ type: 'sim_close_timeout', waitedMs: deadline });
    // A short grace period shows anything the session still does after closing.
    await clock.sleep(1000);
    input.stop();
    for (const id of pendingWaits) recorder.sim({ type: 'sim_pending', what: 'waitForPlayout', detail: id });
  }

  recorder.sim({
    type: 'sim_end',
    simulatedMs: clock.now(),
    inputFrames: framesOfOldInputs + input.framesDelivered,
    vadFrames: vad.framesPushed,
    sttFrames: stt.framesPushed,
    vadDroppedEvents: vad.droppedEvents,
    outputMaxQueuedMs: output.maxQueuedMs,
  });
  // Whatever is still scheduled belongs to a finished run: freeze it rather than let it spin.
  clock.setAutoAdvance(false);

  const log = recorder.entries;
  return {
    scenario,
    seed,
    log,
    framesBySpeech: framesBySpeechOf(log),
    history: session.history.items.map((item) => clonePlain(item)),
    violations: options.check === false ? [] : checkInvariants(log),
    simulatedMs: clock.now(),
  };
}

/**
 * The frames the output received, per speech. A function of its own: a loop over the whole log inside
 * `simulate()` would make that long function hot, and the engine would then optimize all of it.
 */
function framesBySpeechOf(log: readonly LogEntry[]): SimulationResult['framesBySpeech'] {
  const framesBySpeech: SimulationResult['framesBySpeech'] = {};
  for (const entry of log) {
    if (entry.type === 'output_frame') {
      const key = entry.speechId ?? 'unattributed';
      const list = framesBySpeech[key] ?? [];
      list.push({ atMs: entry.atMs, durationMs: entry.durationMs });
      framesBySpeech[key] = list;
    }
  }
  return framesBySpeech;
}
