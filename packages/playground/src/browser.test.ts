import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@voxwire/agents';
import { SileroVAD } from '@voxwire/plugin-silero';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Playground, startPlayground } from './server.js';
import { fixtureAgent } from './test-support/fixture-agent.js';

const CHROMIUM = '/usr/bin/chromium';
const SCRIPT = fileURLToPath(new URL('../scripts/make-speech-wav.sh', import.meta.url));

function toolsPresent(): boolean {
  if (!existsSync(CHROMIUM)) return false;
  try {
    execFileSync('sh', ['-c', 'command -v espeak-ng && command -v sox'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const available = toolsPresent();
// CI installs them (.ci/run); elsewhere say what is missing rather than fail.
if (!available && !process.env.CI) {
  console.warn('chromium, espeak-ng or sox missing (apt-get install -y chromium espeak-ng sox): browser test skipped');
}

/** Long enough (about 9 s of audio at 60 ms a character) that the barge-in lands while it plays. */
const REPLY =
  'Tomorrow looks bright and mild in most places, with a light breeze in the afternoon and a ' +
  'chance of showers late in the evening, so take a light jacket.';

interface TraceEvent {
  t: number;
  kind: string;
  [key: string]: unknown;
}

describe.skipIf(!available && !process.env.CI)('playground in headless Chromium', () => {
  let dir: string;
  let vad: SileroVAD;
  let playground: Playground;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxwire-browser-'));
    const wav = join(dir, 'speech.wav');
    execFileSync('bash', [SCRIPT, wav, '48000', '1.0', '3.0'], { stdio: 'inherit' });
    vad = await SileroVAD.load({ inference: 'main-thread', minSilenceDurationMs: 350 });
    playground = await startPlayground({
      agent: fixtureAgent({ vad: () => vad, reply: REPLY }),
      title: 'browser test',
      logger: silentLogger,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${wav}%noloop`,
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await playground?.close();
    await vad?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const events = (page: Page) =>
    page.evaluate(() => (window as unknown as { voxwirePlayground: { events: TraceEvent[] } }).voxwirePlayground.events);

  async function waitFor(page: Page, description: string, predicate: string, timeout = 45_000): Promise<void> {
    try {
      await page.waitForFunction(predicate, undefined, { timeout, polling: 100 });
    } catch (error) {
      const log = (await events(page)).map((e) => `${Math.round(e.t)} ${e.kind} ${JSON.stringify(e)}`);
      throw new Error(`timed out waiting for ${description}; page events:\n${log.slice(-60).join('\n')}`, {
        cause: error,
      });
    }
  }

  it('hears the fake microphone, answers with audio, and stops at once when the user barges in', async () => {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await page.goto(playground.url);
    await expect(page.title()).resolves.toContain('Voxwire');
    // Audio may only start from a gesture: the user clicks Start.
    await page.click('#start');
    const has = (kind: string, extra = 'true') =>
      `window.voxwirePlayground.events.some((e) => e.kind === '${kind}' && (${extra}))`;

    await waitFor(page, 'the session', has('ready'));
    await waitFor(page, 'the microphone', has('mic_open'));
    await waitFor(page, 'VAD start of speech', has('user_state', "e.state === 'speaking'"));
    await waitFor(page, 'the committed user turn', has('message', "e.role === 'user'"));
    await waitFor(page, 'reply audio playing on the page', has('playback_started'));
    await waitFor(page, 'the barge-in clearing playback', has('clear'));
    await waitFor(page, 'the cut segment', has('playback_finished', 'e.interrupted'));
    await waitFor(page, 'the interrupted reply in the history', has('message', "e.role === 'assistant' && e.interrupted"));

    const log = await events(page);
    const first = (kind: string, from = 0, test: (e: TraceEvent) => boolean = () => true) =>
      log.find((e) => e.kind === kind && e.t >= from && test(e));
    const started = first('playback_started')!;
    const speakingAgain = first('user_state', started.t, (e) => e.state === 'speaking')!;
    const clear = first('clear', started.t)!;
    const cut = first('playback_finished', clear.t, (e) => e.interrupted === true)!;
    expect(speakingAgain, 'the barge-in was heard while the reply played').toBeDefined();
    // The session interrupts after minInterruptionDuration (500 ms) of speech; the page stops at once.
    expect(clear.t - speakingAgain.t).toBeLessThan(2500);
    expect(cut.t - clear.t).toBeLessThan(250);
    // The reply was cut well before its end (about 9 s long).
    expect(cut.playedMs as number).toBeGreaterThan(500);
    expect(cut.playedMs as number).toBeLessThan(8000);
    // Nothing of the cut segment plays afterwards.
    expect(log.filter((e) => e.kind === 'playback_progress' && e.t > cut.t && e.segment === cut.segment)).toEqual([]);

    const heard = await page.evaluate(
      () => (window as unknown as { voxwirePlayground: { heardLatenciesMs: number[] } }).voxwirePlayground.heardLatenciesMs,
    );
    expect(heard.length).toBeGreaterThanOrEqual(1);
    console.info(
      `browser test: end of user speech -> first reply sample on the page: ${heard[0]} ms; ` +
        `barge-in heard -> playback cleared: ${Math.round(clear.t - speakingAgain.t)} ms; clear -> stopped: ${Math.round(cut.t - clear.t)} ms`,
    );
    expect(heard[0]).toBeGreaterThan(0);
    expect(heard[0]).toBeLessThan(5000);
    expect(await page.textContent('#transcript')).toContain('s of speech)');
    expect(consoleErrors, consoleErrors.join("\n")).toEqual([]);
    await page.close();
  }, 180_000);
});
