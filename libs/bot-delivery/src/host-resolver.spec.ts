import { createSocket, RemoteInfo, Socket } from 'node:dgram';
import { HostNotResolvedError, HostResolver } from './host-resolver';

const A = 1;
const AAAA = 28;

/** The name and type a DNS query asks about (RFC 1035 4.1.2). */
function questionOf(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at] !== 0) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('ascii'));
    at += query[at] + 1;
  }
  return { name: labels.join('.'), type: query.readUInt16BE(at + 1), end: at + 5 };
}

/** An answer holding `addresses` (each A or AAAA as `type` says), or NXDOMAIN when there are none and `missing` says so. */
function answerTo(query: Buffer, addresses: Buffer[], missing: boolean): Buffer {
  const { type, end } = questionOf(query);
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(missing ? 0x8183 : 0x8180, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((rdata) => {
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([record, rdata]);
  });
  return Buffer.concat([header, query.subarray(12, end), ...records]);
}

const ZONE: Record<string, { [A]?: Buffer[]; [AAAA]?: Buffer[] }> = {
  'both.example': {
    [A]: [Buffer.from([203, 0, 113, 5])],
    [AAAA]: [Buffer.from('20010db8000000000000000000000005', 'hex')],
  },
  'v4.example': { [A]: [Buffer.from([203, 0, 113, 6]), Buffer.from([203, 0, 113, 7])] },
  'v6.example': { [AAAA]: [Buffer.from('20010db8000000000000000000000006', 'hex')] },
};

async function udpServer(onQuery: (socket: Socket, query: Buffer, from: RemoteInfo) => void): Promise<Socket> {
  const socket = createSocket('udp4');
  socket.on('message', (query, from) => onQuery(socket, query, from));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return socket;
}

describe('HostResolver', () => {
  let silent: Socket;
  let server: string;
  let zone: Socket;
  let zoneServer: string;
  /** How many queries the silent server received, by name. */
  const asked = new Map<string, number>();

  beforeAll(async () => {
    // A DNS server that receives every query and never answers, as a broken or hostile one would.
    silent = await udpServer((_socket, query) => {
      const { name } = questionOf(query);
      asked.set(name, (asked.get(name) ?? 0) + 1);
    });
    server = `127.0.0.1:${silent.address().port}`;
    zone = await udpServer((socket, query, from) => {
      const { name, type } = questionOf(query);
      const records = ZONE[name];
      const answer = answerTo(query, records?.[type as typeof A] ?? [], records === undefined);
      socket.send(answer, from.port, from.address);
    });
    zoneServer = `127.0.0.1:${zone.address().port}`;
  });
  afterAll(() => {
    silent.close();
    zone.close();
  });

  it('security defect 1: gives up on a DNS server that never answers within its timeout', async () => {
    const resolver = new HostResolver(200, 1, [server]);
    const started = Date.now();
    await expect(resolver.resolve('hooks.example.com')).rejects.toBeInstanceOf(HostNotResolvedError);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('asks twice per address family by default, once when told', async () => {
    await new HostResolver(100, undefined, [server]).resolve('twice.example').catch(() => null);
    expect(asked.get('twice.example')).toBe(4);
    await new HostResolver(100, 1, [server]).resolve('once.example').catch(() => null);
    expect(asked.get('once.example')).toBe(2);
  });

  it('security defect 1: many hosts hanging on a silent DNS server leave the libuv thread pool free', async () => {
    const resolver = new HostResolver(2000, 1, [server]);
    const hanging = Array.from({ length: 16 }, (_, i) => resolver.resolve(`host-${i}.example.com`).catch(() => null));
    const { readFile } = await import('node:fs/promises');
    const started = Date.now();
    await readFile(__filename);
    // Were the look-ups on the thread pool, the read would wait for at least one of them to time out
    // (2 s); the bound leaves a loaded CI box room without missing that.
    expect(Date.now() - started).toBeLessThan(1000);
    await Promise.all(hanging);
  }, 15_000);

  it('gives every IPv4 and IPv6 address of a host, whichever families it has', async () => {
    const resolver = new HostResolver(1000, 1, [zoneServer]);
    await expect(resolver.resolve('both.example')).resolves.toEqual(['203.0.113.5', '2001:db8::5']);
    await expect(resolver.resolve('v4.example')).resolves.toEqual(['203.0.113.6', '203.0.113.7']);
    await expect(resolver.resolve('v6.example')).resolves.toEqual(['2001:db8::6']);
  });

  it('refuses a host without any address, naming it', async () => {
    const resolver = new HostResolver(1000, 1, [zoneServer]);
    await expect(resolver.resolve('missing.example')).rejects.toThrow(
      new HostNotResolvedError('missing.example does not resolve'),
    );
  });

  it('answers IP literals and localhost names without asking any server', async () => {
    const resolver = new HostResolver(200, 1, [server]);
    await expect(resolver.resolve('203.0.113.9')).resolves.toEqual(['203.0.113.9']);
    await expect(resolver.resolve('::1')).resolves.toEqual(['::1']);
    for (const name of ['localhost', 'LOCALHOST', 'localhost.', 'app.localhost', 'a.b.localhost.']) {
      await expect(resolver.resolve(name)).resolves.toEqual(['127.0.0.1', '::1']);
    }
  });

  it('asks DNS about names that only look like localhost', async () => {
    const resolver = new HostResolver(1000, 1, [zoneServer]);
    for (const name of ['notlocalhost', 'localhost.example', '.localhost', 'localhostx']) {
      await expect(resolver.resolve(name)).rejects.toBeInstanceOf(HostNotResolvedError);
    }
  });

  it('uses the system name servers unless given others', async () => {
    await expect(new HostResolver(200).resolve('198.51.100.1')).resolves.toEqual(['198.51.100.1']);
  });
});
