/** This package's version, reported to the LiveKit server at registration. */
export const VERSION = '0.0.0';
