// What `npm start` shows of the apps' logs in development: each JSON log line (pino's, behind the app's
// `[name]` prefix) as one readable line, by pino-pretty. The apps themselves always log JSON, as in
// production; only the launcher's terminal output changes. Other lines pass through as they are.
'use strict';

const { Writable } = require('node:stream');
const { prettyFactory } = require('pino-pretty');

/** A pino line, after whatever prefix (and colour codes) the launcher put before it. */
const LOG_LINE = /^(.*?)(\{"level":\d+,.*\})$/;

/**
 * The text of a line after its time and level: a request as `GET /path → 200 in 3 ms`, anything else as
 * `Context: message`; other fields follow as JSON.
 */
function message(record) {
  if (record.req && record.res) {
    const outcome = record.msg && record.msg !== 'request completed' ? ` (${record.msg})` : '';
    return `${record.req.method} ${record.req.url} → ${record.res.statusCode} in ${record.responseTime} ms${outcome}`;
  }
  return record.context ? `${record.context}: ${record.msg ?? ''}` : (record.msg ?? '');
}

const pretty = prettyFactory({
  colorize: false,
  singleLine: true,
  translateTime: 'SYS:HH:MM:ss',
  ignore: 'pid,hostname,name,context,req,res,responseTime',
  messageFormat: message,
});

/** One line of output, readable when it is a log line, unchanged otherwise. */
function readableLine(line) {
  const match = LOG_LINE.exec(line);
  if (!match) return line;
  try {
    JSON.parse(match[2]);
  } catch {
    return line;
  }
  return match[1] + pretty(match[2]).replace(/\n$/, '');
}

/** A stream that writes what it is given to `destination`, line by line, each log line made readable. */
function readableLogs(destination = process.stdout) {
  let partial = '';
  return new Writable({
    write(chunk, _encoding, done) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop();
      if (lines.length > 0) destination.write(lines.map((line) => `${readableLine(line)}\n`).join(''));
      done();
    },
    final(done) {
      if (partial) destination.write(`${readableLine(partial)}\n`);
      done();
    },
  });
}

module.exports = { readableLine, readableLogs };
