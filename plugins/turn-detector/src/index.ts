export { EndOfTurnModel, type EndOfTurnModelOptions } from './detector.js';
export { TurnModelError, type TurnModelErrorCode } from './errors.js';
export { DEFAULT_MODEL_PATH } from './model-loader.js';
export type { TurnModelConfig } from './model-config.js';
export { ENDPOINTING_PRESET } from './preset.js';
export { ExternalEndOfTurnModel, type ExternalEndOfTurnModelOptions } from './external-model.js';
