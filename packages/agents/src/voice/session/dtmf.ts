/**
 * Keypad presses (DTMF) as session events. A phone caller's keys reach a voice agent through its
 * transport (a SIP participant in a LiveKit room, a keypad on a web page); the transport hands each one
 * to `session.receiveDtmf()` and the session emits `dtmf_received`, so agent code listens in one place
 * whatever the transport.
 */

/** The sixteen DTMF keys, in the order of their RFC 4733 event codes (0-9, `*` = 10, `#` = 11, A-D = 12-15). */
const DTMF_KEYS = '0123456789*#ABCD';

/** What a transport knows about a key press. */
export interface DtmfInput {
  /** The key: `0`-`9`, `*`, `#` or `A`-`D` (lower case is accepted). */
  digit: string;
  /** Its RFC 4733 event code; derived from `digit` when omitted. */
  code?: number;
  /** Who pressed it, when the transport knows (a LiveKit participant identity). */
  participantIdentity?: string;
}

/** The `dtmf_received` event. */
export interface DtmfReceivedEvent {
  /** `0`-`9`, `*`, `#` or `A`-`D`. */
  digit: string;
  /** RFC 4733 event code: the digit's value, `*` 10, `#` 11, `A`-`D` 12-15. */
  code: number;
  participantIdentity: string | undefined;
  /** When the session received it, on the session's clock. */
  atMs: number;
}

/** The RFC 4733 event code of a DTMF key, or `undefined` when `digit` is not one. */
export function dtmfCode(digit: string): number | undefined {
  if (digit.length !== 1) return undefined;
  const index = DTMF_KEYS.indexOf(digit.toUpperCase());
  return index < 0 ? undefined : index;
}

/** The key of an RFC 4733 event code (0-15), or `undefined` for any other number. */
export function dtmfDigit(code: number): string | undefined {
  return Number.isInteger(code) && code >= 0 && code < DTMF_KEYS.length ? DTMF_KEYS[code] : undefined;
}

/**
 * Checks a transport's key press and stamps it. Throws a `RangeError` for something that is not a DTMF
 * key, or a code that contradicts the digit: a transport bug should be loud, not an event nobody matches.
 */
export function dtmfEvent(input: DtmfInput, atMs: number): DtmfReceivedEvent {
  const code = dtmfCode(input.digit);
  if (code === undefined) {
    throw new RangeError(`not a DTMF key: ${JSON.stringify(input.digit)} (expected 0-9, *, #, A-D)`);
  }
  if (input.code !== undefined && input.code !== code) {
    throw new RangeError(`DTMF code ${input.code} does not match digit ${JSON.stringify(input.digit)}`);
  }
  return {
    digit: DTMF_KEYS[code]!,
    code,
    participantIdentity: input.participantIdentity,
    atMs,
  };
}
