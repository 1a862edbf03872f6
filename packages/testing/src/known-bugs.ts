import type { KnownBug } from './fuzz.js';

/**
 * Engine bugs found by the simulator and reported to the core's maintainers. Fuzz runs count seeds that
 * fail only on these instead of failing; each has a minimal scenario under scenarios/known-bugs/.
 * Remove an entry once the engine is fixed: its scenario test then turns red as a reminder.
 */
export const KNOWN_BUGS: readonly KnownBug[] = [];

/**
 * Engine bugs the simulator found that are now fixed (their scenarios live on as regression tests
 * under scenarios/regressions/). Kept to document what each scenario guards.
 */
export const FIXED_BUGS: ReadonlyArray<{
  id: string;
  invariant: string;
  scenario: string;
  diagnosis: string;
}> = [
  {
    id: 'KB1',
    invariant: 'S2',
    scenario: 'scenarios/regressions/kb1-interrupted-message-too-long.json',
    diagnosis:
      'transcript-sync.ts estimated the heard text from all text pushed so far vs the audio pulled so far; text runs ahead of audio, so an interrupted message kept words never played',
  },
  {
    id: 'KB2',
    invariant: 'S7',
    scenario: 'scenarios/regressions/kb2-first-frame-over-user.json',
    diagnosis:
      'interruption-policy.ts paused only a target already playing: the first frame of a reply that starts while the user speaks went out',
  },
  {
    id: 'KB3',
    invariant: 'S9',
    scenario: 'scenarios/regressions/kb3-empty-commit-interrupts.json',
    diagnosis:
      'interruption-policy.ts kept the word count of the previous turn; an empty committed turn (manual commit) then cut the reply',
  },
  {
    id: 'KB4',
    invariant: 'S1',
    scenario: 'scenarios/regressions/kb4-speaking-after-interrupt.json',
    diagnosis:
      'session-runtime.ts reported "speaking" for an interrupted speech until its sink reported the cut (up to interruptedPlayoutTimeout with a silent sink)',
  },
  {
    id: 'KB5',
    invariant: 'L10',
    scenario: 'scenarios/regressions/kb5-watchdog-counts-paused-time.json',
    diagnosis:
      'speech-playout.ts counted paused time against a slow-reporting sink: playout was declared over while the tail still played',
  },
  {
    id: 'KB6',
    invariant: 'S10',
    scenario: 'scenarios/regressions/kb6-false-interruption-after-api-interrupt.json',
    diagnosis:
      'session.interrupt() cut a paused speech without telling the interruption policy, whose timer later "resumed" it with agent_false_interruption',
  },
  {
    id: 'KB7',
    invariant: 'L6',
    scenario: 'scenarios/regressions/kb7-vad-loss-rearms-false-interruption.json',
    diagnosis:
      'a VAD loss while nobody spoke re-armed the false-interruption timer of a paused speech, delaying its resume past the timeout',
  },
  {
    id: 'KB8',
    invariant: 'S11',
    scenario: 'scenarios/regressions/kb8-handoff-during-close.json',
    diagnosis:
      "reply-pipeline.ts performed a tool's handoff after close() interrupted the speech: the new agent entered a closed session and its onEnter failed",
  },
  {
    id: 'KB9',
    invariant: 'S9',
    scenario: 'scenarios/regressions/kb9-committing-final-counts-for-next-turn.json',
    diagnosis:
      'session-runtime.ts fed a final transcript to the interruption policy after the tracker had committed the turn with it, so its words counted toward the next turn: an empty manual commit then cut the reply',
  },
  {
    id: 'KB10',
    invariant: 'S7',
    scenario: 'scenarios/regressions/kb10-manual-commit-resumes-over-user.json',
    diagnosis:
      'interruption-policy.ts resumed a paused speech on a turn decision while the user was still speaking: a manual commit mid-speech made the agent talk over the user',
  },
  {
    id: 'KB11',
    invariant: 'L10',
    scenario: 'scenarios/regressions/kb11-sink-left-paused.json',
    diagnosis:
      'the sink was paused for a reply that had not sent a frame yet and never resumed when that reply was cut: every later speech was silent until the watchdog',
  },
  {
    id: 'KB12',
    invariant: 'S9',
    scenario: 'scenarios/regressions/kb12-late-final-counts-for-next-turn.json',
    diagnosis:
      'a late final transcript that only corrected a turn committed from an interim still counted toward the next turn: an empty manual commit then cut the reply',
  },
  {
    id: 'KB13',
    invariant: 'L10',
    scenario: 'scenarios/regressions/kb13-frame-after-interrupt-releases-pause.json',
    diagnosis:
      'speech-playout.ts sent the frame waiting at the playout gate when an interrupt released the pause in the same instant it aborted that speech: the frame reached the sink after the interrupt had cleared it',
  },
];
