// Loaded by job processes in tests (`jobProcesses.roomConnectorModule`): rooms are in-memory fakes.
import { realClock } from '@voxwire/agents';
import type { RoomConnection } from '../room/room-connection.js';
import { FakeRoom } from './fake-room.js';

export async function connectRoom(): Promise<RoomConnection> {
  return new FakeRoom(realClock());
}
