export { PageAudioOutput, type PageAudioOutputOptions, type PageLink } from './audio-output.js';
export { type ClientMessage, PROTOCOL_VERSION, type ServerMessage } from './protocol.js';
export { type Playground, type PlaygroundOptions, startPlayground } from './server.js';
