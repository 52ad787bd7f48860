/** Debian's Chromium for the browser tests, driven by playwright-core (which downloads no browser; .ci/run installs chromium). */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export function chromiumPath(): string {
  const found = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
    (path) => path !== undefined && existsSync(path),
  );
  if (!found)
    throw new Error('The browser tests need Chromium: apt-get install -y chromium (or set CHROMIUM_PATH).');
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath() });
}
