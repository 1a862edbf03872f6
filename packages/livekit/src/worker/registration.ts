import { ParticipantPermission } from '@livekit/protocol';
import { VERSION } from '../version.js';
import type { AgentWorkerOptions } from './options.js';
import { jobTypeToProto, type WorkerMessageBody } from './protocol.js';

/** The `RegisterWorkerRequest` a worker opens every connection with. */
export function registrationMessage(
  options: Pick<
    AgentWorkerOptions,
    'jobType' | 'agentName' | 'version' | 'namespace' | 'deployment' | 'permissions'
  >,
): WorkerMessageBody {
  const p = options.permissions ?? {};
  return {
    case: 'register',
    value: {
      type: jobTypeToProto(options.jobType ?? 'room'),
      agentName: options.agentName ?? '',
      version: options.version ?? VERSION,
      // The server pings on its own schedule; this worker pings on `pingIntervalMs`.
      pingInterval: 0,
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      deployment: options.deployment ?? '',
      allowedPermissions: new ParticipantPermission({
        canPublish: p.canPublish ?? true,
        canSubscribe: p.canSubscribe ?? true,
        canPublishData: p.canPublishData ?? true,
        canUpdateMetadata: p.canUpdateMetadata ?? true,
        hidden: p.hidden ?? false,
        agent: true,
      }),
    },
  };
}
