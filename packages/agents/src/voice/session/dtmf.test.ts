import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../time/virtual-clock.js';
import { AgentSession } from './agent-session.js';
import { dtmfCode, dtmfDigit, dtmfEvent } from './dtmf.js';
import type { DtmfReceivedEvent } from './dtmf.js';

describe('DTMF keys', () => {
  it('maps the sixteen keys to their RFC 4733 codes and back', () => {
    const keys = '0123456789*#ABCD';
    for (let code = 0; code < keys.length; code++) {
      expect(dtmfCode(keys[code]!)).toBe(code);
      expect(dtmfDigit(code)).toBe(keys[code]);
    }
    expect(dtmfCode('a')).toBe(12);
    for (const bad of ['', 'E', '12', ' ', '+']) expect(dtmfCode(bad)).toBeUndefined();
    for (const bad of [-1, 16, 1.5, Number.NaN]) expect(dtmfDigit(bad)).toBeUndefined();
  });

  it('refuses what is not a key, and a code that contradicts the digit', () => {
    expect(() => dtmfEvent({ digit: 'x' }, 0)).toThrow(RangeError);
    expect(() => dtmfEvent({ digit: '5', code: 6 }, 0)).toThrow(/does not match/);
    expect(dtmfEvent({ digit: 'b', code: 13 }, 7)).toEqual({
      digit: 'B',
      code: 13,
      participantIdentity: undefined,
      atMs: 7,
    });
  });
});

describe('AgentSession.receiveDtmf', () => {
  it('emits dtmf_received on the session clock, before start too, and not once closed', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const session = new AgentSession({ clock });
    const events: DtmfReceivedEvent[] = [];
    session.on('dtmf_received', (event) => events.push(event));
    await clock.advance(1250);
    session.receiveDtmf({ digit: '4', participantIdentity: 'sip_+15551234' });
    await clock.advance(300);
    session.receiveDtmf({ digit: '#', code: 11 });
    expect(events).toEqual([
      { digit: '4', code: 4, participantIdentity: 'sip_+15551234', atMs: 1250 },
      { digit: '#', code: 11, participantIdentity: undefined, atMs: 1550 },
    ]);
    expect(() => session.receiveDtmf({ digit: '?' })).toThrow(RangeError);
    await session.close();
    session.receiveDtmf({ digit: '1' });
    expect(events).toHaveLength(2);
  });
});
