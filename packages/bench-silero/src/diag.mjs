import { readdirSync, readFileSync } from 'node:fs';
import { AudioFrame } from '@voxwire/agents';
import { SileroVAD } from '@voxwire/plugin-silero';
function threads() {
  const out = {};
  for (const t of readdirSync('/proc/self/task')) {
    const s = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    const name = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    out[`${t}:${name}`] = (Number(f[11]) + Number(f[12])) * 10; // ms (100 Hz ticks)
  }
  return out;
}
const vad = await SileroVAD.load({ inference: process.env.MODE ?? 'auto', workers: 1 });
const audio = new Int16Array(16000 * 60);
for (let i = 0; i < audio.length; i++)
  audio[i] = Math.round(Math.sin(i / 10) * 3000 * (Math.floor(i / 16000) % 2));
async function run() {
  const s = vad.stream();
  let pushed = 0;
  const topUp = () => {
    const end = Math.min(audio.length, pushed + 16000);
    for (; pushed < end; pushed += 320)
      s.pushFrame(new AudioFrame(audio.subarray(pushed, pushed + 320), 16000, 1, 320));
    if (pushed >= audio.length) s.endInput();
  };
  topUp();
  for await (const e of s)
    if (e.type === 'inference_done' && pushed < audio.length && s.pendingAudioMs < 500) topUp();
}
await run();
const a = threads();
const c0 = process.cpuUsage();
const t0 = performance.now();
await run();
const b = threads();
const u = process.cpuUsage(c0);
console.log(
  process.env.MODE,
  'total cpu ms',
  ((u.user + u.system) / 1000).toFixed(0),
  'wall',
  (performance.now() - t0).toFixed(0),
);
for (const k of Object.keys(b)) if (b[k] - (a[k] ?? 0) > 0) console.log('  ', k, b[k] - (a[k] ?? 0));
process.exit(0);
