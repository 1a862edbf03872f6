/**
 * The agent protocol's wire format: binary protobuf `livekit.WorkerMessage` (worker to server) and
 * `livekit.ServerMessage` (server to worker), as generated in `@livekit/protocol`. Kept in one place so
 * the worker and the test server decode alike, and a frame that does not decode is an error value
 * rather than a throw (LiveKit's own JS worker crashes on one).
 */
import type { PartialMessage } from '@bufbuild/protobuf';
import { JobType, ServerMessage, WorkerMessage } from '@livekit/protocol';

/** A message to send, fields given as plain objects (`{ case: 'ping', value: { timestamp } }`). */
export type WorkerMessageBody = NonNullable<PartialMessage<WorkerMessage>['message']>;
export type ServerMessageBody = NonNullable<PartialMessage<ServerMessage>['message']>;
/** A decoded message: `{ case, value }` with the generated classes, `case` undefined when empty. */
export type ReceivedServerMessage = ServerMessage['message'];
export type ReceivedWorkerMessage = WorkerMessage['message'];

/** Which jobs a worker takes: one per room, or one per publishing participant. */
export type WorkerJobType = 'room' | 'publisher' | 'participant';

export function jobTypeToProto(type: WorkerJobType): JobType {
  switch (type) {
    case 'room':
      return JobType.JT_ROOM;
    case 'publisher':
      return JobType.JT_PUBLISHER;
    case 'participant':
      return JobType.JT_PARTICIPANT;
  }
}

export function encodeWorkerMessage(message: WorkerMessageBody): Uint8Array {
  return new WorkerMessage({ message } as PartialMessage<WorkerMessage>).toBinary();
}

export function encodeServerMessage(message: ServerMessageBody): Uint8Array {
  return new ServerMessage({ message } as PartialMessage<ServerMessage>).toBinary();
}

export type Decoded<T> = { ok: true; message: T } | { ok: false; error: string };

export function decodeServerMessage(data: Uint8Array | string): Decoded<ReceivedServerMessage> {
  return decode(data, (bytes) => ServerMessage.fromBinary(bytes).message);
}

export function decodeWorkerMessage(data: Uint8Array | string): Decoded<ReceivedWorkerMessage> {
  return decode(data, (bytes) => WorkerMessage.fromBinary(bytes).message);
}

function decode<T>(data: Uint8Array | string, parse: (bytes: Uint8Array) => T): Decoded<T> {
  if (typeof data === 'string') return { ok: false, error: 'a text frame where protobuf was expected' };
  try {
    return { ok: true, message: parse(data) };
  } catch (error) {
    return {
      ok: false,
      error: `an undecodable frame (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}
