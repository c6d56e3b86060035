import { execFileSync, spawnSync } from 'node:child_process';

/** Whether this process may create network namespaces: root on Linux with iproute2's `ip`. */
export function canCreateNetworkNamespaces(): boolean {
  return (
    process.platform === 'linux' &&
    process.getuid?.() === 0 &&
    spawnSync('ip', ['netns', 'list'], { stdio: 'ignore' }).status === 0
  );
}

/** Two network namespaces joined by a veth pair: a machine (`name`) and another one on its network (`peer`). */
export interface LinkedNamespaces {
  name: string;
  peer: string;
  /** The address of `name` on the pair, which `peer` reaches it at. */
  address: string;
  /** Deletes both namespaces (the pair goes with them); never throws. */
  remove(): void;
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/**
 * Creates `<name>` and `<name>-peer`, each with loopback up, joined by a veth pair on 10.198.0.0/30
 * (the namespaces have routing tables of their own, so the subnet collides with nothing). `name` must be
 * short enough for interface names: the pair is named after `tag`, a number under 100,000.
 */
export function linkedNamespaces(name: string, tag: number): LinkedNamespaces {
  const peer = `${name}-peer`;
  const [own, other] = [`opn${tag}a`, `opn${tag}b`];
  const namespaces = { name, peer, address: '10.198.0.1', remove: () => removeNamespaces([name, peer]) };
  try {
    ip('netns', 'add', name);
    ip('netns', 'add', peer);
    ip('link', 'add', own, 'type', 'veth', 'peer', 'name', other);
    ip('link', 'set', own, 'netns', name);
    ip('link', 'set', other, 'netns', peer);
    ip('-n', name, 'addr', 'add', `${namespaces.address}/30`, 'dev', own);
    ip('-n', peer, 'addr', 'add', '10.198.0.2/30', 'dev', other);
    for (const [namespace, link] of [
      [name, own],
      [peer, other],
    ]) {
      ip('-n', namespace, 'link', 'set', 'lo', 'up');
      ip('-n', namespace, 'link', 'set', link, 'up');
    }
  } catch (error) {
    namespaces.remove();
    throw error;
  }
  return namespaces;
}

function removeNamespaces(names: string[]): void {
  for (const name of names) spawnSync('ip', ['netns', 'delete', name], { stdio: 'ignore' });
}

/** Whether a TCP connection from `namespace` to host:port is accepted (refused: false; no answer: an error). */
export function connectsFrom(namespace: string, host: string, port: number): boolean {
  const probe = `const socket = require('net').connect(${port}, '${host}');
    socket.once('connect', () => process.exit(0));
    socket.once('error', () => process.exit(1));
    socket.setTimeout(3000, () => process.exit(2));`;
  const { status } = spawnSync('ip', ['netns', 'exec', namespace, process.execPath, '-e', probe]);
  if (status === 2) throw new Error(`${host}:${port} neither accepted nor refused a connection from ${namespace}`);
  return status === 0;
}
