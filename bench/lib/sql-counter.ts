import { createConnection, createServer, Server, Socket } from 'node:net';

/** One statement the client asked PostgreSQL to run, with the text and the parameters bound to it. */
export interface CapturedStatement {
  text: string;
  /** Text-format parameter values (null for SQL NULL or a binary-format value). */
  values: Array<string | null>;
}

/** Protocol codes of the untyped first messages (SSL and GSS encryption requests). */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/**
 * Reads the frontend side of the PostgreSQL wire protocol and reports every statement run: a simple
 * query (`Q`) or an extended-protocol execute (`E`). Parse (`P`) messages remember the text of named
 * and unnamed statements, Bind (`B`) the parameters, so each execute can be reported with both.
 * Framing: one type byte and an int32 length that counts itself; the startup message and the SSL or
 * GSS requests before it have no type byte.
 */
export class FrontendParser {
  private buffer: Buffer = Buffer.alloc(0);
  private startupDone = false;
  private readonly statements = new Map<string, string>();
  private readonly portals = new Map<string, CapturedStatement>();
  parses = 0;

  constructor(private readonly onStatement: (statement: CapturedStatement) => void) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (!this.startupDone) {
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        if (this.buffer.length < length) return;
        const code = this.buffer.readInt32BE(4);
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) this.startupDone = true;
        this.buffer = this.buffer.subarray(length);
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = this.buffer.readInt32BE(1);
      if (this.buffer.length < length + 1) return;
      this.message(String.fromCharCode(this.buffer[0]), this.buffer.subarray(5, length + 1));
      this.buffer = this.buffer.subarray(length + 1);
    }
  }

  private message(type: string, body: Buffer): void {
    if (type === 'Q') {
      this.onStatement({ text: cString(body, 0).value, values: [] });
    } else if (type === 'P') {
      this.parses++;
      const name = cString(body, 0);
      const text = cString(body, name.next);
      this.statements.set(name.value, text.value);
    } else if (type === 'B') {
      const portal = cString(body, 0);
      const statement = cString(body, portal.next);
      let offset = statement.next;
      const formatCount = body.readInt16BE(offset);
      offset += 2;
      const formats: number[] = [];
      for (let i = 0; i < formatCount; i++, offset += 2) formats.push(body.readInt16BE(offset));
      const valueCount = body.readInt16BE(offset);
      offset += 2;
      const values: Array<string | null> = [];
      for (let i = 0; i < valueCount; i++) {
        const size = body.readInt32BE(offset);
        offset += 4;
        const format = formats.length === 1 ? formats[0] : (formats[i] ?? 0);
        values.push(size < 0 || format !== 0 ? null : body.toString('utf8', offset, offset + size));
        if (size > 0) offset += size;
      }
      this.portals.set(portal.value, { text: this.statements.get(statement.value) ?? '', values });
    } else if (type === 'E') {
      const portal = cString(body, 0).value;
      this.onStatement(this.portals.get(portal) ?? { text: '', values: [] });
    }
  }
}

function cString(buffer: Buffer, start: number): { value: string; next: number } {
  const end = buffer.indexOf(0, start);
  return { value: buffer.toString('utf8', start, end), next: end + 1 };
}

export interface SqlCounter {
  port: number;
  /** Statements seen since the last reset. */
  statements(): CapturedStatement[];
  parses(): number;
  reset(): void;
  close(): Promise<void>;
}

/** A bench-only TCP proxy in front of PostgreSQL that records what its clients run. */
export async function startSqlCounter(target: { host: string; port: number }): Promise<SqlCounter> {
  let seen: CapturedStatement[] = [];
  const parsers: FrontendParser[] = [];
  let parseBase = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(target.port, target.host);
    const parser = new FrontendParser((statement) => seen.push(statement));
    parsers.push(parser);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      parser.push(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const totalParses = () => parsers.reduce((sum, parser) => sum + parser.parses, 0);
  return {
    port: (server.address() as { port: number }).port,
    statements: () => [...seen],
    parses: () => totalParses() - parseBase,
    reset() {
      seen = [];
      parseBase = totalParses();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
