/**
 * A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests that drive the real `openai` SDK.
 * Not part of the package's build entry: tests import it by path (or through the `@voxwire/source`
 * condition of `@voxwire/plugin-openai/testing` inside this workspace).
 *
 * Each endpoint has a queue of scripted responses; every request takes the next one (or a 500 saying the
 * script ran out). A response is a status, headers and steps: write bytes, wait, stall (keep the socket
 * open and silent), or destroy the socket. Every request is recorded with its parsed body, and the server
 * notes whether the client hung up before the response was complete.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeStep =
  | { kind: 'write'; data: string | Uint8Array }
  | { kind: 'wait'; ms: number }
  /** Sends nothing more and keeps the connection open until the client gives up (as the first step: no headers). */
  | { kind: 'stall' }
  /** Kills the socket without finishing the response, like a crashed server. */
  | { kind: 'destroy' };

export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  steps: FakeStep[];
}

export type FakeHandler = (request: RecordedRequest) => FakeResponse;

export interface MultipartField {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

export interface RecordedRequest {
  method: string;
  /** Path without the query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingMessage['headers'];
  rawBody: Buffer;
  /** The JSON body, when the request sent JSON. */
  json: unknown;
  /** The form fields, when the request sent multipart/form-data. */
  fields: MultipartField[];
  /** Resolves true when the client closed the connection before the response was complete. */
  closedEarly: Promise<boolean>;
}

export interface FakeOpenAIServer {
  /** Pass as the SDK's `baseURL`: `http://127.0.0.1:<port>/v1`. */
  readonly baseURL: string;
  readonly port: number;
  readonly requests: readonly RecordedRequest[];
  /** Queues responses for a path such as `/v1/chat/completions`. */
  enqueue(path: string, ...responses: Array<FakeResponse | FakeHandler>): void;
  /** Requests served so far on a path. */
  requestsTo(path: string): RecordedRequest[];
  close(): Promise<void>;
}

export const CHAT_PATH = '/v1/chat/completions';
export const RESPONSES_PATH = '/v1/responses';
export const TRANSCRIPTIONS_PATH = '/v1/audio/transcriptions';
export const SPEECH_PATH = '/v1/audio/speech';

export async function startFakeOpenAIServer(): Promise<FakeOpenAIServer> {
  const queues = new Map<string, Array<FakeResponse | FakeHandler>>();
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void serve(req, res, queues, requests);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    enqueue(path, ...responses) {
      const queue = queues.get(path) ?? [];
      queue.push(...responses);
      queues.set(path, queue);
    },
    requestsTo(path) {
      return requests.filter((r) => r.path === path);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  queues: Map<string, Array<FakeResponse | FakeHandler>>,
  requests: RecordedRequest[],
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const rawBody = Buffer.concat(chunks);
  const contentType = req.headers['content-type'] ?? '';
  let closeEarly: (value: boolean) => void = () => {};
  const recorded: RecordedRequest = {
    method: req.method ?? 'GET',
    path: (req.url ?? '/').split('?')[0]!,
    headers: req.headers,
    rawBody,
    json: contentType.includes('application/json') ? safeJson(rawBody) : undefined,
    fields: contentType.includes('multipart/form-data') ? parseMultipart(rawBody, contentType) : [],
    closedEarly: new Promise((resolve) => {
      closeEarly = resolve;
    }),
  };
  requests.push(recorded);
  res.on('close', () => closeEarly(!res.writableFinished));

  const next = queues.get(recorded.path)?.shift();
  const response: FakeResponse = next
    ? typeof next === 'function'
      ? next(recorded)
      : next
    : jsonResponse(500, { error: { message: `fake server: no scripted response for ${recorded.path}` } });

  // Headers go out with the first write, so a response that starts with `stall` never answers at all.
  const sendHead = (): void => {
    if (res.headersSent) return;
    res.writeHead(response.status ?? 200, response.headers ?? {});
    res.flushHeaders();
  };
  for (const step of response.steps) {
    if (res.destroyed) return;
    switch (step.kind) {
      case 'write':
        sendHead();
        res.write(step.data);
        break;
      case 'wait':
        await new Promise((resolve) => setTimeout(resolve, step.ms));
        break;
      case 'stall':
        return;
      case 'destroy':
        res.destroy();
        return;
    }
  }
  sendHead();
  res.end();
}

// ---------------------------------------------------------------------------------------------------
// Response builders

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): FakeResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    steps: [{ kind: 'write', data: JSON.stringify(body) }],
  };
}

/** An OpenAI-style error body: `{ error: { message, type, code } }`. */
export function errorResponse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): FakeResponse {
  const type =
    status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_exceeded' : 'server_error';
  return jsonResponse(status, { error: { message, type, code: type } }, headers);
}

export interface SSEOptions {
  /** Ms between frames. Default 0. */
  delayMs?: number;
  /** Send `data: [DONE]` after the frames. Default true (ignored when `ending` is not `end`). */
  done?: boolean;
  /** What happens after the frames: finish normally, go silent, or kill the socket. Default `end`. */
  ending?: 'end' | 'stall' | 'destroy';
}

/**
 * A Chat Completions style event stream. Objects are sent as `data: <json>`; strings are sent verbatim as
 * the data of a frame (for malformed frames). For the Responses API use `responsesSSE`.
 */
export function sse(frames: ReadonlyArray<object | string>, options: SSEOptions = {}): FakeResponse {
  return sseFrames(
    frames.map((frame) => `data: ${typeof frame === 'string' ? frame : JSON.stringify(frame)}\n\n`),
    options,
  );
}

