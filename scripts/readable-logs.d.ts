// Types of readable-logs.js (plain CommonJS, so that start-all.mjs loads it as is).

/** One line of output, readable when it is a pino log line, unchanged otherwise. */
export function readableLine(line: string): string;
/** A stream that writes what it is given to `destination`, line by line, each log line made readable. */
export function readableLogs(destination?: NodeJS.WritableStream): import('node:stream').Writable;
