// The scripted conversation the simulation speed is measured on (sim.mjs, ab.mjs): a turn every 8 s,
// the user cutting every other reply short.
import { REPLY } from './settings.mjs';

export function conversation(seconds) {
  const user = [];
  for (let t = 0, at = 500; at + 2500 < seconds * 1000; t++, at += 8000) {
    user.push({ startMs: at, endMs: at + 2000, transcript: `question number ${t}` });
    // Every other turn the user cuts the reply short.
    if (t % 2 === 1) user.push({ startMs: at + 3300, endMs: at + 4300, transcript: 'wait, one more thing' });
  }
  return {
    name: 'bench-speed',
    user,
    llm: { fallback: { text: REPLY, ttftMs: 300 } },
    session: { userAwayTimeout: null },
    endMs: seconds * 1000,
  };
}
