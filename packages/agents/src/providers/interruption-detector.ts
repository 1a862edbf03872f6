import type { SpecificationVersion } from './common.js';

/**
 * Interruption detection, specification v1.
 *
 * While the agent speaks and the user makes a sound, the session pauses the agent (it never talks over
 * the user) and, once the user's speech reaches `minInterruptionDuration` (and `minInterruptionWords`),
 * asks the detector what it is hearing: a barge-in that cuts the agent, a backchannel ("mm-hmm",
 * "yeah", a cough) after which the agent resumes, or not enough yet. It asks again as more words come.
 * A committed user turn that was heard over the agent is asked once more as a whole: a backchannel
 * turn gets no reply of its own (it is skipped, visibly).
 *
 * `classify` is called on the session's hot path and must answer at once: a model-based detector runs
 * its inference ahead (on frames or transcripts it is fed) and answers from its latest state. It must
 * not throw; the session treats a throw as `interrupt`, the plain thresholds' answer.
 */

/** What the user has said over the agent's current speech step. */
export interface InterruptionEvidence {
  /** The words heard over the step (interim or final), as recognized; '' before any word. */
  transcript: string;
  words: number;
  /** The user's speech over the step (VAD, or the recognizer without one), in ms. */
  speechMs: number;
  /** Whether the user is still speaking. */
  userSpeaking: boolean;
  /** BCP-47 language of the transcript, when known (the recognizer's, else the session's hint). */
  language: string | undefined;
}

/**
 * `interrupt`: cut the agent now. `backchannel`: the user acknowledges; the agent resumes as soon as they
 * stop. `undecided`: keep the agent paused and ask again with more evidence (or resume it after the
 * false-interruption timeout when nothing more comes).
 */
export type InterruptionVerdict = 'interrupt' | 'backchannel' | 'undecided';

export interface InterruptionDetector {
  readonly specificationVersion: SpecificationVersion;
  readonly label: string;
  classify(evidence: InterruptionEvidence): InterruptionVerdict;
}
