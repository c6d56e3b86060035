/** Copies of the Kubernetes kit for the kit's tests to change one thing in. */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `<kitRoot>/k8s` copied to `<dir>/k8s`; returns `dir`, the copy's root. */
export function copyKit(kitRoot: string, dir: string): string {
  cpSync(join(kitRoot, 'k8s'), join(dir, 'k8s'), { recursive: true });
  return dir;
}

/** Replaces text in a file of a copy; a replacement that changes nothing is a broken test, not a pass. */
export function replaceInFile(file: string, from: string | RegExp, to: string): void {
  const text = readFileSync(file, 'utf8');
  const changed = text.replace(from, to);
  if (changed === text) throw new Error(`${file}: nothing matches ${String(from)}`);
  writeFileSync(file, changed);
}