/** Responses API events: each is sent as `event: <type>` + `data: <json>`; no `[DONE]`. */
export function responsesSSE(events: readonly FakeEvent[], options: SSEOptions = {}): FakeResponse {
  return sseFrames(
    events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`),
    { ...options, done: false },
  );
}

function sseFrames(frames: string[], options: SSEOptions): FakeResponse {
  const steps: FakeStep[] = [];
  for (const frame of frames) {
    if (options.delayMs && steps.length > 0) steps.push({ kind: 'wait', ms: options.delayMs });
    steps.push({ kind: 'write', data: frame });
  }
  const ending = options.ending ?? 'end';
  // Lets the client read the last frame before the socket dies (a reset can discard unread data).
  if (ending === 'destroy' && options.delayMs) steps.push({ kind: 'wait', ms: options.delayMs });
  if (ending === 'end' && options.done !== false) steps.push({ kind: 'write', data: 'data: [DONE]\n\n' });
  if (ending === 'stall') steps.push({ kind: 'stall' });
  if (ending === 'destroy') steps.push({ kind: 'destroy' });
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    steps,
  };
}

/** Raw bytes in chunks of the given sizes (cycled), e.g. odd sizes to split PCM samples. */
export function chunkedBytes(
  bytes: Uint8Array,
  chunkSizes: readonly number[],
  options: { delayMs?: number; contentType?: string; ending?: 'end' | 'stall' | 'destroy' } = {},
): FakeResponse {
  const steps: FakeStep[] = [];
  let offset = 0;
  for (let i = 0; offset < bytes.length; i++) {
    const size = Math.max(1, chunkSizes[i % chunkSizes.length]!);
    if (options.delayMs && i > 0) steps.push({ kind: 'wait', ms: options.delayMs });
    steps.push({ kind: 'write', data: bytes.subarray(offset, offset + size) });
    offset += size;
  }
  if (options.ending === 'stall') steps.push({ kind: 'stall' });
  if (options.ending === 'destroy') steps.push({ kind: 'destroy' });
  return {
    status: 200,
    headers: { 'content-type': options.contentType ?? 'application/octet-stream' },
    steps,
  };
}

// ---------------------------------------------------------------------------------------------------
// Chat Completions chunk builders

let chunkSeq = 0;

function chunk(choices: object[], extra: object = {}): object {
  return {
    id: `chatcmpl-fake${++chunkSeq}`,
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fake',
    choices,
    ...extra,
  };
}

export function textChunk(text: string): object {
  return chunk([{ index: 0, delta: { content: text }, finish_reason: null }]);
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

export function toolCallChunk(...calls: ToolCallDelta[]): object {
  const toolCalls = calls.map((c) => ({
    index: c.index,
    ...(c.id ? { id: c.id, type: 'function' } : {}),
    function: { ...(c.name ? { name: c.name } : {}), arguments: c.arguments ?? '' },
  }));
  return chunk([{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: null }]);
}

export function finishChunk(reason: string): object {
  return chunk([{ index: 0, delta: {}, finish_reason: reason }]);
}

export function usageChunk(promptTokens: number, completionTokens: number, cachedTokens?: number): object {
  return chunk([], {
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      ...(cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: cachedTokens } } : {}),
    },
  });
}

/** A whole text answer: one chunk per piece, `stop`, then usage. */
export function textAnswer(
  pieces: readonly string[],
  usage = { prompt: 10, completion: pieces.length },
): object[] {
  return [...pieces.map(textChunk), finishChunk('stop'), usageChunk(usage.prompt, usage.completion)];
}

// ---------------------------------------------------------------------------------------------------
// Responses API event builders

/** A Responses API stream event: its `type` names the SSE event. */
export type FakeEvent = { type: string; [key: string]: unknown };

export function responsesTextEvents(
  pieces: readonly string[],
  usage = { input: 10, output: pieces.length },
): FakeEvent[] {
  const response = { id: 'resp_fake', object: 'response', status: 'in_progress', output: [] };
  return [
    { type: 'response.created', sequence_number: 0, response },
    {
      type: 'response.output_item.added',
      sequence_number: 1,
      output_index: 0,
      item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] },
    },
    ...pieces.map((delta, i) => ({
      type: 'response.output_text.delta',
      sequence_number: 2 + i,
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta,
    })),
    responsesCompleted(usage.input, usage.output),
  ];
}

export function responsesCompleted(inputTokens: number, outputTokens: number): FakeEvent {
  return {
    type: 'response.completed',
    sequence_number: 999,
    response: {
      id: 'resp_fake',
      object: 'response',
      status: 'completed',
      output: [],
      usage: {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        total_tokens: inputTokens + outputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------------

function safeJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function parseMultipart(body: Buffer, contentType: string): MultipartField[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) return [];
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const fields: MultipartField[] = [];
  let start = body.indexOf(delimiter);
  while (start >= 0) {
    const partStart = start + delimiter.length + 2; // skip CRLF
    const end = body.indexOf(delimiter, partStart);
    if (end < 0) break;
    const part = body.subarray(partStart, end - 2); // drop the CRLF before the delimiter
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd >= 0) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      const name = /name="([^"]*)"/i.exec(headers)?.[1];
      const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
      const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1];
      if (name !== undefined) {
        fields.push({
          name,
          data: part.subarray(headerEnd + 4),
          ...(filename !== undefined ? { filename } : {}),
          ...(type !== undefined ? { contentType: type.trim() } : {}),
        });
      }
    }
    start = end;
  }
  return fields;
}
