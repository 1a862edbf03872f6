import type { KnownBug } from './fuzz.js';

/**
 * Engine bugs found by the simulator and reported to the core's maintainers. Fuzz runs count seeds that
 * fail only on these instead of failing; each has a minimal scenario under scenarios/known-bugs/.
 * Remove an entry once the engine is fixed: its scenario test then turns red as a reminder.
 */
export const KNOWN_BUGS: readonly KnownBug[] = [
  {
    id: 'KB1',
    invariant: 'S2',
    pattern: /its interrupted message holds \d+ characters but only about \d+ were heard/,
    scenario: 'scenarios/known-bugs/kb1-interrupted-message-too-long.json',
    diagnosis:
      'transcript-sync.ts estimates the heard text from all text pushed so far vs the audio pulled so far; text runs ahead of audio, so an interrupted message keeps words never played',
  },
  {
    id: 'KB2',
    invariant: 'S7',
    pattern: /\(interruptible\) sent a frame at \d+ ms while the user was speaking/,
    scenario: 'scenarios/known-bugs/kb2-first-frame-over-user.json',
    diagnosis:
      'interruption-policy.ts pauses only a target that is already playing; the first frame of a reply that starts while the user speaks goes out (playing is set after it)',
  },
  {
    id: 'KB3',
    invariant: 'S9',
    pattern: /was interrupted \(user_turn\) after \d+ ms of speech and \d+ word\(s\)/,
    scenario: 'scenarios/known-bugs/kb3-empty-commit-interrupts.json',
    diagnosis:
      'interruption-policy.ts keeps the word count of the previous turn (reset only on VAD start of speech); an empty committed turn (manual commit) then cuts the reply',
  },
  {
    id: 'KB4',
    invariant: 'S1',
    pattern: /agentState is "speaking" \d+ ms after speech_\d+ was interrupted/,
    scenario: 'scenarios/known-bugs/kb4-speaking-after-interrupt.json',
    diagnosis:
      'session-runtime.ts computeState reports "speaking" for an interrupted speech until its sink reports the cut (up to interruptedPlayoutTimeout with a silent sink)',
  },
  {
    id: 'KB5',
    invariant: 'L10',
    pattern: /waitForPlayout\(\) resolved at \d+ ms while its audio was still playing/,
    scenario: 'scenarios/known-bugs/kb5-watchdog-counts-paused-time.json',
    diagnosis:
      'speech-playout.ts gives a slow-reporting sink sentMs + slack from the flush, counting time spent paused when the pause ended before the deadline: playout is declared over (and an audio_output error raised) while the tail still plays',
  },
  {
    id: 'KB6',
    invariant: 'S10',
    pattern: /agent_false_interruption for speech_\d+ after it was interrupted/,
    scenario: 'scenarios/known-bugs/kb6-false-interruption-after-api-interrupt.json',
    diagnosis:
      'session-runtime.ts interruptAll (session.interrupt()) cuts a paused speech without telling interruption-policy.ts, whose false-interruption timer later "resumes" the cut speech: agent_false_interruption and a resume for a speech that was interrupted',
  },
  {
    id: 'KB7',
    invariant: 'L6',
    pattern: /paused at \d+ ms is still unresolved \d+ ms after the user stopped/,
    scenario: 'scenarios/known-bugs/kb7-vad-loss-rearms-false-interruption.json',
    diagnosis:
      'session-runtime.ts onVadLost calls interruption-policy.ts onUserSpeechEnded even when nobody was speaking; for a paused speech that re-arms the false-interruption timer, so a VAD failure after the user stopped delays the resume past the timeout',
  },
  {
    id: 'KB8',
    invariant: 'S11',
    pattern: /internal failure reported as a session error: Error: Agent\.onEnter failed/,
    scenario: 'scenarios/known-bugs/kb8-handoff-during-close.json',
    diagnosis:
      "reply-pipeline.ts still performs a tool's handoff after its speech was interrupted by close(): the new agent enters a closed session and its onEnter fails (reported as a session error)",
  },
];
