import type { EntryOf, LogEntry, LogEntryType } from './log.js';
import type { Scenario, SessionSpec } from './scenario.js';
import { simulate } from './simulate.js';

/** One scripted utterance over the agent's speech, and whether it should cut the agent. */
export interface InterruptionProbe {
  transcript: string;
  durationMs: number;
  kind: 'backchannel' | 'noise' | 'barge_in';
}

/** A way of deciding interruptions, as the session options that configure it. */
export interface InterruptionConfig {
  name: string;
  session: SessionSpec;
}

export interface InterruptionReportRow {
  config: string;
  backchannels: number;
  /** Backchannels and noises that cut the agent (false cuts). */
  falseCuts: number;
  /** Backchannels that got a reply of their own after the agent's speech. */
  answeredBackchannels: number;
  noises: number;
  bargeIns: number;
  /** Barge-ins that did not cut the agent. */
  missedBargeIns: number;
  /** From the start of a barge-in to the cut, in ms (virtual time). */
  reactionMedianMs: number | undefined;
  reactionMaxMs: number | undefined;
  /** From the end of a backchannel to the agent resuming, in ms. */
  resumeMedianMs: number | undefined;
}

/** Acknowledgements, non-speech sounds and real barge-ins, at the lengths people say them. */
export const DEFAULT_PROBES: readonly InterruptionProbe[] = [
  { transcript: 'mm-hmm', durationMs: 300, kind: 'backchannel' },
  { transcript: 'yeah', durationMs: 350, kind: 'backchannel' },
  { transcript: 'right', durationMs: 400, kind: 'backchannel' },
  { transcript: 'okay', durationMs: 450, kind: 'backchannel' },
  { transcript: 'uh-huh', durationMs: 500, kind: 'backchannel' },
  { transcript: 'I see', durationMs: 600, kind: 'backchannel' },
  { transcript: 'got it', durationMs: 650, kind: 'backchannel' },
  { transcript: 'mm-hmm', durationMs: 700, kind: 'backchannel' },
  { transcript: 'yeah yeah', durationMs: 700, kind: 'backchannel' },
  { transcript: 'okay right', durationMs: 800, kind: 'backchannel' },
  { transcript: 'right right', durationMs: 900, kind: 'backchannel' },
  { transcript: 'yeah okay', durationMs: 1000, kind: 'backchannel' },
  { transcript: '', durationMs: 300, kind: 'noise' },
  { transcript: '', durationMs: 700, kind: 'noise' },
  { transcript: '', durationMs: 1200, kind: 'noise' },
  { transcript: 'stop', durationMs: 500, kind: 'barge_in' },
  { transcript: 'wait stop', durationMs: 700, kind: 'barge_in' },
  { transcript: 'yeah wait', durationMs: 800, kind: 'barge_in' },
  { transcript: 'no the other one', durationMs: 1000, kind: 'barge_in' },
  { transcript: 'hold on a second', durationMs: 1000, kind: 'barge_in' },
  { transcript: 'what about tomorrow', durationMs: 1200, kind: 'barge_in' },
  { transcript: 'can you repeat that', durationMs: 1300, kind: 'barge_in' },
  { transcript: 'okay but what about the price', durationMs: 1800, kind: 'barge_in' },
];

export const DEFAULT_INTERRUPTION_CONFIGS: readonly InterruptionConfig[] = [
  { name: 'plain thresholds', session: { interruptionDetector: 'none' } },
  {
    name: 'plain, minInterruptionWords 2',
    session: { interruptionDetector: 'none', turnHandling: { minInterruptionWords: 2 } },
  },
  { name: 'LocalInterruptionDetector (default)', session: {} },
];

const LONG_REPLY =
  'Once upon a time there was a small village by the sea where everybody knew everybody, and the ' +
  'fishermen went out every morning before dawn to bring back what the sea would give them, and in ' +
  'the evening the whole village met on the square to share the catch and the news of the day.';

const PROBE_AT_MS = 6000;

