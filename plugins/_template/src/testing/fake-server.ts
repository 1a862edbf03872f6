import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocketServer } from 'ws';

/**
 * A loopback fake of the whole imaginary Echo Speech API (STT over WebSocket, TTS and LLM over HTTP),
 * bound to 127.0.0.1 on a free port, so tests never reach the internet. Set `faults` before a call.
 */
export interface Faults {
  /** Cut the connection mid-stream: STT after 2 audio frames, TTS after half the audio, LLM after one event. */
  drop?: boolean;
  /** Answer with this HTTP status (STT: reject the WebSocket upgrade with it). */
  status?: number;
  /** STT: answer the first audio frame with `{"type":"error","code","message"}`. */
  errorMessage?: { code: number | string; message: string };
  /** Send a malformed frame: STT a broken JSON message, TTS a non-PCM body, LLM a broken `data:` line. */
  malformed?: boolean;
  /** Wait this long before answering (STT: before accepting the upgrade) and between chunks. */
  slowMs?: number;
}

export interface HttpRecord {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Whether the response was sent whole or the client went away first. */
  outcome: Promise<'completed' | 'aborted'>;
}

export interface SocketRecord {
  url: string;
  audio: Buffer[];
  controls: string[];
  /** The close code the server saw (1006: the client dropped the connection without a close frame). */
  closed: Promise<number>;
}

export interface FakeServer {
  /** `http://127.0.0.1:<port>`: the `baseUrl` of every provider. */
  readonly url: string;
  faults: Faults;
  readonly requests: HttpRecord[];
  readonly sockets: SocketRecord[];
  close(): Promise<void>;
}

/** Audio the fake TTS speaks: 50 ms per character of text at 24 kHz, sample `i` is `i % 1000`. */
export function fakeSpeech(text: string): Int16Array {
  return Int16Array.from({ length: text.length * 1200 }, (_, index) => index % 1000);
}

export async function startFakeServer(): Promise<FakeServer> {
  const requests: HttpRecord[] = [];
  const sockets: SocketRecord[] = [];
  const wss = new WebSocketServer({ noServer: true });
  const server = createServer(async (req, res) => {
    const faults = { ...fake.faults };
    const body = JSON.parse((await readAll(req)) || 'null');
    const outcome = new Promise<'completed' | 'aborted'>((resolve) =>
      res.on('close', () => resolve(res.writableFinished ? 'completed' : 'aborted')),
    );
    requests.push({ path: req.url ?? '', headers: req.headers, body, outcome });
    if (faults.slowMs) await sleep(faults.slowMs);
    if (faults.status) {
      res.writeHead(faults.status, { 'retry-after': '3', 'x-request-id': 'req_fake' });
      return void res.end('{"error":"fault injected"}');
    }
    let chunks: Buffer[];
    if (req.url === '/v1/speak' && !faults.malformed) {
      res.writeHead(200, { 'content-type': 'audio/pcm;rate=24000' });
      const pcm = Buffer.from(fakeSpeech(String(body.text)).buffer);
      chunks = split(pcm, 333); // odd sizes: chunks end inside samples
      if (faults.drop) chunks = chunks.slice(0, Math.floor(chunks.length / 2));
    } else if (req.url === '/v1/speak') {
      res.writeHead(200, { 'content-type': 'text/html' });
      chunks = [Buffer.from('<html>maintenance</html>')];
    } else if (req.url === '/v1/chat') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const events = chatReply(body).map((event) => `data: ${JSON.stringify(event)}\n\n`);
      if (faults.malformed) events.splice(1, 0, 'data: {"type":"text","text":\n\n');
      if (faults.drop) events.length = 1;
      chunks = split(Buffer.from(events.join('')), 7); // splits lines and UTF-8 characters
    } else {
      res.writeHead(404);
      return void res.end();
    }
    for (const chunk of chunks) {
      if (res.destroyed) return;
      await new Promise((resolve) => res.write(chunk, resolve)); // flushed, so a drop cuts after it
      if (faults.slowMs) await sleep(faults.slowMs);
    }
    if (faults.drop) res.socket?.destroy();
    else res.end();
  });

  server.on('upgrade', async (req, socket, head) => {
    socket.on('error', () => {});
    const faults = { ...fake.faults };
    if (faults.slowMs) await sleep(faults.slowMs);
    if (faults.status) return void socket.end(`HTTP/1.1 ${faults.status} Fault\r\nContent-Length: 0\r\n\r\n`);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const url = new URL(req.url ?? '/', 'ws://fake');
      const bytesPerMs = (Number(url.searchParams.get('sample_rate')) * 2) / 1000;
      const record: SocketRecord = {
        url: req.url ?? '',
        audio: [],
        controls: [],
        closed: new Promise((resolve) => ws.on('close', resolve)),
      };
      sockets.push(record);
      const send = (message: object) => ws.send(JSON.stringify(message));
      let heardMs = 0;
      ws.on('message', (data: Buffer, isBinary) => {
        if (isBinary) {
          record.audio.push(data);
          if (faults.drop && record.audio.length === 2) return ws.terminate();
          if (faults.errorMessage) return send({ type: 'error', ...faults.errorMessage });
          if (faults.malformed) return ws.send('{"type":"interim","text":');
          if (heardMs === 0) send({ type: 'speech_started' });
          heardMs += data.length / bytesPerMs;
          return send({ type: 'interim', text: `${heardMs} ms` });
        }
        const { type } = JSON.parse(data.toString());
        record.controls.push(type);
        if (heardMs > 0 && (type === 'finalize' || type === 'close')) {
          send({ type: 'final', text: `${heardMs} ms`, confidence: 0.9 });
          send({ type: 'speech_ended' });
          heardMs = 0;
        }
        if (type === 'close') ws.close(1000);
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeServer = {
    url: `http://127.0.0.1:${port}`,
    faults: {},
    requests,
    sockets,
    async close() {
      for (const ws of wss.clients) ws.terminate();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return fake;
}

/** The fake model: answers a tool result, calls the first tool, or echoes the user's last words. */
function chatReply(body: { messages: { role: string; content?: unknown }[]; tools: { name: string }[] }) {
  const last = body.messages.at(-1);
  const done = (reason: string) => ({ type: 'done', reason });
  if (last?.role === 'tool') return [{ type: 'text', text: 'It is sunny.' }, done('stop')];
  const tool = body.tools[0];
  if (tool) {
    const call = { type: 'tool_call', id: 'call_0', name: tool.name, arguments: '{"city":"Paris"}' };
    return [{ type: 'text', text: 'Let me check.' }, call, done('tool_calls')];
  }
  const parts = (last?.content ?? []) as { type: string; text?: string }[];
  const words = parts.flatMap((part) => (part.text ?? '').split(' '));
  return [...words.map((word) => ({ type: 'text', text: `${word} ` })), done('stop')];
}

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function split(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
}
