export {
  type AgentDefinition,
  type AgentDefinitionInit,
  agentDefinitionFromModule,
  defineAgent,
  isAgentDefinition,
} from './agent-definition.js';
export {
  Job,
  type JobContext,
  type JobNotice,
  type JobOptions,
  type JobTransport,
  type NoticeLevel,
  prewarmAgent,
  type SessionIO,
} from './job-context.js';