/** The agent tells a long story; the probe is said over it. */
function probeScenario(probe: InterruptionProbe, config: InterruptionConfig): Scenario {
  return {
    name: `${config.name}: ${probe.kind} "${probe.transcript}" ${probe.durationMs} ms`,
    session: config.session,
    vad: { minSpeechMs: 100, minSilenceMs: 400 },
    stt: { finalDelayMs: 300, interimIntervalMs: 200, interimDelayMs: 150 },
    user: [
      { startMs: 1000, endMs: 1800, transcript: 's0z tell me a long story' },
      { startMs: PROBE_AT_MS, endMs: PROBE_AT_MS + probe.durationMs, transcript: probe.transcript },
    ],
    llm: {
      replies: [{ match: { user: 's0z' }, ttftMs: 200, text: LONG_REPLY }],
      fallback: { ttftMs: 200, text: 'Okay.' },
    },
  };
}

function all<T extends LogEntryType>(log: readonly LogEntry[], type: T): Array<EntryOf<T>> {
  return log.filter((e): e is EntryOf<T> => e.type === type);
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * Says each probe over a long reply, under each config, on the simulation harness (virtual time, the
 * real session), and counts false cuts, missed barge-ins and the time a barge-in takes to cut.
 */
export async function interruptionReport(
  probes: readonly InterruptionProbe[] = DEFAULT_PROBES,
  configs: readonly InterruptionConfig[] = DEFAULT_INTERRUPTION_CONFIGS,
): Promise<InterruptionReportRow[]> {
  const rows: InterruptionReportRow[] = [];
  for (const config of configs) {
    const row: InterruptionReportRow = {
      config: config.name,
      backchannels: 0,
      falseCuts: 0,
      answeredBackchannels: 0,
      noises: 0,
      bargeIns: 0,
      missedBargeIns: 0,
      reactionMedianMs: undefined,
      reactionMaxMs: undefined,
      resumeMedianMs: undefined,
    };
    const reactions: number[] = [];
    const resumes: number[] = [];
    for (const probe of probes) {
      const result = await simulate(probeScenario(probe, config));
      if (result.violations.length > 0) {
        throw new Error(`${result.scenario.name}: ${result.violations.map((v) => v.message).join('; ')}`);
      }
      const cut = all(result.log, 'speech_interrupted').find((e) => e.speechId === 'speech_1');
      const probeEnd = PROBE_AT_MS + probe.durationMs;
      if (probe.kind === 'barge_in') {
        row.bargeIns++;
        if (cut) reactions.push(cut.atMs - PROBE_AT_MS);
        else row.missedBargeIns++;
        continue;
      }
      if (probe.kind === 'noise') row.noises++;
      else row.backchannels++;
      if (cut) row.falseCuts++;
      const resumed = all(result.log, 'speech_resumed').find(
        (e) => e.speechId === 'speech_1' && e.atMs >= PROBE_AT_MS,
      );
      if (!cut && resumed && probe.kind === 'backchannel') resumes.push(Math.max(0, resumed.atMs - probeEnd));
      const answered = all(result.log, 'reply_started').some((e) => e.speechId !== 'speech_1');
      if (probe.kind === 'backchannel' && answered) row.answeredBackchannels++;
    }
    row.reactionMedianMs = median(reactions);
    row.reactionMaxMs = reactions.length > 0 ? Math.max(...reactions) : undefined;
    row.resumeMedianMs = median(resumes);
    rows.push(row);
  }
  return rows;
}

/** The rows as a Markdown table. */
export function formatInterruptionReport(rows: readonly InterruptionReportRow[]): string {
  const ms = (v: number | undefined): string => (v === undefined ? '-' : `${Math.round(v)}`);
  const lines = [
    '| config | false cuts (backchannels + noises) | backchannels answered | barge-ins missed | barge-in reaction median / max (ms) | resume after backchannel, median (ms) |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const falseRate = (100 * r.falseCuts) / Math.max(1, r.backchannels + r.noises);
    lines.push(
      `| ${r.config} | ${r.falseCuts}/${r.backchannels + r.noises} (${falseRate.toFixed(0)}%) | ${r.answeredBackchannels}/${r.backchannels} | ${r.missedBargeIns}/${r.bargeIns} | ${ms(r.reactionMedianMs)} / ${ms(r.reactionMaxMs)} | ${ms(r.resumeMedianMs)} |`,
    );
  }
  return lines.join('\n');
}
