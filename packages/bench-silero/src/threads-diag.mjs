// Per-thread CPU of one batch-fed run (Linux /proc): how the plugin's cost splits between the main
// thread (framing, detector, events) and the inference workers. `node src/threads-diag.mjs [streams] [seconds]`
import { readdirSync, readFileSync } from 'node:fs';
import { AudioFrame } from '@voxwire/agents';
import { SileroVAD } from '@voxwire/plugin-silero';
import { benchAudio, loopAudio, RATE } from './audio.mjs';

const streams = Number(process.argv[2] ?? 32);
const seconds = Number(process.argv[3] ?? 15);
function threads() {
  const out = {};
  for (const t of readdirSync('/proc/self/task')) {
    // schedstat: nanoseconds on the CPU, far finer than the 10 ms ticks of stat.
    const name = readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim();
    const onCpuNs = Number(readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    out[`${t}:${name}`] = onCpuNs / 1e6;
  }
  return out;
}
const clip = benchAudio().samples;
const audios = Array.from({ length: streams }, (_, i) =>
  loopAudio(clip, seconds, (i * 7919 * 13) % clip.length),
);
const vad = await SileroVAD.load({});
async function run(list) {
  await Promise.all(
    list.map(async (audio) => {
      const s = vad.stream();
      let pushed = 0;
      const topUp = () => {
        const end = Math.min(audio.length, pushed + RATE);
        for (; pushed < end; pushed += 320)
          s.pushFrame(new AudioFrame(audio.subarray(pushed, pushed + 320), RATE, 1, 320));
        if (pushed >= audio.length) s.endInput();
      };
      topUp();
      for await (const e of s)
        if (e.type === 'inference_done' && pushed < audio.length && s.pendingAudioMs < 500) topUp();
    }),
  );
}
for (let k = 0; k < Number(process.env.WARM ?? 1); k++) await run(audios.map((a) => a.subarray(0, RATE * 2)));
const a = threads();
const c0 = process.cpuUsage();
const t0 = performance.now();
await run(audios);
const b = threads();
const u = process.cpuUsage(c0);
const audioS = streams * seconds;
console.log(
  `${streams} streams x ${seconds} s: total ${((u.user + u.system) / 1000 / audioS).toFixed(2)} ms CPU per audio s per stream, wall ${(performance.now() - t0).toFixed(0)} ms`,
);
for (const k of Object.keys(b)) {
  const d = b[k] - (a[k] ?? 0);
  if (d > 0) console.log(`  ${k.padEnd(32)} ${(d / audioS).toFixed(2)} ms per audio s per stream`);
}
process.exit(0);
