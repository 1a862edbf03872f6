import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Output, runConsole } from 'voxwire';
import { afterAll, describe, expect, it } from 'vitest';

const ASSISTANT = fileURLToPath(new URL('./assistant.ts', import.meta.url));

function audioTools(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v espeak-ng && command -v sox'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const tools = audioTools();
// CI installs them (.ci/run): there a missing tool fails with the install command instead of skipping.
if (!tools && process.env.CI) {
  throw new Error(
    'CI needs espeak-ng and sox for the offline assistant test: apt-get install -y espeak-ng sox',
  );
}
if (!tools)
  console.warn(
    'espeak-ng or sox missing (apt-get install -y espeak-ng sox): the offline assistant test is skipped',
  );

const dir = mkdtempSync(join(tmpdir(), 'voxwire-assistant-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!tools)('the offline assistant (pnpm dev without keys)', () => {
  it('hears a spoken question in a WAV file, takes its turn and answers out loud', async () => {
    const input = join(dir, 'in.wav');
    const output = join(dir, 'out.wav');
    execFileSync('sh', [
      '-c',
      `espeak-ng -v en-us -w ${dir}/q.wav "Hello, can you hear me?" && ` +
        `sox -n -r 16000 -c 1 -b 16 ${dir}/lead.wav trim 0 0.5 && ` +
        `sox -D ${dir}/q.wav -r 16000 -c 1 -b 16 ${dir}/q16.wav && sox ${dir}/lead.wav ${dir}/q16.wav ${input}`,
    ]);
    let text = '';
    const out: Output = {
      info: (t) => {
        text += `${t}\n`;
      },
      warn: (t) => {
        text += `warning: ${t}\n`;
      },
      error: (t) => {
        text += `error: ${t}\n`;
      },
      write: (t) => {
        text += t;
      },
    };
    const code = await runConsole({ file: ASSISTANT, input, output }, out);
    expect(code, text).toBe(0);
    expect(text).toMatch(/\[info\] Running offline/u);
    // Offline, the "transcript" is the length of the speech, padding and trailing silence left out.
    const heardS = Number(/you> \((\d\.\d) s of speech\)/u.exec(text)?.[1]);
    const spokenS = Number(execFileSync('soxi', ['-D', join(dir, 'q.wav')], { encoding: 'utf8' }));
    expect(Math.abs(heardS - spokenS), text).toBeLessThan(0.5);
    expect(text).toMatch(/agent> I heard you speak for \d\.\d seconds/u);
    const latency = Number(/\[turn\] end of speech -> reply audio: (\d+) ms/u.exec(text)?.[1]);
    expect(latency).toBeGreaterThan(0);
    expect(latency).toBeLessThan(3000);
    const info = execFileSync('soxi', ['-D', output], { encoding: 'utf8' });
    // The reply (several seconds of espeak) follows the question on the same timeline.
    expect(Number(info)).toBeGreaterThan(4);
  }, 90_000);
});
