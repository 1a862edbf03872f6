import { formatViolations } from './invariants/index.js';
import type { LogEntry } from './log.js';
import type { Scenario } from './scenario.js';
import { type SimulateOptions, type SimulationResult, simulate } from './simulate.js';

export interface TimelineOptions {
  /** Also show VAD inference, frames, metrics and other fine-grained records. Default false. */
  verbose?: boolean;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3).padStart(8);
}

function quote(text: string, max = 60): string {
  const t = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return `"${t}"`;
}

/** One readable line for a log entry, or undefined for entries not worth showing. */
export function describeEntry(entry: LogEntry, verbose = false): [string, string] | undefined {
  switch (entry.type) {
    case 'user_speech_start':
      return [
        'user',
        `▶ says ${quote(entry.transcript)} (segment ${entry.segment}, until ${(entry.endMs / 1000).toFixed(3)})`,
      ];
    case 'user_speech_end':
      return ['user', `■ stops (segment ${entry.segment})`];
    case 'user_state_changed':
      return ['user', `state ${entry.oldState} → ${entry.newState}`];
    case 'agent_state_changed':
      return ['agent', `state ${entry.oldState} → ${entry.newState}`];
    case 'user_input_transcribed':
      return ['stt', `${entry.isFinal ? 'final' : 'interim'} ${quote(entry.transcript)}`];
    case 'user_turn_committed':
      return ['turn', `committed ${entry.turnId} ${quote(entry.transcript)}`];
    case 'user_turn_skipped':
      return ['turn', `skipped ${entry.turnId} (${entry.reason})`];
    case 'endpointing_started':
      return verbose ? ['turn', `endpointing (last speech ${entry.lastSpeechMs})`] : undefined;
    case 'speech_created':
      return [
        'speech',
        `${entry.speechId} created (${entry.source}${entry.allowInterruptions ? '' : ', uninterruptible'})`,
      ];
    case 'speech_authorized':
      return ['speech', `${entry.speechId} step ${entry.step} takes the output`];
    case 'speech_released':
      return verbose ? ['speech', `${entry.speechId} step ${entry.step} releases the output`] : undefined;
    case 'speech_paused':
      return ['speech', `${entry.speechId} paused`];
    case 'speech_resumed':
      return ['speech', `${entry.speechId} resumed${entry.falseInterruption ? ' (false interruption)' : ''}`];
    case 'speech_interrupted':
      return ['speech', `${entry.speechId} INTERRUPTED (${entry.reason})`];
    case 'speech_done':
      return ['speech', `${entry.speechId} done: ${entry.outcome}${entry.error ? ` (${entry.error})` : ''}`];
    case 'conversation_item_added': {
      const item = entry.item;
      if (item.type === 'message') {
        const text = item.content.filter((c) => typeof c === 'string').join('');
        return ['history', `${item.role}${item.interrupted ? ' (interrupted)' : ''}: ${quote(text)}`];
      }
      if (item.type === 'function_call')
        return ['history', `call ${item.name}(${item.arguments}) ${item.callId}`];
      if (item.type === 'function_call_output')
        return ['history', `output of ${item.callId}: ${quote(item.output)}`];
      return ['history', `handoff ${item.oldAgentId ?? '?'} → ${item.newAgentId}`];
    }
    case 'tool_started':
      return ['tool', `${entry.name} started (${entry.callId})`];
    case 'tool_finished':
      return ['tool', `${entry.name} finished: ${entry.outcome} (${entry.callId})`];
    case 'tool_step':
      return ['tool', `${entry.callId} ${entry.step}${entry.detail ? ` ${entry.detail}` : ''}`];
    case 'task_started':
      return ['task', `${entry.taskId} started${entry.parentSpeechId ? ` for ${entry.parentSpeechId}` : ''}`];
    case 'task_finished':
      return ['task', `${entry.taskId} finished: ${entry.outcome}`];
    case 'agent_false_interruption':
      return ['speech', `agent_false_interruption ${entry.speechId}`];
    case 'error':
      return ['error', `${entry.source}: ${entry.error.name}: ${entry.error.message}`];
    case 'fault':
      return ['fault', `${entry.target}${entry.durationMs ? ` for ${entry.durationMs} ms` : ''}`];
    case 'action':
      return ['app', `${entry.action}${entry.detail ? ` (${entry.detail})` : ''}`];
    case 'close_requested':
      return ['session', `close requested: ${entry.reason}`];
    case 'close':
      return ['session', `closed: ${entry.reason}`];
    case 'output_audio_end':
      return [
        'output',
        `audio of ${entry.speechId ?? '?'} ${entry.interrupted ? 'cut' : 'ended'} at ${entry.positionMs} ms`,
      ];
    case 'vad_restarted':
    case 'stt_restarted':
      return ['session', `${entry.type.replace('_', ' ')}: ${entry.error}`];
    case 'stt_fed_silence':
      return ['input', `STT hears silence instead of segment ${entry.segment}`];
    case 'sim_pending':
    case 'sim_close_timeout':
    case 'sim_timer_error':
      return ['sim', `${entry.type}: ${JSON.stringify(entry)}`];
    default:
      return verbose ? ['', JSON.stringify(entry)] : undefined;
  }
}

/** The conversation as a readable timeline: who spoke when, states, speeches, tools, and violations. */
export function formatTimeline(result: SimulationResult, options: TimelineOptions = {}): string {
  const lines: string[] = [];
  lines.push(
    `scenario ${result.scenario.name ?? '(unnamed)'}, seed ${result.seed}, ${(result.simulatedMs / 1000).toFixed(1)} s`,
  );
  for (const entry of result.log) {
    const line = describeEntry(entry, options.verbose);
    if (line) lines.push(`${seconds(entry.atMs)}  ${line[0].padEnd(8)} ${line[1]}`);
  }
  lines.push('');
  for (const [speechId, frames] of Object.entries(result.framesBySpeech)) {
    const ms = frames.reduce((t, f) => t + f.durationMs, 0);
    lines.push(
      `frames ${speechId}: ${frames.length} (${ms} ms), ${(frames[0]!.atMs / 1000).toFixed(3)}..${(frames[frames.length - 1]!.atMs / 1000).toFixed(3)}`,
    );
  }
  lines.push('');
  lines.push(`violations: ${formatViolations(result.violations)}`);
  return lines.join('\n');
}

/** Runs a scenario and returns its readable timeline (and the simulation result). */
export async function rehearse(
  scenario: Scenario,
  options: SimulateOptions & TimelineOptions = {},
): Promise<{ timeline: string; result: SimulationResult }> {
  const result = await simulate(scenario, options);
  return { timeline: formatTimeline(result, options), result };
}
