import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const bin = join(packageDir, 'src/bin.ts');

/** Everything the process printed so far, and a way to wait for a line. */
function watchOutput(child: ChildProcess) {
  let text = '';
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of waiters.splice(0)) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return {
    get text() {
      return text;
    },
    waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
      return new Promise((resolve) => {
        const look = () => {
          const match = text.match(pattern);
          if (match) resolve(match);
          else waiters.push(look);
        };
        look();
      });
    },
  };
}

/** Opens a session like the page does and returns its first notice. */
async function firstNotice(
  url: string,
): Promise<{ notice: string; ended: Promise<Record<string, unknown>> }> {
  const ws = new WebSocket(url.replace('http', 'ws').replace('/?', '/ws?'));
  const messages: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data, binary) => {
    if (binary) return;
    messages.push(JSON.parse(String(data)));
    for (const w of waiters.splice(0)) w();
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'hello', protocol: 1, sampleRate: 16000 }));
  const next = (type: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const look = () => {
        const found = messages.find((m) => m.type === type);
        if (found) resolve(found);
        else waiters.push(look);
      };
      look();
    });
  const notice = await next('notice');
  return { notice: String(notice.message), ended: next('ended') };
}

const cleanup: Array<() => void> = [];
afterAll(() => {
  for (const fn of cleanup) fn();
});

describe('voxwire dev', () => {
  it('serves the agent file and reloads it when it changes; pages are told to reconnect', async () => {
    const dir = mkdtempSync(join(packageDir, 'src/.test-dev-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'agent.ts');
    copyFileSync(join(packageDir, 'src/test-support/echo-agent.ts'), file);
    const child = spawn(
      process.execPath,
      ['--conditions=@voxwire/source', '--import', 'tsx', bin, 'dev', file, '--port', '0'],
      { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cleanup.push(() => child.kill('SIGKILL'));
    const out = watchOutput(child);
    const [, url, origin] = await out.waitFor(
      /playground for agent\.ts: ((http:\/\/127\.0\.0\.1:\d+)\/\?token=[\w-]{43})\n/u,
    );
    await out.waitFor(/Watching /u);
    // Without the secret printed in the URL, neither the page nor the socket answers.
    expect((await fetch(`${origin}/`)).status).toBe(401);
    await expect(firstNotice(`${origin}/?token=wrong`)).rejects.toThrow(/401/u);

    const first = await firstNotice(url!);
    expect(first.notice).toBe('version 1');
    writeFileSync(file, readFileSync(file, 'utf8').replace("'version 1'", "'version 2'"));
    expect(await first.ended).toEqual({
      type: 'ended',
      reason: 'the agent file changed: reloading',
      reconnect: true,
    });
    await out.waitFor(/Reloaded agent\.ts/u);
    expect((await firstNotice(url!)).notice).toBe('version 2');

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 90_000);

  it('says loudly when it listens beyond loopback, and still answers nobody without the secret', async () => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=@voxwire/source',
        '--import',
        'tsx',
        bin,
        'dev',
        join(packageDir, 'src/test-support/echo-agent.ts'),
        '--host',
        '0.0.0.0',
        '--port',
        '0',
        '--no-watch',
      ],
      { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cleanup.push(() => child.kill('SIGKILL'));
    const out = watchOutput(child);
    const [, port, token] = await out.waitFor(
      /playground for echo-agent\.ts: http:\/\/[^:]+:(\d+)\/\?token=([\w-]{43})\n/u,
    );
    expect(out.text).toMatch(/LISTENING ON 0\.0\.0\.0: OTHER MACHINES CAN REACH THIS AGENT/u);
    // The warning names the secret's role but never prints the secret itself.
    const warning = out.text.slice(0, out.text.indexOf('playground for'));
    expect(warning).not.toContain(token);
    const origin = `http://127.0.0.1:${port}`;
    expect((await fetch(`${origin}/`)).status).toBe(401);
    await expect(firstNotice(`${origin}/?token=wrong`)).rejects.toThrow(/401/u);
    expect((await firstNotice(`${origin}/?token=${token}`)).notice).toBe('version 1');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 90_000);
});
