/**
 * Node-only: the URL of a file shipped in this package (`package.json`, `spec/...`). Found through the
 * package's own name rather than a path relative to the calling module, because the bundler moves
 * modules (tsc puts this one in build/src/util/, the package ships it inside a chunk of build/dist/).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

let root: URL | undefined;

export function packageFile(path: string): URL {
  root ??= pathToFileURL(createRequire(import.meta.url).resolve('switchboard/package.json'));
  return new URL(path, root);
}
