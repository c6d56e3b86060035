import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import BundledChromium from '@sparticuz/chromium';

/** Names a system Chromium (or Chrome) goes by on the PATH, in order of preference. */
const SYSTEM_CHROMIUM = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

export interface ChromiumExecutable {
  path: string;
  /** Where it came from, for messages: CHROMIUM_PATH, the PATH, or the npm package. */
  source: string;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(names: string[], pathVariable = ''): string | undefined {
  const dirs = pathVariable.split(delimiter).filter(Boolean);
  for (const name of names) {
    const found = dirs.map((dir) => join(dir, name)).find(executable);
    if (found) return found;
  }
  return undefined;
}

/**
 * The Chromium that browser tests drive: CHROMIUM_PATH when set (`bundled` skips the system's), else a
 * system Chromium on the PATH, else the build that @sparticuz/chromium ships inside its npm package
 * (unpacked into the temporary folder on first use), so `npm test` needs no browser installed.
 */
export async function chromiumExecutable(env: NodeJS.ProcessEnv = process.env): Promise<ChromiumExecutable> {
  const chosen = env.CHROMIUM_PATH;
  if (chosen && chosen !== 'bundled') {
    if (!executable(chosen)) throw new Error(`CHROMIUM_PATH=${chosen} is not an executable file`);
    return { path: chosen, source: 'CHROMIUM_PATH' };
  }
  const system = chosen ? undefined : onPath(SYSTEM_CHROMIUM, env.PATH);
  if (system) return { path: system, source: 'the PATH' };
  return { path: await BundledChromium.executablePath(), source: 'the npm package @sparticuz/chromium' };
}
