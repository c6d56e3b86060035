/**
 * Checks of the bench's own pieces that can be wrong in silence (not part of `npm test`):
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/lib/sql-counter.test.ts
 * The last test needs the local PostgreSQL.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from 'pg';
import { PG } from './db';
import { CapturedStatement, FrontendParser, startSqlCounter } from './sql-counter';

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const cstr = (value: string) => Buffer.concat([Buffer.from(value, 'utf8'), Buffer.from([0])]);
const int16 = (value: number) => Buffer.from([(value >> 8) & 0xff, value & 0xff]);
function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}

function startup(): Buffer {
  const body = Buffer.concat([int32(196608), cstr('user'), cstr('postgres'), Buffer.from([0])]);
  return Buffer.concat([int32(body.length + 4), body]);
}

function bind(portal: string, statement: string, values: Array<string | null>): Buffer {
  const parts: Buffer[] = [cstr(portal), cstr(statement), int16(0), int16(values.length)];
  for (const value of values) {
    if (value === null) parts.push(int32(-1));
    else parts.push(int32(Buffer.byteLength(value)), Buffer.from(value));
  }
  parts.push(int16(0));
  return message('B', Buffer.concat(parts));
}

test('counts simple queries and executes, with the parsed text and bound values', () => {
  const seen: CapturedStatement[] = [];
  const parser = new FrontendParser((statement) => seen.push(statement));
  const stream = Buffer.concat([
    startup(),
    message('Q', cstr('BEGIN')),
    message('P', Buffer.concat([cstr('find'), cstr('SELECT * FROM t WHERE id = $1'), int16(0)])),
    bind('', 'find', ['42']),
    message('D', Buffer.concat([Buffer.from('P'), cstr('')])),
    message('E', Buffer.concat([cstr(''), int32(0)])),
    message('S', Buffer.alloc(0)),
    bind('', 'find', [null]),
    message('E', Buffer.concat([cstr(''), int32(0)])),
    message('S', Buffer.alloc(0)),
    message('Q', cstr('COMMIT')),
  ]);
  // Delivered in awkward pieces, as TCP may split it.
  for (let i = 0; i < stream.length; i += 7) parser.push(stream.subarray(i, i + 7));
  assert.deepEqual(seen, [
    { text: 'BEGIN', values: [] },
    { text: 'SELECT * FROM t WHERE id = $1', values: ['42'] },
    { text: 'SELECT * FROM t WHERE id = $1', values: [null] },
    { text: 'COMMIT', values: [] },
  ]);
  assert.equal(parser.parses, 1);
});

test('skips an SSL request before the startup message', () => {
  const seen: CapturedStatement[] = [];
  const parser = new FrontendParser((statement) => seen.push(statement));
  parser.push(Buffer.concat([int32(8), int32(80877103), startup(), message('Q', cstr('SELECT 1'))]));
  assert.deepEqual(seen, [{ text: 'SELECT 1', values: [] }]);
});

test('counts what node-postgres sends through the proxy to the real server', async () => {
  const counter = await startSqlCounter({ host: PG.host, port: PG.port });
  const client = new Client({ ...PG, port: counter.port, database: 'postgres' });
  await client.connect();
  try {
    counter.reset();
    await client.query('SELECT 1');
    await client.query({ name: 'two', text: 'SELECT $1::int + 1 AS n', values: [1] });
    await client.query({ name: 'two', text: 'SELECT $1::int + 1 AS n', values: [2] });
    assert.deepEqual(
      counter.statements().map((s) => s.text),
      ['SELECT 1', 'SELECT $1::int + 1 AS n', 'SELECT $1::int + 1 AS n'],
    );
    assert.deepEqual(counter.statements()[2].values, ['2']);
    assert.equal(counter.parses(), 1, 'a named statement is parsed once per connection');
  } finally {
    await client.end();
    await counter.close();
  }
});
