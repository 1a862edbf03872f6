import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeWav } from '@voxwire/agents/provider-utils';
import { runConsole } from './console.js';
import { main } from './main.js';
import type { Output } from './output.js';
import { runRehearse } from './rehearse.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ECHO_AGENT = join(here, 'test-support/echo-agent.ts');
const ORDER_DESK = fileURLToPath(new URL('../../../examples/agents/src/order-desk.ts', import.meta.url));
const SCENARIO = fileURLToPath(new URL('../../testing/scenarios/barge-in.json', import.meta.url));

function buffer(): Output & { text(): string } {
  let all = '';
  return {
    info: (t) => {
      all += `${t}\n`;
    },
    warn: (t) => {
      all += `warning: ${t}\n`;
    },
    error: (t) => {
      all += `error: ${t}\n`;
    },
    write: (t) => {
      all += t;
    },
    text: () => all,
  };
}

async function run(...argv: string[]) {
  const out = buffer();
  const code = await main(argv, out);
  return { code, text: out.text() };
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('voxwire CLI', () => {
  it('explains itself', async () => {
    const help = await run('--help');
    expect(help.code).toBe(0);
    expect(help.text).toMatch(/dev <agent file>.*\n.*console <agent file>.*\n.*rehearse <scenario.json>/u);
    expect((await run()).code).toBe(2);
    expect((await run('dev', '--help')).text).toContain('--no-watch');
    expect((await run('help', 'console')).text).toContain('--input <in.wav>');
    expect((await run('--version')).text).toMatch(/^voxwire 0\.1\.0/u);
  });

  it('says what to do when a command is wrong', async () => {
    expect(await run('deploy')).toEqual({
      code: 2,
      text: 'error: Unknown command "deploy". Commands: dev, console, rehearse, start (voxwire --help).\n',
    });
    expect((await run('dev')).text).toContain('voxwire dev needs an agent file: voxwire dev <agent file>');
    expect((await run('dev', 'missing.ts')).text).toContain('Agent file not found: missing.ts');
    expect((await run('dev', ECHO_AGENT, '--port', 'http')).text).toContain('--port must be a number');
    expect((await run('console', ECHO_AGENT, '--speed', '2')).text).toMatch(
      /Unknown option '--speed'.*--help/u,
    );
    const start = await run('start');
    expect(start.code).toBe(1);
    expect(start.text).toContain('voxwire start needs an agent file: voxwire start <agent file>');
    expect((await run('rehearse')).text).toContain('voxwire rehearse needs a scenario file');
    expect((await run('rehearse', 'nope.json')).text).toContain('Cannot read the scenario nope.json');
  });

  it('names the fix for a file that exports no agent', async () => {
    const dir = await mkdtemp(join(here, '.test-'));
    dirs.push(dir);
    const file = join(dir, 'not-an-agent.ts');
    writeFileSync(file, 'export const x = 1;\n');
    const result = await run('console', file);
    expect(result.code).toBe(1);
    expect(result.text).toContain('does not export an agent: add `export default defineAgent(');
  });

  it('runs an agent file in text mode, one piped line per turn', async () => {
    const out = buffer();
    const code = await runConsole({ file: ECHO_AGENT }, out, Readable.from(['hello\n', 'how are you?\n']));
    expect(code).toBe(0);
    expect(out.text()).toBe(
      '[info] version 1\nyou> hello\nagent> echo: hello\nyou> how are you?\nagent> echo: how are you?\n',
    );
  });

  it('runs the order desk example offline: a tool hands over to an AgentTask and gets its result', async () => {
    const out = buffer();
    const lines = ['a margherita please\n', 'send it to ada@example.com\n'];
    const code = await runConsole({ file: ORDER_DESK }, out, Readable.from(lines));
    expect(code).toBe(0);
    const text = out.text();
    expect(text).toContain('agent> Hi, this is the pizzeria. What would you like to order?');
    expect(text).toContain('agent> What email address should I send the receipt to?');
    expect(text).toContain('[tool] confirm_email -> Confirmed ada@example.com.');
    expect(text).toContain(
      'agent> Order #1001 placed: a margherita please. The receipt goes to ada@example.com. Anything else?',
    );
  }, 60_000);

  it('rehearses a scenario on virtual time through @voxwire/testing, and it breaks no invariant', async () => {
    const result = await run('rehearse', SCENARIO, '--seed', '1');
    // Fails, with the timeline, when the scenario breaks an invariant.
    expect(result.text.match(/^violations: .*$/mu)?.[0], result.text).toBe('violations: no violations');
    expect(result.code).toBe(0);
  });

  it('exits 1 and says so when a rehearsal breaks an invariant', async () => {
    const out = buffer();
    const broken = async () => ({
      rehearse: async () => ({
        timeline: 'scenario x\nviolations: S3 at 1.200 s: a speech played after it was interrupted',
        result: { violations: [{ id: 'S3' }] },
      }),
    });
    const code = await runRehearse({ scenario: SCENARIO, seed: 0, verbose: false }, out, broken);
    expect(code).toBe(1);
    expect(out.text()).toContain('error: 1 invariant was broken (see "violations" above).');
  });

  it('says in one sentence what is wrong with a malformed scenario', async () => {
    const dir = await mkdtemp(join(here, '.test-'));
    dirs.push(dir);
    const cases: Array<[string, string, RegExp]> = [
      ['null.json', 'null', /is malformed: expected a JSON object .*got null\.$/u],
      ['array.json', '[1, 2]', /is malformed: expected a JSON object .*got an array\.$/u],
      ['bad-user.json', '{"user":[{"at":"x"}]}', /is malformed: user\[0\]: needs 0 <= startMs < endMs/u],
      ['cut.json', '{"user": [', /Cannot read the scenario .*cut\.json: /u],
    ];
    for (const [name, body, pattern] of cases) {
      const file = join(dir, name);
      writeFileSync(file, body);
      const result = await run('rehearse', file);
      expect(result.code, name).toBe(1);
      expect(result.text.trim().split('\n'), name).toHaveLength(1);
      expect(result.text.trim(), name).toMatch(pattern);
      expect(result.text, name).not.toMatch(/\n\s+at /u);
    }
  });

  it('says in one sentence what is wrong with an --input WAV: empty, truncated, 0 Hz, no audio', async () => {
    const dir = await mkdtemp(join(here, '.test-'));
    dirs.push(dir);
    const good = encodeWav(new Int16Array(16_000), { sampleRate: 16_000 });
    const zeroHz = new Uint8Array(good);
    new DataView(zeroHz.buffer).setUint32(24, 0, true);
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ['empty.wav', new Uint8Array(0), /empty\.wav is empty \(0 bytes\): record or export it again\.$/u],
      ['cut.wav', good.subarray(0, 30), /cut\.wav is truncated \(.*\): record or export it again\.$/u],
      [
        'zero.wav',
        zeroHz,
        /zero\.wav is damaged \(.*sample rate of 0 Hz\): export it again, or rewrite it with sox /u,
      ],
      ['silent.wav', good.subarray(0, 44), /silent\.wav holds no audio \(its data chunk is empty\)/u],
    ];
    for (const [name, bytes, pattern] of cases) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      const result = await run('console', ECHO_AGENT, '--input', file);
      expect(result.code, name).toBe(1);
      expect(result.text.trim().split('\n'), name).toHaveLength(1);
      expect(result.text.trim(), name).toMatch(pattern);
      expect(result.text, name).not.toMatch(/\n\s+at /u);
    }
  });
});
