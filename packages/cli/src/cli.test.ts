import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runConsole } from './console.js';
import { main } from './main.js';
import type { Output } from './output.js';

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
    const start = await run('start', ECHO_AGENT);
    expect(start.code).toBe(2);
    expect(start.text).toContain('not available yet');
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

  it('rehearses a scenario on virtual time through @voxwire/testing', async () => {
    const result = await run('rehearse', SCENARIO, '--seed', '1');
    expect(result.text).toMatch(/violations: /u);
    expect(result.code).toBe(result.text.includes('violations: no violations') ? 0 : 1);
  });
});
