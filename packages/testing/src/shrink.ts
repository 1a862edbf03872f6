import type { Scenario } from './scenario.js';

export interface ShrinkOptions {
  /** Most candidate scenarios to try. Default 400. */
  maxAttempts?: number;
}

export interface ShrinkResult {
  scenario: Scenario;
  attempts: number;
  /** Candidates that still failed, each one adopted. */
  steps: number;
}

type Candidate = { why: string; scenario: Scenario };

function clone(s: Scenario): Scenario {
  return structuredClone(s);
}

/** Every simpler variant of `s`, most aggressive first: drop whole elements, then simplify them. */
function* candidates(s: Scenario): Generator<Candidate> {
  const lists = ['faults', 'actions', 'user', 'tasks', 'tools'] as const;
  for (const key of lists) {
    const list = s[key];
    if (!list || list.length === 0) continue;
    if (list.length > 1) {
      const half = Math.ceil(list.length / 2);
      for (const [from, to] of [
        [0, half],
        [half, list.length],
      ] as const) {
        const c = clone(s);
        (c[key] as unknown[]).splice(from, to - from);
        yield { why: `drop ${key}[${from}..${to - 1}]`, scenario: c };
      }
    }
    for (let i = list.length - 1; i >= 0; i--) {
      const c = clone(s);
      (c[key] as unknown[]).splice(i, 1);
      yield { why: `drop ${key}[${i}]`, scenario: c };
    }
  }
  const replies = s.llm?.replies ?? [];
  for (let i = replies.length - 1; i >= 0; i--) {
    const c = clone(s);
    c.llm!.replies!.splice(i, 1);
    yield { why: `drop llm.replies[${i}]`, scenario: c };
  }
  if ((s.agents?.length ?? 0) > 1) {
    const c = clone(s);
    c.agents = c.agents!.slice(0, 1);
    yield { why: 'drop the second agent', scenario: c };
  }
  for (const [i, a] of (s.agents ?? []).entries()) {
    if (a.onEnter) {
      const c = clone(s);
      delete c.agents![i]!.onEnter;
      yield { why: `drop agents[${i}].onEnter`, scenario: c };
    }
  }
  for (const key of [
    'turnDetector',
    'stt',
    'tts',
    'output',
    'vad',
    'session',
    'frameMs',
    'jitter',
  ] as const) {
    if (s[key] === undefined) continue;
    const c = clone(s);
    delete c[key];
    yield { why: `default ${key}`, scenario: c };
  }
  for (const block of ['stt', 'tts', 'output', 'vad'] as const) {
    const value = s[block] as Record<string, unknown> | undefined;
    for (const field of Object.keys(value ?? {})) {
      const c = clone(s);
      delete (c[block] as Record<string, unknown>)[field];
      yield { why: `default ${block}.${field}`, scenario: c };
    }
  }
  const th = s.session?.turnHandling as Record<string, unknown> | undefined;
  for (const field of Object.keys(th ?? {})) {
    const c = clone(s);
    delete (c.session!.turnHandling as Record<string, unknown>)[field];
    yield { why: `default turnHandling.${field}`, scenario: c };
  }
  for (const field of ['maxToolSteps', 'userAwayTimeout'] as const) {
    if (s.session?.[field] === undefined) continue;
    const c = clone(s);
    delete c.session![field];
    yield { why: `default session.${field}`, scenario: c };
  }
  for (const [t, tool] of (s.tools ?? []).entries()) {
    for (let i = (tool.steps?.length ?? 0) - 1; i >= 0; i--) {
      const c = clone(s);
      c.tools![t]!.steps!.splice(i, 1);
      yield { why: `drop tools[${t}].steps[${i}]`, scenario: c };
    }
    for (const [i, step] of (tool.steps ?? []).entries()) {
      if ('sleep' in step && step.sleep > 50) {
        const c = clone(s);
        c.tools![t]!.steps![i] = { sleep: Math.round(step.sleep / 2 / 10) * 10 };
        yield { why: `halve tools[${t}].steps[${i}].sleep`, scenario: c };
      }
    }
  }
  for (const [r, reply] of replies.entries()) {
    for (const field of ['toolCalls', 'error', 'hang', 'text'] as const) {
      if (reply[field] === undefined) continue;
      const c = clone(s);
      delete c.llm!.replies![r]![field];
      yield { why: `drop llm.replies[${r}].${field}`, scenario: c };
    }
    const words = reply.text?.split(' ') ?? [];
    if (words.length > 2) {
      const c = clone(s);
      c.llm!.replies![r]!.text = words.slice(0, Math.ceil(words.length / 2)).join(' ');
      yield { why: `shorten llm.replies[${r}].text`, scenario: c };
    }
    for (const field of ['ttftMs', 'tokenMs'] as const) {
      if (reply[field] === undefined) continue;
      const c = clone(s);
      delete c.llm!.replies![r]![field];
      yield { why: `default llm.replies[${r}].${field}`, scenario: c };
    }
  }
  for (const [i, u] of (s.user ?? []).entries()) {
    for (const field of ['sttDelayMs', 'emptyFinal', 'noFinal'] as const) {
      if (u[field] === undefined) continue;
      const c = clone(s);
      delete c.user![i]![field];
      yield { why: `default user[${i}].${field}`, scenario: c };
    }
  }
}

/**
 * Greedy shrinking: adopt the first simpler variant that still fails, and start over from it, until no
 * variant fails or the attempts run out. `fails` decides what "still failing" means (usually: the same
 * invariant is violated).
 */
export async function shrinkScenario(
  scenario: Scenario,
  fails: (candidate: Scenario) => Promise<boolean>,
  options: ShrinkOptions = {},
): Promise<ShrinkResult> {
  const maxAttempts = options.maxAttempts ?? 400;
  let current = clone(scenario);
  let attempts = 0;
  let steps = 0;
  let progress = true;
  while (progress && attempts < maxAttempts) {
    progress = false;
    for (const candidate of candidates(current)) {
      if (attempts >= maxAttempts) break;
      attempts++;
      let failed = false;
      try {
        failed = await fails(candidate.scenario);
      } catch {
        failed = false;
      }
      if (failed) {
        current = candidate.scenario;
        steps++;
        progress = true;
        break;
      }
    }
  }
  return { scenario: current, attempts, steps };
}
